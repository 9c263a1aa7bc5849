//! The non-generic entry points of debug builds: for each element type, one function per kernel
//! family, compiled in this crate (at its opt-level) with the node's sizes, direction and tie
//! rule as run-time values. The shims of the other modules call them under `debug_assertions`.
//!
//! The methods only exist in debug builds of this crate; the traits always do, as the shims'
//! bounds. Each method is `#[inline(never)]`, so that it is never copied into (and compiled at
//! the opt-level of) the calling crate.

#[cfg(debug_assertions)]
use crate::cast::Num;
use crate::kernels::Narrowing;
use crate::{bf16, f16, CastElement, Element};

/// An element type with the debug builds' non-generic kernels (every element type has them).
pub trait Thin: Element + CastElement {
    /// Indices of the extreme of each contiguous row of `r` (`y.len()` rows).
    #[cfg(debug_assertions)]
    fn arg_rows(x: &[Self], y: &mut [i64], r: usize, min: bool, last: bool);
    /// The index of the extreme of one row.
    #[cfg(debug_assertions)]
    fn arg_row(x: &[Self], min: bool, last: bool) -> usize;
    /// Arg-reduction along `r` rows of `inner` lanes, block after block of `r · inner`; the
    /// lanes' extremes into `v` too when it is not empty.
    #[cfg(debug_assertions)]
    fn arg_blocks(
        x: &[Self],
        y: &mut [i64],
        v: &mut [Self],
        shape: (usize, usize),
        min: bool,
        last: bool,
    );
    /// Indices of the extreme of each contiguous row of `r` and the extremes into `v`, where a
    /// kernel does both in one pass (`false`, nothing written, elsewhere).
    #[cfg(debug_assertions)]
    fn arg_rows_values(
        x: &[Self],
        y: &mut [i64],
        v: &mut [Self],
        r: usize,
        min: bool,
        last: bool,
    ) -> bool;
    /// The values at the indices of an arg-reduction (blocks of `r · inner`).
    #[cfg(debug_assertions)]
    fn arg_values(x: &[Self], idx: &[i64], v: &mut [Self], r: usize, inner: usize);
    /// Folds each contiguous row of `n` into the matching element of `y` (`how`: the minimum,
    /// and whether `y`'s previous contents are ignored, every element written afresh).
    #[cfg(debug_assertions)]
    fn reduce_rows(y: &mut [Self], x: &[Self], n: usize, how: (bool, bool));
    /// Folds blocks of `xs` elements of `x`, rows of `ys` lanes, into blocks of `ys` of `y`
    /// (`how` as for [`Thin::reduce_rows`]).
    #[cfg(debug_assertions)]
    fn reduce_lanes(y: &mut [Self], x: &[Self], blocks: (usize, usize), how: (bool, bool));
    /// Blocks of `xs` elements of `x`: `planes` planes of rows of `n`, each row folded into its
    /// element of the block's `ys` outputs (`how` as for [`Thin::reduce_rows`]).
    #[cfg(debug_assertions)]
    fn reduce_planes(
        y: &mut [Self],
        x: &[Self],
        planes: (usize, usize),
        blocks: (usize, usize),
        how: (bool, bool),
    );
    /// Hardmax of each contiguous row of `r`.
    #[cfg(debug_assertions)]
    fn hardmax_rows(x: &[Self], y: &mut [Self], r: usize);
    /// Hardmax along `r` rows of `inner` lanes, block after block.
    #[cfg(debug_assertions)]
    fn hardmax_blocks(x: &[Self], y: &mut [Self], r: usize, inner: usize);
    /// Hardmax over runs of (size, stride) kept and reduced.
    #[cfg(debug_assertions)]
    fn hardmax_general(
        x: &[Self],
        y: &mut [Self],
        kept: &[(usize, usize)],
        reduced: &[(usize, usize)],
    );
    /// A strided view of `x` copied into `y`.
    #[cfg(debug_assertions)]
    fn strided_copy(x: &[Self], y: &mut [Self], offset: usize, dims: &[(usize, isize)]);
    /// `y` filled with `v`.
    #[cfg(debug_assertions)]
    fn fill(y: &mut [Self], v: Self);
    /// The values of `x` on their way to another type.
    #[cfg(debug_assertions)]
    fn to_nums(x: &[Self], out: &mut [Num]);
    /// The values of `x` converted to this type.
    #[cfg(debug_assertions)]
    fn from_nums(x: &[Num], out: &mut [Self]);
}

/// A float whose arg-reduction can be taken as rounded to the narrower `U` (a Cast folded into
/// the read).
pub trait ThinRounded<U: Element>: Narrowing<U> {
    /// Indices of the extreme of each contiguous row of `r`, as rounded to `U`.
    #[cfg(debug_assertions)]
    fn arg_rows_rounded(x: &[Self], y: &mut [i64], r: usize, min: bool, last: bool);
}

/// An index type (the output of an arg-reduction, or the target of a Cast folded into it).
pub trait ThinIndex: crate::kernels::Index {
    /// INT64 indices converted to this type, as a Cast does.
    #[cfg(debug_assertions)]
    fn from_i64s(x: &[i64], out: &mut [Self]);
    /// The indices themselves when this is INT64 (nothing to convert).
    #[cfg(debug_assertions)]
    fn as_i64s(y: &mut [Self]) -> Option<&mut [i64]>;
}

