//! The lane operations of [`super`]'s kernel, one function each over the element width `W`
//! (1, 2, 4 or 8 bytes) and kind, all constants where they are compiled.

use core::arch::x86_64::{
    __m512i, _mm512_abs_epi16, _mm512_abs_epi32, _mm512_add_epi16, _mm512_add_epi32,
    _mm512_add_epi64, _mm512_add_epi8, _mm512_and_si512, _mm512_castsi256_si512,
    _mm512_castsi512_pd, _mm512_castsi512_ps, _mm512_castsi512_si128, _mm512_castsi512_si256,
    _mm512_cmp_epu16_mask, _mm512_cmp_epu32_mask, _mm512_cmp_epu64_mask, _mm512_cmp_epu8_mask,
    _mm512_cmp_pd_mask, _mm512_cmp_ps_mask, _mm512_cmpeq_epi16_mask, _mm512_cmpeq_epi32_mask,
    _mm512_cmpeq_epi64_mask, _mm512_cmpeq_epi8_mask, _mm512_cvtepi16_epi8, _mm512_cvtepi32_epi16,
    _mm512_cvtepi64_epi32, _mm512_cvtepu16_epi64, _mm512_cvtepu32_epi64, _mm512_extracti32x4_epi32,
    _mm512_extracti64x4_epi64, _mm512_inserti64x4, _mm512_mask_mov_epi16, _mm512_mask_mov_epi32,
    _mm512_mask_mov_epi64, _mm512_mask_mov_epi8, _mm512_mask_storeu_epi16,
    _mm512_mask_storeu_epi32, _mm512_mask_storeu_epi64, _mm512_mask_storeu_epi8,
    _mm512_maskz_loadu_epi16, _mm512_maskz_loadu_epi32, _mm512_maskz_loadu_epi64,
    _mm512_maskz_loadu_epi8, _mm512_max_epu16, _mm512_max_epu32, _mm512_max_epu64, _mm512_or_si512,
    _mm512_permutex2var_epi16, _mm512_permutex2var_epi32, _mm512_permutex2var_epi64,
    _mm512_set1_epi16, _mm512_set1_epi32, _mm512_set1_epi64, _mm512_set1_epi8, _mm512_srai_epi16,
    _mm512_srai_epi32, _mm512_srli_epi16, _mm512_srli_epi32, _mm512_srli_epi64, _mm512_sub_epi16,
    _mm512_sub_epi32, _mm512_unpackhi_epi16, _mm512_unpackhi_epi32, _mm512_unpackhi_epi8,
    _mm512_unpacklo_epi16, _mm512_unpacklo_epi32, _mm512_unpacklo_epi8, _mm512_xor_si512,
    _CMP_EQ_OQ, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_LE_OQ, _CMP_LT_OQ, _MM_CMPINT_LT, _MM_CMPINT_NLE,
    _MM_CMPINT_NLT,
};

use super::{FLOAT, HALF, SIGNED, UNSIGNED};
use crate::Direction;

/// `c` lanes of `W` bytes from `p` (the others zero).
///
/// # Safety
/// The CPU has AVX-512 F and BW; the lanes in `mask` are readable.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn load<const W: usize>(p: *const u8, mask: u64) -> __m512i {
    // SAFETY: as the caller's; masked lanes are not read.
    unsafe {
        match W {
            1 => _mm512_maskz_loadu_epi8(mask, p.cast()),
            2 => _mm512_maskz_loadu_epi16(mask as u32, p.cast()),
            4 => _mm512_maskz_loadu_epi32(mask as u16, p.cast()),
            _ => _mm512_maskz_loadu_epi64(mask as u8, p.cast()),
        }
    }
}

/// Every lane `W` bytes wide set to `e`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn splat<const W: usize>(e: u64) -> __m512i {
    match W {
        1 => _mm512_set1_epi8(e as i8),
        2 => _mm512_set1_epi16(e as i16),
        4 => _mm512_set1_epi32(e as i32),
        _ => _mm512_set1_epi64(e as i64),
    }
}

/// Lane sums.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn add<const W: usize>(a: __m512i, b: __m512i) -> __m512i {
    match W {
        1 => _mm512_add_epi8(a, b),
        2 => _mm512_add_epi16(a, b),
        4 => _mm512_add_epi32(a, b),
        _ => _mm512_add_epi64(a, b),
    }
}

/// `a` with the lanes of `m` from `b`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn mov<const W: usize>(a: __m512i, m: u64, b: __m512i) -> __m512i {
    match W {
        1 => _mm512_mask_mov_epi8(a, m, b),
        2 => _mm512_mask_mov_epi16(a, m as u32, b),
        4 => _mm512_mask_mov_epi32(a, m as u16, b),
        _ => _mm512_mask_mov_epi64(a, m as u8, b),
    }
}

