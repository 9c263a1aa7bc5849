//! The inner kernels that generated loops call.
//!
//! Every kernel works on slices with iterators (`chunks_exact`, `zip`) or checked access, so
//! none can panic whatever the lengths; generated code always passes consistent lengths, and
//! after inlining the constant sizes let rustc drop the checks.
//!
//! Rules (see SEMANTICS.md): reductions propagate NaN; arg-reductions pick the first extreme
//! (the last with `LAST`), and a NaN beats every number (the first NaN, or the last with
//! `LAST`); `-0.0 == +0.0`.

/// `match T::DTYPE { pattern => arm, ..., _ => none }`, written `by_dtype!(T { pattern => arm,
/// ... } else none)`, in which only the arm of `$t`'s type is compiled: each arm is an `if
/// const`, whose untaken branches rustc never instantiates, where a `match` on the constant
/// instantiates every arm's generic calls for every element type (the lanes of `u8` for `f32`,
/// and so on: eight times the code of the AVX2 dispatchers, a third of the compile time of this
/// crate's debug build with opt-level 3).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
macro_rules! by_dtype {
    ($t:ty { $($dt:pat => $arm:expr),* $(,)? } else $none:expr) => {
        $(if const { matches!(<$t as $crate::Element>::DTYPE, $dt) } { $arm } else)* { $none }
    };
}

#[cfg_attr(debug_assertions, allow(dead_code))]
mod arg_few;
mod arg_groups;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod arg_groups512;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod arg_groups_avx2;
mod arg_lanes;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod arg_lanes512;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod arg_lanes_avx2;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod arg_lanes_small_avx2;
mod arg_row;
mod avx2_entry;
mod avx512_entry;
mod gather;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod half_avx2;
mod half_lanes;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod half_lanes512;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod half_lanes_avx2;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod half_reduce512;
mod half_rows;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod hard_halves_avx2;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod hard_lanes_avx2;
mod hardmax;
mod hardmax_f32;
mod index;
mod int_rows;
#[cfg(all(target_arch = "x86_64", not(feature = "small-code")))]
#[cfg_attr(debug_assertions, allow(dead_code))]
pub(crate) mod isa;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod lane_walk_avx2;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
#[cfg_attr(debug_assertions, allow(dead_code))]
mod lanes512;
mod mid_rows;
pub(crate) mod narrow;
mod planes;
mod reduce;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod reduce_lanes_small_avx2;
mod rounded;
// Optimized builds' row kernels (see `reduce_rows_f32`); debug builds reach only its
// constant-length and AVX2 entry points (`rows_f32::fixed`) and compile the rest for its tests.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code"),
    not(debug_assertions)
))]
mod planes512;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(debug_assertions, allow(dead_code))]
mod rows_f32;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod rows_f64_avx2;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod rows_u8;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod rows_wide_avx2;
mod shared;
mod short_rows;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod short_rows_avx2;
mod strided;
#[cfg(test)]
mod test_util;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
#[cfg_attr(debug_assertions, allow(dead_code))]
mod thin512;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
#[cfg_attr(debug_assertions, allow(dead_code))]
mod thin_avx2;
#[cfg_attr(debug_assertions, allow(dead_code))]
mod thin_blocks;

pub use crate::cast::cast;
pub use arg_lanes::{arg_lanes, arg_lanes_values, arg_tile};
pub use arg_row::arg_row;
#[doc(hidden)]
pub use arg_row::arg_row_wide;
pub use gather::arg_values;
pub use hardmax::{hardmax_general, hardmax_lanes, hardmax_row};
pub use index::{cast_index, index, Index};
#[doc(hidden)]
pub use mid_rows::MID as ARG_ROW_MID;
pub use narrow::{
    arg_lanes_narrow, arg_rows_short, hardmax_lanes_narrow, hardmax_rows_short, narrow_period,
    reduce_lanes_narrow, reduce_rows_short,
};
pub use planes::{reduce_parts, reduce_planes};
pub use reduce::{fold, reduce_lanes_rows, reduce_rows};
pub use rounded::{arg_row_rounded, Narrowing};
pub use shared::{copy, fill, split2};
pub use strided::strided_copy;

