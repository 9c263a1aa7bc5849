//! The narrow arg-reduction in the strided shims' AVX2 and AVX-512 twins (`node/wide.rs`), and
//! the lane kernels [`super::arg_lanes_narrow_in`] runs over its widened rows.

// Only the twins (x86-64 optimized builds for baseline x86-64, without `small-code`) call this.
#![cfg_attr(
    not(all(
        target_arch = "x86_64",
        not(target_feature = "avx2"),
        not(feature = "small-code"),
        not(debug_assertions)
    )),
    allow(dead_code)
)]

use super::{arg_lanes, arg_lanes_narrow_in, hardmax_lanes_narrow_in};
use crate::{Direction, Element};
use core::marker::PhantomData;

/// [`arg_lanes_narrow`](super::arg_lanes_narrow) in the AVX2 and AVX-512 twins. 64-bit types
/// run the twins' lane kernel (`arg_lanes_wide`) inlined into them ([`WideLanes`]), where a
/// call to [`arg_lanes`] ran it as built without AVX2 (SSE2 has no 64-bit compare). Intel Xeon
/// (Sapphire Rapids class), ArgMax along axis 0 of 2 MiB, minimum of three interleaved runs,
/// the time against a streaming read of the input: `i64` and `u64` over rows of 1 to 8 lanes
/// 3.1-3.7x -> 1.5-1.8x inlined, and 0.94-1.11x with the twins' chunks of sixteen 64-bit lanes
/// (`group_lanes`; in the AVX2 twin 1.36-1.69x); `f64` over rows of 2 to 5 1.74x -> 1.12-1.19x.
/// Types of 1 to 4 bytes keep the call for blocks of fewer than [`INLINED_ROWS`] rows (inlined
/// they ran 5-10% slower: `i32` `[262144, 2]` 1.60 -> 1.83x; `i16` `[104857, 2, 5]` along axis 1
/// 3.5x -> 4.5x in one run), and inline the lane kernel for more: called, it runs as built for
/// baseline x86-64 (Ice Lake server, the benchmark matrix, two runs each: ArgMax `i16`
/// `[100000, 10]` along axis 0 1.86-2.00x of the stream -> 1.14-1.41x, `u16` 2.14-2.20x ->
/// 1.21-1.26x, `i32` `[100000, 5]` 1.93-1.96x -> 0.94-1.13x, `i32` `[2, 100000, 2]` along axis 1
/// 1.70-2.75x -> 0.93-0.97x).
#[inline(always)]
pub(crate) fn arg_lanes_narrow_wide<
    T: Element,
    D: Direction,
    const LAST: bool,
    const C: usize,
    const W: usize,
    const TILE: usize,
>(
    x: &[T],
    y: &mut [i64],
) {
    if const { core::mem::size_of::<T>() == 8 } || x.len() >= INLINED_ROWS * C {
        arg_lanes_narrow_in::<T, D, LAST>(x, y, C, W, WideLanes::<D, LAST, TILE>(PhantomData));
    } else {
        arg_lanes_narrow_in::<T, D, LAST>(x, y, C, W, arg_lanes::<T, D, LAST, TILE>);
    }
}

/// Rows of a block from which [`arg_lanes_narrow_wide`] inlines the lane kernel for every type.
const INLINED_ROWS: usize = 16;

/// The lane kernel [`arg_lanes_narrow_in`] runs over its widened rows: `run(x, y, inner)` writes
/// the index of each of `inner` lanes down the rows of `x`.
pub(crate) trait ArgLanes<T> {
    /// Runs the kernel.
    fn run(self, x: &[T], y: &mut [i64], inner: usize);
}

impl<T, F: FnOnce(&[T], &mut [i64], usize)> ArgLanes<T> for F {
    #[inline(always)]
    fn run(self, x: &[T], y: &mut [i64], inner: usize) {
        self(x, y, inner);
    }
}

/// The twins' lane kernel, always inlined (a closure is a function of its own, compiled
/// without the twin's instruction sets unless LLVM chooses to inline it).
struct WideLanes<D, const LAST: bool, const TILE: usize>(PhantomData<D>);

impl<T: Element, D: Direction, const LAST: bool, const TILE: usize> ArgLanes<T>
    for WideLanes<D, LAST, TILE>
{
    #[inline(always)]
    fn run(self, x: &[T], y: &mut [i64], inner: usize) {
        crate::kernels::arg_lanes::arg_lanes_wide::<T, D, LAST, TILE>(x, y, &mut [], inner);
    }
}

/// [`hardmax_lanes_narrow`](super::hardmax_lanes_narrow) in the AVX2 and AVX-512 twins
/// (`node/wide.rs`, 64-bit types): its arg-reduction by [`arg_lanes_narrow_wide`], inlined.
#[inline(always)]
pub(crate) fn hardmax_lanes_narrow_wide<
    T: Element,
    const C: usize,
    const W: usize,
    const TILE: usize,
>(
    x: &[T],
    y: &mut [T],
) {
    hardmax_lanes_narrow_in::<T, C, W, TILE, true>(x, y);
}