/// The magnitude bits of float lanes (for the NaN check; zero for integers).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn magnitude<const W: usize, const KIND: u8>(raw: __m512i) -> __m512i {
    match (KIND, W) {
        (HALF, _) => _mm512_and_si512(raw, _mm512_set1_epi16(0x7fff)),
        (FLOAT, 4) => _mm512_and_si512(raw, _mm512_set1_epi32(0x7fff_ffff)),
        (FLOAT, _) => _mm512_and_si512(raw, _mm512_set1_epi64(i64::MAX)),
        _ => raw,
    }
}

/// The larger magnitudes of `a` and `b` (floats only).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn widest<const W: usize, const KIND: u8>(a: __m512i, b: __m512i) -> __m512i {
    match KIND {
        HALF => _mm512_max_epu16(a, b),
        FLOAT if W == 4 => _mm512_max_epu32(a, b),
        FLOAT => _mm512_max_epu64(a, b),
        _ => a,
    }
}

/// Whether a magnitude of `m` is over infinity's (a NaN).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn has_nan<const W: usize>(m: __m512i, inf: u64) -> bool {
    match W {
        2 => _mm512_cmp_epu16_mask::<_MM_CMPINT_NLE>(m, _mm512_set1_epi16(inf as i16)) != 0,
        4 => _mm512_cmp_epu32_mask::<_MM_CMPINT_NLE>(m, _mm512_set1_epi32(inf as i32)) != 0,
        _ => _mm512_cmp_epu64_mask::<_MM_CMPINT_NLE>(m, _mm512_set1_epi64(inf as i64)) != 0,
    }
}

/// The unsigned order key of two's complement sign-magnitude lanes (-0 and +0 one key), greater
/// for the better element of `D`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn sign_magnitude<D: Direction, const W: usize>(raw: __m512i) -> __m512i {
    let flip = if D::IS_MIN { u64::MAX >> 1 } else { 1 << 63 };
    if W == 2 {
        let s = _mm512_srai_epi16::<15>(raw);
        let m = _mm512_and_si512(raw, _mm512_set1_epi16(0x7fff));
        let k = _mm512_sub_epi16(_mm512_xor_si512(m, s), s);
        _mm512_xor_si512(k, _mm512_set1_epi16((flip >> 48) as i16))
    } else {
        let s = _mm512_srai_epi32::<31>(raw);
        let m = _mm512_and_si512(raw, _mm512_set1_epi32(0x7fff_ffff));
        let k = _mm512_sub_epi32(_mm512_xor_si512(m, s), s);
        _mm512_xor_si512(k, _mm512_set1_epi32((flip >> 32) as i32))
    }
}

/// A window's lanes as the pass compares them: unsigned keys, greater better (floats `f32` as
/// they are).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn prep<D: Direction, const W: usize, const KIND: u8>(raw: __m512i) -> __m512i {
    let top = 1u64 << (8 * W - 1);
    match KIND {
        UNSIGNED if D::IS_MIN => _mm512_xor_si512(raw, splat::<W>(u64::MAX)),
        SIGNED if D::IS_MIN => _mm512_xor_si512(raw, splat::<W>(top - 1)),
        SIGNED => _mm512_xor_si512(raw, splat::<W>(top)),
        HALF => sign_magnitude::<D, W>(raw),
        _ => raw,
    }
}

/// The lanes where `e` beats `m` (strictly, or with `LAST` at least ties).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn better<D: Direction, const LAST: bool, const W: usize, const KIND: u8>(
    e: __m512i,
    m: __m512i,
) -> u64 {
    if KIND == FLOAT && W == 8 {
        let (e, m) = (_mm512_castsi512_pd(e), _mm512_castsi512_pd(m));
        return u64::from(match (D::IS_MIN, LAST) {
            (false, false) => _mm512_cmp_pd_mask::<_CMP_GT_OQ>(e, m),
            (false, true) => _mm512_cmp_pd_mask::<_CMP_GE_OQ>(e, m),
            (true, false) => _mm512_cmp_pd_mask::<_CMP_LT_OQ>(e, m),
            (true, true) => _mm512_cmp_pd_mask::<_CMP_LE_OQ>(e, m),
        });
    }
    if KIND == FLOAT {
        let (e, m) = (_mm512_castsi512_ps(e), _mm512_castsi512_ps(m));
        return u64::from(match (D::IS_MIN, LAST) {
            (false, false) => _mm512_cmp_ps_mask::<_CMP_GT_OQ>(e, m),
            (false, true) => _mm512_cmp_ps_mask::<_CMP_GE_OQ>(e, m),
            (true, false) => _mm512_cmp_ps_mask::<_CMP_LT_OQ>(e, m),
            (true, true) => _mm512_cmp_ps_mask::<_CMP_LE_OQ>(e, m),
        });
    }
    match (W, LAST) {
        (1, false) => _mm512_cmp_epu8_mask::<_MM_CMPINT_NLE>(e, m),
        (1, true) => _mm512_cmp_epu8_mask::<_MM_CMPINT_NLT>(e, m),
        (2, false) => u64::from(_mm512_cmp_epu16_mask::<_MM_CMPINT_NLE>(e, m)),
        (2, true) => u64::from(_mm512_cmp_epu16_mask::<_MM_CMPINT_NLT>(e, m)),
        (4, false) => u64::from(_mm512_cmp_epu32_mask::<_MM_CMPINT_NLE>(e, m)),
        (4, true) => u64::from(_mm512_cmp_epu32_mask::<_MM_CMPINT_NLT>(e, m)),
        (_, false) => u64::from(_mm512_cmp_epu64_mask::<_MM_CMPINT_NLE>(e, m)),
        (_, true) => u64::from(_mm512_cmp_epu64_mask::<_MM_CMPINT_NLT>(e, m)),
    }
}

