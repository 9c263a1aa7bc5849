//! ArgMax and ArgMin (the first index, or the last) of blocks of two rows of any number of
//! lanes, every element type (the middle axis of `[n, 2, c]`): each chunk of a vector's lanes
//! of the second row against the same lanes of the first, one compare; the compare's mask is
//! the chunk's indices (0 or 1), eight at a time as `i64` by one masked move of the constant 1,
//! and with the values asked (ReduceMax beside ArgMax) the chunk's elements by one masked move
//! of the two rows. A block holding a NaN (floats) is done again lane by lane by the contract's
//! rule.

use core::arch::x86_64::{
    __m512i, _mm512_mask_storeu_epi64, _mm512_maskz_mov_epi64, _mm512_set1_epi64,
    _mm512_setzero_si512, _mm512_storeu_si512,
};

use super::super::arg_lanes::lane_by_lane;
use super::arg_shifted::{beats, low_lanes, order};
use super::lanes::{has_nan, load, magnitude, mov, store_lanes, widest};
use super::{by_kind, isa, kind_of, FLOAT, HALF, SIGNED, UNSIGNED};
use crate::{DType, Direction, Element};

/// Whether [`arg_two_rows`] takes blocks of two rows of `c` lanes of `T` on this CPU: AVX-512,
/// one lane a row or more.
#[inline(always)]
pub(crate) fn takes<T: Element>(c: usize) -> bool {
    size_of::<T>() == kind_of::<T>().0 && c >= 1 && isa::level() >= isa::AVX512
}

/// Whether [`arg_two_rows`] is the kernel for blocks of two rows of `c` lanes of `T` (with
/// `values` the best elements too): it [`takes`] them and measured faster than the others there.
/// On an AMD EPYC (Zen 4), the matrix's `[n, 2, 16]` (two alternating runs): 0.26-0.44x the
/// time for the 1-, 2- and 4-byte integers, 0.52-0.55x `i64`, 0.59-0.66x f16 and bf16,
/// 0.67-0.82x `f64`; over 2 MiB of `[n, 2, 16..40]` 0.09-0.59x. Not `f32`, whose AVX2 pass
/// over two rows (`arg_two_rows` of the kernels) was as fast or faster (1.0-1.2x here).
#[inline(always)]
pub(crate) fn prefers<T: Element>(c: usize, values: bool) -> bool {
    let _ = values;
    T::DTYPE != DType::F32 && takes::<T>(c)
}

/// The index of the best of `D` of each lane of each block of two rows of `c` lanes of `x` into
/// `y` (the first, or with `LAST` the second where they tie; a NaN beats every number), with `v`
/// not empty that element into `v`: `true`, or `false` (nothing written) where this kernel does
/// not take the blocks ([`takes`]) or `y` (or `v`) is not one lane each a block's lane.
#[inline(always)]
pub(crate) fn arg_two_rows<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    c: usize,
) -> bool {
    let blocks = x.len().checked_div(2 * c).unwrap_or(0);
    if !takes::<T>(c) || x.len() != blocks * 2 * c || y.len() != blocks * c {
        return false;
    }
    if !(v.is_empty() || v.len() == y.len()) {
        return false;
    }
    let inf = kind_of::<T>().2;
    // SAFETY: `takes` found AVX-512 F, BW, VL and DQ; `T` is of the width and kind named; the
    // lengths are checked above.
    unsafe { by_kind!(T, blocks_in::<T, D, LAST>(x, y, v, c, inf)) };
    true
}

/// [`arg_two_rows`] for `W`-byte elements of kind `KIND`, every block.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `T` is `W` bytes of kind `KIND`, `inf` (floats) its
/// infinity's magnitude bits; `x` is whole blocks of two rows of `c`, `y` (and `v` when not
/// empty) one lane each a block's lane.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn blocks_in<T: Element, D: Direction, const LAST: bool, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    c: usize,
    inf: u64,
) {
    let lanes = 64 / W;
    let values = !v.is_empty();
    let mut vb = v.chunks_exact_mut(c);
    for (xb, yb) in x.chunks_exact(2 * c).zip(y.chunks_exact_mut(c)) {
        let vb = if values {
            vb.next().unwrap_or_default()
        } else {
            &mut []
        };
        let first: *const u8 = xb.as_ptr().cast();
        let second = first.wrapping_add(c * W);
        let (out, vals) = (yb.as_mut_ptr(), vb.as_mut_ptr().cast::<u8>());
        let mut seen = _mm512_setzero_si512();
        let mut at = 0;
        while at < c {
            let n = (c - at).min(lanes);
            let m = low_lanes(n);
            // SAFETY: as the caller's: lanes `at..at + n` of both rows, of `y` and of `v`.
            unsafe {
                let a = load::<W>(first.add(at * W), m);
                let b = load::<W>(second.add(at * W), m);
                if KIND == FLOAT || KIND == HALF {
                    seen = widest::<W, KIND>(seen, magnitude::<W, KIND>(a));
                    seen = widest::<W, KIND>(seen, magnitude::<W, KIND>(b));
                }
                let take =
                    beats::<D, LAST, W, KIND>(order::<D, W, KIND>(b), order::<D, W, KIND>(a));
                indices(out.add(at), take, n);
                if values {
                    store_lanes::<W>(vals.add(at * W), m, mov::<W>(a, take, b));
                }
            }
            at += n;
        }
        if (KIND == FLOAT || KIND == HALF) && has_nan::<W>(seen, inf) {
            lane_by_lane::<T, D, LAST>(xb, yb, vb, c);
        }
    }
}

/// The first `n` bits of `take` (at most 64) as `i64` 0 or 1 to `y`, eight a store.
///
/// # Safety
/// The CPU has AVX-512 F; `y` holds `n` lanes.
#[inline(always)]
unsafe fn indices(y: *mut i64, take: u64, n: usize) {
    // SAFETY: as the caller's: lanes `0..n` of `y`.
    unsafe {
        let one = _mm512_set1_epi64(1);
        let mut k = 0;
        while k < n {
            let wide: __m512i = _mm512_maskz_mov_epi64((take >> k) as u8, one);
            if n - k >= 8 {
                _mm512_storeu_si512(y.add(k).cast(), wide);
            } else {
                _mm512_mask_storeu_epi64(y.add(k), low_lanes(n - k) as u8, wide);
            }
            k += 8;
        }
    }
}

#[cfg(test)]
mod tests;
