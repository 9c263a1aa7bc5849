//! The strided arg-reduction (ArgMax, ArgMin along an outer axis): [`arg_lanes`] takes tiles
//! of lanes down the rows, sized by [`arg_tile`].

use super::arg_groups::{arg_tile_grouped, takes_rows};
use super::half_lanes::{arg_tile_half, Out};
use super::half_rows::{inf_of, keyed};
use super::shared::{find_first, take, LANES, ROW_GROUP};
use crate::{Direction, Element};

/// The stack the running state of [`arg_lanes`] may take: 8 KiB, or 256 bytes with the
/// `small-code` feature (firmware stacks: the whole kernel stays within 1 KiB).
pub(super) const TILE_BYTES: usize = if cfg!(feature = "small-code") {
    256
} else {
    8192
};

/// Blocks of fewer rows keep the SSE2 pass, inlined: the AVX2 one is a call per block (blocks of
/// two rows of sixteen lanes ran 3x slower through it; most blocks of two rows take
/// `arg_two_rows` anyway). It was eight rows: blocks of three to seven went by the SSE2 pass,
/// 1.4-6x slower than through the AVX2 one (2 MiB of `f32`, Intel Xeon, family 6 model 167,
/// ArgMax over axis 0 of `[7, 74898]` 160-167 -> 89-92 us, `[3, 174762]` 206 -> 144-155 us,
/// over axis 1 of `[1310, 4, 100]` 254-291 -> 114-122 us; with [`arg_blocks_f32`]).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const AVX2_ROWS: usize = 3;

/// The fewest lanes a tile of fewer than [`AVX2_FEW_ROWS`] rows must have to take the AVX2
/// pass: blocks of three rows of sixteen lanes ran faster by the SSE2 pass inlined (the
/// benchmark matrix, ArgMax over axis 1 of `[10922, 3, 16]`: 2.2-2.5x of the stream there,
/// 3.4-4.7x through the AVX2 pass; `max+argmax` 2.4-3.3x and 6.9-7.9x).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const AVX2_FEW_LANES: usize = 64;

/// See [`AVX2_FEW_LANES`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const AVX2_FEW_ROWS: usize = 4;

/// Whether the AVX2 pass takes `rows` rows of `lanes` lanes (the other conditions apart).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
const fn avx2_takes(rows: usize, lanes: usize) -> bool {
    rows >= AVX2_ROWS && (rows >= AVX2_FEW_ROWS || lanes >= AVX2_FEW_LANES)
}

/// The largest tile of lanes [`arg_lanes`] takes at once: its running state (one element and one
/// `u32` row number per lane) lives on the stack and stays within 8 KiB (256 bytes with the
/// `small-code` feature). Over 128 rows and more, integers (without `small-code`) also keep up to
/// 2 KiB of group extremes before they merge them.
pub const fn arg_tile(inner: usize, elem_size: usize) -> usize {
    let cap = (TILE_BYTES / (elem_size + 4)) / LANES * LANES;
    let want = inner.div_ceil(LANES) * LANES;
    if want < cap {
        want
    } else {
        cap
    }
}

/// Arg-reduction of a block of rows of `inner` lanes (`x.len() / inner` rows) into `y`
/// (`inner` indices), `TILE` lanes at a time (see [`arg_tile`], which the generator uses).
///
/// Rows are read in order; each tile's running best and row number are updated with one
/// compare and two selects per element, on local copies of sixteen lanes so that the selects
/// stay vector selects. NaN is only flagged in that pass; a tile that holds one is done again
/// with the exact rule (a NaN beats everything, the first or last NaN wins).
#[inline]
pub fn arg_lanes<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    inner: usize,
) {
    arg_lanes_values::<T, D, LAST, TILE>(x, y, &mut [], inner);
}

