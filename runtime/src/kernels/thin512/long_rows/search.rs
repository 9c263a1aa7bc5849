//! The second pass of [`super`]: the first (or last) lane of a row that holds what it looks
//! for (the best element, either zero, or a NaN), four whole vectors a step.

use core::arch::x86_64::{
    __m512i, _mm512_cmp_pd_mask, _mm512_cmp_ps_mask, _mm512_cmpgt_epu16_mask, _mm512_loadu_si512,
    _mm512_set1_epi16, _mm512_testn_epi16_mask, _CMP_EQ_OQ, _CMP_UNORD_Q,
};

use super::super::arg_shifted::low_lanes;
use super::super::lanes::{equal_lanes, magnitude};
use super::super::{FLOAT, HALF};
use super::{row_vector, NAN, ZERO};

/// The lanes of `v` the second pass looks for (`MODE`): equal to `target`, a zero of either
/// sign, or a NaN.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn hits<const W: usize, const KIND: u8, const MODE: u8>(
    v: __m512i,
    target: __m512i,
    inf: u64,
) -> u64 {
    use core::arch::x86_64::{_mm512_castsi512_pd, _mm512_castsi512_ps};
    match (MODE, KIND, W) {
        (ZERO, ..) => u64::from(_mm512_testn_epi16_mask(v, _mm512_set1_epi16(0x7fff))),
        (NAN, HALF, _) => u64::from(_mm512_cmpgt_epu16_mask(
            magnitude::<2, HALF>(v),
            _mm512_set1_epi16(inf as i16),
        )),
        (NAN, _, 4) => {
            let v = _mm512_castsi512_ps(v);
            u64::from(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v))
        }
        (NAN, ..) => {
            let v = _mm512_castsi512_pd(v);
            u64::from(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(v, v))
        }
        (_, FLOAT, 4) => u64::from(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(
            _mm512_castsi512_ps(v),
            _mm512_castsi512_ps(target),
        )),
        (_, FLOAT, _) => u64::from(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(
            _mm512_castsi512_pd(v),
            _mm512_castsi512_pd(target),
        )),
        _ => equal_lanes::<W>(v, target),
    }
}

/// The first (with `LAST` the last) index of the row of `c` at `p` whose element [`hits`].
///
/// # Safety
/// AVX-512 F, BW, VL, DQ; `c` readable elements at `p`, one of which hits.
#[inline]
#[target_feature(enable = "avx2,bmi1,lzcnt,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn find<const LAST: bool, const W: usize, const KIND: u8, const MODE: u8>(
    p: *const u8,
    c: usize,
    target: __m512i,
    inf: u64,
) -> usize {
    let l = 64 / W;
    // Four whole vectors a step (one branch for their four masks), then one at a time; the
    // part of a vector left at the far end masked.
    if LAST {
        let mut end = c;
        while end >= 4 * l {
            let k = end - 4 * l;
            // SAFETY: four whole vectors within the row.
            let m = unsafe { hits4::<W, KIND, MODE>(p, k, target, inf) };
            if m.iter().any(|&m| m != 0) {
                let (j, m) = (0..4)
                    .rev()
                    .map(|j| (j, m[j]))
                    .find(|&(_, m)| m != 0)
                    .unwrap_or((0, 1));
                return k + j * l + 63 - m.leading_zeros() as usize;
            }
            end = k;
        }
        while end > 0 {
            let k = end.saturating_sub(l);
            // SAFETY: `k` is under `end`, which is at most `c`.
            let m = unsafe { hits_at::<W, KIND, MODE>(p, k, end, target, inf) };
            if m != 0 {
                return k + 63 - m.leading_zeros() as usize;
            }
            end = k;
        }
    } else {
        let mut k = 0;
        while k + 4 * l <= c {
            // SAFETY: four whole vectors within the row.
            let m = unsafe { hits4::<W, KIND, MODE>(p, k, target, inf) };
            if m.iter().any(|&m| m != 0) {
                let (j, m) = (0..4)
                    .map(|j| (j, m[j]))
                    .find(|&(_, m)| m != 0)
                    .unwrap_or((0, 1));
                return k + j * l + m.trailing_zeros() as usize;
            }
            k += 4 * l;
        }
        while k < c {
            // SAFETY: `k` is under `c`.
            let m = unsafe { hits_at::<W, KIND, MODE>(p, k, c.min(k + l), target, inf) };
            if m != 0 {
                return k + m.trailing_zeros() as usize;
            }
            k += l;
        }
    }
    0
}

/// The lanes that [`hits`] of the four whole vectors of the row at `p` from element `k`.
///
/// # Safety
/// AVX-512 F, BW, VL, DQ; four vectors readable at element `k` of `p`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn hits4<const W: usize, const KIND: u8, const MODE: u8>(
    p: *const u8,
    k: usize,
    target: __m512i,
    inf: u64,
) -> [u64; 4] {
    let mut m = [0; 4];
    for (j, m) in m.iter_mut().enumerate() {
        // SAFETY: as the caller's.
        let v = unsafe { _mm512_loadu_si512(p.add((k + j * 64 / W) * W).cast()) };
        *m = hits::<W, KIND, MODE>(v, target, inf);
    }
    m
}

/// The lanes of the vector of the row at `p` from element `k` up to `end` (at most a vector)
/// that [`hits`].
///
/// # Safety
/// AVX-512 F, BW, VL, DQ; `end` readable elements at `p`, `k` under `end`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn hits_at<const W: usize, const KIND: u8, const MODE: u8>(
    p: *const u8,
    k: usize,
    end: usize,
    target: __m512i,
    inf: u64,
) -> u64 {
    // SAFETY: as the caller's.
    let v = unsafe { row_vector::<W>(p, k, end, target) };
    hits::<W, KIND, MODE>(v, target, inf) & low_lanes(end - k)
}
