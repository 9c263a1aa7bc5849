//! Entry points of the AVX2 row kernels of `i64` and `f64` ([`super::rows_wide_avx2`]) and of
//! `f32` rows of 3 to 15 written afresh: each does nothing and says so where its kernel is not
//! built (off x86-64, and with `small-code`).

use crate::{Direction, Element};

/// Each contiguous row of `R` (4 to 31) of `i64` or `f64` reduced into `y` by the AVX2 kernel
/// where the CPU has it (written afresh with `FRESH`, otherwise folded into `y`): `false`
/// (nothing done) elsewhere, for other types and lengths, and in `small-code`.
#[inline(always)]
pub(super) fn reduce_rows_wide<T: Element, D: Direction, const R: usize, const FRESH: bool>(
    y: &mut [T],
    x: &[T],
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return super::rows_wide_avx2::reduce_rows::<T, D, R, FRESH>(y, x);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (y, x, core::marker::PhantomData::<D>);
        false
    }
}

/// The extreme of a contiguous row of `i64` or `f64` (eight or more) by the order alone and
/// whether it holds a NaN, by the AVX2 kernel where the CPU has it: `None` (nothing done)
/// elsewhere, for other types and shorter rows, and in `small-code`.
#[inline(always)]
pub(super) fn row_extreme_wide<T: Element, D: Direction>(row: &[T]) -> Option<(T, bool)> {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return super::rows_wide_avx2::row_extreme::<T, D>(row);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (row, core::marker::PhantomData::<D>);
        None
    }
}

/// Folds the parts of `planes` planes of `plane` elements of `x` (from `at`, as long as `tile`)
/// into `tile` by the AVX2 kernel of `i64` and `f64` where the CPU has it: whether they hold a
/// NaN, or `None` (nothing done) elsewhere, for other types and tiles under four, and in
/// `small-code`.
#[inline(always)]
pub(super) fn fold_planes_wide<T: Element, D: Direction>(
    tile: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<bool> {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return super::rows_wide_avx2::fold_planes::<T, D>(tile, x, planes, plane, at);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (tile, x, planes, plane, at, core::marker::PhantomData::<D>);
        None
    }
}

/// The extreme of each row of `R` `f32`s (3 to 15) written into `y` (not read) by the AVX2
/// kernels of eight rows to a vector where the CPU has them: `false` (nothing done) elsewhere
/// (and in `small-code`).
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(super) fn reduce_short_fresh_f32<T: Element, D: Direction, const R: usize>(
    y: &mut [T],
    x: &[T],
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return super::rows_f32::short_reduce::reduce_short_avx2::<T, D, R, true>(y, x);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (y, x, core::marker::PhantomData::<D>);
        false
    }
}