pub(crate) use avx512_entry::{arg_rows_long, arg_rows_wide, hardmax_rows_wide};
#[cfg(not(debug_assertions))]
pub(crate) use avx512_entry::{arg_stacked_wide, reduce_lanes_512};
pub(crate) use hardmax_f32::{hardmax_blocks_f32, hardmax_rows_f32};
#[cfg(not(debug_assertions))]
pub(crate) use short_rows::arg_rows_values_narrow;
pub(crate) use short_rows::{arg_rows_narrow, hardmax_rows_narrow, reduce_rows_narrow};

use crate::{Direction, Element, Max};

// The run-time-sized cores the debug builds' entry points (`crate::node`) share with the
// constant-sized kernels above.
#[cfg(not(debug_assertions))]
pub(crate) use arg_few::{arg_blocks_few, fits as arg_few_fits, MAX_LANES as ARG_FEW_MAX_LANES};
#[cfg(not(debug_assertions))]
#[cfg_attr(feature = "small-code", allow(unused_imports))]
pub(crate) use arg_lanes::{
    arg_blocks_f32, arg_blocks_small, arg_lanes_inlined, arg_lanes_wide, arg_two_rows,
    TWO_ROWS_LANES,
};
#[cfg(not(debug_assertions))]
pub(crate) use narrow::arg_values_rows_short;
#[cfg(debug_assertions)]
pub(crate) use narrow::{arg_lanes_narrow_in, reduce_lanes_narrow_in};
#[cfg(debug_assertions)]
pub(crate) use planes::reduce_planes_in;
pub(crate) use reduce::{afresh, afresh_rows, reduce_lane_blocks_fresh, reduce_rows_512};
#[cfg(not(debug_assertions))]
pub(crate) use reduce::{reduce_blocks_small, reduce_rows_short_fresh};
#[cfg(debug_assertions)]
pub(crate) use shared::{step, take};
#[cfg(not(debug_assertions))]
pub(crate) use thin_blocks::{
    arg_blocks_of as arg_blocks_thin, arg_values_wide as arg_values_thin_wide,
    blocks_of as thin_blocks, hardmax_blocks_of as hardmax_blocks_thin, hardmax_few_rows,
    reduce_blocks_of as reduce_blocks_thin, reduce_packed, reduces_wide as thin_reduces_wide,
};

/// Hardmax along `r` rows of `inner` lanes of `x` into `y`, block after block, by the AVX2
/// kernel of f16 and bf16 blocks of two to 64 rows of sixteen lanes or more
/// (`hard_halves_avx2`) where the CPU has AVX2, but for the blocks it leaves to the lane kernels
/// where the CPU has AVX-512 (`hard_halves_avx2::lanes_take`); `false` (nothing done)
/// otherwise, and always with `small-code`.
#[inline(always)]
pub(crate) fn hardmax_blocks_halves<T: Element>(
    x: &[T],
    y: &mut [T],
    r: usize,
    inner: usize,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return !hard_halves_avx2::lanes_take(r, inner)
        && hard_halves_avx2::hardmax_blocks(x, y, r, inner);
    #[allow(unreachable_code)]
    {
        let _ = (x, y, r, inner);
        false
    }
}

/// Hardmax of the contiguous rows of `R` of `x` (f16, bf16) into `y` where `hard_halves_avx2`
/// takes them (rows of two eight an AVX2 vector, of three sixteen a group of three vectors) and
/// the CPU has AVX2: the rows done (0 otherwise, and always with `small-code`).
#[inline(always)]
pub(crate) fn hardmax_short_halves<T: Element, const R: usize>(x: &[T], y: &mut [T]) -> usize {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return match R {
        2 => hard_halves_avx2::hardmax_pairs(x, y),
        3 => hard_halves_avx2::hardmax_triples(x, y),
        _ => 0,
    };
    #[allow(unreachable_code)]
    {
        let _ = (x, y);
        0
    }
}

