//! ReduceMax and ReduceMin: the shims generated code calls (see the module [`super`]). The
//! lane and plane kernels take blocks: `x` in blocks of `xs` elements, each reduced into its
//! block of `ys` elements of `y` (one block when the node has no kept axis before them).
//!
//! Each comes twice. The `reduce_*` shims write every element of `y` (its previous contents are
//! ignored): generated code calls them when one call covers every reduced axis, which is nearly
//! always. The `fold_*` shims fold into what `y` holds (NaN-propagating: a NaN there stays), for
//! nests that call a kernel once per index of an outer reduced axis, after filling `y` with the
//! identity.

#[cfg(not(debug_assertions))]
use super::wide::wide;
#[cfg(not(debug_assertions))]
use crate::kernels;
use crate::Direction;

use super::Thin;

/// Each element of `y` becomes the extreme of its contiguous row of `n` of `x`
/// (NaN-propagating; the identity for rows of none).
#[inline(always)]
pub fn reduce_rows<T: Thin, D: Direction>(y: &mut [T], x: &[T], n: usize) {
    #[cfg(debug_assertions)]
    T::reduce_rows(y, x, n, (D::IS_MIN, true));
    #[cfg(not(debug_assertions))]
    if !kernels::reduce_rows_512::<T, D>(y, x, n, true) {
        kernels::afresh_rows::<T, D>(y, x, n, |y, x| kernels::reduce_rows::<T, D>(y, x, n));
    }
}

/// Folds each contiguous row of `n` of `x` into the matching element of `y`.
#[inline(always)]
pub fn fold_rows<T: Thin, D: Direction>(y: &mut [T], x: &[T], n: usize) {
    #[cfg(debug_assertions)]
    T::reduce_rows(y, x, n, (D::IS_MIN, false));
    #[cfg(not(debug_assertions))]
    kernels::reduce_rows::<T, D>(y, x, n);
}

/// [`reduce_rows`] for rows of `R`, a few tens at most.
#[inline(always)]
pub fn reduce_rows_short<T: Thin, D: Direction, const R: usize>(y: &mut [T], x: &[T]) {
    #[cfg(debug_assertions)]
    T::reduce_rows(y, x, R, (D::IS_MIN, true));
    #[cfg(not(debug_assertions))]
    kernels::reduce_rows_short_fresh::<T, D, R>(y, x);
}

/// [`fold_rows`] for rows of `R`, a few tens at most.
#[inline(always)]
pub fn fold_rows_short<T: Thin, D: Direction, const R: usize>(y: &mut [T], x: &[T]) {
    #[cfg(debug_assertions)]
    T::reduce_rows(y, x, R, (D::IS_MIN, false));
    #[cfg(not(debug_assertions))]
    kernels::reduce_rows_short::<T, D, R>(y, x);
}

/// Each block of `xs` elements of `x` (rows of `ys` lanes, sixteen or more) reduced down its
/// rows into the block's `ys` elements of `y`.
#[inline(always)]
pub fn reduce_lanes<T: Thin, D: Direction>(y: &mut [T], x: &[T], xs: usize, ys: usize) {
    #[cfg(debug_assertions)]
    T::reduce_lanes(y, x, (xs, ys), (D::IS_MIN, true));
    // Blocks of two to four rows of at most 128 bytes: many a window, the last few below.
    #[cfg(not(debug_assertions))]
    let (y, x) = {
        let r = xs.checked_div(ys).unwrap_or(0);
        let done = if xs == r * ys {
            kernels::reduce_packed::<T, D>(y, x, r, ys)
        } else {
            0
        };
        let (Some(y), Some(x)) = (y.get_mut(done * ys..), x.get(done * xs..)) else {
            return;
        };
        (y, x)
    };
    // 1-, 2- and 4-byte types in AVX2, `i64`, `u64` and `f32` in AVX-512, where the CPU has them.
    #[cfg(not(debug_assertions))]
    if kernels::reduce_blocks_small::<T, D>(y, x, (xs, ys), true)
        || kernels::reduce_lanes_512::<T, D>(y, x, (xs, ys), true)
    {
        return;
    }
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()) && super::wide::lanes_twin::<T>(ys);
        avx512 super::wide::wide_avx512::<T>();
        [T: Thin, D: Direction] [T, D] (y: &mut [T], x: &[T], xs: usize, ys: usize) -> () {
        kernels::reduce_lane_blocks_fresh::<T, D>(y, x, (xs, ys));
    });
}

/// Folds the rows of each block of `xs` elements of `x` (rows of `ys` lanes, sixteen or more)
/// into the block's `ys` elements of `y`.
#[inline(always)]
pub fn fold_lanes<T: Thin, D: Direction>(y: &mut [T], x: &[T], xs: usize, ys: usize) {
    #[cfg(debug_assertions)]
    T::reduce_lanes(y, x, (xs, ys), (D::IS_MIN, false));
    #[cfg(not(debug_assertions))]
    if kernels::reduce_blocks_small::<T, D>(y, x, (xs, ys), false)
        || kernels::reduce_lanes_512::<T, D>(y, x, (xs, ys), false)
    {
        return;
    }
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()) && super::wide::lanes_twin::<T>(ys);
        avx512 super::wide::wide_avx512::<T>();
        [T: Thin, D: Direction] [T, D] (y: &mut [T], x: &[T], xs: usize, ys: usize) -> () {
        if xs > 0 && ys > 0 {
            for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
                kernels::reduce_lanes_rows::<T, D>(y, x);
            }
        }
    });
}

