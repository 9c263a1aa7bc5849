//! Contiguous rows of 1-, 2- and 4-byte elements (`i8`, `u8`, `bool`, `i16`, `u16`, f16 and
//! bf16 as order keys, `i32`, `u32`) from a few elements to [`MAX_BYTES`] bytes, in AVX2 vectors with one row
//! per lane: where a row fills a vector or two, a kernel that walks one row at a time spends
//! more on the row's setup and its horizontal reduction than on its elements.
//!
//! A block of as many rows as a vector has lanes (8, 16 or 32) is read row by row, each row folded
//! into one vector by the order alone (loads of a vector from the row's start and from its end,
//! which overlap when the length is not a multiple of a vector: max and min do not mind; a row
//! shorter than a vector has the lanes past it set to the identity). The block's vectors are
//! then reduced together in a tree of shuffles (128-bit halves, then 8-, 4-, 2- and 1-byte units
//! within them), so that the block's extremes come out as one vector, row `r` in lane `r`.
//! An arg-reduction then finds each row's extreme in its row by equality, the positions of a
//! row gathered without branches. f16 and bf16 are compared by their order keys,
//! NaN flagged on the side: a block with a NaN is done again by the exact rule.
//!
//! For the CPUs [`available`] finds; the callers check.

use core::arch::x86_64::{
    __m256i, _mm256_abs_epi16, _mm256_and_si256, _mm256_blendv_epi8, _mm256_castps_si256,
    _mm256_castsi128_si256, _mm256_castsi256_ps, _mm256_cmpeq_epi16, _mm256_cmpeq_epi32,
    _mm256_cmpeq_epi8, _mm256_cmpgt_epi16, _mm256_inserti128_si256, _mm256_loadu_si256,
    _mm256_max_epi16, _mm256_max_epi32, _mm256_max_epi8, _mm256_max_epu16, _mm256_max_epu32,
    _mm256_max_epu8, _mm256_min_epi16, _mm256_min_epi32, _mm256_min_epi8, _mm256_min_epu16,
    _mm256_min_epu32, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256,
    _mm256_permute2x128_si256, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_set1_epi8,
    _mm256_setr_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_shuffle_ps,
    _mm256_srai_epi16, _mm256_storeu_si256, _mm256_sub_epi16, _mm256_unpackhi_epi64,
    _mm256_unpacklo_epi64, _mm256_xor_si256, _mm_loadu_si128,
};
use core::mem::size_of;

use super::arg_row::arg_row;
use super::index::{index, Index};
use super::isa;
use super::reduce::fold;
use crate::{DType, Direction, Element};

/// The longest rows the reductions take, in bytes (sixteen vectors). Longer rows amortize a
/// row's setup, and the row kernels take them.
pub(super) const MAX_BYTES: usize = 512;

/// The longest rows the arg-reductions and Hardmax take, in bytes (eight vectors): past them
/// the second pass over each row costs more than the row kernels' search (u8 rows of 200: 2.7x
/// of a max fold of the bytes by the row kernel, 3.8x here).
pub(super) const ARG_MAX_BYTES: usize = 256;

/// The shortest rows taken, in bytes: shorter rows leave most of a vector's lanes idle.
pub(super) const MIN_BYTES: usize = 8;

/// Whether this CPU runs the kernels (AVX2), not capped narrower.
#[inline(always)]
pub(super) fn available() -> bool {
    isa::level() >= isa::AVX2
}

/// How AVX2 compares a type's elements.
trait Lanes {
    /// Bytes per element (1 or 2).
    const SIZE: usize;
    /// Whether the compares are signed (order keys are).
    const SIGNED: bool;
    /// For f16 and bf16, the magnitude bits of infinity (the elements compared by their order
    /// keys, a larger magnitude a NaN); 0 for integers.
    const INF: i16;
    /// Elements (and rows) in a vector.
    const LANES: usize = 32 / Self::SIZE;
}

