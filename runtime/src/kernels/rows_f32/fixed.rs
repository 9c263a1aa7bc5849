//! The debug builds' instances of the f32 row kernels, one per constant row length.

use super::{arg_f32, avx2, columns, reduce_sse, MAX_ROW};
use crate::Direction;

/// The f32 rows of 4 to 31 elements with the length as a constant, one instance per length:
/// the debug builds' entry points (`crate::node::dynamic`, compiled once in this crate) pass the
/// length at run time, and there the run-time-length form of these kernels ran slower than the
/// portable ones. `false` (nothing done) for other lengths (rows of 2 ran 1.3-2x slower this way
/// in a debug build than by the portable kernel, whose form for them is unrolled too, with SSE2
/// and with the AVX2 pairs alike). Folds as
/// [`reduce_rows`](super::reduce_rows).
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub(in crate::kernels) fn reduce_short_fixed<D: Direction>(
    y: &mut [f32],
    x: &[f32],
    n: usize,
) -> bool {
    macro_rules! lengths {
        ($($n:literal)*) => {
            match n {
                $($n => reduce_n::<D, $n>(y, x),)*
                _ => return false,
            }
        };
    }
    if cfg!(feature = "small-code") {
        return false;
    }
    lengths!(4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    true
}

/// [`reduce_short_fixed`] for the arg-reductions (indices as `i64`, as [`arg_rows`] writes).
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub(in crate::kernels) fn arg_short_fixed<D: Direction, const LAST: bool>(
    x: &[f32],
    y: &mut [i64],
    n: usize,
) -> bool {
    macro_rules! lengths {
        ($($n:literal)*) => {
            match n {
                $($n => arg_n::<D, LAST, $n>(x, y),)*
                _ => return false,
            }
        };
    }
    if cfg!(feature = "small-code") {
        return false;
    }
    lengths!(4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    true
}

/// [`reduce_sse`] of rows of `N`, in a frame of its own: the kernels are `#[inline(always)]`,
/// and at opt-level 0 the 28 lengths inlined into one function took a frame of 87 KiB (773 KiB
/// for [`arg_n`]'s), over a small thread's stack.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
#[inline(never)]
fn reduce_n<D: Direction, const N: usize>(y: &mut [f32], x: &[f32]) {
    reduce_sse::<D>(y, x, N);
}

/// [`arg_f32`] of rows of `N`, in a frame of its own ([`reduce_n`]).
#[cfg_attr(not(debug_assertions), allow(dead_code))]
#[inline(never)]
fn arg_n<D: Direction, const LAST: bool, const N: usize>(x: &[f32], y: &mut [i64]) {
    arg_f32::<D, LAST, false, i64>(x, y, &mut [], N);
}

/// The arg-reductions of f32 rows of 3 to [`MAX_ROW`] elements by the AVX2 kernels, where the
/// CPU has them, with each row's extreme into `v` too when `VALUES`: the debug builds' entry
/// points take them with the length at run time, as those kernels are written (eight rows at a
/// time up to 64 elements, as optimized builds do, then one row at a time; in a debug build the
/// row-at-a-time kernel alone ran rows of 20 1.6x faster than the constant-length SSE2
/// instances, whose slice helpers keep their checks there); rows of 2 with `VALUES` by the AVX2
/// pairs. `false`
/// (nothing done) for other lengths, on other CPUs and with `small-code`.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub(in crate::kernels) fn arg_wide_dynamic<D: Direction, const LAST: bool, const VALUES: bool>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    n: usize,
) -> bool {
    if cfg!(feature = "small-code") || !avx2::available() {
        return false;
    }
    if n == 2 && VALUES {
        // Rows of two with their values (`max+argmax`): eight at a time (`pairs`), as optimized
        // builds take them; in a debug build 1.6x faster than the portable kernel
        // (`[262144, 2]` 427 -> 266 us), while the plain arg-reduction ran 1.3x slower this way
        // and keeps the portable one.
        arg_f32::<D, LAST, VALUES, i64>(x, y, v, 2);
        return true;
    }
    if !(columns::MIN_ROW..=MAX_ROW).contains(&n) {
        return false;
    }
    // Eight rows at a time where the kernels of short rows take them (turned into columns up
    // to eight elements, each row searched up to 64), as optimized builds do; the few rows left
    // by the kernels after them.
    super::arg_rows_values::<f32, D, LAST, VALUES, i64>(x, y, v, n);
    true
}