/// Folds contiguous rows of `n` of `x` into `y` by the `f32` row kernels of x86-64 when they
/// take them (`f32`, rows of 2 or 4 to 128, not `small-code`); `false` if nothing was done.
/// Optimized builds only: in a debug build these are the runtime's own entry points, compiled
/// once without the generated code's constant row length, and there they ran 1.2-1.9x slower
/// than the portable kernels (rows of 2 and 80, `[profile.dev.package.onnx-aot] opt-level = 3`).
#[inline(always)]
pub(crate) fn reduce_rows_f32<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::reduce_rows::<T, D>(y, x, n);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (y, x, n, core::marker::PhantomData::<D>);
        false
    }
}

/// [`reduce_rows_f32`] of rows of `R`, a length known when compiling (the AVX2 kernel is
/// instantiated for it).
#[inline(always)]
pub(crate) fn reduce_rows_f32_const<T: Element, D: Direction, const R: usize>(
    y: &mut [T],
    x: &[T],
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::reduce_rows_const::<T, D, R>(y, x);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (y, x, core::marker::PhantomData::<D>);
        false
    }
}

/// Whether [`reduce_rows_f32`] takes rows of `n` of `T` (it does nothing and says `false`
/// otherwise).
#[inline(always)]
pub(crate) const fn rows_f32_fit<T: Element>(n: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::fits::<T>(n);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (n, core::marker::PhantomData::<T>);
        false
    }
}

/// Whether [`reduce_rows_f32_const`] takes rows of `n` of `T` ([`rows_f32_fit`], and `f32`
/// rows of 3 to 15 by the AVX2 kernels of eight rows to a vector where the CPU has them).
#[inline(always)]
pub(crate) const fn reduce_rows_f32_const_fit<T: Element>(n: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::fits::<T>(n) || rows_f32::short_reduce::fits::<T>(n);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (n, core::marker::PhantomData::<T>);
        false
    }
}

/// Whether [`arg_rows_f32`] may take rows of `n` of `T` that [`rows_f32_fit`] does not: the
/// long rows of the AVX2 kernel (it says `false` on CPUs without AVX2).
#[inline(always)]
pub(crate) const fn long_rows_f32_fit<T: Element>(n: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::long_fits::<T>(n);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (n, core::marker::PhantomData::<T>);
        false
    }
}

/// Whether [`arg_rows_f32`] takes rows of `n` of `T` by the kernel of short rows turned into
/// columns on this CPU (rows of 3 to 8 where it has AVX2): for Hardmax, whose rows of three and
/// four otherwise stay with the portable kernels (the SSE2 kernel was slower there).
#[inline(always)]
pub(crate) fn columns_f32_fit<T: Element>(n: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::columns_fit::<T>(n) && rows_f32::avx2::available();
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (n, core::marker::PhantomData::<T>);
        false
    }
}

/// Folds the parts of `planes` planes of `plane` elements of `x` (each from `at`, as long as
/// `tile`) element by element into `tile` by the f32 kernels of x86-64, by the order alone:
/// whether they hold a NaN, or `None` (nothing done) where those kernels are not built, for
/// other types and for tiles under sixteen elements.
#[inline(always)]
pub(crate) fn fold_planes_f32<T: Element, D: Direction>(
    tile: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<bool> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::fold_planes::<T, D>(tile, x, planes, plane, at);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (tile, x, planes, plane, at, core::marker::PhantomData::<D>);
        None
    }
}

/// Folds row `k` of every plane into `y[k]` by the AVX-512 kernel of blocks of rows of 2 to 16
/// folded over the planes (`planes512`) where it takes them (every numeric type and bool on a
/// CPU with AVX-512, 1-byte types with VBMI, rows of 1- and 2-byte types to 11; optimized
/// builds): how many rows it did from the first (`None` where it does not take them); the
/// caller does the rest.
#[inline(always)]
pub(crate) fn fold_rows_planes<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<usize> {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code"),
        not(debug_assertions)
    ))]
    return planes512::fold_rows_planes::<T, D, N>(y, x, planes, plane, at);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code"),
        not(debug_assertions)
    )))]
    {
        let _ = (y, x, planes, plane, at, core::marker::PhantomData::<D>);
        None
    }
}

/// Reduces each contiguous row of `R` of `x`, which holds no NaN, into `y` by the f32 row
/// kernels of x86-64 (rows of 4 to 16, AVX2): `false` (nothing done) where they do not take
/// them.
#[inline(always)]
pub(crate) fn reduce_rows_nan_free_f32<T: Element, D: Direction, const R: usize>(
    y: &mut [T],
    x: &[T],
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::reduce_rows_nan_free::<T, D, R>(y, x);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (y, x, core::marker::PhantomData::<D>);
        false
    }
}