/// The pass's best lanes as unsigned keys, greater better.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn key<D: Direction, const W: usize, const KIND: u8>(m: __m512i) -> __m512i {
    if KIND == FLOAT && W == 4 {
        sign_magnitude::<D, W>(m)
    } else {
        m
    }
}

/// The low halves of each 16-byte chunk of `tie` and `key` interleaved: lanes twice as wide,
/// the key above the row.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn unpack_lo<const W: usize>(tie: __m512i, key: __m512i) -> __m512i {
    match W {
        1 => _mm512_unpacklo_epi8(tie, key),
        2 => _mm512_unpacklo_epi16(tie, key),
        _ => _mm512_unpacklo_epi32(tie, key),
    }
}

/// [`unpack_lo`] of the high halves.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn unpack_hi<const W: usize>(tie: __m512i, key: __m512i) -> __m512i {
    match W {
        1 => _mm512_unpackhi_epi8(tie, key),
        2 => _mm512_unpackhi_epi16(tie, key),
        _ => _mm512_unpackhi_epi32(tie, key),
    }
}

/// The lanes (twice `W` wide) of `a` then `b` that `idx` names.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn perm<const W: usize>(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
    match W {
        1 => _mm512_permutex2var_epi16(a, idx, b),
        2 => _mm512_permutex2var_epi32(a, idx, b),
        _ => _mm512_permutex2var_epi64(a, idx, b),
    }
}

/// Unsigned maxima of lanes twice `W` wide.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn max<const W: usize>(a: __m512i, b: __m512i) -> __m512i {
    match W {
        1 => _mm512_max_epu16(a, b),
        2 => _mm512_max_epu32(a, b),
        _ => _mm512_max_epu64(a, b),
    }
}

/// The rows in the low `W` bytes of the first `c` lanes (twice `W` wide) of `lo` then `hi`,
/// unflipped, as `i64` into `y`.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `y` holds `c` lanes (at most 32 of 1-byte rows, 16 of
/// the others).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn store<const W: usize, const LAST: bool>(
    lo: __m512i,
    hi: __m512i,
    y: *mut i64,
    c: usize,
) {
    let t = unflip::<W, LAST>(lo);
    // Eight rows at a time, as `i64`.
    let (first, second) = match W {
        1 => (
            _mm512_cvtepu16_epi64(_mm512_castsi512_si128(t)),
            _mm512_cvtepu16_epi64(_mm512_extracti32x4_epi32::<1>(t)),
        ),
        2 => (
            _mm512_cvtepu32_epi64(_mm512_castsi512_si256(t)),
            _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(t)),
        ),
        _ => (t, unflip::<W, LAST>(hi)),
    };
    let lanes = |from: usize| ((1u32 << c.saturating_sub(from).min(8)) - 1) as u8;
    // SAFETY: as the caller's: the first `c` lanes of `y`.
    unsafe {
        _mm512_mask_storeu_epi64(y, lanes(0), first);
        if c > 8 {
            _mm512_mask_storeu_epi64(y.add(8), lanes(8), second);
        }
        if W == 1 && c > 16 {
            let third = _mm512_cvtepu16_epi64(_mm512_extracti32x4_epi32::<2>(t));
            let fourth = _mm512_cvtepu16_epi64(_mm512_extracti32x4_epi32::<3>(t));
            _mm512_mask_storeu_epi64(y.add(16), lanes(16), third);
            if c > 24 {
                _mm512_mask_storeu_epi64(y.add(24), lanes(24), fourth);
            }
        }
    }
}