/// `u8` and `bool`.
struct U8s;
/// `i8`.
struct I8s;
/// `u16`.
struct U16s;
/// `i16`.
struct I16s;
/// `u32`.
struct U32s;
/// `i32`.
struct I32s;
/// f16 (`INF` 0x7c00) and bf16 (0x7f80) as order keys.
struct Halves<const INF: i16>;

impl Lanes for U8s {
    const SIZE: usize = 1;
    const SIGNED: bool = false;
    const INF: i16 = 0;
}
impl Lanes for I8s {
    const SIZE: usize = 1;
    const SIGNED: bool = true;
    const INF: i16 = 0;
}
impl Lanes for U16s {
    const SIZE: usize = 2;
    const SIGNED: bool = false;
    const INF: i16 = 0;
}
impl Lanes for I16s {
    const SIZE: usize = 2;
    const SIGNED: bool = true;
    const INF: i16 = 0;
}
impl Lanes for U32s {
    const SIZE: usize = 4;
    const SIGNED: bool = false;
    const INF: i16 = 0;
}
impl Lanes for I32s {
    const SIZE: usize = 4;
    const SIGNED: bool = true;
    const INF: i16 = 0;
}
impl<const INF: i16> Lanes for Halves<INF> {
    const SIZE: usize = 2;
    const SIGNED: bool = true;
    const INF: i16 = INF;
}

/// Whether rows of `n` elements of `T` are this module's (1-, 2- and 4-byte integers, f16 and
/// bf16; rows of
/// [`MIN_BYTES`] to [`MAX_BYTES`]).
#[inline(always)]
pub(super) fn fits<T: Element>(n: usize) -> bool {
    narrow::<T>() && (MIN_BYTES..=MAX_BYTES).contains(&(n * size_of::<T>()))
}

/// [`fits`] for the arg-reductions and Hardmax (rows up to [`ARG_MAX_BYTES`]).
#[inline(always)]
pub(super) fn fits_arg<T: Element>(n: usize) -> bool {
    fits::<T>(n) && n * size_of::<T>() <= ARG_MAX_BYTES
}

/// Whether `T` is one of this module's types.
#[inline(always)]
const fn narrow<T: Element>() -> bool {
    matches!(
        T::DTYPE,
        DType::U8
            | DType::Bool
            | DType::I8
            | DType::U16
            | DType::I16
            | DType::F16
            | DType::BF16
            | DType::I32
            | DType::U32
    )
}

/// The bytes of `x`, for this module's types.
#[inline(always)]
fn bytes<T: Element>(x: &[T]) -> Option<&[u8]> {
    if !narrow::<T>() {
        return None;
    }
    // SAFETY: these types are one or two bytes without padding, every byte initialized; the
    // bytes cover the same memory, borrowed as long.
    Some(unsafe { core::slice::from_raw_parts(x.as_ptr().cast::<u8>(), size_of_val(x)) })
}

/// A block's row shape: rows of `n` elements, and for rows shorter than a vector, which lanes
/// are the row's.
struct Block<K> {
    /// Elements per row.
    n: usize,
    /// The row's lanes (all ones) of a row shorter than a vector.
    keep: __m256i,
    /// The identity where `keep` is clear, zero where it is set.
    fill: __m256i,
    _k: core::marker::PhantomData<K>,
}

