//! The lanes of [`super`]: how AVX2 loads, orders and compares each type's elements, and the
//! steps of the tree that reduces a block's rows together.

use core::arch::x86_64::{
    __m256i, _mm256_abs_epi16, _mm256_and_si256, _mm256_castps_si256, _mm256_castsi128_si256,
    _mm256_castsi256_ps, _mm256_cmpeq_epi16, _mm256_cmpeq_epi32, _mm256_cmpeq_epi8,
    _mm256_cmpgt_epi16, _mm256_inserti128_si256, _mm256_loadu_si256, _mm256_max_epi16,
    _mm256_max_epi32, _mm256_max_epi8, _mm256_max_epu16, _mm256_max_epu32, _mm256_max_epu8,
    _mm256_min_epi16, _mm256_min_epi32, _mm256_min_epi8, _mm256_min_epu16, _mm256_min_epu32,
    _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute2x128_si256,
    _mm256_set1_epi16, _mm256_set1_epi32, _mm256_set1_epi8, _mm256_setr_epi8, _mm256_shuffle_epi8,
    _mm256_shuffle_ps, _mm256_sign_epi16, _mm256_sub_epi16, _mm256_sub_epi32, _mm256_sub_epi8,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _mm_loadu_si128,
};

use crate::Direction;

/// How AVX2 compares a type's elements.
pub(in crate::kernels) trait Lanes {
    /// Bytes per element (1 or 2).
    const SIZE: usize;
    /// Whether the compares are signed (order keys are).
    const SIGNED: bool;
    /// For f16 and bf16, the magnitude bits of infinity (the elements compared by their order
    /// keys, a larger magnitude a NaN); 0 for integers.
    const INF: i16;
    /// Elements (and rows) in a vector.
    const LANES: usize = 32 / Self::SIZE;
    /// Unsigned lanes of the same width (row counts).
    type Counts: Lanes;
}

/// `u8` and `bool`.
pub(in crate::kernels) struct U8s;
/// `i8`.
pub(in crate::kernels) struct I8s;
/// `u16`.
pub(in crate::kernels) struct U16s;
/// `i16`.
pub(in crate::kernels) struct I16s;
/// `u32`.
pub(in crate::kernels) struct U32s;
/// `i32`.
pub(in crate::kernels) struct I32s;
/// f16 (`INF` 0x7c00) and bf16 (0x7f80) as order keys.
pub(in crate::kernels) struct Halves<const INF: i16>;

impl Lanes for U8s {
    const SIZE: usize = 1;
    const SIGNED: bool = false;
    const INF: i16 = 0;
    type Counts = U8s;
}
impl Lanes for I8s {
    const SIZE: usize = 1;
    const SIGNED: bool = true;
    const INF: i16 = 0;
    type Counts = U8s;
}
impl Lanes for U16s {
    const SIZE: usize = 2;
    const SIGNED: bool = false;
    const INF: i16 = 0;
    type Counts = U16s;
}
impl Lanes for I16s {
    const SIZE: usize = 2;
    const SIGNED: bool = true;
    const INF: i16 = 0;
    type Counts = U16s;
}
impl Lanes for U32s {
    const SIZE: usize = 4;
    const SIGNED: bool = false;
    const INF: i16 = 0;
    type Counts = U32s;
}
impl Lanes for I32s {
    const SIZE: usize = 4;
    const SIGNED: bool = true;
    const INF: i16 = 0;
    type Counts = U32s;
}
impl<const INF: i16> Lanes for Halves<INF> {
    const SIZE: usize = 2;
    const SIGNED: bool = true;
    const INF: i16 = INF;
    type Counts = U16s;
}

/// One 32-byte load from byte `at` of `x`.
///
/// # Safety
/// `at + 32 <= x.len()`.
#[inline(always)]
pub(in crate::kernels) unsafe fn load(x: &[u8], at: usize) -> __m256i {
    debug_assert!(at + 32 <= x.len());
    // SAFETY: the caller keeps the 32 bytes inside `x`.
    unsafe { _mm256_loadu_si256(x.as_ptr().add(at).cast()) }
}

/// 16 bytes from byte `a` of `x` in the low half, 16 from byte `b` in the high.
///
/// # Safety
/// `a + 16` and `b + 16` are at most `x.len()`.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn load2(x: &[u8], a: usize, b: usize) -> __m256i {
    debug_assert!(a + 16 <= x.len() && b + 16 <= x.len());
    // SAFETY: the caller keeps both 16 bytes inside `x`.
    unsafe {
        let lo = _mm_loadu_si128(x.as_ptr().add(a).cast());
        let hi = _mm_loadu_si128(x.as_ptr().add(b).cast());
        _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
    }
}

/// The order keys of `v` (the elements themselves for integers).
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn key<K: Lanes>(v: __m256i) -> __m256i {
    if K::INF == 0 {
        return v;
    }
    // Sign-magnitude to two's complement: the magnitude, negated where the sign is set (-0 to
    // 0, as +0). The magnitude is `track`'s too.
    _mm256_sign_epi16(_mm256_and_si256(v, _mm256_set1_epi16(0x7fff)), v)
}

/// The f16 or bf16 bits of the numbers with keys `k` (+0 for 0).
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn unkey(k: __m256i) -> __m256i {
    // Keys are within +-0x7f80: the magnitude, with the sign of negative keys.
    let sign = _mm256_and_si256(k, _mm256_set1_epi16(i16::MIN));
    _mm256_or_si256(_mm256_abs_epi16(k), sign)
}

