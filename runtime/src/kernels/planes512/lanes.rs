//! How [`super`]'s vectors hold each type's elements: loads, stores, the order of the lanes
//! (f16 and bf16 by order keys), NaN lanes, shifts and permutes across two vectors.

use core::arch::x86_64::{
    __m512i, _mm512_adds_epi16, _mm512_alignr_epi32, _mm512_alignr_epi64, _mm512_and_si512,
    _mm512_castpd_si512, _mm512_castps_si512, _mm512_castsi512_pd, _mm512_castsi512_ps,
    _mm512_cmp_pd_mask, _mm512_cmp_ps_mask, _mm512_cmpgt_epu16_mask, _mm512_loadu_si512,
    _mm512_mask_blend_epi16, _mm512_mask_blend_epi32, _mm512_mask_blend_epi64,
    _mm512_mask_blend_epi8, _mm512_max_epi16, _mm512_max_epi32, _mm512_max_epi64, _mm512_max_epi8,
    _mm512_max_epu16, _mm512_max_epu32, _mm512_max_epu64, _mm512_max_epu8, _mm512_max_pd,
    _mm512_max_ps, _mm512_min_epi16, _mm512_min_epi32, _mm512_min_epi64, _mm512_min_epi8,
    _mm512_min_epu16, _mm512_min_epu32, _mm512_min_epu64, _mm512_min_epu8, _mm512_min_pd,
    _mm512_min_ps, _mm512_movepi16_mask, _mm512_permutex2var_epi16, _mm512_permutex2var_epi32,
    _mm512_permutex2var_epi64, _mm512_permutex2var_epi8, _mm512_set1_epi16, _mm512_srai_epi16,
    _mm512_storeu_si512, _mm512_subs_epi16, _mm512_ternarylogic_epi32, _CMP_UNORD_Q,
};

use crate::Direction;

/// How the vectors hold a type's elements.
pub(super) trait Wide {
    /// Bytes an element (1, 2, 4 or 8).
    const SIZE: usize;
    /// IEEE `f32` or `f64` (NaN looked for by an unordered compare).
    const FLOAT: bool;
    /// Signed compares (signed integers, and the order keys of f16 and bf16).
    const SIGNED: bool;
    /// f16 and bf16: the bits of the infinity (a magnitude over it is NaN), the lanes compared
    /// by their order keys ([`key`]); 0 for other types.
    const HALF: u16 = 0;
    /// Elements (and rows of a block) in a vector.
    const LANES: usize = 64 / Self::SIZE;
}

macro_rules! wide {
    ($($(#[$doc:meta])* $t:ident: $size:literal $float:literal $signed:literal $half:literal;)*) =>
    {$(
        $(#[$doc])*
        pub(super) struct $t;
        impl Wide for $t {
            const SIZE: usize = $size;
            const FLOAT: bool = $float;
            const SIGNED: bool = $signed;
            const HALF: u16 = $half;
        }
    )*};
}
wide! {
    /// `u8` and bool (0 and 1: max and min are or and and).
    U8s: 1 false false 0;
    /// `i8`.
    I8s: 1 false true 0;
    /// `u16`.
    U16s: 2 false false 0;
    /// `i16`.
    I16s: 2 false true 0;
    /// f16, by order keys.
    F16s: 2 false true 0x7c00;
    /// bf16, by order keys.
    Bf16s: 2 false true 0x7f80;
    /// `f32`.
    F32s: 4 true false 0;
    /// `i32`.
    I32s: 4 false true 0;
    /// `u32`.
    U32s: 4 false false 0;
    /// `f64`.
    F64s: 8 true false 0;
    /// `i64`.
    I64s: 8 false true 0;
    /// `u64`.
    U64s: 8 false false 0;
}

/// The vector at `p`.
///
/// # Safety
/// `p` points at 64 readable bytes.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn load<T>(p: *const T) -> __m512i {
    // SAFETY: as the caller says; no alignment requirement.
    unsafe { _mm512_loadu_si512(p.cast()) }
}

/// Stores `v` at `p`.
///
/// # Safety
/// `p` points at 64 writable bytes.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn store<T>(p: *mut T, v: __m512i) {
    // SAFETY: as the caller says; no alignment requirement.
    unsafe { _mm512_storeu_si512(p.cast(), v) }
}

/// The order key of each f16 or bf16 lane (a signed 16-bit integer in the numbers' order;
/// its own inverse), the lanes themselves for other types.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn key<K: Wide>(v: __m512i) -> __m512i {
    if K::HALF == 0 {
        return v;
    }
    // v ^ (sign & 0x7fff) in one logic op (the table of `a ^ (b & c)`): written as an `and`
    // and a `xor`, it was compiled to a mask move, a `xor` and a masked move.
    let magnitude = _mm512_set1_epi16(0x7fff);
    _mm512_ternarylogic_epi32::<0x78>(v, _mm512_srai_epi16::<15>(v), magnitude)
}

/// Lanes of `a` or `b` that are NaN (`f32`, `f64`; none for other types).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn nans2<K: Wide>(a: __m512i, b: __m512i) -> u64 {
    if K::FLOAT && K::SIZE == 8 {
        let (a, b) = (_mm512_castsi512_pd(a), _mm512_castsi512_pd(b));
        u64::from(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, b))
    } else if K::FLOAT {
        let (a, b) = (_mm512_castsi512_ps(a), _mm512_castsi512_ps(b));
        u64::from(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, b))
    } else {
        0
    }
}

