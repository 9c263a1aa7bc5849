//! The fast pass of the strided arg-reduction over many rows: rows in groups, each group's
//! extreme per lane by one max/min per element, the running best and its group updated once per
//! group. Integer keys of 1, 2 and 4 bytes also keep, per lane, the row within the group where
//! its extreme is met (a compare and a select per element), so the index needs no second look;
//! 64-bit keys and floats find that row at the end, in the lane's winning group.
//!
//! The group numbers are kept in counters as wide as the lanes' keys where they fit (`u8` for
//! `i8`, `u8` and up to 256 groups; `u16` for 16-bit types), so that the compare of a chunk of
//! keys selects its counters in the same vector width, with no widening of the mask.

use super::shared::{
    far_rows, flag_nan, is_float, keys_of, nan_pairs, prefetch, step, take_chunk, AHEAD_BYTES,
    LANES,
};
use crate::{Direction, Element};

/// From this many rows on, the fast pass of `arg_lanes` goes by groups; below, the second look
/// at each lane's winning group would cost more than it saves (1- and 2-byte integers, which
/// need no second look, go by groups from two rows on: see [`takes_rows`]).
pub(super) const GROUPED_ROWS: usize = 128;

/// Rows per group: its extreme per lane is found with one max/min per element, and only the
/// rows of the winning group are read again.
const GROUP: usize = 8;

/// Rows per group for 1-byte keys (which keep their rows within groups: see [`WORD_GROUP`] for
/// the other lengths measured).
const BYTE_GROUP: usize = 16;

/// Rows per group for 1-byte keys where the group pass runs in 64-byte AVX-512 vectors
/// (`arg_groups512`): there the merge every sixteen rows was about a fifth of the time. AMD EPYC
/// (Zen 4), the benchmark matrix, `--ours`, three runs of each build in turn, groups of 16 ->
/// 64 rows: ArgMax, ArgMin, ArgMin-last and `max+argmax` of `u8` and `i8` `[1000, 2097]` along
/// axis 0 44-45 -> 37-38 us.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
const BYTE_GROUP_512: usize = 64;

/// Rows per group for 2-byte keys: each group costs a merge per lane (a block of extremes and
/// rows stored, then read with the running state), so longer groups pay fewer of them. AMD EPYC
/// (Zen 3), minimum of 300 interleaved calls, ArgMax over axis 0, groups of 8 -> 32 rows: `i16`
/// `[1000, 1048]` 77 -> 60 us, `u16` `[1000, 1048]` 80 -> 62, `[130, 8000]` 101 -> 91, `[50,
/// 5000]` 26 -> 23. Bytes keep groups of 16: 32 and 64 measured 1.05-1.4x slower for them, 8
/// too (and past 2048 rows, 256 groups of 8, their `u8` group counters would run out).
const WORD_GROUP: usize = 32;

/// Bytes of group extremes kept at once before they are merged: the stack the integer forms take
/// besides the tile's state (whose narrower counters leave 1- and 2-byte types within the tile's
/// 8 KiB all the same).
const MERGE_BYTES: usize = 2048;

mod counter;
use counter::Counter;

/// The grouped fast pass over the lanes `start..end` of every row of `x` (NaN-free tiles):
/// writes each lane's index into `y` (and its extreme into `v` when not empty) and returns
/// true, or returns false, `y` untouched, if it met a NaN.
#[inline(always)]
pub(super) fn arg_tile_grouped<
    T: Element,
    D: Direction,
    const LAST: bool,
    const TILE: usize,
    const WIDE: bool,
>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    // Branches on constants: each type's code holds only its own pass.
    if const { is_float::<T>() || cfg!(feature = "small-code") } {
        // Floats, and every type with the `small-code` feature (firmware stacks): the running
        // state merged chunk by chunk, no block of group extremes.
        return arg_tile_groups_chunked::<T, D, LAST, TILE>(x, y, v, inner, start, end);
    }
    let rows = x.len() / inner;
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    if const { core::mem::size_of::<T::Key>() == 1 }
        && (WIDE || cfg!(target_feature = "avx2"))
        && super::isa::level() >= super::isa::AVX512
        && rows.div_ceil(BYTE_GROUP_512) <= u8::GROUPS
    {
        return arg_tile_groups::<T, D, LAST, TILE, u8, BYTE_GROUP_512, WIDE>(
            x, y, v, inner, start, end,
        );
    }
    if const { core::mem::size_of::<T::Key>() == 1 } && rows.div_ceil(BYTE_GROUP) <= u8::GROUPS {
        return arg_tile_groups::<T, D, LAST, TILE, u8, BYTE_GROUP, WIDE>(
            x, y, v, inner, start, end,
        );
    }
    if const { core::mem::size_of::<T::Key>() == 2 } && rows.div_ceil(WORD_GROUP) <= u16::GROUPS {
        return arg_tile_groups::<T, D, LAST, TILE, u16, WORD_GROUP, WIDE>(
            x, y, v, inner, start, end,
        );
    }
    arg_tile_groups::<T, D, LAST, TILE, u32, GROUP, WIDE>(x, y, v, inner, start, end)
}