/// One 32-byte load from byte `at` of `x`.
///
/// # Safety
/// `at + 32 <= x.len()`.
#[inline(always)]
unsafe fn load(x: &[u8], at: usize) -> __m256i {
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
unsafe fn load2(x: &[u8], a: usize, b: usize) -> __m256i {
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
fn key<K: Lanes>(v: __m256i) -> __m256i {
    if K::INF == 0 {
        return v;
    }
    // Sign-magnitude to two's complement: the magnitude, negated where the sign is set (-0 to
    // 0, as +0).
    let m = _mm256_and_si256(v, _mm256_set1_epi16(0x7fff));
    let s = _mm256_srai_epi16::<15>(v);
    _mm256_sub_epi16(_mm256_xor_si256(m, s), s)
}

/// The f16 or bf16 bits of the numbers with keys `k` (+0 for 0).
#[inline]
#[target_feature(enable = "avx2")]
fn unkey(k: __m256i) -> __m256i {
    // Keys are within +-0x7f80: the magnitude, with the sign of negative keys.
    let sign = _mm256_and_si256(k, _mm256_set1_epi16(i16::MIN));
    _mm256_or_si256(_mm256_abs_epi16(k), sign)
}

/// The more extreme of each pair of lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn pick<K: Lanes, D: Direction>(a: __m256i, b: __m256i) -> __m256i {
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
fn identity<K: Lanes, D: Direction>() -> __m256i {
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
fn nans<K: Lanes>(v: __m256i) -> __m256i {
    let m = _mm256_and_si256(v, _mm256_set1_epi16(0x7fff));
    _mm256_cmpgt_epi16(m, _mm256_set1_epi16(K::INF))
}

/// `top` raised to the magnitudes of `v` (f16 and bf16 bits): a NaN's is above infinity's,
/// checked once a block by [`any_nan`]. (The magnitudes are the keys' first step: one more
/// instruction a vector, where a compare and an `or` would be two.)
#[inline]
#[target_feature(enable = "avx2")]
fn track<K: Lanes>(top: __m256i, v: __m256i) -> __m256i {
    _mm256_max_epi16(top, _mm256_and_si256(v, _mm256_set1_epi16(0x7fff)))
}

/// Whether magnitudes tracked by [`track`] include a NaN's.
#[inline]
#[target_feature(enable = "avx2")]
fn any_nan<K: Lanes>(top: __m256i) -> bool {
    K::INF != 0 && _mm256_movemask_epi8(_mm256_cmpgt_epi16(top, _mm256_set1_epi16(K::INF))) != 0
}

/// One bit per byte of `v` whose element's key equals `m`'s (two per 2-byte element).
#[inline]
#[target_feature(enable = "avx2")]
fn hits<K: Lanes>(v: __m256i, m: __m256i) -> u32 {
    let k = key::<K>(v);
    let eq = match K::SIZE {
        1 => _mm256_cmpeq_epi8(k, m),
        2 => _mm256_cmpeq_epi16(k, m),
        _ => _mm256_cmpeq_epi32(k, m),
    };
    _mm256_movemask_epi8(eq) as u32
}

/// The row `a` of the block reduced within 128-bit halves into the low half, `b` into the high.
#[inline]
#[target_feature(enable = "avx2")]
fn halves<K: Lanes, D: Direction>(a: __m256i, b: __m256i) -> __m256i {
    pick::<K, D>(
        _mm256_permute2x128_si256::<0x20>(a, b),
        _mm256_permute2x128_si256::<0x31>(a, b),
    )
}

/// Within each 128-bit half: the even 8-byte units of `p` then of `q` against the odd ones, so
/// that each row's units halve and `p`'s rows come before `q`'s.
#[inline]
#[target_feature(enable = "avx2")]
fn units8<K: Lanes, D: Direction>(p: __m256i, q: __m256i) -> __m256i {
    pick::<K, D>(_mm256_unpacklo_epi64(p, q), _mm256_unpackhi_epi64(p, q))
}

/// [`units8`] of 4-byte units.
#[inline]
#[target_feature(enable = "avx2")]
fn units4<K: Lanes, D: Direction>(p: __m256i, q: __m256i) -> __m256i {
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
fn units_small<K: Lanes, D: Direction, const W: usize>(p: __m256i, q: __m256i) -> __m256i {
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

impl<K: Lanes> Block<K> {
    /// The shape of rows of `n` elements.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new<D: Direction>(n: usize) -> Self {
        // Rows under 16 bytes are read 16 bytes at a time, one in each half of a vector.
        let bytes = n * K::SIZE;
        let mut keep = [0u8; 32];
        for (i, k) in keep.iter_mut().enumerate() {
            *k = if i % 16 < bytes { 0xff } else { 0 };
        }
        // SAFETY: 32 bytes.
        let keep = unsafe { load(&keep, 0) };
        let fill = _mm256_blendv_epi8(identity::<K, D>(), _mm256_setzero_si256(), keep);
        Self {
            n,
            keep,
            fill,
            _k: core::marker::PhantomData,
        }
    }

    /// The bytes a block of rows reads from its start: its rows, and for rows under 16 bytes
    /// 16 bytes from the last row's start.
    #[inline(always)]
    fn reach(&self) -> usize {
        let row = self.n * K::SIZE;
        (K::LANES - 1) * row + row.max(16)
    }

    /// Rows `a` and `b` of the block at the start of `x` folded into 16 bytes of keys each,
    /// `a`'s in the low half of the vector and `b`'s in the high; NaN lanes (f16 and bf16)
    /// flagged into `nan`. Rows of 32 bytes or less are read 16 bytes at a time straight into
    /// the halves (from the start and from the end, which overlap); longer rows a vector at a
    /// time, then folded across the halves.
    ///
    /// # Safety
    /// `x` holds [`Self::reach`] bytes.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn pair<D: Direction>(
        &self,
        x: &[u8],
        a: usize,
        b: usize,
        nan: &mut __m256i,
    ) -> __m256i {
        let bytes = self.n * K::SIZE;
        let (a, b) = (a * bytes, b * bytes);
        if bytes > 32 {
            // SAFETY: the caller's reach.
            let (a, b) = unsafe { (self.row::<D>(x, a, nan), self.row::<D>(x, b, nan)) };
            return halves::<K, D>(a, b);
        }
        // SAFETY: 16 bytes from each row's start (within the reach), and for rows of 16 bytes
        // or more 16 bytes to each row's end.
        let lo = unsafe { load2(x, a, b) };
        if bytes < 16 {
            if K::INF != 0 {
                *nan = track::<K>(*nan, _mm256_and_si256(lo, self.keep));
            }
            return _mm256_or_si256(_mm256_and_si256(key::<K>(lo), self.keep), self.fill);
        }
        let hi = unsafe { load2(x, a + bytes - 16, b + bytes - 16) };
        if K::INF != 0 {
            *nan = track::<K>(track::<K>(*nan, lo), hi);
        }
        pick::<K, D>(key::<K>(lo), key::<K>(hi))
    }

    /// The row from byte `at` of `x` (a vector or longer) folded into one vector of keys; NaN
    /// lanes (f16 and bf16) flagged into `nan`.
    ///
    /// # Safety
    /// The row is inside `x` and holds [`Lanes::LANES`] elements or more.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn row<D: Direction>(&self, x: &[u8], at: usize, nan: &mut __m256i) -> __m256i {
        let (n, l) = (self.n, K::LANES);
        // SAFETY (each load): `n >= l` (the caller's), the vector within the row.
        let last = unsafe { load(x, at + (n - l) * K::SIZE) };
        let first = unsafe { load(x, at) };
        if K::INF != 0 {
            *nan = track::<K>(track::<K>(*nan, first), last);
        }
        let mut a = pick::<K, D>(key::<K>(first), key::<K>(last));
        // Rows over two vectors: the vectors between.
        let mut k = l;
        while k + l < n {
            let v = unsafe { load(x, at + k * K::SIZE) };
            if K::INF != 0 {
                *nan = track::<K>(*nan, v);
            }
            a = pick::<K, D>(a, key::<K>(v));
            k += l;
        }
        a
    }

    /// The extremes (keys) of the [`Lanes::LANES`] rows at the start of `x`, row `r` in lane
    /// `r`; NaN flagged into `nan` (then they are not the contract's).
    ///
    /// # Safety
    /// `x` holds [`Self::reach`] bytes.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn extremes<D: Direction>(&self, x: &[u8], nan: &mut __m256i) -> __m256i {
        // Pair `i` takes rows `i` and `i + lanes / 2`: the tree keeps the pairs' order, the
        // first rows in the low halves, the second in the high.
        let half = K::LANES / 2;
        let mut outs = [_mm256_setzero_si256(); 2];
        for (h, out) in outs.iter_mut().enumerate() {
            let mut eights = [_mm256_setzero_si256(); 2];
            for (e, eight) in eights.iter_mut().enumerate() {
                let mut quads = [_mm256_setzero_si256(); 2];
                for (q, quad) in quads.iter_mut().enumerate() {
                    let mut pairs = [_mm256_setzero_si256(); 2];
                    for (p, pair) in pairs.iter_mut().enumerate() {
                        let i = ((h * 2 + e) * 2 + q) * 2 + p;
                        // SAFETY: the caller's reach, for rows below `lanes`.
                        *pair = unsafe { self.pair::<D>(x, i, i + half, nan) };
                    }
                    *quad = units8::<K, D>(pairs[0], pairs[1]);
                }
                *eight = units4::<K, D>(quads[0], quads[1]);
                if K::SIZE == 4 {
                    // Eight rows of 4-byte elements: one vector.
                    return *eight;
                }
            }
            *out = units_small::<K, D, 2>(eights[0], eights[1]);
            if K::SIZE == 2 {
                // Sixteen rows of 2-byte elements: one vector.
                return *out;
            }
        }
        units_small::<K, D, 1>(outs[0], outs[1])
    }

    /// The position of the first (last, with `LAST`) element of row `r` of the block at the
    /// start of `x` whose key is `m`'s (in every lane).
    ///
    /// # Safety
    /// `x` holds [`Self::reach`] bytes.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn position<const LAST: bool>(&self, x: &[u8], r: usize, m: __m256i) -> usize {
        let (n, l, s) = (self.n, K::LANES, K::SIZE);
        let at = r * n * s;
        let bytes = n * s;
        // SAFETY (each load): as in `row`.
        let byte = if n < l {
            // 16 bytes from the start (the row's, then any past it) and 16 to the end (for
            // rows under 16 bytes, the same): the end's bits moved to their place.
            let v = unsafe { load2(x, at, at + bytes.max(16) - 16) };
            let both = hits::<K>(v, m);
            let low = if bytes < 16 {
                (1u32 << bytes) - 1
            } else {
                u32::MAX
            };
            let bits = ((both & 0xffff) | (both >> 16) << (bytes.max(16) - 16)) & low;
            if LAST {
                31 - bits.leading_zeros() as usize
            } else {
                bits.trailing_zeros() as usize
            }
        } else if bytes <= 64 {
            // Two vectors, which overlap unless the row is 64 bytes: one word.
            let end = u64::from(hits::<K>(unsafe { load(x, at + bytes - 32) }, m));
            let start = u64::from(hits::<K>(unsafe { load(x, at) }, m));
            let bits = start | end << (bytes - 32);
            if LAST {
                63 - bits.leading_zeros() as usize
            } else {
                bits.trailing_zeros() as usize
            }
        } else {
            // Up to eight vectors, the last from the row's end: each one's bits kept, and one
            // bit per vector that has a hit; the vector is the first (last) of those, without
            // a branch. A hit in the overlap of the last two is in both, found in the first.
            let last = (bytes - 1) / 32;
            let mut masks = [0u32; ARG_MAX_BYTES / 32];
            let mut any = 0u32;
            for (c, mask) in masks.iter_mut().enumerate().take(last + 1) {
                let off = if c == last { bytes - 32 } else { c * 32 };
                *mask = hits::<K>(unsafe { load(x, at + off) }, m);
                any |= u32::from(*mask != 0) << c;
            }
            let c = if LAST {
                31 - any.leading_zeros() as usize
            } else {
                any.trailing_zeros() as usize
            };
            let mask = masks.get(c).copied().unwrap_or(0);
            let off = if c == last { bytes - 32 } else { c * 32 };
            off + if LAST {
                31 - mask.leading_zeros() as usize
            } else {
                mask.trailing_zeros() as usize
            }
        };
        byte / s
    }
}