/// [`arg_lanes`] that also writes each lane's extreme into `v` (when `v` is not empty): the
/// ReduceMax (ReduceMin) of the same lanes, NaN-propagating, in the same pass.
///
/// ```
/// use onnx_aot::{kernels::arg_lanes_values, Max};
/// // Three rows of two lanes.
/// let (mut y, mut v) = ([0i64; 2], [0f32; 2]);
/// arg_lanes_values::<f32, Max, false, 16>(&[1.0, 5.0, 4.0, f32::NAN, 4.0, 2.0], &mut y, &mut v, 2);
/// assert_eq!((y, v[0]), ([1, 1], 4.0));
/// assert!(v[1].is_nan());
/// ```
#[inline]
pub fn arg_lanes_values<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) {
    arg_lanes_inlined::<T, D, LAST, TILE>(x, y, v, inner);
}

/// Lanes from which blocks of two rows take [`arg_two_rows`] (`f32` with AVX2: from eight).
#[cfg_attr(debug_assertions, allow(dead_code))]
pub(crate) const TWO_ROWS_LANES: usize = 64;

/// The arg-reduction of blocks of two rows of `inner` lanes: each lane's index is one
/// comparison, no running state to carry; with `v` not empty, each lane's element there too
/// (the fused ReduceMax or ReduceMin). ArgMax `[2, 262144]` 207 -> 148 us against the tiles;
/// blocks of a few lanes (`[16384, 2, 16]`) measured 3-10% slower this way and keep the tiles
/// (the shims take it from [`TWO_ROWS_LANES`]). `f32` where the CPU has AVX2 goes eight lanes
/// per compare, and only it takes the fused values (`max+argmax`) this way
/// ([`two_rows_f32_fit`](super::two_rows_f32_fit)): AMD EPYC (Zen 3), min of nine interleaved
/// runs, `max+argmax` `[2, 262144]` 246 -> 127 us, ArgMax there within the host's noise (109 ->
/// 103); over `[16384, 2, 16]` it measured 1.2-1.9x slower than the tiles, which the shims'
/// AVX2 twins vectorize. Since that kernel walks its rows by chunk iterators (it checked three
/// indices every eight lanes), it takes `f32` blocks of eight lanes or more, fused values or
/// not: same host, min of five interleaved runs, ArgMax `[2, 262144]` 92 -> 59 us, ArgMin-last
/// 142 -> 70, `max+argmax` 180 -> 88; ArgMin `[16384, 2, 16]` 88 -> 60, ArgMax 87 -> 71.
/// Blocks of 8 to 32 lanes (a multiple of eight) then went to a loop with the width a constant:
/// `[16384, 2, 16]` medians of five interleaved runs ArgMax 87 -> 74, ArgMin-last 81 -> 72,
/// `max+argmax` 116 -> 93.
#[cfg_attr(debug_assertions, allow(dead_code))]
#[inline(always)]
pub(crate) fn arg_two_rows<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) {
    if inner == 0 {
        return;
    }
    if super::two_rows_f32::<T, D, LAST>(x, y, v, inner) {
        return;
    }
    let values = !v.is_empty();
    let mut vs = v.chunks_exact_mut(inner);
    for (x, y) in x.chunks_exact(2 * inner).zip(y.chunks_exact_mut(inner)) {
        let (a, b) = x.split_at(inner);
        let mut v = if values {
            vs.next().unwrap_or(&mut [])
        } else {
            &mut []
        }
        .iter_mut();
        for ((o, &a), &b) in y.iter_mut().zip(a).zip(b) {
            let second = take::<T, D, LAST>(a, b);
            *o = i64::from(second);
            if let Some(slot) = v.next() {
                *slot = if second { b } else { a };
            }
        }
    }
}

/// [`arg_lanes_values`] always inlined: the node shims call it for blocks of few rows, where a
/// call per block that LLVM left out of line (keeping the lane count a run-time value) runs 4-5x
/// slower (ArgMax `[16384, 2, 16]` over axis 1: 307 us, against 59 us for the ArgMin it
/// happened to inline). Blocks of many rows keep the call: inlined there, ArgMax `[409, 80, 16]`
/// took 166 us instead of 116.
#[inline(always)]
pub(crate) fn arg_lanes_inlined<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) {
    arg_lanes_in::<T, D, LAST, TILE, false>(x, y, v, inner);
}