/// `flags` with the sign bit set in lanes where f16 or bf16 keys `high` (folded by Max) or
/// `low` (by Min) are a NaN's: keys of NaNs lie above the positive infinity's or below the
/// negative one's, so a block's two folds hold one exactly where a lane of it did (checked once
/// a block, not each load; a saturating subtract, an add and a logic op, which leave the
/// shuffle port to the windows: compares into masks took it, at 1.45x of the stream for f16
/// rows of 3 over two planes).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn half_nan_flags<K: Wide>(high: __m512i, low: __m512i, flags: __m512i) -> __m512i {
    let past = _mm512_set1_epi16(K::HALF as i16 + 1);
    // Not negative where `high > inf`; negative where `low < -inf - 1` (the key of -inf).
    let above = _mm512_subs_epi16(high, past);
    let below = _mm512_adds_epi16(low, past);
    // flags | !above | below (the table's bits for each `above, below, flags`: all but
    // `1, 0, 0`).
    _mm512_ternarylogic_epi32::<0xEF>(above, below, flags)
}

/// The lanes of 16-bit `flags` whose sign bit is set.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn signs16(flags: __m512i) -> u64 {
    u64::from(_mm512_movepi16_mask(flags))
}

/// Lanes of f16 or bf16 `v` (elements, not keys) that are NaN.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn half_nans<K: Wide>(v: __m512i) -> u32 {
    let magnitude = _mm512_and_si512(v, _mm512_set1_epi16(0x7fff));
    _mm512_cmpgt_epu16_mask(magnitude, _mm512_set1_epi16(K::HALF as i16))
}

/// The block's extremes `m` (keys) folded into the accumulators `acc` (elements): elements
/// again, an accumulator that is NaN kept.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn settle<K: Wide, D: Direction>(m: __m512i, acc: __m512i) -> __m512i {
    if K::HALF == 0 {
        // Floats: `pick` keeps `acc` when either is NaN.
        return pick::<K, D>(m, acc);
    }
    let folded = key::<K>(pick::<K, D>(m, key::<K>(acc)));
    _mm512_mask_blend_epi16(half_nans::<K>(acc), folded, acc)
}

/// `v` and `acc` folded by the order alone (floats: `acc` where either is NaN; f16 and bf16
/// as keys).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn pick<K: Wide, D: Direction>(v: __m512i, acc: __m512i) -> __m512i {
    pick_by::<K>(v, acc, D::IS_MIN)
}

/// [`pick`] by the other direction.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn pick_other<K: Wide, D: Direction>(v: __m512i, acc: __m512i) -> __m512i {
    pick_by::<K>(v, acc, !D::IS_MIN)
}

/// [`pick`], the minimum where `min` (a constant once inlined).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn pick_by<K: Wide>(v: __m512i, acc: __m512i, min: bool) -> __m512i {
    if K::FLOAT {
        return if K::SIZE == 8 {
            let (v, acc) = (_mm512_castsi512_pd(v), _mm512_castsi512_pd(acc));
            _mm512_castpd_si512(if min {
                _mm512_min_pd(v, acc)
            } else {
                _mm512_max_pd(v, acc)
            })
        } else {
            let (v, acc) = (_mm512_castsi512_ps(v), _mm512_castsi512_ps(acc));
            _mm512_castps_si512(if min {
                _mm512_min_ps(v, acc)
            } else {
                _mm512_max_ps(v, acc)
            })
        };
    }
    match (K::SIZE, K::SIGNED, min) {
        (1, true, false) => _mm512_max_epi8(v, acc),
        (1, true, true) => _mm512_min_epi8(v, acc),
        (1, false, false) => _mm512_max_epu8(v, acc),
        (1, false, true) => _mm512_min_epu8(v, acc),
        (2, true, false) => _mm512_max_epi16(v, acc),
        (2, true, true) => _mm512_min_epi16(v, acc),
        (2, false, false) => _mm512_max_epu16(v, acc),
        (2, false, true) => _mm512_min_epu16(v, acc),
        (4, true, false) => _mm512_max_epi32(v, acc),
        (4, true, true) => _mm512_min_epi32(v, acc),
        (4, false, false) => _mm512_max_epu32(v, acc),
        (4, false, true) => _mm512_min_epu32(v, acc),
        (_, true, false) => _mm512_max_epi64(v, acc),
        (_, true, true) => _mm512_min_epi64(v, acc),
        (_, false, false) => _mm512_max_epu64(v, acc),
        (_, false, true) => _mm512_min_epu64(v, acc),
    }
}

