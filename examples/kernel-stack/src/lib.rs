//! Every public runtime kernel that generated code calls, instantiated for representative
//! element types behind exported entry points, so that the worst-case stack of each can be read
//! from the disassembly: `tests/tests/kernel_stack.rs` builds this crate with and without the
//! runtime's `small-code` feature at opt-level "s" and 3 and adds up the frames `objdump` shows.
//!
//! Entry points are named `stack_KERNEL_TYPE`. Lengths are run-time values (slices), so nothing
//! is folded away; the const parameters are the generator's largest choices (the widest tile
//! [`arg_tile`] gives, the longest short row, the widest narrow period), which give the largest
//! frames. Direction `Max`, first index (`LAST = false`): the direction and `LAST` change the
//! compares, not the state kept.
#![no_std]

use onnx_aot::kernels::{self, arg_tile, narrow_period};
use onnx_aot::{bf16, f16, Max};

/// Lanes of a wide strided block: its tile is the largest [`arg_tile`] gives.
const WIDE: usize = 4096;
/// Few lanes with the widest narrow period (9 lanes, read as rows of 126).
const FEW: usize = 9;
/// The longest contiguous row the short-row kernels take (the generator's limit is 32).
const SHORT: usize = 31;
/// Row length of the planes kernel: short enough for its tile and its short-row fold.
const PLANE_ROW: usize = 16;

/// One module per element type: one entry point per kernel, on `$t`.
macro_rules! per_type {
    ($($m:ident: $t:ident),*) => {$(
        #[doc = concat!("The kernels on `", stringify!($t), "`.")]
        pub mod $m {
            use super::*;
            type T = $t;
            const SIZE: usize = core::mem::size_of::<T>();
            const NARROW: usize = narrow_period(FEW);
            const TILE: usize = arg_tile(WIDE, SIZE);
            const NARROW_TILE: usize = arg_tile(NARROW, SIZE);

            #[export_name = concat!("stack_arg_row_", stringify!($t))]
            pub fn arg_row(x: &[T]) -> usize {
                kernels::arg_row::<T, Max, false>(x)
            }
            #[export_name = concat!("stack_arg_rows_short_", stringify!($t))]
            pub fn arg_rows_short(x: &[T], y: &mut [i64]) {
                kernels::arg_rows_short::<T, Max, false, SHORT>(x, y);
            }
            #[export_name = concat!("stack_arg_lanes_", stringify!($t))]
            pub fn arg_lanes(x: &[T], y: &mut [i64], inner: usize) {
                kernels::arg_lanes::<T, Max, false, TILE>(x, y, inner);
            }
            #[export_name = concat!("stack_arg_lanes_values_", stringify!($t))]
            pub fn arg_lanes_values(x: &[T], y: &mut [i64], v: &mut [T], inner: usize) {
                kernels::arg_lanes_values::<T, Max, false, TILE>(x, y, v, inner);
            }
            #[export_name = concat!("stack_arg_lanes_narrow_", stringify!($t))]
            pub fn arg_lanes_narrow(x: &[T], y: &mut [i64]) {
                kernels::arg_lanes_narrow::<T, Max, false, FEW, NARROW, NARROW_TILE>(x, y);
            }
            #[export_name = concat!("stack_arg_values_", stringify!($t))]
            pub fn arg_values(x: &[T], idx: &[i64], v: &mut [T], r: usize, inner: usize) {
                kernels::arg_values::<T>(x, idx, v, r, inner);
            }
            #[export_name = concat!("stack_reduce_rows_", stringify!($t))]
            pub fn reduce_rows(y: &mut [T], x: &[T], n: usize) {
                kernels::reduce_rows::<T, Max>(y, x, n);
            }
            #[export_name = concat!("stack_reduce_rows_short_", stringify!($t))]
            pub fn reduce_rows_short(y: &mut [T], x: &[T]) {
                kernels::reduce_rows_short::<T, Max, SHORT>(y, x);
            }
            #[export_name = concat!("stack_reduce_lanes_rows_", stringify!($t))]
            pub fn reduce_lanes_rows(acc: &mut [T], x: &[T]) {
                kernels::reduce_lanes_rows::<T, Max>(acc, x);
            }
            #[export_name = concat!("stack_reduce_lanes_narrow_", stringify!($t))]
            pub fn reduce_lanes_narrow(acc: &mut [T], x: &[T]) {
                kernels::reduce_lanes_narrow::<T, Max, FEW, NARROW>(acc, x);
            }
            #[export_name = concat!("stack_reduce_planes_", stringify!($t))]
            pub fn reduce_planes(y: &mut [T], x: &[T], planes: usize) {
                kernels::reduce_planes::<T, Max, PLANE_ROW>(y, x, planes);
            }
            #[export_name = concat!("stack_fold_", stringify!($t))]
            pub fn fold(acc: T, row: &[T]) -> T {
                kernels::fold::<T, Max>(acc, row)
            }
            #[export_name = concat!("stack_hardmax_row_", stringify!($t))]
            pub fn hardmax_row(x: &[T], y: &mut [T]) {
                kernels::hardmax_row::<T>(x, y);
            }
            #[export_name = concat!("stack_hardmax_rows_short_", stringify!($t))]
            pub fn hardmax_rows_short(x: &[T], y: &mut [T]) {
                kernels::hardmax_rows_short::<T, SHORT>(x, y);
            }
            #[export_name = concat!("stack_hardmax_lanes_", stringify!($t))]
            pub fn hardmax_lanes(x: &[T], y: &mut [T], inner: usize) {
                kernels::hardmax_lanes::<T>(x, y, inner);
            }
            #[export_name = concat!("stack_hardmax_lanes_narrow_", stringify!($t))]
            pub fn hardmax_lanes_narrow(x: &[T], y: &mut [T]) {
                kernels::hardmax_lanes_narrow::<T, FEW, NARROW, NARROW_TILE>(x, y);
            }
            #[export_name = concat!("stack_hardmax_general_", stringify!($t))]
            pub fn hardmax_general(
                x: &[T],
                y: &mut [T],
                kept: &[(usize, usize)],
                reduced: &[(usize, usize)],
            ) {
                kernels::hardmax_general::<T>(x, y, kept, reduced);
            }
            #[export_name = concat!("stack_fill_", stringify!($t))]
            pub fn fill(y: &mut [T], v: T) {
                kernels::fill::<T>(y, v);
            }
            #[export_name = concat!("stack_copy_", stringify!($t))]
            pub fn copy(y: &mut [T], x: &[T]) {
                kernels::copy::<T>(y, x);
            }
            #[export_name = concat!("stack_strided_copy_", stringify!($t))]
            pub fn strided_copy(x: &[T], y: &mut [T], offset: usize, dims: &[(usize, isize)]) {
                kernels::strided_copy::<T>(x, y, offset, dims);
            }
            #[export_name = concat!("stack_split2_", stringify!($t))]
            pub fn split2(buf: &mut [T], a: usize, n: usize, b: usize, m: usize) -> usize {
                kernels::split2::<T>(buf, a, n, b, m).map_or(0, |(p, q)| p.len() + q.len())
            }
        }
    )*};
}