/// [`reduce_lanes`] for rows of `C` lanes (under sixteen), read `W / C` rows at a time.
#[inline(always)]
pub fn reduce_lanes_narrow<T: Thin, D: Direction, const C: usize, const W: usize>(
    y: &mut [T],
    x: &[T],
    xs: usize,
) {
    #[cfg(debug_assertions)]
    T::reduce_lanes(y, x, (xs, C), (D::IS_MIN, true));
    // Many short blocks: the thin-block kernel, but for the last blocks.
    #[cfg(not(debug_assertions))]
    let done = thin::<T, D, C>(y, x, xs.checked_div(C).unwrap_or(0));
    #[cfg(not(debug_assertions))]
    let (Some(y), Some(x)) = (y.get_mut(done * C..), x.get(done * xs..)) else {
        return;
    };
    // `i64` and `u64` in AVX-512, where the CPU has it (one masked vector a row).
    #[cfg(not(debug_assertions))]
    if kernels::reduce_lanes_512::<T, D>(y, x, (xs, C), true) {
        return;
    }
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len());
        [T: Thin, D: Direction, const C: usize, const W: usize] [T, D, C, W]
        (y: &mut [T], x: &[T], xs: usize) -> () {
        kernels::afresh::<T, D>(y, x, (xs, C), |y, x| {
            for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(C)) {
                kernels::reduce_lanes_narrow::<T, D, C, W>(y, x);
            }
        });
    });
}

/// The blocks of `r` rows of `C` lanes (under sixteen) at the start of `x` that the kernel of
/// many short blocks takes (`kernels::thin_blocks`), reduced into `y`: their count (none
/// unless two or more), but for bool over more than 32 rows without AVX-512 (the AVX2 kernel
/// took 1.4x the narrow kernels' time over 80 rows). Through an AVX2 twin for every type, f16
/// and bf16 too (inlined whole).
#[cfg(not(debug_assertions))]
#[inline(always)]
fn thin<T: Thin, D: Direction, const C: usize>(y: &mut [T], x: &[T], r: usize) -> usize {
    let bools = matches!(T::DTYPE, crate::DType::Bool);
    if (bools && r > 32 && !kernels::thin_reduces_wide::<T>(r, C))
        || kernels::thin_blocks::<C>(x.len(), r) < 2
    {
        return 0;
    }
    wide!(x.len() >= 256;
        [T: Thin, D: Direction, const C: usize] [T, D, C]
        (y: &mut [T], x: &[T], r: usize) -> usize {
        kernels::reduce_blocks_thin::<T, D, C>(y, x, r)
    })
}

/// [`fold_lanes`] for rows of `C` lanes (under sixteen), read `W / C` rows at a time.
#[inline(always)]
pub fn fold_lanes_narrow<T: Thin, D: Direction, const C: usize, const W: usize>(
    y: &mut [T],
    x: &[T],
    xs: usize,
) {
    #[cfg(debug_assertions)]
    T::reduce_lanes(y, x, (xs, C), (D::IS_MIN, false));
    #[cfg(not(debug_assertions))]
    if kernels::reduce_lanes_512::<T, D>(y, x, (xs, C), false) {
        return;
    }
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len());
        [T: Thin, D: Direction, const C: usize, const W: usize] [T, D, C, W]
        (y: &mut [T], x: &[T], xs: usize) -> () {
        if xs > 0 && C > 0 {
            for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(C)) {
                kernels::reduce_lanes_narrow::<T, D, C, W>(y, x);
            }
        }
    });
}

/// The extreme over the planes of `plane` elements of `x` of each element of their parts from
/// `at` (as long as `y`), into `y`: a reduction over the leading axes, one part of its output
/// at a time (the first node of a chunked pair).
#[inline(always)]
pub fn reduce_parts<T: Thin, D: Direction>(y: &mut [T], x: &[T], plane: usize, at: usize) {
    #[cfg(debug_assertions)]
    {
        // The first plane's part written, the others folded into it, by the lane kernels.
        let n = y.len();
        let mut parts = x
            .chunks_exact(plane.max(1))
            .filter_map(|p| p.get(at..at + n));
        if let Some(p) = parts.next() {
            T::reduce_lanes(y, p, (n, n), (D::IS_MIN, true));
        }
        for p in parts {
            T::reduce_lanes(y, p, (n, n), (D::IS_MIN, false));
        }
    }
    #[cfg(not(debug_assertions))]
    kernels::reduce_parts::<T, D>(y, x, x.len().checked_div(plane).unwrap_or(0), plane, at);
}

/// Blocks of `xs` elements of `x`, each `planes` planes of `ys` rows of `N`: the extreme of
/// each row over every plane into its element of the block's `ys` elements of `y`.
#[inline(always)]
pub fn reduce_planes<T: Thin, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    xs: usize,
    ys: usize,
) {
    #[cfg(debug_assertions)]
    T::reduce_planes(y, x, (planes, N), (xs, ys), (D::IS_MIN, true));
    #[cfg(not(debug_assertions))]
    kernels::afresh::<T, D>(y, x, (xs, ys), |y, x| {
        for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
            kernels::reduce_planes::<T, D, N>(y, x, planes);
        }
    });
}

/// [`reduce_planes`] folded into what `y` holds.
#[inline(always)]
pub fn fold_planes<T: Thin, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    xs: usize,
    ys: usize,
) {
    #[cfg(debug_assertions)]
    T::reduce_planes(y, x, (planes, N), (xs, ys), (D::IS_MIN, false));
    #[cfg(not(debug_assertions))]
    if xs > 0 && ys > 0 {
        for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
            kernels::reduce_planes::<T, D, N>(y, x, planes);
        }
    }
}
