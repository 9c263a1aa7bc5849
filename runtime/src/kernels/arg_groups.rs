//! The fast pass of the strided arg-reduction over many rows: rows in groups, each group's
//! extreme per lane by one max/min per element, the running best and its group updated once per
//! group, and the row found in the winning group at the end.
//!
//! The group numbers are kept in counters as wide as the lanes' keys where they fit (`u8` for
//! `i8`, `u8` and up to 256 groups; `u16` for 16-bit types), so that the compare of a chunk of
//! keys selects its counters in the same vector width, with no widening of the mask.

use super::shared::{is_float, keys_of, nan_pairs, step, take_chunk, LANES};
use crate::{Direction, Element};

/// From this many rows on, the fast pass of `arg_lanes` goes by groups; below, the second look
/// at each lane's winning group would cost more than it saves.
pub(super) const GROUPED_ROWS: usize = 128;

/// Rows per group: its extreme per lane is found with one max/min per element, and only the
/// rows of the winning group are read again.
const GROUP: usize = 8;

/// Rows per group for 1-byte keys, whose groups are cheap to read again.
const BYTE_GROUP: usize = 16;

/// Bytes of group extremes kept at once before they are merged: the stack the integer forms take
/// besides the tile's state (whose narrower counters leave 1- and 2-byte types within the tile's
/// 8 KiB all the same).
const MERGE_BYTES: usize = 2048;

/// A group number kept per lane.
trait Counter: Copy + Default {
    /// The number of groups it can count.
    const GROUPS: usize;
    /// Group `g` (less than `GROUPS`).
    fn of(g: usize) -> Self;
    /// The group number.
    fn get(self) -> usize;
}

macro_rules! counter {
    ($($t:ty),*) => {$(
        impl Counter for $t {
            const GROUPS: usize = <$t>::MAX as usize + 1;
            #[inline(always)]
            fn of(g: usize) -> Self {
                g as $t
            }
            #[inline(always)]
            fn get(self) -> usize {
                self as usize
            }
        }
    )*};
}
counter!(u8, u16, u32);

/// The grouped fast pass over the lanes `start..end` of every row of `x` (NaN-free tiles):
/// writes each lane's index into `y` (and its extreme into `v` when not empty) and returns
/// true, or returns false, `y` untouched, if it met a NaN.
#[inline(always)]
pub(super) fn arg_tile_grouped<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
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
    if const { core::mem::size_of::<T::Key>() == 1 } && rows.div_ceil(BYTE_GROUP) <= u8::GROUPS {
        return arg_tile_groups::<T, D, LAST, TILE, u8, BYTE_GROUP>(x, y, v, inner, start, end);
    }
    if const { core::mem::size_of::<T::Key>() == 2 } && rows.div_ceil(GROUP) <= u16::GROUPS {
        return arg_tile_groups::<T, D, LAST, TILE, u16, GROUP>(x, y, v, inner, start, end);
    }
    arg_tile_groups::<T, D, LAST, TILE, u32, GROUP>(x, y, v, inner, start, end)
}

/// [`arg_tile_grouped`] with group numbers in `C` (which counts every group of `x`): rows in
/// groups of [`GROUP`]; each group's extreme per lane costs one max/min per element (NaN flagged
/// on the side), and the running best (as keys) and its group are updated once per group. At
/// the end each lane reads its winning group again to find the row.
#[inline(always)]
fn arg_tile_groups<
    T: Element,
    D: Direction,
    const LAST: bool,
    const TILE: usize,
    C: Counter,
    const GROUP: usize,
