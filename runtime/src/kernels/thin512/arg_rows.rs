//! ArgMax and ArgMin (the first index, or the last) of contiguous float rows short enough that
//! two or more fit a 64-byte vector, by equality with each row's best (`f32`, `f64`, f16,
//! bf16): the windows of [`hard_rows::short`] (each row's best spread to its lanes by rotations
//! within the row, the first (or last) equal lane of each row as a bit), then the rows' bits to
//! indices by one compress of each lane's column (`vpcompressw` needs VBMI2, checked at run
//! time) and their store as `i64`; the best elements themselves (ArgMax beside ReduceMax) by one
//! more compress.

use core::arch::x86_64::{
    __m512i, _mm512_castsi512_si128, _mm512_castsi512_si256, _mm512_cvtepu16_epi64,
    _mm512_cvtepu32_epi64, _mm512_extracti32x4_epi32, _mm512_loadu_si512, _mm512_mask_storeu_epi64,
    _mm512_maskz_compress_epi16, _mm512_maskz_compress_epi32, _mm512_maskz_compress_epi64,
};

use super::hard_rows;
use super::lanes::store_lanes;
use super::{kind_of, FLOAT, HALF};
use crate::kernels::isa;
use crate::{Direction, Element};

/// Whether [`arg_rows`] takes rows of `c` elements of `T` on this CPU: floats, two rows a
/// vector or more, AVX-512 with VBMI2.
#[inline(always)]
pub(crate) fn takes<T: Element>(c: usize) -> bool {
    let (w, kind, _) = kind_of::<T>();
    size_of::<T>() == w && matches!(kind, FLOAT | HALF) && c >= 2 && 2 * c * w <= 64 && isa::vbmi2()
}

/// Whether [`arg_rows`] is the kernel for rows of `c` elements of `T` (with `values` the best
/// elements too, with `last` the last index): it [`takes`] them and measured faster than the
/// others there, over 2 MiB on an AMD EPYC (Zen 4): f16 and bf16 rows of two to eight, four
/// rows a window or more (0.58-0.92x the time of `kernels::short_rows`, the last index
/// 0.82-0.89x; rows of 9 and 10 1.03x, of 11 to 16, two a window, 1.5x); `f64` rows of two to
/// four with their best elements and the first index (0.56-0.92x; the index alone 0.94-0.98x,
/// the last 1.1-1.2x); not `f32` (1.05-1.7x the `f32` row kernels' time).
#[inline(always)]
pub(crate) fn prefers<T: Element>(c: usize, values: bool, last: bool) -> bool {
    let (w, kind, _) = kind_of::<T>();
    let fits = match (kind, w) {
        (HALF, _) => c <= 8,
        (_, 8) => values && !last,
        _ => false,
    };
    fits && takes::<T>(c)
}

/// The index of the first best element of `D` (or first NaN; with `LAST` the last) of each
/// contiguous row of `c` of
/// `x` into `y` (as many as the rows), and with `v` not empty that element into `v` (as long):
/// `true`, or `false` (nothing written) where this kernel does not take them ([`takes`]).
#[inline(always)]
pub(crate) fn arg_rows<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    c: usize,
) -> bool {
    let rows = x.len() / c.max(1);
    if !takes::<T>(c) || y.len() < rows || !(v.is_empty() || v.len() >= rows) {
        return false;
    }
    if !v.is_empty() {
        // SAFETY: as below.
        unsafe {
            match kind_of::<T>() {
                (2, _, inf) => arg_in::<T, D, LAST, 2, HALF, true>(x, y, v, c, inf),
                (4, _, inf) => arg_in::<T, D, LAST, 4, FLOAT, true>(x, y, v, c, inf),
                (_, _, inf) => arg_in::<T, D, LAST, 8, FLOAT, true>(x, y, v, c, inf),
            }
        }
        return true;
    }
    let (w, kind, inf) = kind_of::<T>();
    // SAFETY: `takes` found AVX-512 F, BW, VL, DQ and VBMI2; `T` is a float of the width named.
    unsafe {
        match (w, kind) {
            (2, _) => arg_in::<T, D, LAST, 2, HALF, false>(x, y, v, c, inf),
            (4, _) => arg_in::<T, D, LAST, 4, FLOAT, false>(x, y, v, c, inf),
            _ => arg_in::<T, D, LAST, 8, FLOAT, false>(x, y, v, c, inf),
        }
    }
    true
}

/// [`arg_rows`] for elements of `W` bytes of kind `KIND`, with `VALUES` the elements too.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL, DQ and VBMI2; `T` is of width `W` and kind `KIND`;
/// [`takes`] holds, `y` (and with `VALUES` `v`) holds an entry for each row of `x`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2")]
unsafe fn arg_in<
    T: Element,
    D: Direction,
    const LAST: bool,
    const W: usize,
    const KIND: u8,
    const VALUES: bool,
>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    c: usize,
    inf: u64,
) {
    crate::kernels::shared::align_frame();
    // Each lane's column in its row.
    let mut lanes = [0u8; 64];
    for (i, lane) in lanes.chunks_exact_mut(W).enumerate() {
        lane.copy_from_slice(&(i % c).to_le_bytes()[..W]);
    }
    // SAFETY: 64 bytes.
    let column = unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) };
    let (dst, values) = (y.as_mut_ptr(), v.as_mut_ptr().cast::<u8>());
    let put = |row: usize, n: usize, _: u64, first: u64, _: bool, raw: __m512i| {
        // SAFETY: rows `row` to `row + n` have their indices in `y` (and with `VALUES` their
        // elements in `v`).
        unsafe {
            store::<W>(dst.wrapping_add(row), n, compress::<W>(first, column));
            if VALUES {
                let best = compress::<W>(first, raw);
                store_lanes::<W>(values.wrapping_add(row * W), u64::MAX >> (64 - n), best);
            }
        }
    };
    // SAFETY: as the caller's.
    unsafe { hard_rows::short::<T, D, LAST, W, KIND>(x, c, inf, put) };
}

/// The lanes of `v` (`W` bytes wide) that `m` names, packed from lane 0.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2")]
fn compress<const W: usize>(m: u64, v: __m512i) -> __m512i {
    match W {
        2 => _mm512_maskz_compress_epi16(m as u32, v),
        4 => _mm512_maskz_compress_epi32(m as u16, v),
        _ => _mm512_maskz_compress_epi64(m as u8, v),
    }
}

/// The first `n` lanes of `v` (`W` bytes wide, unsigned; at most 16) as `i64` to `p`.
///
/// # Safety
/// The CPU has AVX-512 F; `n` `i64` from `p` are writable.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2")]
unsafe fn store<const W: usize>(p: *mut i64, n: usize, v: __m512i) {
    let mask = |n: usize| ((1u32 << n.min(8)) - 1) as u8;
    // SAFETY: as the caller's; lanes past `n` are not written.
    unsafe {
        match W {
            2 => {
                _mm512_mask_storeu_epi64(
                    p,
                    mask(n),
                    _mm512_cvtepu16_epi64(_mm512_castsi512_si128(v)),
                );
                if n > 8 {
                    let high = _mm512_cvtepu16_epi64(_mm512_extracti32x4_epi32::<1>(v));
                    _mm512_mask_storeu_epi64(p.add(8), mask(n - 8), high);
                }
            }
            4 => _mm512_mask_storeu_epi64(
                p,
                mask(n),
                _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v)),
            ),
            _ => _mm512_mask_storeu_epi64(p, mask(n), v),
        }
    }
}

#[cfg(test)]
mod tests;
