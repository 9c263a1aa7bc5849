//! Moving data: casts, copies, fills and strided views (see the module [`super`]).

#[cfg(not(debug_assertions))]
use crate::kernels;

use super::Thin;

/// Elements a debug build converts at a time.
#[cfg(debug_assertions)]
const CAST_TILE: usize = 256;

/// `x` converted to `U` into `y` (ONNX Cast).
#[inline(always)]
pub fn cast<T: Thin, U: Thin>(x: &[T], y: &mut [U]) {
    #[cfg(debug_assertions)]
    {
        let mut tile = [crate::cast::Num::Bool(false); CAST_TILE];
        for (x, y) in x.chunks(CAST_TILE).zip(y.chunks_mut(CAST_TILE)) {
            let tile = &mut tile[..x.len().min(y.len())];
            T::to_nums(x, tile);
            U::from_nums(tile, y);
        }
    }
    #[cfg(not(debug_assertions))]
    kernels::cast::<T, U>(x, y);
}

/// Fills `y` with `v`.
#[inline(always)]
pub fn fill<T: Thin>(y: &mut [T], v: T) {
    #[cfg(debug_assertions)]
    T::fill(y, v);
    #[cfg(not(debug_assertions))]
    kernels::fill(y, v);
}

/// The strided view of `x` from `offset` (dimensions of size and stride) copied into `y`.
#[inline(always)]
pub fn strided_copy<T: Thin>(x: &[T], y: &mut [T], offset: usize, dims: &[(usize, isize)]) {
    #[cfg(debug_assertions)]
    T::strided_copy(x, y, offset, dims);
    #[cfg(not(debug_assertions))]
    kernels::strided_copy(x, y, offset, dims);
}