/// [`arg_tile_grouped`] with group numbers in `C` (which counts every group of `x`): rows in
/// groups of `GROUP` (at most 256); each group's extreme per lane and the row within the group
/// where it is first (with `LAST`, last) met are found in one pass down the group (a max/min, a
/// compare and a select per element), and the running best (as keys), its group and that row
/// are updated once per group. The index is then the group's first row plus that row: nothing
/// is read again.
#[inline(always)]
fn arg_tile_groups<
    T: Element,
    D: Direction,
    const LAST: bool,
    const TILE: usize,
    C: Counter,
    const GROUP: usize,
    const WIDE: bool,
>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    const { assert!(GROUP <= 256) };
    let Some(lanes0) = x.get(start..end) else {
        return true;
    };
    let n = lanes0.len();
    let mut best = [T::ZERO.key(); TILE];
    let mut group_of = [C::default(); TILE];
    let mut row_in = [0u8; TILE];
    let mut nans = [0u32; LANES / 2];
    let (Some(best), Some(group_of), Some(row_in)) = (
        best.get_mut(..n),
        group_of.get_mut(..n),
        row_in.get_mut(..n),
    ) else {
        return true;
    };
    let (bchunks, btail) = best.as_chunks_mut::<LANES>();
    let (gchunks, gtail) = group_of.as_chunks_mut::<LANES>();
    let (pchunks, ptail) = row_in.as_chunks_mut::<LANES>();
    let tail_len = btail.len();
    // The lanes after the whole chunks: one more chunk of sixteen that ends at the tile's last
    // lane (its first lanes read again, or lanes of the tile before), where the rows have
    // sixteen lanes; otherwise lane by lane.
    let tail_at = if tail_len > 0 {
        end.checked_sub(LANES)
    } else {
        None
    };
    let mut tail = ([T::ZERO.key(); LANES], [C::default(); LANES], [0u8; LANES]);
    // Each group's extreme and row per lane, a block of lanes at a time, before they are merged.
    let mut mblock = [[T::ZERO.key(); LANES]; MERGE_BYTES / LANES];
    let mut rblock = [[0u8; LANES]; MERGE_BYTES / LANES];
    // Whole chunks (at least two: keys are 8 bytes or less).
    let per_block = MERGE_BYTES / LANES / core::mem::size_of::<T::Key>();
    for (g, group) in x.chunks(GROUP * inner).enumerate() {
        let gc = C::of(g);
        let blocks = bchunks
            .chunks_mut(per_block)
            .zip(gchunks.chunks_mut(per_block))
            .zip(pchunks.chunks_mut(per_block));
        for (k, ((bblock, gblock), pblock)) in blocks.enumerate() {
            let off = start + k * per_block * LANES;
            if g == 0 {
                if !group_lanes::<T, D, LAST, WIDE>(group, inner, off, bblock, pblock, &mut nans) {
                    return true;
                }
                continue;
            }
            let (Some(mb), Some(rb)) = (
                mblock.get_mut(..bblock.len()),
                rblock.get_mut(..bblock.len()),
            ) else {
                return true;
            };
            if !group_lanes::<T, D, LAST, WIDE>(group, inner, off, mb, rb, &mut nans) {
                return true;
            }
            merge::<T, D, LAST, C>(bblock, gblock, pblock, mb, rb, gc);
        }
        if let Some(at) = tail_at {
            let (mut m, mut r) = ([[T::ZERO.key(); LANES]; 1], [[0u8; LANES]; 1]);
            if !group_lanes::<T, D, LAST, WIDE>(group, inner, at, &mut m, &mut r, &mut nans) {
                return true;
            }
            if g == 0 {
                (tail.0, tail.2) = (m[0], r[0]);
            } else {
                let (tb, ta, tp) = (&mut tail.0, &mut tail.1, &mut tail.2);
                let (tb, ta, tp) = (
                    core::slice::from_mut(tb),
                    core::slice::from_mut(ta),
                    core::slice::from_mut(tp),
                );
                merge::<T, D, LAST, C>(tb, ta, tp, &m, &r, gc);
            }
            continue;
        }
        let tail_off = end - tail_len;
        for (k, row) in group.chunks_exact(inner).enumerate() {
            let vtail = row.get(tail_off..end).unwrap_or(&[]);
            // Fewer than sixteen lanes in all: row by row, keeping the group and row of the best.
            let state = btail.iter_mut().zip(gtail.iter_mut()).zip(ptail.iter_mut());
            for (((b, a), p), &v) in state.zip(vtail) {
                if (g == 0 && k == 0) || choose::<T::Key, D, LAST>(*b, v.key()) {
                    *b = v.key();
                    *a = gc;
                    *p = k as u8;
                }
            }
        }
    }
    if nans.iter().fold(0, |a, &n| a | n) != 0 {
        return false;
    }
    // The tail chunk's last lanes are the tile's.
    if tail_at.is_some() {
        let from = LANES - tail_len;
        let lanes = btail.iter_mut().zip(gtail.iter_mut()).zip(ptail.iter_mut());
        for (k, ((b, a), p)) in lanes.enumerate() {
            (*b, *a, *p) = (tail.0[from + k], tail.1[from + k], tail.2[from + k]);
        }
    }
    let rows = x.len() / inner;
    for (j, (o, ((&g, &p), &b))) in y
        .iter_mut()
        .zip(group_of.iter().zip(row_in.iter()).zip(best.iter()))
        .enumerate()
    {
        let first = g.get() * GROUP;
        if const { tracks_rows::<T>() } {
            *o = (first + usize::from(p)) as i64;
            continue;
        }
        // The row of the lane's extreme within its winning group: the first (last) equal one.
        let last = rows.min(first + GROUP);
        let equal = |r: &usize| x.get(r * inner + start + j).is_some_and(|&v| v.key() == b);
        let found = if LAST {
            (first..last).rev().find(equal)
        } else {
            (first..last).find(equal)
        };
        *o = found.unwrap_or(first) as i64;
    }
    for (o, &b) in v.iter_mut().zip(best.iter()) {
        *o = T::from_key(b);
    }
    true
}