/// [`arg_lanes_inlined`] for the AVX2 twins of the node shims (`node/wide.rs`): the same code,
/// but the grouped pass of 1- and 4-byte integer keys takes twice as many lanes per chunk
/// (four 32-byte registers of keys and four of rows, where the SSE2 build has sixteen 16-byte
/// registers in all and keeps the narrower chunk); figures at `group_lanes` in `arg_groups`.
#[inline(always)]
#[cfg_attr(
    not(all(
        target_arch = "x86_64",
        not(target_feature = "avx2"),
        not(feature = "small-code"),
        not(debug_assertions)
    )),
    allow(dead_code)
)]
pub(crate) fn arg_lanes_wide<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) {
    arg_lanes_in::<T, D, LAST, TILE, true>(x, y, v, inner);
}

/// The body of [`arg_lanes_inlined`] and [`arg_lanes_wide`]: `WIDE` in the AVX2 twins.
#[inline(always)]
fn arg_lanes_in<T: Element, D: Direction, const LAST: bool, const TILE: usize, const WIDE: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) {
    if inner == 0 {
        return;
    }
    if TILE == 0 || x.len() / inner > u32::MAX as usize {
        // More rows than the compact row counters hold: one lane at a time.
        lane_by_lane::<T, D, LAST>(x, y, v, inner);
        return;
    }
    // Whole rows only (generated code always passes them).
    let x = x.get(..x.len() / inner * inner).unwrap_or(&[]);
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    if super::arg_lanes_small_avx2::arg_blocks::<T, D, LAST>(x, y, v, x.len() / inner, inner) {
        return;
    }
    arg_lanes_tiles::<T, D, LAST, TILE, WIDE>(x, y, v, inner);
}

/// Each of the `y.len()` lanes of `x` (rows of `inner`) one at a time by the contract's rule
/// (NaN wins): its row into `y` and, when `v` is not empty, its element into `v`.
#[inline(never)]
pub(super) fn lane_by_lane<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) {
    for (j, o) in y.iter_mut().enumerate() {
        let mut lane = x.iter().skip(j).step_by(inner);
        let Some(&first) = lane.next() else { return };
        let (mut best, mut idx) = (first, 0usize);
        for (r, &e) in lane.enumerate() {
            if take::<T, D, LAST>(best, e) {
                best = e;
                idx = r + 1;
            }
        }
        *o = idx as i64;
        if let Some(b) = v.get_mut(j) {
            *b = best;
        }
    }
}

/// The portable passes of [`arg_lanes_in`] over whole rows of `inner` (at most `u32::MAX`),
/// `TILE` lanes at a time.
#[inline(always)]
pub(super) fn arg_lanes_tiles<
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
) {
    for (t, ytile) in y.chunks_mut(TILE).enumerate() {
        let start = t * TILE;
        let end = start + ytile.len();
        let vtile = v.get_mut(start..end).unwrap_or(&mut []);
        // With `small-code`, the exact pass alone: one tile of state on the stack, not two.
        if cfg!(feature = "small-code")
            || !arg_tile_pass::<T, D, LAST, TILE, false, WIDE>(x, ytile, vtile, inner, start, end)
        {
            arg_tile_pass::<T, D, LAST, TILE, true, WIDE>(x, ytile, vtile, inner, start, end);
        }
    }
}

