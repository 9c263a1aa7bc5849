//! The entry points of the AVX2 kernel of short rows (`short_rows_avx2`) for the portable
//! kernels and the node shims: each says how many rows it did (whole blocks), and does none off
//! x86-64, with `small-code`, or where the rows or the CPU do not fit it.

use super::index::Index;
use crate::{Direction, Element};

/// Folds whole blocks of contiguous rows of `n` 1-, 2- or 4-byte elements (not `f32`) of `x`
/// into `y` by the AVX2 kernel of short rows (`short_rows_avx2`: 8, 16 or 32 rows at a time,
/// one per lane) where
/// the CPU has it and the rows fit it; the rows done, the rest the caller's (all of them off
/// x86-64 and with `small-code`).
#[inline(always)]
pub(crate) fn reduce_rows_narrow<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    n: usize,
) -> usize {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return super::short_rows_avx2::reduce_rows::<T, D>(y, x, n);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (y, x, n, core::marker::PhantomData::<D>);
        0
    }
}

/// [`arg_rows_values_f32`] of the types of [`arg_rows_narrow`]: whole blocks by [`arg_rows_narrow`], the
/// rows after them one at a time; `false` (nothing written) if the kernel takes none.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn arg_rows_values_narrow<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    n: usize,
) -> bool {
    let done = arg_rows_narrow::<T, D, LAST, true, i64>(x, y, v, n);
    if done == 0 {
        return false;
    }
    let (Some(x), Some(y), Some(v)) = (x.get(done * n..), y.get_mut(done..), v.get_mut(done..))
    else {
        return true;
    };
    for ((o, e), row) in y.iter_mut().zip(v.iter_mut()).zip(x.chunks_exact(n)) {
        let at = super::arg_row::<T, D, LAST>(row);
        *o = super::index::<i64>(at);
        if let Some(&w) = row.get(at) {
            *e = w;
        }
    }
    true
}

/// [`reduce_rows_narrow`] for Hardmax: whole blocks of rows' outputs.
#[inline(always)]
pub(crate) fn hardmax_rows_narrow<T: Element>(x: &[T], y: &mut [T], n: usize) -> usize {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return super::short_rows_avx2::hardmax_rows::<T>(x, y, n);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (x, y, n);
        0
    }
}

/// [`reduce_rows_narrow`] for the arg-reductions: the index of the extreme of each row into
/// `y`, and with `VALUES` the extreme into `v`; `f64` rows of 4 to 80 by their own kernel
/// (`rows_f64_avx2`, four rows at a time).
#[inline(always)]
pub(crate) fn arg_rows_narrow<
    T: Element,
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> usize {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return if T::DTYPE == crate::DType::F64 {
        super::rows_f64_avx2::arg_rows::<T, D, LAST, VALUES, I>(x, y, v, n)
    } else {
        super::short_rows_avx2::arg_rows::<T, D, LAST, VALUES, I>(x, y, v, n)
    };
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (x, y, v, n, core::marker::PhantomData::<D>);
        0
    }
}
