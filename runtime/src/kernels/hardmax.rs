//! Hardmax: contiguous rows, strided lanes (by the passes of the arg-reductions) and any other
//! reduced axes.

#[cfg(doc)]
use super::arg_lanes::arg_lanes;
use super::arg_lanes::arg_tile_pass;
use super::arg_row::{arg_row, arg_row_clearing};
use super::half_lanes::hardmax_lanes_half;
use super::half_rows::{bits, hardmax_row_half, inf_of, keyed};
use super::shared::{fill, take, LANES};
use crate::{Element, Max};

/// Lanes processed together by the strided Hardmax kernel (their rows as `i64` on the stack:
/// 2 KiB, or 128 bytes with the `small-code` feature).
const TILE: usize = if cfg!(feature = "small-code") {
    16
} else {
    256
};

/// Hardmax of a contiguous row: 1 at the first maximum (or first NaN), 0 elsewhere.
#[inline(always)]
pub fn hardmax_row<T: Element>(x: &[T], y: &mut [T]) {
    if keyed::<T>() && x.len() == y.len() {
        // f16 and bf16: in their own width, on the bits.
        if let (Some(a), Some(b)) = (T::half_bits(x), T::half_bits_mut(y)) {
            // (Not referenced with `small-code`: even dead, a kernel's call can cost firmware
            // entry points a copy of their inputs.)
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "sse2",
                not(feature = "small-code")
            ))]
            if a.len() >= 16
                && super::rows_f32::avx2::available()
                // SAFETY: `available` found AVX2.
                && unsafe { super::half_avx2::hardmax_row(a, b, inf_of::<T>(), bits(T::ONE)) }
            {
                return;
            }
            hardmax_row_half(a, b, inf_of::<T>(), bits(T::ONE));
            return;
        }
    }
    let idx = if x.len() == y.len() {
        arg_row_clearing::<T, Max, false, true>(x, y)
    } else {
        fill(y, T::ZERO);
        arg_row::<T, Max, false>(x)
    };
    if let Some(o) = y.get_mut(idx) {
        *o = T::ONE;
    }
}

/// Hardmax of a block of rows of `inner` lanes, along the rows, tile by tile: the passes of
/// [`arg_lanes`] find each lane's row, then one pass writes the block.
#[cfg_attr(feature = "small-code", inline)]
#[cfg_attr(not(feature = "small-code"), inline(always))]
pub fn hardmax_lanes<T: Element>(x: &[T], y: &mut [T], inner: usize) {
    if inner == 0 {
        return;
    }
    if keyed::<T>() {
        // f16 and bf16: in their own width, on the bits (the general kernel if a NaN occurred).
        let one = bits(T::ONE);
        if let (Some(a), Some(b)) = (T::half_bits(x), T::half_bits_mut(y)) {
            if hardmax_lanes_half(a, b, inner, inf_of::<T>(), one) {
                return;
            }
        }
    }
    let rows = x.len() / inner;
    if rows > u32::MAX as usize {
        // More rows than the compact row counters hold: the general kernel.
        hardmax_general(x, y, &[(inner, 1)], &[(rows, inner)]);
        return;
    }
    // Whole rows only (generated code always passes them).
    let x = x.get(..rows * inner).unwrap_or(&[]);
    if rows == 2 && !cfg!(feature = "small-code") {
        // Two rows: each lane's one is in the second row exactly where it replaces the first
        // (`take`), so the block is written in the same pass that reads it.
        let (x0, x1) = x.split_at(inner);
        let Some((y0, y1)) = y.get_mut(..2 * inner).map(|y| y.split_at_mut(inner)) else {
            return;
        };
        for (((&a, &b), o0), o1) in x0.iter().zip(x1).zip(y0).zip(y1) {
            let t = take::<T, Max, false>(a, b);
            *o0 = if t { T::ZERO } else { T::ONE };
            *o1 = if t { T::ONE } else { T::ZERO };
        }
        return;
    }
    if rows >= SPAN_ROWS && !cfg!(feature = "small-code") {
        // Spans of lanes: every tile's rows found first, then the span's outputs written row
        // by row (a whole block: one fill, then the ones).
        // Spans sized to the lanes, so that a small block does not clear a large span's state.
        if inner <= LANES {
            hardmax_span::<T, LANES, LANES>(x, y, inner, 0, inner);
        } else if inner <= TILE {
            hardmax_span::<T, TILE, TILE>(x, y, inner, 0, inner);
        } else {
            let mut start = 0;
            while start < inner {
                let end = inner.min(start + SPAN);
                hardmax_span::<T, SPAN, TILE>(x, y, inner, start, end);
                start = end;
            }
        }
        return;
    }
    let mut start = 0;
    while start < inner {
        let end = inner.min(start + TILE);
        // A tile of at most sixteen lanes keeps sixteen lanes of state: clearing and carrying
        // a whole tile's would cost more than the block itself (`[16384, 2, 16]`: 2 KiB cleared
        // per block of 32 elements).
        if end - start <= LANES {
            hardmax_tile::<T, LANES>(x, y, inner, start, end);
        } else {
            hardmax_tile::<T, TILE>(x, y, inner, start, end);
        }
        start = end;
    }
}