/// The strided arg-reduction of `f32` over `x.len() / (r · inner)` blocks of `r` rows of
/// `inner` lanes (those `avx2_takes`, from sixteen lanes to `TILE`) by the AVX2 pass,
/// every block in one call, where the CPU has it: `false` (nothing written) where it does not
/// take them. A block with a NaN takes the exact pass. Block by block, each through the tile
/// loop of [`arg_lanes_in`], blocks of a few rows of a few tens of lanes cost more in the calls,
/// checks and set-up than in their elements (2 MiB, Intel Xeon, family 6 model 167, ArgMax over
/// axis 1 of `[3640, 6, 24]` 785-840 -> 125-135 us, `[4681, 7, 16]` 219-221 -> 120-136 us).
#[inline(always)]
#[cfg_attr(debug_assertions, allow(dead_code))]
pub(crate) fn arg_blocks_f32<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    inner: usize,
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use super::arg_lanes_avx2::{arg_blocks, LANES as AVX2_LANES};
        if cfg!(feature = "small-code")
            || !matches!(T::DTYPE, crate::DType::F32)
            || !avx2_takes(r, inner)
            || r > u32::MAX as usize
            || !(AVX2_LANES..=TILE).contains(&inner)
            || !super::rows_f32::avx2::available()
        {
            return false;
        }
        let block = r * inner;
        let blocks = (x.len() / block).min(y.len() / inner);
        let mut from = 0;
        while from < blocks {
            let (Some(xf), Some(vf)) = (T::f32s(x), T::f32s_mut(v)) else {
                return false;
            };
            let wide = super::arg_lanes512::takes(inner);
            // SAFETY: `available` found AVX2, `runs` AVX-512 where it is taken.
            let stop = unsafe {
                if wide {
                    super::arg_lanes512::arg_blocks::<D, LAST>(xf, y, vf, (r, inner), from, blocks)
                } else {
                    arg_blocks::<D, LAST>(xf, y, vf, (r, inner), from, blocks)
                }
            };
            let (Some(xb), Some(yb)) = (
                x.get(stop * block..(stop + 1) * block),
                y.get_mut(stop * inner..(stop + 1) * inner),
            ) else {
                break;
            };
            let vb = v
                .get_mut(stop * inner..(stop + 1) * inner)
                .unwrap_or(&mut []);
            arg_tile_pass::<T, D, LAST, TILE, true, false>(xb, yb, vb, inner, 0, inner);
            from = stop + 1;
        }
        true
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let _ = (x, y, v, r, inner, core::marker::PhantomData::<D>);
        false
    }
}

/// The strided arg-reduction of 1-, 2- and 4-byte types in AVX2 over `x.len() / (r · inner)`
/// blocks of `r` rows of `inner` lanes (`arg_lanes_small_avx2`), where the CPU has it and the
/// blocks fit it: `false` (nothing written) where it does not take them.
#[inline(always)]
#[cfg_attr(debug_assertions, allow(dead_code))]
pub(crate) fn arg_blocks_small<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    inner: usize,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return super::arg_lanes_small_avx2::arg_blocks::<T, D, LAST>(x, y, v, r, inner);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (x, y, v, r, inner, core::marker::PhantomData::<D>);
        false
    }
}

/// One pass of [`arg_lanes`] over the lanes `start..end` of every row. Without `EXACT`, the
/// order alone decides and the pass gives up (returns false, `y` untouched) if it met a NaN;
/// with `EXACT`, the contract's NaN rule decides and the pass always finishes.
#[inline(always)]
pub(super) fn arg_tile_pass<
    T: Element,
    D: Direction,
    const LAST: bool,
    const TILE: usize,
    const EXACT: bool,
    const WIDE: bool,