/// Whether the grouped pass keeps, per lane, the row within its group where the group's
/// extreme is met (a compare and a select per element, in vectors as wide as the keys), so that
/// nothing is read again at the end. 64-bit keys, whose lanes stay scalar, find that row at the
/// end instead, by reading each lane's winning group again: measured faster for them (ArgMax of
/// `i64` `[1000, 262]` over axis 0: 72-77 us that way, 92-134 us keeping rows), where bytes
/// gained most from keeping them (`u8` `[200, 5000]`: 122-131 us -> 31-51 us).
const fn tracks_rows<T: Element>() -> bool {
    core::mem::size_of::<T::Key>() != 8
}

/// Whether [`arg_tile_grouped`] takes blocks of `rows` rows of `T`: from [`GROUPED_ROWS`] rows
/// on, and for 1- and 2-byte integer keys (which keep their rows: nothing read again at the end)
/// from two rows on, where the per-element pass that keeps a `u32` row per lane widens every
/// compare of them. Harness (AMD EPYC, Zen 3), ArgMax over axis 0, that pass -> this one: `u8`
/// `[100, 2097]` 22.5 -> 6.7 us, `[20, 10000]` 22.2 -> 7.8, `i8` `[50, 4000]` 20.3 -> 6.7,
/// `i16` `[50, 2000]` 12.5 -> 7.9, `u16` `[20, 5000]` 13.6 -> 8.9; 4-byte keys lose
/// (`i32` `[40, 1000]` 3.6 -> 6.8 us: their row counters are as wide as they are).
pub(super) const fn takes_rows<T: Element>(rows: usize) -> bool {
    rows >= GROUPED_ROWS
        || (rows >= 2
            && !is_float::<T>()
            && !cfg!(feature = "small-code")
            && core::mem::size_of::<T::Key>() <= 2)
}

/// Whether `m`, met after `b`, takes the lane: strictly more extreme (the first extreme wins),
/// or with `LAST` at least as extreme (the last wins).
#[inline(always)]
fn choose<K: Element, D: Direction, const LAST: bool>(b: K, m: K) -> bool {
    if LAST {
        !D::better(b, m)
    } else {
        D::better(m, b)
    }
}