/// The block's row count and its reach, and how many whole blocks of rows of `n` fit in `rows`
/// rows of `len` bytes.
#[inline(always)]
fn blocks<K: Lanes>(block: &Block<K>, rows: usize, len: usize) -> usize {
    let (l, row) = (K::LANES, block.n * K::SIZE);
    let mut count = rows / l;
    while count > 0 && (count - 1) * l * row + block.reach() > len {
        count -= 1;
    }
    count
}

/// [`reduce_rows`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn reduce_in<K: Lanes, D: Direction, T: Element>(y: &mut [T], x: &[T], n: usize) -> usize {
    let Some(xb) = bytes(x) else {
        return 0;
    };
    let block = Block::<K>::new::<D>(n);
    let (l, row) = (K::LANES, n * K::SIZE);
    let count = blocks(&block, (x.len() / n).min(y.len()), xb.len());
    for b in 0..count {
        let (Some(xs), Some(ys), Some(rows)) = (
            xb.get(b * l * row..),
            y.get_mut(b * l..(b + 1) * l),
            x.get(b * l * n..(b + 1) * l * n),
        ) else {
            return b * l;
        };
        let mut nan = _mm256_setzero_si256();
        // SAFETY: `blocks` kept the block's reach inside `x`.
        let m = unsafe { block.extremes::<D>(xs, &mut nan) };
        if any_nan::<K>(nan) {
            for (o, row) in ys.iter_mut().zip(rows.chunks_exact(n)) {
                *o = fold::<T, D>(*o, row);
            }
            continue;
        }
        let out = ys.as_mut_ptr().cast::<u8>();
        // SAFETY: `ys` is `l` elements, 32 bytes; the extremes are elements of `T` (bits of a
        // number for f16 and bf16, 0 or 1 for bool).
        unsafe {
            let acc = _mm256_loadu_si256(out.cast());
            let v = if K::INF != 0 {
                // An accumulator that is NaN stays.
                let v = unkey(pick::<K, D>(m, key::<K>(acc)));
                _mm256_blendv_epi8(v, acc, nans::<K>(acc))
            } else {
                pick::<K, D>(m, acc)
            };
            _mm256_storeu_si256(out.cast(), v);
        }
    }
    count * l
}