/// The rows in the low `W` bytes of lanes twice as wide, the others cleared, unflipped.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn unflip<const W: usize, const LAST: bool>(t: __m512i) -> __m512i {
    let low = wide_splat::<W>(if W == 4 {
        u32::MAX.into()
    } else {
        (1u64 << (8 * W)) - 1
    });
    let t = _mm512_and_si512(t, low);
    if LAST {
        t
    } else {
        _mm512_xor_si512(t, low)
    }
}

/// Every lane twice `W` bytes wide set to `e`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn wide_splat<const W: usize>(e: u64) -> __m512i {
    match W {
        1 => _mm512_set1_epi16(e as i16),
        2 => _mm512_set1_epi32(e as i32),
        _ => _mm512_set1_epi64(e as i64),
    }
}

/// The lanes of 8-byte elements (as [`prep`] left them) where `e` equals `m`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn equal<const KIND: u8>(e: __m512i, m: __m512i) -> u64 {
    u64::from(if KIND == FLOAT {
        _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(_mm512_castsi512_pd(e), _mm512_castsi512_pd(m))
    } else {
        _mm512_cmpeq_epi64_mask(e, m)
    })
}

/// The 8-byte lanes where row `a` is the one a tie keeps against row `b`: later with `LAST`,
/// else earlier.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn later<const LAST: bool>(a: __m512i, b: __m512i) -> u64 {
    u64::from(if LAST {
        _mm512_cmp_epu64_mask::<_MM_CMPINT_NLE>(a, b)
    } else {
        _mm512_cmp_epu64_mask::<_MM_CMPINT_LT>(a, b)
    })
}

/// The lanes `W` bytes wide where `a` equals `b`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn equal_lanes<const W: usize>(a: __m512i, b: __m512i) -> u64 {
    match W {
        1 => _mm512_cmpeq_epi8_mask(a, b),
        2 => u64::from(_mm512_cmpeq_epi16_mask(a, b)),
        4 => u64::from(_mm512_cmpeq_epi32_mask(a, b)),
        _ => u64::from(_mm512_cmpeq_epi64_mask(a, b)),
    }
}

/// The lanes of `mask` (`W` bytes wide) of `v` to `p`.
///
/// # Safety
/// The CPU has AVX-512 F and BW; the lanes in `mask` are writable.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn store_lanes<const W: usize>(p: *mut u8, mask: u64, v: __m512i) {
    // SAFETY: as the caller's.
    unsafe {
        match W {
            1 => _mm512_mask_storeu_epi8(p.cast(), mask, v),
            2 => _mm512_mask_storeu_epi16(p.cast(), mask as u32, v),
            4 => _mm512_mask_storeu_epi32(p.cast(), mask as u16, v),
            _ => _mm512_mask_storeu_epi64(p.cast(), mask as u8, v),
        }
    }
}

/// The elements of order keys `k` as [`key`] of [`prep`] made them (`W` bytes a lane): a zero
/// comes back as +0 (-0 and +0 are one key).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn unkey<D: Direction, const W: usize, const KIND: u8>(k: __m512i) -> __m512i {
    if !matches!(KIND, HALF | FLOAT) || W == 8 {
        // `prep` of integers is a xor, its own inverse; of `f64` nothing (and `key` nothing).
        return prep::<D, W, KIND>(k);
    }
    // Back from `sign_magnitude`: the two's complement, then its sign above its magnitude.
    let top = 1u64 << (8 * W - 1);
    let flip = if D::IS_MIN { top - 1 } else { top };
    let t = _mm512_xor_si512(k, splat::<W>(flip));
    let magnitude = if W == 2 {
        _mm512_abs_epi16(t)
    } else {
        _mm512_abs_epi32(t)
    };
    _mm512_or_si512(magnitude, _mm512_and_si512(t, splat::<W>(top)))
}

/// The elements of the first `c` folded lanes into `p`: for 1- to 4-byte elements the keys in
/// the high `W` bytes of the lanes twice as wide of `lo` then `hi`, for 8-byte elements `lo`'s
/// lanes as [`prep`] left them.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `p` holds `c` lanes (at most as many as `lo` and `hi`
/// hold).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn store_values<D: Direction, const W: usize, const KIND: u8>(
    lo: __m512i,
    hi: __m512i,
    p: *mut u8,
    c: usize,
) {
    let k = match W {
        1 => _mm512_castsi256_si512(_mm512_cvtepi16_epi8(_mm512_srli_epi16::<8>(lo))),
        2 => _mm512_castsi256_si512(_mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(lo))),
        4 => {
            let half = |v| _mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(v));
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(lo)), half(hi))
        }
        _ => lo,
    };
    let mask = if c >= 64 { u64::MAX } else { (1 << c) - 1 };
    // SAFETY: as the caller's.
    unsafe { store_lanes::<W>(p, mask, unkey::<D, W, KIND>(k)) };
}