/// Merges a group's extremes `m` (and their rows within the group, `r`) into the running best
/// `b`, its group `a` and row `p`: the group takes a lane as [`choose`] says.
#[inline(always)]
fn merge<T: Element, D: Direction, const LAST: bool, C: Counter>(
    b: &mut [[T::Key; LANES]],
    a: &mut [[C; LANES]],
    p: &mut [[u8; LANES]],
    m: &[[T::Key; LANES]],
    r: &[[u8; LANES]],
    gc: C,
) {
    let n = b.len().min(a.len()).min(p.len()).min(m.len()).min(r.len()) * LANES;
    let (Some(b), Some(a), Some(p), Some(m), Some(r)) = (
        b.as_flattened_mut().get_mut(..n),
        a.as_flattened_mut().get_mut(..n),
        p.as_flattened_mut().get_mut(..n),
        m.as_flattened().get(..n),
        r.as_flattened().get(..n),
    ) else {
        return;
    };
    // One plain loop over equal lengths, which vectorizes: the best is one max/min step, and
    // whether the group takes over is read from it by an equality (one vector compare for
    // every type, where an ordered compare of bytes or 64-bit lanes is scalarized on SSE2).
    for i in 0..n {
        let nb = step::<T::Key, D>(b[i], m[i]);
        let t = if core::mem::size_of::<T::Key>() == 8 {
            // 64-bit lanes stay scalar (`cmp` and `cmov`): the ordered compare.
            choose::<T::Key, D, LAST>(b[i], m[i])
        } else if LAST {
            nb == m[i]
        } else {
            nb != b[i]
        };
        a[i] = C::pick(t, gc, a[i]);
        p[i] = u8::pick(t, r[i], p[i]);
        b[i] = nb;
    }
}

/// The extreme per lane of a group of rows (`inner` lanes each), as keys, and the row within
/// the group where it is first (with `LAST`, last) met, for the chunks of lanes from `start`
/// that `out` and `rows_at` hold; NaN flagged in `nans`. False if a row is too short (generated
/// code never passes one). Integers and bool go by 64 bytes of lanes at a time (four SSE2
/// registers per row, or eight scalar registers of 64-bit lanes), the lanes left over by
/// sixteen. With `WIDE` (the AVX2 twins, whose registers are twice as wide) 1- and 4-byte keys go
/// by 128 bytes: four 32-byte registers of keys and four of rows, where each row's bounds check,
/// row broadcast and loop step were a third of the loop's instructions at 64 bytes. AMD EPYC
/// (Zen 3), minimum of 300 interleaved calls, ArgMax over axis 0, 64 -> 128 bytes: `u8`
/// `[200, 5000]` 48 -> 41 us, `[3000, 300]` 49 -> 39, `[1000, 2097]` 107 -> 96, `i32`
/// `[1000, 524]` 100 -> 86, `[200, 2600]` 103 -> 90. 2-byte keys keep 64 bytes (128 measured
/// 1.15-1.3x slower for them, with their groups of 32 rows). 64-bit keys go by sixteen lanes in
/// the twins (AVX2 has their compare; figures at `arg_lanes_narrow_wide`), else by eight scalar.
///
/// With `WIDE` (or a build for AVX2), 1- and 2-byte integer keys and bool take the hand-written
/// AVX2 pass instead ([`super::arg_groups_avx2::group_keys`]: three instructions per 32 bytes of a row, where the loop
/// above compiles to five and more). AMD EPYC (Zen 3), the benchmark matrix (median of three
/// runs of each cell, ArgMax over axis 0), before -> after: `u8` `[1000, 2097]` 115-120 ->
/// 60-70 us, `i16` `[1000, 1048]` 128-134 -> 55-75 us; the `A/B` harness (minimum of 60
/// interleaved batches) 0.75-0.92x of the time for `u8`, `i16` and `u16` over 50 to 3000 rows.
#[inline(always)]
fn group_lanes<T: Element, D: Direction, const LAST: bool, const WIDE: bool>(
    group: &[T],
    inner: usize,
    start: usize,
    out: &mut [[T::Key; LANES]],
    rows_at: &mut [[u8; LANES]],
    nans: &mut [u32; LANES / 2],
) -> bool {
    let (flat, rflat) = (out.as_flattened_mut(), rows_at.as_flattened_mut());
    // Rows counted in lanes as wide as the keys (the compare selects them in that width); `if
    // const`, not a `match`, so that each type instantiates only its key width's passes.
    let wide = 'wide: {
        if const { is_float::<T>() || cfg!(feature = "small-code") } {
            break 'wide 0;
        }
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "sse2",
            not(feature = "small-code")
        ))]
        if const { size_of::<T::Key>() <= 2 } && (WIDE || cfg!(target_feature = "avx2")) {
            // SAFETY: `WIDE` is only passed by the AVX2 twins, which run where the CPU has AVX2.
            break 'wide unsafe {
                super::arg_groups_avx2::group_keys::<T, D, LAST>(group, inner, start, flat, rflat)
            };
        }
        if const { size_of::<T::Key>() == 1 } {
            if WIDE {
                chunk_lanes::<T, D, LAST, u8, 128>(group, inner, start, flat, rflat, nans)
            } else {
                chunk_lanes::<T, D, LAST, u8, 64>(group, inner, start, flat, rflat, nans)
            }
        } else if const { size_of::<T::Key>() == 2 } {
            chunk_lanes::<T, D, LAST, u16, 32>(group, inner, start, flat, rflat, nans)
        } else if const { size_of::<T::Key>() == 4 } && WIDE {
            chunk_lanes::<T, D, LAST, u32, 32>(group, inner, start, flat, rflat, nans)
        } else if const { size_of::<T::Key>() == 8 } && WIDE {
            chunk_lanes::<T, D, LAST, u32, 16>(group, inner, start, flat, rflat, nans)
        } else if const { size_of::<T::Key>() == 8 } {
            chunk_lanes::<T, D, LAST, u32, 8>(group, inner, start, flat, rflat, nans)
        } else {
            0
        }
    };
    let (Some(rest), Some(rrest)) = (flat.get_mut(wide..), rflat.get_mut(wide..)) else {
        return false;
    };
    let at = start + wide;
    let by16 = if const { size_of::<T::Key>() == 1 } {
        chunk_lanes::<T, D, LAST, u8, LANES>(group, inner, at, rest, rrest, nans)
    } else if const { size_of::<T::Key>() == 2 } {
        chunk_lanes::<T, D, LAST, u16, LANES>(group, inner, at, rest, rrest, nans)
    } else {
        chunk_lanes::<T, D, LAST, u32, LANES>(group, inner, at, rest, rrest, nans)
    };
    by16 == rest.len()
}