/// [`arg_rows`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn arg_in<K: Lanes, D: Direction, const LAST: bool, const VALUES: bool, T, I>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> usize
where
    T: Element,
    I: Index,
{
    let Some(xb) = bytes(x) else {
        return 0;
    };
    let block = Block::<K>::new::<D>(n);
    let (l, row) = (K::LANES, n * K::SIZE);
    let mut rows = (x.len() / n).min(y.len());
    if VALUES {
        rows = rows.min(v.len());
    }
    let count = blocks(&block, rows, xb.len());
    for b in 0..count {
        let (Some(xs), Some(ys), Some(rs)) = (
            xb.get(b * l * row..),
            y.get_mut(b * l..(b + 1) * l),
            x.get(b * l * n..(b + 1) * l * n),
        ) else {
            return b * l;
        };
        let vs = v.get_mut(b * l..(b + 1) * l).unwrap_or_default();
        let mut nan = _mm256_setzero_si256();
        // SAFETY: `blocks` kept the block's reach inside `x`.
        let m = unsafe { block.extremes::<D>(xs, &mut nan) };
        if any_nan::<K>(nan) {
            for (r, (o, row)) in ys.iter_mut().zip(rs.chunks_exact(n)).enumerate() {
                let at = arg_row::<T, D, LAST>(row);
                *o = index::<I>(at);
                if let (Some(v), Some(&e)) = (vs.get_mut(r), row.get(at)) {
                    *v = e;
                }
            }
            continue;
        }
        let mut keys = [0u8; 32];
        // SAFETY: 32 bytes.
        unsafe { _mm256_storeu_si256(keys.as_mut_ptr().cast(), m) };
        for (r, o) in ys.iter_mut().enumerate() {
            let k = match K::SIZE {
                1 => _mm256_set1_epi8(keys[r] as i8),
                2 => _mm256_set1_epi16(i16::from_le_bytes([keys[2 * r], keys[2 * r + 1]])),
                _ => _mm256_set1_epi32(i32::from_le_bytes([
                    keys[4 * r],
                    keys[4 * r + 1],
                    keys[4 * r + 2],
                    keys[4 * r + 3],
                ])),
            };
            // SAFETY: `blocks` kept the block's reach inside `x`.
            *o = index::<I>(unsafe { block.position::<LAST>(xs, r, k) });
        }
        if VALUES && vs.len() == l {
            let e = if K::INF != 0 { unkey(m) } else { m };
            // SAFETY: `vs` is `l` elements, 32 bytes; the extremes are elements of `T`.
            unsafe { _mm256_storeu_si256(vs.as_mut_ptr().cast(), e) };
        }
    }
    count * l
}