/// Blocks of at least this many rows take [`hardmax_span`]: over fewer, the tile's own write
/// pass right after its arg pass was faster (rows of 20 and 80: 12–16%), over more, slower
/// (rows of 1000 along the leading axis of `[1000, 524]`: 19%).
const SPAN_ROWS: usize = 256;

/// Lanes whose rows [`hardmax_span`] keeps (as `u32`: 4 KiB of stack).
const SPAN: usize = 1024;

/// The lanes `start..end` (at most `N`, found `M` at a time) of [`hardmax_lanes`]: the rows of
/// their first maxima by the passes of `arg_lanes`, then zeros and ones. Writing the outputs
/// after each tile of 256 lanes instead (a strided pass per tile) made Hardmax along the leading
/// axis of `[1000, 524]` cost the arg pass plus 1.9x a plain write of the block.
#[inline(always)]
fn hardmax_span<T: Element, const N: usize, const M: usize>(
    x: &[T],
    y: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) {
    let mut rows_of = [0u32; N];
    let Some(rows_of) = rows_of.get_mut(..end - start) else {
        return;
    };
    let mut t = start;
    while t < end {
        let e = end.min(t + M);
        if let Some(out) = rows_of.get_mut(t - start..e - start) {
            lane_rows::<T, M>(x, inner, t, e, out);
        }
        t = e;
    }
    if start == 0 && end == inner {
        fill(y, T::ZERO);
    } else {
        for row in y.chunks_exact_mut(inner) {
            if let Some(outs) = row.get_mut(start..end) {
                fill(outs, T::ZERO);
            }
        }
    }
    for (l, &r) in (start..end).zip(rows_of.iter()) {
        if let Some(o) = (r as usize)
            .checked_mul(inner)
            .and_then(|i| y.get_mut(i + l))
        {
            *o = T::ONE;
        }
    }
}

/// The row of the first maximum (or first NaN) of each lane `start..end` (at most `N`) into
/// `out`, as `u32` (fewer than 2^32 rows: `hardmax_lanes` checked), by the passes of
/// `arg_lanes`: the order alone, then the exact rule if the lanes held a NaN (with `small-code`,
/// the exact pass alone: one tile of state on the stack, not two).
#[inline(always)]
fn lane_rows<T: Element, const N: usize>(
    x: &[T],
    inner: usize,
    start: usize,
    end: usize,
    out: &mut [u32],
) {
    let mut rows = [0i64; N];
    let Some(rows) = rows.get_mut(..end - start) else {
        return;
    };
    if cfg!(feature = "small-code")
        || !arg_tile_pass::<T, Max, false, N, false, false>(x, rows, &mut [], inner, start, end)
    {
        arg_tile_pass::<T, Max, false, N, true, false>(x, rows, &mut [], inner, start, end);
    }
    for (o, &r) in out.iter_mut().zip(rows.iter()) {
        *o = r as u32;
    }
}

/// The lanes `start..end` (at most `N`) of [`hardmax_lanes`].
#[inline(always)]
fn hardmax_tile<T: Element, const N: usize>(
    x: &[T],
    y: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) {
    // The row of each lane's first maximum, as `u32`, which SSE2 compares four at a time in
    // the write pass (it has no 64-bit compare).
    // (The whole array is zipped below: its constant length lets the write pass vectorize,
    // which a slice of the tile's lanes did not, 1.3x slower over `[1638,20,16]`.)
    let mut rows32 = [0u32; N];
    let Some(out) = rows32.get_mut(..end - start) else {
        return;
    };
    lane_rows::<T, N>(x, inner, start, end, out);
    for (r, row) in y.chunks_exact_mut(inner).enumerate() {
        let Some(outs) = row.get_mut(start..end) else {
            return;
        };
        for (o, &i) in outs.iter_mut().zip(rows32.iter()) {
            *o = if i == r as u32 { T::ONE } else { T::ZERO };
        }
    }
}

/// The offset of the `i`-th position (row-major) of runs given as (size, stride).
#[inline]
fn offset(mut i: usize, runs: &[(usize, usize)]) -> usize {
    let mut off = 0;
    for &(size, stride) in runs.iter().rev() {
        let (q, r) = match (i.checked_div(size), i.checked_rem(size)) {
            (Some(q), Some(r)) => (q, r),
            _ => return 0,
        };
        off += r * stride;
        i = q;
    }
    off
}

/// Hardmax over reduced axes that are not contiguous: for every position of the `kept` runs,
/// a 1 at the first maximum in row-major order over the `reduced` runs. Runs are
/// (size, stride in elements).
pub fn hardmax_general<T: Element>(
    x: &[T],
    y: &mut [T],
    kept: &[(usize, usize)],
    reduced: &[(usize, usize)],
) {
    fill(y, T::ZERO);
    let kept_n: usize = kept.iter().map(|r| r.0).product();
    let reduced_n: usize = reduced.iter().map(|r| r.0).product();
    for k in 0..kept_n {
        let base = offset(k, kept);
        let mut best: Option<(T, usize)> = None;
        for r in 0..reduced_n {
            let off = base + offset(r, reduced);
            let Some(&v) = x.get(off) else {
                return;
            };
            best = match best {
                Some((b, _)) if !take::<T, Max, false>(b, v) => best,
                _ => Some((v, off)),
            };
        }
        if let Some(o) = best.and_then(|(_, off)| y.get_mut(off)) {
            *o = T::ONE;
        }
    }
}