/// [`group_lanes`] for the whole chunks of `W` lanes of `out` (lanes `off..` of each row of
/// `group`), the rows counted in `P`: returns the lanes done, fewer than the
/// whole chunks if a row is too short.
#[inline(always)]
fn chunk_lanes<T: Element, D: Direction, const LAST: bool, P: Counter, const W: usize>(
    group: &[T],
    inner: usize,
    off: usize,
    out: &mut [T::Key],
    rows_at: &mut [u8],
    nans: &mut [u32; LANES / 2],
) -> usize {
    let (chunks, _) = out.as_chunks_mut::<W>();
    let (rchunks, _) = rows_at.as_chunks_mut::<W>();
    for (c, (mch, rch)) in chunks.iter_mut().zip(rchunks).enumerate() {
        let at = off + c * W;
        let Some(m0) = group.get(at..).and_then(|r| r.first_chunk::<W>()) else {
            return c * W;
        };
        let mut m = keys_of(m0);
        let mut p = [P::default(); W];
        flag_nan(nans, m0);
        for k in 1..group.len() / inner {
            let Some(v) = group
                .get(k * inner + at..)
                .and_then(|r| r.first_chunk::<W>())
            else {
                return c * W;
            };
            if const { tracks_rows::<T>() } {
                let kp = P::of(k);
                for ((l, q), &v) in m.iter_mut().zip(p.iter_mut()).zip(v) {
                    let key = v.key();
                    let n = step::<T::Key, D>(*l, key);
                    // The row takes the lane where it is the new extreme (with `LAST`, equal
                    // to it).
                    let took = if LAST { n == key } else { n != *l };
                    *q = P::pick(took, kp, *q);
                    *l = n;
                }
            } else {
                for (l, &v) in m.iter_mut().zip(v) {
                    *l = step::<T::Key, D>(*l, v.key());
                }
            }
            flag_nan(nans, v);
        }
        if W == 8 {
            // 64-bit lanes: stored one by one through an opaque value, which keeps them scalar
            // (see `reduce_lanes_rows`).
            for (o, &l) in mch.iter_mut().zip(&m) {
                *o = core::hint::black_box(l);
            }
        } else {
            *mch = m;
        }
        for (o, &q) in rch.iter_mut().zip(&p) {
            *o = q.get() as u8;
        }
    }
    chunks.len() * W
}

