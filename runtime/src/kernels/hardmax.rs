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

/// The lanes `start..end` (at most `N`) of [`hardmax_lanes`].
#[inline(always)]
fn hardmax_tile<T: Element, const N: usize>(
    x: &[T],
    y: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) {
    // The row of each lane's first maximum, by the passes of `arg_lanes`.
    let mut rows_of = [0i64; N];
    let Some(rows_of) = rows_of.get_mut(..end - start) else {
        return;
    };
    // With `small-code`, the exact pass alone: one tile of state on the stack, not two.
    if cfg!(feature = "small-code")
        || !arg_tile_pass::<T, Max, false, N, false>(x, rows_of, &mut [], inner, start, end)
    {
        arg_tile_pass::<T, Max, false, N, true>(x, rows_of, &mut [], inner, start, end);
    }
    for (r, row) in y.chunks_exact_mut(inner).enumerate() {
        let Some(outs) = row.get_mut(start..end) else {
            return;
        };
        for (o, &i) in outs.iter_mut().zip(rows_of.iter()) {
            *o = if i == r as i64 { T::ONE } else { T::ZERO };
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