/// The more extreme of each pair of lanes.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn pick<K: Lanes, D: Direction>(a: __m256i, b: __m256i) -> __m256i {
    match (K::SIZE, K::SIGNED, D::IS_MIN) {
        (1, false, false) => _mm256_max_epu8(a, b),
        (1, false, true) => _mm256_min_epu8(a, b),
        (1, true, false) => _mm256_max_epi8(a, b),
        (1, true, true) => _mm256_min_epi8(a, b),
        (2, false, false) => _mm256_max_epu16(a, b),
        (2, false, true) => _mm256_min_epu16(a, b),
        (2, true, false) => _mm256_max_epi16(a, b),
        (2, true, true) => _mm256_min_epi16(a, b),
        (_, false, false) => _mm256_max_epu32(a, b),
        (_, false, true) => _mm256_min_epu32(a, b),
        (_, true, false) => _mm256_max_epi32(a, b),
        (_, true, true) => _mm256_min_epi32(a, b),
    }
}

/// The identity of the fold in every lane: the lowest element (or key) for a max, the highest
/// for a min.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn identity<K: Lanes, D: Direction>() -> __m256i {
    match (K::SIZE, K::SIGNED, D::IS_MIN) {
        (1, false, false) => _mm256_set1_epi8(0),
        (1, false, true) => _mm256_set1_epi8(-1),
        (1, true, false) => _mm256_set1_epi8(i8::MIN),
        (1, true, true) => _mm256_set1_epi8(i8::MAX),
        (2, false, false) => _mm256_set1_epi16(0),
        (2, false, true) => _mm256_set1_epi16(-1),
        (2, true, false) => _mm256_set1_epi16(i16::MIN),
        (2, true, true) => _mm256_set1_epi16(i16::MAX),
        (_, false, false) => _mm256_set1_epi32(0),
        (_, false, true) => _mm256_set1_epi32(-1),
        (_, true, false) => _mm256_set1_epi32(i32::MIN),
        (_, true, true) => _mm256_set1_epi32(i32::MAX),
    }
}

/// The lanes that hold a NaN (f16 and bf16 bits), all ones.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn nans<K: Lanes>(v: __m256i) -> __m256i {
    let m = _mm256_and_si256(v, _mm256_set1_epi16(0x7fff));
    _mm256_cmpgt_epi16(m, _mm256_set1_epi16(K::INF))
}

/// `top` raised to the magnitudes of `v` (f16 and bf16 bits): a NaN's is above infinity's,
/// checked once a block by [`any_nan`]. (The magnitudes are the keys' first step: one more
/// instruction a vector, where a compare and an `or` would be two.)
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn track<K: Lanes>(top: __m256i, v: __m256i) -> __m256i {
    _mm256_max_epi16(top, _mm256_and_si256(v, _mm256_set1_epi16(0x7fff)))
}

/// Whether magnitudes tracked by [`track`] include a NaN's.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn any_nan<K: Lanes>(top: __m256i) -> bool {
    K::INF != 0 && _mm256_movemask_epi8(_mm256_cmpgt_epi16(top, _mm256_set1_epi16(K::INF))) != 0
}

/// The lanes where `a` equals `b`, all ones.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn equal<K: Lanes>(a: __m256i, b: __m256i) -> __m256i {
    match K::SIZE {
        1 => _mm256_cmpeq_epi8(a, b),
        2 => _mm256_cmpeq_epi16(a, b),
        _ => _mm256_cmpeq_epi32(a, b),
    }
}

/// `n` plus one in every lane (wrapping in the lane's width).
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn count_up<K: Lanes>(n: __m256i) -> __m256i {
    let ones = _mm256_cmpeq_epi8(n, n);
    match K::SIZE {
        1 => _mm256_sub_epi8(n, ones),
        2 => _mm256_sub_epi16(n, ones),
        _ => _mm256_sub_epi32(n, ones),
    }
}

/// One bit per byte of `v` whose element's key equals `m`'s (two per 2-byte element).
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn hits<K: Lanes>(v: __m256i, m: __m256i) -> u32 {
    _mm256_movemask_epi8(equal::<K>(key::<K>(v), m)) as u32
}

/// The row `a` of the block reduced within 128-bit halves into the low half, `b` into the high.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn halves<K: Lanes, D: Direction>(a: __m256i, b: __m256i) -> __m256i {
    pick::<K, D>(
        _mm256_permute2x128_si256::<0x20>(a, b),
        _mm256_permute2x128_si256::<0x31>(a, b),
    )
}

/// Within each 128-bit half: the even 8-byte units of `p` then of `q` against the odd ones, so
/// that each row's units halve and `p`'s rows come before `q`'s.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn units8<K: Lanes, D: Direction>(p: __m256i, q: __m256i) -> __m256i {
    pick::<K, D>(_mm256_unpacklo_epi64(p, q), _mm256_unpackhi_epi64(p, q))
}

/// [`units8`] of 4-byte units.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn units4<K: Lanes, D: Direction>(p: __m256i, q: __m256i) -> __m256i {
    let (p, q) = (_mm256_castsi256_ps(p), _mm256_castsi256_ps(q));
    pick::<K, D>(
        _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(p, q)),
        _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(p, q)),
    )
}

/// [`units8`] of 2-byte units (`W` 2) or of bytes (`W` 1): each half's even units gathered
/// into its low 8 bytes and the odd into its high 8, then as [`units8`].
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn units_small<K: Lanes, D: Direction, const W: usize>(
    p: __m256i,
    q: __m256i,
) -> __m256i {
    let split = if W == 2 {
        _mm256_setr_epi8(
            0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, //
            0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
        )
    } else {
        _mm256_setr_epi8(
            0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, //
            0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
        )
    };
    units8::<K, D>(_mm256_shuffle_epi8(p, split), _mm256_shuffle_epi8(q, split))
}