/// The grouped pass for floats (and every type with `small-code`; NaN-free tiles): rows in groups
/// of [`GROUP`], each group's extreme per lane by one max/min per element (NaN flagged aside, a
/// prefetch 1 KiB ahead a row), the running best and its group updated once per group; then each
/// lane reads its winning group again for the row. False, `y` untouched, if it met a NaN.
#[inline(always)]
fn arg_tile_groups_chunked<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    // Across groups: the strictly better extreme wins (the first group holding it), or with
    // `LAST` a tie too (the last group holding it).
    let choose = |b: T, m: T| {
        if LAST {
            !D::better(b, m)
        } else {
            D::better(m, b)
        }
    };
    let rows = x.len() / inner;
    let Some(lanes0) = x.get(start..end) else {
        return true;
    };
    let n = lanes0.len();
    let mut best = [T::ZERO; TILE];
    let mut group_of = [0u32; TILE];
    let mut nans = [0u32; LANES / 2];
    let (Some(best), Some(group_of)) = (best.get_mut(..n), group_of.get_mut(..n)) else {
        return true;
    };
    let (bchunks, btail) = best.as_chunks_mut::<LANES>();
    let (gchunks, gtail) = group_of.as_chunks_mut::<LANES>();
    let tail_off = start + bchunks.len() * LANES;
    let far = far_rows::<T>(inner);
    for (g, group) in x.chunks(GROUP * inner).enumerate() {
        let g32 = g as u32;
        for (c, (bch, gch)) in bchunks.iter_mut().zip(gchunks.iter_mut()).enumerate() {
            let off = start + c * LANES;
            let mut rows_of = group.chunks_exact(inner);
            let Some(m0) = rows_of
                .next()
                .and_then(|r| r.get(off..))
                .and_then(|r| r.first_chunk::<LANES>())
            else {
                return true;
            };
            let mut m = *m0;
            nan_pairs(&mut nans, &m);
            for row in rows_of {
                let Some(v) = row.get(off..).and_then(|r| r.first_chunk::<LANES>()) else {
                    return true;
                };
                prefetch(v.as_ptr().wrapping_add(AHEAD_BYTES / size_of::<T>()), far);
                take_chunk::<T, D>(&mut m, v, &mut nans);
            }
            if g == 0 {
                *bch = m;
                continue;
            }
            // Selects on local copies: a select stored into place would become a branch per lane.
            let (mut b, mut a) = (*bch, *gch);
            for ((b, a), &m) in b.iter_mut().zip(a.iter_mut()).zip(&m) {
                let t = choose(*b, m);
                *b = if t { m } else { *b };
                *a = if t { g32 } else { *a };
            }
            *bch = b;
            *gch = a;
        }
        for (k, row) in group.chunks_exact(inner).enumerate() {
            let vtail = row.get(tail_off..end).unwrap_or(&[]);
            // The tail lanes are few: row by row, keeping the group of the best.
            for ((b, a), &v) in btail.iter_mut().zip(gtail.iter_mut()).zip(vtail) {
                if v.is_nan() {
                    return false;
                }
                if (g == 0 && k == 0) || choose(*b, v) {
                    *b = v;
                    *a = g32;
                }
            }
        }
    }
    if nans.iter().fold(0, |a, &n| a | n) != 0 {
        return false;
    }
    // The row of each lane's extreme within its winning group: the first (last) equal one.
    for (j, (o, (&b, &g))) in y
        .iter_mut()
        .zip(best.iter().zip(group_of.iter()))
        .enumerate()
    {
        let first = g as usize * GROUP;
        let last = rows.min(first + GROUP);
        let equal = |r: &usize| {
            x.get(r * inner + start + j)
                .is_some_and(|&v| !D::better(v, b) && !D::better(b, v))
        };
        let found = if LAST {
            (first..last).rev().find(equal)
        } else {
            (first..last).find(equal)
        };
        *o = found.unwrap_or(first) as i64;
    }
    for (o, &b) in v.iter_mut().zip(best.iter()) {
        *o = b;
    }
    true
}
