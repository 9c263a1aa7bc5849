//! Entry points of the AVX-512 row kernels (`thin512`) for the portable kernels and the node
//! shims: each does nothing and says so where its kernel is not built (off x86-64, and with
//! `small-code`) or does not take the rows.

use super::Index;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
use super::{isa, lanes512, thin512};
use crate::{Direction, Element};

/// The first index (with `LAST` the last) of the best of `D` of each contiguous row of `c` of
/// `x` into `y` (and with `v` not empty that element into `v`) by the AVX-512 kernel of rows by
/// equality (`thin512::arg_rows`: f16 and bf16 rows of two to eight, `f64` rows of two to four
/// with their best elements; VBMI2) or that of rows folded across vectors
/// (`thin512::byte_rows`: 1- and 2-byte elements, rows of 5 to 32; VBMI) where the CPU
/// has it and it is the faster kernel for these rows: `true`, else `false` (nothing written),
/// and always with `small-code` or off x86-64.
#[cfg_attr(
    any(feature = "small-code", not(target_arch = "x86_64")),
    allow(clippy::extra_unused_type_parameters)
)]
#[inline(always)]
pub(crate) fn arg_rows_wide<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    c: usize,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return (thin512::arg_rows_prefers::<T>(c, !v.is_empty(), LAST)
        && thin512::arg_rows::<T, D, LAST>(x, y, v, c))
        || (thin512::byte_rows_prefers::<T>(c, true)
            && thin512::arg_byte_rows::<T, D, LAST>(x, y, v, c));
    #[allow(unreachable_code)]
    {
        let _ = (x, y, v, c);
        false
    }
}

/// The first index (with `LAST` the last) of the best of `D` of each contiguous row of `c`
/// (`thin512::long_rows`: rows of a few vectors and longer) of `x` into `y` (and with `v` not
/// empty that element into `v`) by the AVX-512 kernel of long rows (the best, then its index by
/// equality) where the CPU has it and it is the faster kernel for these rows: `true`, else
/// `false` (nothing written), and always with `small-code` or off x86-64.
#[cfg_attr(
    any(feature = "small-code", not(target_arch = "x86_64")),
    allow(clippy::extra_unused_type_parameters)
)]
#[inline(always)]
pub(crate) fn arg_rows_long<T: Element, D: Direction, const LAST: bool, I: Index>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    c: usize,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return thin512::long_rows_prefers::<T>(c)
        && thin512::arg_long_rows::<T, D, LAST, I>(x, y, v, c);
    #[allow(unreachable_code)]
    {
        let _ = (x, y, v, c);
        false
    }
}

/// The index of the best of `D` of each lane of each block of `r` rows of `c` lanes of `x` into
/// `y` (the first, or with `LAST` the last; with `v` not empty that element into `v`) by the
/// AVX-512 kernel of stacked rows (`thin512::stacked`) where the CPU has it and it is the faster
/// kernel for these blocks: `true`, else `false` (nothing written), and always with
/// `small-code` or off x86-64.
#[cfg_attr(
    any(feature = "small-code", not(target_arch = "x86_64")),
    allow(clippy::extra_unused_type_parameters)
)]
#[cfg_attr(debug_assertions, allow(dead_code))]
#[inline(always)]
pub(crate) fn arg_stacked_wide<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return thin512::arg_stacked_prefers::<T>(r, c)
        && thin512::arg_stacked::<T, D, LAST>(x, y, v, r, c);
    #[allow(unreachable_code)]
    {
        let _ = (x, y, v, r, c);
        false
    }
}

/// Hardmax of each contiguous row of `c` of `x` into `y` by the AVX-512 kernel of rows by
/// equality (`thin512::hard_rows`: floats, rows of two to 64 elements) where the CPU has it
/// and it is the faster kernel for these rows: `true`, else `false` (nothing written), and
/// always with `small-code` or off x86-64.
#[inline(always)]
pub(crate) fn hardmax_rows_wide<T: Element>(x: &[T], y: &mut [T], c: usize) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return thin512::hardmax_rows_prefers::<T>(c) && thin512::hardmax_rows(x, y, c);
    #[allow(unreachable_code)]
    {
        let _ = (x, y, c);
        false
    }
}

/// Each block of `xs` elements of `x` (rows of `ys` lanes) reduced down its rows into its
/// block of `ys` elements of `y` (from the identity when `fresh`, else folded into `y`) by the
/// AVX-512 kernel of strided lanes (`lanes512`: `i64` and `u64`, `f32` blocks of five rows or
/// more of sixteen lanes or more; at least one whole row a block) where the CPU has it: `true`,
/// else `false` (nothing written), and always with `small-code` or off x86-64.
#[cfg_attr(
    any(feature = "small-code", not(target_arch = "x86_64")),
    allow(clippy::extra_unused_type_parameters)
)]
#[cfg_attr(debug_assertions, allow(dead_code))]
#[inline(always)]
pub(crate) fn reduce_lanes_512<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    fresh: bool,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    if lanes512::takes::<T>(xs, ys) && ys > 0 && xs >= ys && isa::level() >= isa::AVX512 {
        // SAFETY: `level` found AVX-512 F, BW, VL and DQ; `takes` holds; `xs >= ys > 0`.
        unsafe { lanes512::reduce_blocks::<T, D>(y, x, (xs, ys), fresh) };
        return true;
    }
    let _ = (y, x, xs, ys, fresh);
    false
}