/// Calls `f::<T, D, LAST>($args)` with the direction and tie rule given at run time.
#[cfg(debug_assertions)]
macro_rules! directed {
    ($min:expr, $last:expr, $($f:ident)::+, [$($g:ty),*], ($($a:expr),*)) => {
        match ($min, $last) {
            (false, false) => $($f)::+::<$($g,)* crate::Max, false>($($a),*),
            (false, true) => $($f)::+::<$($g,)* crate::Max, true>($($a),*),
            (true, false) => $($f)::+::<$($g,)* crate::Min, false>($($a),*),
            (true, true) => $($f)::+::<$($g,)* crate::Min, true>($($a),*),
        }
    };
}

/// Calls `f::<T, D>($args)` with the direction given at run time.
#[cfg(debug_assertions)]
macro_rules! toward {
    ($min:expr, $($f:ident)::+, [$($g:ty),*], ($($a:expr),*)) => {
        if $min {
            $($f)::+::<$($g,)* crate::Min>($($a),*)
        } else {
            $($f)::+::<$($g,)* crate::Max>($($a),*)
        }
    };
}

macro_rules! thin {
    ($($t:ty)*) => {$(
        impl Thin for $t {
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn arg_rows(x: &[Self], y: &mut [i64], r: usize, min: bool, last: bool) {
                directed!(min, last, crate::node::dynamic::arg_rows, [$t], (x, y, r))
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn arg_row(x: &[Self], min: bool, last: bool) -> usize {
                directed!(min, last, crate::kernels::arg_row, [$t], (x))
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn arg_blocks(
                x: &[Self],
                y: &mut [i64],
                v: &mut [Self],
                shape: (usize, usize),
                min: bool,
                last: bool,
            ) {
                directed!(min, last, crate::node::dynamic::arg_blocks, [$t], (x, y, v, shape))
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn arg_rows_values(
                x: &[Self],
                y: &mut [i64],
                v: &mut [Self],
                r: usize,
                min: bool,
                last: bool,
            ) -> bool {
                directed!(min, last, crate::kernels::arg_rows_values_f32, [$t], (x, y, v, r))
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn arg_values(x: &[Self], idx: &[i64], v: &mut [Self], r: usize, inner: usize) {
                crate::kernels::arg_values(x, idx, v, r, inner);
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn reduce_rows(y: &mut [Self], x: &[Self], n: usize, (min, fresh): (bool, bool)) {
                toward!(min, crate::node::dynamic::reduce_rows, [$t], (y, x, n, fresh))
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn reduce_lanes(
                y: &mut [Self],
                x: &[Self],
                blocks: (usize, usize),
                (min, fresh): (bool, bool),
            ) {
                toward!(min, crate::node::dynamic::reduce_lanes, [$t], (y, x, blocks, fresh))
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn reduce_planes(
                y: &mut [Self],
                x: &[Self],
                planes: (usize, usize),
                blocks: (usize, usize),
                (min, fresh): (bool, bool),
            ) {
                let f = fresh;
                toward!(min, crate::node::dynamic::reduce_planes, [$t], (y, x, planes, blocks, f))
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn hardmax_rows(x: &[Self], y: &mut [Self], r: usize) {
                crate::node::dynamic::hardmax_rows(x, y, r);
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn hardmax_blocks(x: &[Self], y: &mut [Self], r: usize, inner: usize) {
                crate::node::dynamic::hardmax_blocks(x, y, r, inner);
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn hardmax_general(
                x: &[Self],
                y: &mut [Self],
                kept: &[(usize, usize)],
                reduced: &[(usize, usize)],
            ) {
                crate::kernels::hardmax_general(x, y, kept, reduced);
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn strided_copy(x: &[Self], y: &mut [Self], offset: usize, dims: &[(usize, isize)]) {
                crate::kernels::strided_copy(x, y, offset, dims);
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn fill(y: &mut [Self], v: Self) {
                crate::kernels::fill(y, v);
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn to_nums(x: &[Self], out: &mut [Num]) {
                for (o, &v) in out.iter_mut().zip(x) {
                    *o = v.to_num();
                }
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn from_nums(x: &[Num], out: &mut [Self]) {
                for (o, &v) in out.iter_mut().zip(x) {
                    *o = <$t as CastElement>::from_num(v);
                }
            }
        }
    )*};
}
thin!(i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 bool);

macro_rules! thin_rounded {
    ($($t:ty => $u:ty),*) => {$(
        impl ThinRounded<$u> for $t {
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn arg_rows_rounded(x: &[Self], y: &mut [i64], r: usize, min: bool, last: bool) {
                directed!(min, last, crate::node::dynamic::arg_rows_rounded, [$t, $u], (x, y, r))
            }
        }
    )*};
}
thin_rounded!(f32 => f16, f32 => bf16, f64 => f32);

macro_rules! thin_index {
    ($($t:ty => $direct:expr),*) => {$(
        impl ThinIndex for $t {
            #[cfg(debug_assertions)]
            #[inline(always)]
            fn as_i64s(y: &mut [Self]) -> Option<&mut [i64]> {
                $direct(y)
            }
            #[cfg(debug_assertions)]
            #[inline(never)]
            fn from_i64s(x: &[i64], out: &mut [Self]) {
                for (o, &i) in out.iter_mut().zip(x) {
                    *o = crate::kernels::cast_index::<$t>(i);
                }
            }
        }
    )*};
}
/// Not INT64: converted through a tile.
#[cfg(debug_assertions)]
fn converted<T>(_: &mut [T]) -> Option<&mut [i64]> {
    None
}
thin_index!(
    i8 => converted, i16 => converted, i32 => converted, i64 => Some, u8 => converted,
    u16 => converted, u32 => converted, u64 => converted, f32 => converted, f64 => converted
);
