//! ArgMax and ArgMin (the first index, or the last) of blocks of a few rows of any number of
//! lanes, every element type (the middle axis of `[n, r, c]`): each chunk of a vector's lanes of
//! a row against the same lanes' best of the rows before, one compare, the better taken with
//! its row by masked moves; the rows widened to `i64` eight at a time. Blocks of two rows need
//! no rows: the compare's mask is the chunk's indices (0 or 1), eight at a time as `i64` by one
//! masked move of the constant 1. With the values asked (ReduceMax beside ArgMax) the chunk's
//! best elements go out too. A block holding a NaN (floats) is done again lane by lane by the
//! contract's rule.

use core::arch::x86_64::{
    __m512i, _mm512_mask_storeu_epi64, _mm512_maskz_mov_epi64, _mm512_set1_epi64,
    _mm512_setzero_si512, _mm512_storeu_si512,
};

use super::super::arg_lanes::lane_by_lane;
use super::arg_shifted::{beats, low_lanes, order, rows_out};
use super::lanes::{has_nan, load, magnitude, mov, splat, store_lanes, widest};
use super::{by_kind, isa, kind_of, FLOAT, HALF, SIGNED, UNSIGNED};
use crate::{Direction, Element};

/// The most rows a block may have here (a row index fits a lane of every width).
pub(crate) const MAX_ROWS: usize = 16;

/// Whether [`arg_stacked`] takes blocks of `r` rows of `c` lanes of `T` on this CPU: AVX-512,
/// two to [`MAX_ROWS`] rows of one lane or more.
#[inline(always)]
pub(crate) fn takes<T: Element>(r: usize, c: usize) -> bool {
    size_of::<T>() == kind_of::<T>().0
        && (2..=MAX_ROWS).contains(&r)
        && c >= 1
        && isa::level() >= isa::AVX512
}

/// Whether [`arg_stacked`] is the kernel for blocks of `r` rows of `c` lanes of `T` (with or
/// without the best elements): it [`takes`] them and measured faster than the others there. On
/// an AMD EPYC (Zen 4), two rows: the matrix's `[n, 2, 16]` (two alternating runs) 0.26-0.44x
/// the time for the 1-, 2- and 4-byte integers, 0.52-0.55x `i64`, 0.59-0.66x f16 and bf16,
/// 0.67-0.82x `f64`, but not `f32`, whose AVX2 pass over two rows (`arg_two_rows` of the
/// kernels) was as fast or faster (1.0-1.2x here). More rows, over 2 MiB of `[n, r, 16..64]`
/// (`r` 3 to 16, two alternating runs): taken where 0.97x or under with and without values:
/// `f32` 3 to 7 rows (0.08-0.93x: three rows had been slow), 8-byte elements up to 5 rows
/// (0.64-0.93x), f16/bf16 up to 4 (0.44-0.90x), the integers of 1 to 4 bytes 4 to 7 rows
/// (0.14-0.84x) and those of 1 and 2 bytes over three rows of more than sixteen lanes
/// (0.50-0.84x; `arg_few`'s pass as fast at sixteen lanes and for `i32`). Ten rows and more
/// 1.0-1.9x, f16 five rows and more 1.06-1.9x.
#[inline(always)]
pub(crate) fn prefers<T: Element>(r: usize, c: usize) -> bool {
    let (w, kind, _) = kind_of::<T>();
    let rows = match (w, kind) {
        (8, _) => r <= 5,
        (4, FLOAT) => (3..=7).contains(&r),
        (2, HALF) => r <= 4,
        (4, _) => r == 2 || (4..=7).contains(&r),
        _ => r == 2 || (4..=7).contains(&r) || (r == 3 && c > 16),
    };
    rows && takes::<T>(r, c)
}

/// The index of the best of `D` of each lane of each block of `r` rows of `c` lanes of `x` into
/// `y` (the first, or with `LAST` the last; a NaN beats every number), with `v` not empty that
/// element into `v`: `true`, or `false` (nothing written) where this kernel does not take the
/// blocks ([`takes`]) or `y` (or `v`) is not one lane each a block's lane.
#[inline(always)]
pub(crate) fn arg_stacked<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> bool {
    let blocks = x.len().checked_div(r * c).unwrap_or(0);
    if !takes::<T>(r, c) || x.len() != blocks * r * c || y.len() != blocks * c {
        return false;
    }
    if !(v.is_empty() || v.len() == y.len()) {
        return false;
    }
    let inf = kind_of::<T>().2;
    // SAFETY: `takes` found AVX-512 F, BW, VL and DQ; `T` is of the width and kind named; the
    // lengths are checked above.
    unsafe { by_kind!(T, blocks_in::<T, D, LAST>(x, y, v, r, c, inf)) };
    true
}

/// [`arg_stacked`] for `W`-byte elements of kind `KIND`, every block.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `T` is `W` bytes of kind `KIND`, `inf` (floats) its
/// infinity's magnitude bits; `x` is whole blocks of `r` rows of `c` (`r` from 2 to
/// [`MAX_ROWS`]), `y` (and `v` when not empty) one lane each a block's lane.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn blocks_in<T: Element, D: Direction, const LAST: bool, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
    inf: u64,
) {
    let lanes = 64 / W;
    let values = !v.is_empty();
    let mut vb = v.chunks_exact_mut(c);
    for (xb, yb) in x.chunks_exact(r * c).zip(y.chunks_exact_mut(c)) {
        let vb = if values {
            vb.next().unwrap_or_default()
        } else {
            &mut []
        };
        let first: *const u8 = xb.as_ptr().cast();
        let (out, vals) = (yb.as_mut_ptr(), vb.as_mut_ptr().cast::<u8>());
        // The largest float magnitude met (for the NaN check; integers none).
        let mut seen = _mm512_setzero_si512();
        let watch = |seen: __m512i, e: __m512i| {
            if KIND == FLOAT || KIND == HALF {
                widest::<W, KIND>(seen, magnitude::<W, KIND>(e))
            } else {
                seen
            }
        };
        let mut at = 0;
        while at < c {
            let n = (c - at).min(lanes);
            let m = low_lanes(n);
            // SAFETY: as the caller's: lanes `at..at + n` of each row, of `y` and of `v`.
            unsafe {
                let row_of = |k: usize| load::<W>(first.add((k * c + at) * W), m);
                let a = row_of(0);
                seen = watch(seen, a);
                let mut best = order::<D, W, KIND>(a);
                if r == 2 {
                    // The compare's mask is the indices.
                    let b = row_of(1);
                    seen = watch(seen, b);
                    let take = beats::<D, LAST, W, KIND>(order::<D, W, KIND>(b), best);
                    indices(out.add(at), take, n);
                    if values {
                        store_lanes::<W>(vals.add(at * W), m, mov::<W>(a, take, b));
                    }
                } else {
                    let (mut raw, mut row) = (a, _mm512_setzero_si512());
                    for k in 1..r {
                        let e = row_of(k);
                        seen = watch(seen, e);
                        let key = order::<D, W, KIND>(e);
                        let take = beats::<D, LAST, W, KIND>(key, best);
                        best = mov::<W>(best, take, key);
                        row = mov::<W>(row, take, splat::<W>(k as u64));
                        if values {
                            raw = mov::<W>(raw, take, e);
                        }
                    }
                    rows_out::<W>(row, out.add(at), n, n);
                    if values {
                        store_lanes::<W>(vals.add(at * W), m, raw);
                    }
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