/// Folds each contiguous row of `n` of `x` into the matching element of `y` (NaN-propagating,
/// as [`reduce_rows`](crate::kernels::reduce_rows)), whole blocks of 8, 16 or 32 rows; the rows
/// done (the rest are the caller's). Nothing done unless [`fits`] and [`available`].
#[inline(always)]
pub(super) fn reduce_rows<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize) -> usize {
    if !fits::<T>(n) || !available() {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        match T::DTYPE {
            DType::U8 | DType::Bool => reduce_in::<U8s, D, T>(y, x, n),
            DType::I8 => reduce_in::<I8s, D, T>(y, x, n),
            DType::U16 => reduce_in::<U16s, D, T>(y, x, n),
            DType::I16 => reduce_in::<I16s, D, T>(y, x, n),
            DType::F16 => reduce_in::<Halves<0x7c00>, D, T>(y, x, n),
            DType::BF16 => reduce_in::<Halves<0x7f80>, D, T>(y, x, n),
            DType::U32 => reduce_in::<U32s, D, T>(y, x, n),
            DType::I32 => reduce_in::<I32s, D, T>(y, x, n),
            _ => 0,
        }
    }
}

/// The index of the extreme of each contiguous row of `n` of `x` into `y` (the first, or the
/// last with `LAST`; a NaN beats every number), with `VALUES` each row's extreme into `v`;
/// whole blocks of 8, 16 or 32 rows, the rows done (the rest are the caller's). Nothing done
/// unless [`fits_arg`] and [`available`].
#[inline(always)]
pub(super) fn arg_rows<T: Element, D: Direction, const LAST: bool, const VALUES: bool, I: Index>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> usize {
    if !fits_arg::<T>(n) || !available() {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        match T::DTYPE {
            DType::U8 | DType::Bool => arg_in::<U8s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::I8 => arg_in::<I8s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::U16 => arg_in::<U16s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::I16 => arg_in::<I16s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::F16 => arg_in::<Halves<0x7c00>, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::BF16 => arg_in::<Halves<0x7f80>, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::U32 => arg_in::<U32s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::I32 => arg_in::<I32s, D, LAST, VALUES, T, I>(x, y, v, n),
            _ => 0,
        }
    }
}

