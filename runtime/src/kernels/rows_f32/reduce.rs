//! The `f32` row reductions of [`super`]: rows of 2 to [`MAX_ROW`] four at a time (in AVX2
//! vectors where the CPU has them), the extreme of a long row, and planes folded element by
//! element.

use core::arch::x86_64::__m128;

use super::{
    avx2, fits, group_extremes, load4, mask, or, pick, short_reduce, store, unord, zero,
    AVX2_REDUCE_DYN_FROM, AVX2_REDUCE_FROM, LONG_ROW, MAX_ROW,
};
use crate::kernels::reduce::fold;
use crate::{Direction, Element};

/// Reduces each contiguous row of `n` of `x` into the matching element of `y`, as
/// [`reduce_rows`](super::reduce_rows) does; `false` (nothing done) unless [`fits`].
#[inline(always)]
pub(in crate::kernels) fn reduce_rows<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    n: usize,
) -> bool {
    if !cfg!(feature = "small-code") && (MAX_ROW + 1..LONG_ROW).contains(&n) {
        // Rows between this module's and the long rows' kernels: four at a time in AVX2 too
        // (one row at a time, the portable fold's sixteen lanes read rows of 150 and 196
        // 1.7x and 1.5x of a streaming read; these 1.0-1.1x).
        if let (Some(y), Some(x)) = (T::f32s_mut(y), T::f32s(x)) {
            if avx2::available() {
                // SAFETY: `available` found the features the kernel is compiled for.
                unsafe { avx2::reduce_rows_dyn::<D>(y, x, n) };
                return true;
            }
        }
        return false;
    }
    let Some((y, x)) = f32_rows(y, x, n) else {
        return false;
    };
    if n >= AVX2_REDUCE_DYN_FROM && avx2::available() {
        // SAFETY: `available` found the features the kernel is compiled for.
        unsafe { avx2::reduce_rows_dyn::<D>(y, x, n) };
        return true;
    }
    reduce_sse::<D>(y, x, n);
    true
}

/// `y` and `x` as `f32`s, if [`fits`] takes rows of `n` of `T`.
#[inline(always)]
fn f32_rows<'a, T: Element>(
    y: &'a mut [T],
    x: &'a [T],
    n: usize,
) -> Option<(&'a mut [f32], &'a [f32])> {
    if !fits::<T>(n) {
        return None;
    }
    Some((T::f32s_mut(y)?, T::f32s(x)?))
}

/// The extreme of a contiguous `f32` row of [`LONG_ROW`] elements or more by the order alone,
/// and whether the row holds a NaN, by the AVX2 kernel ([`avx2::row_extreme`]) where the CPU
/// has it; `None` (nothing done) otherwise.
#[inline(always)]
pub(in crate::kernels) fn row_extreme<T: Element, D: Direction>(x: &[T]) -> Option<(f32, bool)> {
    let x = T::f32s(x)?;
    if x.len() < LONG_ROW || cfg!(feature = "small-code") || !avx2::available() {
        return None;
    }
    // SAFETY: `available` found the features the kernel is compiled for.
    Some(unsafe { avx2::row_extreme::<D>(x) })
}

/// [`reduce_rows`] of rows of `R` known when compiling: rows of [`AVX2_REDUCE_FROM`] or more
/// by the AVX2 kernel where the CPU has it, instantiated for this length alone (with a length
/// known only at run time its loops cost more than the SSE2 kernel's: rows of 8 to 40 1.1-2.8x
/// slower). Measured (2 MiB of rows, kernel alone): ReduceMax rows of 20, 32, 80 and 128
/// 1.08x, 1.18x, 1.24x and 1.2x faster than SSE2.
#[inline(always)]
pub(in crate::kernels) fn reduce_rows_const<T: Element, D: Direction, const R: usize>(
    y: &mut [T],
    x: &[T],
) -> bool {
    if short_reduce::reduce_short_avx2::<T, D, R, false>(y, x) {
        return true;
    }
    let Some((y, x)) = f32_rows(y, x, R) else {
        return false;
    };
    if R >= AVX2_REDUCE_FROM && avx2::available() {
        // SAFETY: `available` found the features the kernel is compiled for.
        unsafe { avx2::reduce_rows::<D, R>(y, x) };
        return true;
    }
    reduce_sse::<D>(y, x, R);
    true
}