/// Whether blocks of two rows of `T` (of [`TWO_ROWS_LANES`] lanes or more) take the AVX2 form of
/// [`arg_two_rows`] on this CPU (`f32` in optimized x86-64 builds): the only form that also
/// writes the values (`max+argmax`) faster than the tiles.
#[cfg_attr(debug_assertions, allow(dead_code))]
#[inline(always)]
pub(crate) fn two_rows_f32_fit<T: Element>() -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::fits::<T>(2) && rows_f32::avx2::available();
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = core::marker::PhantomData::<T>;
        false
    }
}

/// The AVX2 form of [`arg_two_rows`] of `f32` (`v`, when not empty, gets the elements picked):
/// `false` (nothing done) where it does not take them.
#[inline(always)]
fn two_rows_f32<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::two_rows::<T, D, LAST>(x, y, v, inner);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (x, y, v, inner, core::marker::PhantomData::<D>);
        false
    }
}

/// The extreme of each row of two `f32`s written into `y` (not read) by the AVX2 kernel where
/// the CPU has it: the rows done (whole groups of eight), 0 elsewhere (and in `small-code`).
#[cfg(not(debug_assertions))]
#[inline(always)]
fn reduce_pairs_fresh_f32<T: Element, D: Direction>(y: &mut [T], x: &[T]) -> usize {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return rows_f32::reduce_pairs_fresh::<T, D>(y, x);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (y, x, core::marker::PhantomData::<D>);
        0
    }
}

/// [`arg_rows_f32`] with INT64 indices, writing each row's extreme into `v` too (a ReduceMax or
/// ReduceMin fused into the node); `false` if nothing was done. Debug builds take only rows of
/// 8 to 128, on CPUs with AVX2 (the AVX2 kernel, written for a run-time length).
#[inline(always)]
pub(crate) fn arg_rows_values_f32<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    n: usize,
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::arg_rows_values::<T, D, LAST, true, i64>(x, y, v, n);
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", debug_assertions))]
    if let (Some(x), Some(v)) = (T::f32s(x), T::f32s_mut(v)) {
        return rows_f32::arg_wide_dynamic::<D, LAST, true>(x, y, v, n);
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (x, y, v, n, core::marker::PhantomData::<D>);
        false
    }
}

/// For the debug builds' entry points: f32 rows of 4 to 31 by the x86-64 row kernels,
/// one instance per constant length (see `rows_f32::reduce_short_fixed`); `false` (nothing
/// done) for other types and lengths, off x86-64 and with `small-code`.
#[cfg(debug_assertions)]
pub(crate) fn reduce_short_f32<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let (Some(y), Some(x)) = (T::f32s_mut(y), T::f32s(x)) {
        return rows_f32::reduce_short_fixed::<D>(y, x, n);
    }
    let _ = (y, x, n, core::marker::PhantomData::<D>);
    false
}

/// [`reduce_short_f32`] for the arg-reductions; rows of 8 to 128 by the AVX2 kernel where the CPU
/// has it (see `rows_f32::arg_wide_dynamic`).
#[cfg(debug_assertions)]
pub(crate) fn arg_short_f32<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    n: usize,
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Some(x) = T::f32s(x) {
        return rows_f32::arg_wide_dynamic::<D, LAST, false>(x, y, &mut [], n)
            || rows_f32::arg_short_fixed::<D, LAST>(x, y, n);
    }
    let _ = (x, y, n, core::marker::PhantomData::<D>);
    false
}

/// [`reduce_rows_f32`] for the arg-reductions: indices of the extreme of each row, as `I`.
#[inline(always)]
pub(crate) fn arg_rows_f32<T: Element, D: Direction, const LAST: bool, I: Index>(
    x: &[T],
    y: &mut [I],
    n: usize,
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::arg_rows::<T, D, LAST, I>(x, y, n)
        || rows_f32::arg_rows_widened::<T, D, LAST, I>(x, y, n);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (x, y, n, core::marker::PhantomData::<D>);
        false
    }
}