>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    // Across groups: the strictly better extreme wins (the first group holding it), or with
    // `LAST` a tie too (the last group holding it).
    let choose = |b: T::Key, m: T::Key| {
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
    let mut best = [T::ZERO.key(); TILE];
    let mut group_of = [C::default(); TILE];
    let mut nans = [0u32; LANES / 2];
    let (Some(best), Some(group_of)) = (best.get_mut(..n), group_of.get_mut(..n)) else {
        return true;
    };
    let (bchunks, btail) = best.as_chunks_mut::<LANES>();
    let (gchunks, gtail) = group_of.as_chunks_mut::<LANES>();
    let tail_off = start + bchunks.len() * LANES;
    // Each group's extreme per lane, a block of lanes at a time, before it is merged.
    let mut mblock = [[T::ZERO.key(); LANES]; MERGE_BYTES / LANES];
    // Whole chunks (at least two: keys are 8 bytes or less).
    let per_block = MERGE_BYTES / LANES / core::mem::size_of::<T::Key>();
    for (g, group) in x.chunks(GROUP * inner).enumerate() {
        let gc = C::of(g);
        let blocks = bchunks
            .chunks_mut(per_block)
            .zip(gchunks.chunks_mut(per_block));
        for (k, (bblock, gblock)) in blocks.enumerate() {
            let off = start + k * per_block * LANES;
            if g == 0 {
                if !group_lanes::<T, D>(group, inner, off, bblock, &mut nans) {
                    return true;
                }
                continue;
            }
            let Some(mb) = mblock.get_mut(..bblock.len()) else {
                return true;
            };
            if !group_lanes::<T, D>(group, inner, off, mb, &mut nans) {
                return true;
            }
            // One plain loop over the block, which vectorizes: the best is one max/min step, and
            // whether the group takes over is read from it by an equality (one vector compare
            // for every type, where an ordered compare of bytes or 64-bit lanes is scalarized
            // on SSE2).
            let (bs, ms) = (bblock.as_flattened_mut(), mb.as_flattened());
            for ((b, a), &m) in bs.iter_mut().zip(gblock.as_flattened_mut()).zip(ms) {
                let nb = step::<T::Key, D>(*b, m);
                let t = if core::mem::size_of::<T::Key>() == 8 {
                    // 64-bit lanes stay scalar (`cmp` and `cmov`): the ordered compare.
                    choose(*b, m)
                } else if LAST {
                    nb == m
                } else {
                    nb != *b
                };
                *a = if t { gc } else { *a };
                *b = nb;
            }
        }
        for (k, row) in group.chunks_exact(inner).enumerate() {
            let vtail = row.get(tail_off..end).unwrap_or(&[]);
            // The tail lanes are few: row by row, keeping the group of the best.
            for ((b, a), &v) in btail.iter_mut().zip(gtail.iter_mut()).zip(vtail) {
                if v.is_nan() {
                    return false;
                }
                if (g == 0 && k == 0) || choose(*b, v.key()) {
                    *b = v.key();
                    *a = gc;
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
        let b = T::from_key(b);
        let first = g.get() * GROUP;
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
        *o = T::from_key(b);
    }
    true
}

/// The extreme per lane of a group of rows (`inner` lanes each), as keys, for the chunks of
/// lanes from `start` that `out` holds; NaN flagged in `nans`. False if a row is too short
/// (generated code never passes one). Integers and bool go by 64 bytes of lanes at a time
/// (four SSE2 registers per row, or eight scalar registers of 64-bit lanes), the lanes left
/// over by sixteen.
#[inline(always)]
fn group_lanes<T: Element, D: Direction>(
    group: &[T],
    inner: usize,
    start: usize,
    out: &mut [[T::Key; LANES]],
    nans: &mut [u32; LANES / 2],
) -> bool {
    let rows = group.len() / inner;
    let flat = out.as_flattened_mut();
    let wide = match core::mem::size_of::<T::Key>() {
        _ if is_float::<T>() || cfg!(feature = "small-code") => 0,
        1 => chunk_lanes::<T, D, 64>(group, rows, inner, start, flat, nans),
        2 => chunk_lanes::<T, D, 32>(group, rows, inner, start, flat, nans),
        8 => chunk_lanes::<T, D, 8>(group, rows, inner, start, flat, nans),
        _ => 0,
    };
    let Some(rest) = flat.get_mut(wide..) else {
        return false;
    };
    let by16 = chunk_lanes::<T, D, LANES>(group, rows, inner, start + wide, rest, nans);
    by16 == rest.len()
}

/// [`group_lanes`] for the whole chunks of `W` lanes of `out` (lanes `off..` of each of the
/// `rows` rows of `group`): returns the lanes done, fewer than the whole chunks if a row is too
/// short.
#[inline(always)]
fn chunk_lanes<T: Element, D: Direction, const W: usize>(
    group: &[T],
    rows: usize,
    inner: usize,
    off: usize,
    out: &mut [T::Key],
    nans: &mut [u32; LANES / 2],
) -> usize {
    let (chunks, _) = out.as_chunks_mut::<W>();
    for (c, mch) in chunks.iter_mut().enumerate() {
        let at = off + c * W;
        let Some(m0) = group.get(at..).and_then(|r| r.first_chunk::<W>()) else {
            return c * W;
        };
        let mut m = keys_of(m0);
        flag_nan(nans, m0);
        for k in 1..rows {
            let Some(v) = group
                .get(k * inner + at..)
                .and_then(|r| r.first_chunk::<W>())
            else {
                return c * W;
            };
            for (l, &v) in m.iter_mut().zip(v) {
                *l = step::<T::Key, D>(*l, v.key());
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
    }
    chunks.len() * W
}

/// [`nan_pairs`] over every sixteen elements of a chunk of `W`.
#[inline(always)]
fn flag_nan<T: Element, const W: usize>(nans: &mut [u32; LANES / 2], ch: &[T; W]) {
    let (subs, _) = ch.as_chunks::<LANES>();
    for sub in subs {
        nan_pairs(nans, sub);
    }
}

/// The grouped pass for floats (and for every type with `small-code`), as measured before the
/// integer forms (NaN-free tiles): rows in groups of [`GROUP`]; each
/// group's extreme per lane costs one max/min per element (NaN flagged on the side), and the
/// running best and its group are updated once per group. At the end each lane reads its
/// winning group again to find the row. Returns false, `y` untouched, if it met a NaN.
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