per_type!(
    of_f32: f32, of_f64: f64, of_f16: f16, of_bf16: bf16, of_i8: i8, of_i32: i32, of_i64: i64
);

/// `arg_row_rounded` for each narrowing it has, and the conversions (`cast`, index types).
pub mod conversions {
    use super::*;

    #[export_name = "stack_arg_row_rounded_f32_f16"]
    pub fn arg_row_rounded_f32_f16(x: &[f32]) -> usize {
        kernels::arg_row_rounded::<f32, f16, Max, false>(x)
    }
    #[export_name = "stack_arg_row_rounded_f32_bf16"]
    pub fn arg_row_rounded_f32_bf16(x: &[f32]) -> usize {
        kernels::arg_row_rounded::<f32, bf16, Max, false>(x)
    }
    #[export_name = "stack_arg_row_rounded_f64_f32"]
    pub fn arg_row_rounded_f64_f32(x: &[f64]) -> usize {
        kernels::arg_row_rounded::<f64, f32, Max, false>(x)
    }
    #[export_name = "stack_cast_f32_i64"]
    pub fn cast_f32_i64(x: &[f32], y: &mut [i64]) {
        kernels::cast(x, y);
    }
    #[export_name = "stack_cast_f64_f16"]
    pub fn cast_f64_f16(x: &[f64], y: &mut [f16]) {
        kernels::cast(x, y);
    }
    #[export_name = "stack_cast_bf16_i8"]
    pub fn cast_bf16_i8(x: &[bf16], y: &mut [i8]) {
        kernels::cast(x, y);
    }
    #[export_name = "stack_index_i32"]
    pub fn index_i32(i: usize) -> i32 {
        kernels::index::<i32>(i)
    }
    #[export_name = "stack_cast_index_f32"]
    pub fn cast_index_f32(i: i64) -> f32 {
        kernels::cast_index::<f32>(i)
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