/// [`reduce_rows_const`] of rows that hold no NaN (the tiles of
/// [`reduce_planes`](crate::kernels::reduce_planes), whose fold has looked for it): rows of 4
/// to 16 by [`avx2::reduce_rows_nan_free`] where the CPU has it, `false` (nothing done)
/// otherwise.
#[inline(always)]
pub(in crate::kernels) fn reduce_rows_nan_free<T: Element, D: Direction, const R: usize>(
    y: &mut [T],
    x: &[T],
) -> bool {
    let Some((y, x)) = f32_rows(y, x, R) else {
        return false;
    };
    if !(4..=16).contains(&R) || !avx2::available() {
        return false;
    }
    // SAFETY: `available` found the features the kernel is compiled for.
    unsafe { avx2::reduce_rows_nan_free::<D, R>(y, x) };
    true
}

/// [`reduce_rows`] of `f32`s, by groups of four rows; the rows after the last group, and
/// groups with a NaN, by the exact fold. (No closures here: one was left out of line, without
/// the constant row length, and ran 1.8x slower.)
#[inline(always)]
pub(in crate::kernels) fn reduce_sse<D: Direction>(y: &mut [f32], x: &[f32], n: usize) {
    let mut done = 0;
    if n == 2 && avx2::available() {
        // SAFETY: `available` found AVX2.
        done = unsafe { super::pairs::reduce_pairs::<D, false>(y, x) };
    }
    let (Some(y), Some(x)) = (y.get_mut(done..), x.get(done * n..)) else {
        return;
    };
    let (outs, _) = y.as_chunks_mut::<4>();
    let groups = x.chunks_exact(4 * n);
    let done = groups.len().min(outs.len()) * 4;
    for (g, o) in groups.zip(outs.iter_mut()) {
        let (r, nan) = group_extremes::<D>(g, n);
        if nan {
            for (o, row) in o.iter_mut().zip(g.chunks_exact(n)) {
                *o = fold::<f32, D>(*o, row);
            }
        } else {
            // An accumulator that is NaN stays (`pick` keeps `acc` when either is NaN).
            let acc = load4(o);
            store(o, pick::<D>(r, acc));
        }
    }
    if let (Some(ys), Some(rs)) = (y.get_mut(done..), x.get(done * n..)) {
        for (o, row) in ys.iter_mut().zip(rs.chunks_exact(n)) {
            *o = fold::<f32, D>(*o, row);
        }
    }
}

/// Folds the parts of `planes` planes of `plane` elements of `x`, each from element `at` and
/// as long as `tile`, element by element into `tile` (which is overwritten), by the order alone,
/// sixteen lanes at a time down the planes in registers; `Some(true)` if they hold a NaN (then
/// the tile is not the contract's). `None` (nothing done) unless [`fits`] rows of `f32` of some
/// length and the tile holds sixteen elements or more.
#[inline(always)]
pub(in crate::kernels) fn fold_planes<T: Element, D: Direction>(
    tile: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<bool> {
    let (tile, x) = f32_rows(tile, x, 2)?;
    let len = tile.len();
    if len < 16 || planes == 0 {
        return None;
    }
    if avx2::available() {
        // SAFETY: `available` found the features the kernel is compiled for.
        return unsafe { avx2::fold_planes::<D>(tile, x, planes, plane, at) };
    }
    let mut flags = zero();
    for c in (0..len).step_by(16) {
        // The last sixteen may overlap the ones before: the same lanes, folded the same.
        let c = c.min(len - 16);
        let [mut a, mut b, mut d, mut e] = load16(x, at + c)?;
        flags = or(flags, or(unord(a, b), unord(d, e)));
        for p in 1..planes {
            let [v, w, y, z] = load16(x, p * plane + at + c)?;
            flags = or(flags, or(unord(v, w), unord(y, z)));
            (a, b, d, e) = (
                pick::<D>(v, a),
                pick::<D>(w, b),
                pick::<D>(y, d),
                pick::<D>(z, e),
            );
        }
        let out = tile.get_mut(c..).and_then(<[f32]>::first_chunk_mut::<16>)?;
        let (outs, _) = out.as_chunks_mut::<4>();
        for (o, v) in outs.iter_mut().zip([a, b, d, e]) {
            store(o, v);
        }
    }
    Some(mask(flags) != 0)
}

/// The sixteen elements of `x` from `at` as four vectors; `None` past its end.
#[inline(always)]
fn load16(x: &[f32], at: usize) -> Option<[__m128; 4]> {
    let v = x.get(at..)?.first_chunk::<16>()?;
    let (v, _) = v.as_chunks::<4>();
    match v {
        [a, b, c, d] => Some([load4(a), load4(b), load4(c), load4(d)]),
        _ => None,
    }
}