/// Hardmax of each contiguous row of `n` of `x` into `y` (1 at the first maximum or first
/// NaN, 0 elsewhere), tile by tile: the positions of [`arg_rows`], then the tile's zeros in one
/// fill and its ones. The rows done (whole blocks; the rest are the caller's).
#[inline(always)]
pub(super) fn hardmax_rows<T: Element>(x: &[T], y: &mut [T], n: usize) -> usize {
    /// Rows a tile of positions holds.
    const TILE: usize = 64;
    if !fits_arg::<T>(n) || !available() {
        return 0;
    }
    let rows = (x.len() / n).min(y.len() / n);
    let mut done = 0;
    let mut at = [0u32; TILE];
    while done < rows {
        let (Some(x), Some(at)) = (x.get(done * n..), at.get_mut(..(rows - done).min(TILE))) else {
            break;
        };
        let k = arg_rows::<T, crate::Max, false, false, u32>(x, at, &mut [], n);
        let Some(out) = y.get_mut(done * n..(done + k) * n) else {
            break;
        };
        super::fill(out, T::ZERO);
        for (row, &a) in out.chunks_exact_mut(n).zip(at.iter()) {
            if let Some(o) = row.get_mut(a as usize) {
                *o = T::ONE;
            }
        }
        done += k;
        if k < at.len() {
            break;
        }
    }
    done
}

#[cfg(test)]
mod tests;