>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    if !EXACT && keyed::<T>() {
        // f16 and bf16: in their own width, on the bits.
        if let Some(b) = T::half_bits(x) {
            let v = T::half_bits_mut(v).unwrap_or(&mut []);
            let out = Out {
                y,
                v,
                h: &mut [],
                one: 0,
                zeroed: false,
            };
            return arg_tile_half::<D, LAST, TILE>(b, out, inner, start, end, inf_of::<T>());
        }
    }
    // `f32` takes the AVX2 pass over any number of rows, its index and value kept in registers
    // (blocks of 1 MiB and more over 64 rows and more go down sixteen rows at a time:
    // `arg_chunks_grouped`). Blocks of 128 rows and more over 256 KiB went by the grouped pass
    // before (which reads each lane's winning group again at the end): measured faster on a Zen 3
    // at the time (ArgMax `[1000, 524]` over axis 0 65 against 82 us), before the AVX2 pass went
    // by groups and prefetched. Intel Xeon (Sapphire Rapids class), `--ours`, minimum of five
    // interleaved runs, grouped -> AVX2: the segmentation map `[1, 150, 128, 128]` 764 -> 512 us
    // (its rows 64 KiB apart, the second look read lines the caches had lost), `[1000, 524]`
    // 81-86 -> 72-74 us, `[100000, 5]` 74-78 -> 68-69 us, `[2, 100000, 2]` 50-56 -> 44-45 us
    // (ArgMax, ArgMin, ArgMin-last and `max+argmax` alike).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if !EXACT
        && !cfg!(feature = "small-code")
        && matches!(T::DTYPE, crate::DType::F32)
        && end.saturating_sub(start) >= super::arg_lanes_avx2::LANES
        && avx2_takes(x.len() / inner, end - start)
        && super::rows_f32::avx2::available()
    {
        if let (Some(x), Some(v)) = (T::f32s(x), T::f32s_mut(v)) {
            let wide = super::arg_lanes512::takes(end - start);
            // SAFETY: `available` found AVX2, `runs` AVX-512 where it is taken.
            return unsafe {
                if wide {
                    super::arg_lanes512::arg_tile::<D, LAST>(x, y, v, inner, start, end)
                } else {
                    super::arg_lanes_avx2::arg_tile::<D, LAST>(x, y, v, inner, start, end)
                }
            };
        }
    }
    if !EXACT && takes_rows::<T>(x.len() / inner) {
        return arg_tile_grouped::<T, D, LAST, TILE, WIDE>(x, y, v, inner, start, end);
    }
    let choose = |b: T, v: T| {
        if EXACT {
            take::<T, D, LAST>(b, v)
        } else if LAST {
            !D::better(b, v)
        } else {
            D::better(v, b)
        }
    };
    let mut best = [T::ZERO; TILE];
    let mut at = [0u32; TILE];
    let mut nans = [0u32; LANES];
    let Some(lanes) = x.get(start..end) else {
        return true;
    };
    if !EXACT && find_first(lanes, |v: T| v.is_nan()).is_some() {
        return false;
    }
    for (b, &v) in best.iter_mut().zip(lanes) {
        *b = v;
    }
    // The state of this tile's lanes only (the last tile may be narrower than `TILE`).
    let n = lanes.len();
    let (Some(best), Some(at)) = (best.get_mut(..n), at.get_mut(..n)) else {
        return true;
    };
    let (bchunks, btail) = best.as_chunks_mut::<LANES>();
    let (achunks, atail) = at.as_chunks_mut::<LANES>();
    let rest = x.get(inner..).unwrap_or(&[]);
    // Rows come in groups; a chunk of sixteen lanes keeps its state in registers through the
    // group (its rows are read as that many streams), then stores it back whole.
    for (g, group) in rest.chunks(ROW_GROUP * inner).enumerate() {
        let first_row = 1 + g * ROW_GROUP;
        for (c, (bch, ach)) in bchunks.iter_mut().zip(achunks.iter_mut()).enumerate() {
            let off = start + c * LANES;
            // Selects on local copies: a select stored into place would become a branch per lane.
            let (mut b, mut a) = (*bch, *ach);
            for (k, row) in group.chunks_exact(inner).enumerate() {
                let Some(vch) = row.get(off..).and_then(|r| r.first_chunk::<LANES>()) else {
                    return true;
                };
                let r = (first_row + k) as u32;
                for (((b, a), nan), &v) in
                    b.iter_mut().zip(a.iter_mut()).zip(nans.iter_mut()).zip(vch)
                {
                    let t = choose(*b, v);
                    *b = if t { v } else { *b };
                    *a = if t { r } else { *a };
                    if !EXACT {
                        *nan |= u32::from(v.is_nan()).wrapping_neg();
                    }
                }
            }
            *bch = b;
            *ach = a;
        }
        // Lanes past the last whole chunk of the tile.
        let off = start + bchunks.len() * LANES;
        for (k, row) in group.chunks_exact(inner).enumerate() {
            let r = (first_row + k) as u32;
            let vtail = row.get(off..end).unwrap_or(&[]);
            for ((b, a), &v) in btail.iter_mut().zip(atail.iter_mut()).zip(vtail) {
                if !EXACT && v.is_nan() {
                    return false;
                }
                if choose(*b, v) {
                    *b = v;
                    *a = r;
                }
            }
        }
    }
    if !EXACT && nans.iter().fold(0, |a, &n| a | n) != 0 {
        return false;
    }
    for (o, &a) in y.iter_mut().zip(at.iter()) {
        *o = i64::from(a);
    }
    for (o, &b) in v.iter_mut().zip(best.iter()) {
        *o = b;
    }
    true
}

#[cfg(test)]
mod tests;