/// The vector of lane indexes `at(i)` for each lane `i` of `K` (each index in a lane of `K`'s
/// width), for the permutes.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn indexes<K: Wide>(at: impl Fn(usize) -> usize) -> __m512i {
    let mut bytes = [0u8; 64];
    for (i, lane) in bytes.chunks_exact_mut(K::SIZE).enumerate() {
        let index = (at(i) as u64).to_le_bytes();
        lane.copy_from_slice(index.get(..K::SIZE).unwrap_or(&[]));
    }
    // SAFETY: 64 bytes.
    unsafe { load(bytes.as_ptr()) }
}

/// The lanes of `lo` then `hi` picked by `index` (lane `i` of the result: lane `index[i]` of
/// the two, `hi`'s from `K::LANES`). Inlined always, without features of its own: the 1-byte
/// permute needs VBMI, which only one of the kernel's entries has.
///
/// # Safety
/// The CPU has AVX-512 F and BW, and VBMI where `K` has 1-byte lanes.
#[inline(always)]
pub(super) unsafe fn permute<K: Wide>(lo: __m512i, index: __m512i, hi: __m512i) -> __m512i {
    // SAFETY: the caller's.
    unsafe {
        match K::SIZE {
            1 => _mm512_permutex2var_epi8(lo, index, hi),
            2 => _mm512_permutex2var_epi16(lo, index, hi),
            4 => _mm512_permutex2var_epi32(lo, index, hi),
            _ => _mm512_permutex2var_epi64(lo, index, hi),
        }
    }
}

/// `b`'s lanes where `mask` has a bit, `a`'s elsewhere.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn blend<K: Wide>(mask: u64, a: __m512i, b: __m512i) -> __m512i {
    match K::SIZE {
        1 => _mm512_mask_blend_epi8(mask, a, b),
        2 => _mm512_mask_blend_epi16(mask as u32, a, b),
        4 => _mm512_mask_blend_epi32(mask as u16, a, b),
        _ => _mm512_mask_blend_epi64(mask as u8, a, b),
    }
}

/// Lanes `by..` of `lo` then the first `by` lanes of `hi` (`by` from 1 to 8, a constant once
/// inlined, as the aligning instructions need); 1- and 2-byte lanes by `index`, the
/// [`indexes`] `i + by`.
///
/// # Safety
/// As [`permute`].
#[inline(always)]
pub(super) unsafe fn shifted<K: Wide>(
    lo: __m512i,
    hi: __m512i,
    by: usize,
    index: __m512i,
) -> __m512i {
    // SAFETY: the caller's.
    unsafe {
        match (K::SIZE, by) {
            (1 | 2, _) => permute::<K>(lo, index, hi),
            (8, 1) => _mm512_alignr_epi64::<1>(hi, lo),
            (8, 2) => _mm512_alignr_epi64::<2>(hi, lo),
            (8, 3) => _mm512_alignr_epi64::<3>(hi, lo),
            (8, 4) => _mm512_alignr_epi64::<4>(hi, lo),
            (8, 5) => _mm512_alignr_epi64::<5>(hi, lo),
            (8, 6) => _mm512_alignr_epi64::<6>(hi, lo),
            (8, 7) => _mm512_alignr_epi64::<7>(hi, lo),
            (8, _) => hi,
            (_, 1) => _mm512_alignr_epi32::<1>(hi, lo),
            (_, 2) => _mm512_alignr_epi32::<2>(hi, lo),
            (_, 3) => _mm512_alignr_epi32::<3>(hi, lo),
            (_, 4) => _mm512_alignr_epi32::<4>(hi, lo),
            (_, 5) => _mm512_alignr_epi32::<5>(hi, lo),
            (_, 6) => _mm512_alignr_epi32::<6>(hi, lo),
            (_, 7) => _mm512_alignr_epi32::<7>(hi, lo),
            (_, _) => _mm512_alignr_epi32::<8>(hi, lo),
        }
    }
}
