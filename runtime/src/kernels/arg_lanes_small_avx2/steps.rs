//! The steps of [`super`] on whole vectors: a row taken into a lane's running extreme, two
//! candidates of a lane merged, row numbers widened to `i64`, a pair of rows folded, extremes
//! written as elements.

use core::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8,
    _mm256_cmpeq_epi8, _mm256_cvtepu16_epi64, _mm256_cvtepu32_epi64, _mm256_cvtepu8_epi64,
    _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi8, _mm256_slli_epi64,
    _mm256_storeu_si256, _mm_loadl_epi64, _mm_loadu_si128,
};

use crate::kernels::short_rows_avx2::lanes::{equal, pick, unkey, Lanes};
use crate::{Direction, Element};

/// A lane's extreme and row after the row `e` (keys) numbered `count`: the row takes the lane
/// where more extreme, or with `LAST` as extreme.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn take_row<K: Lanes, D: Direction, const LAST: bool>(
    best: __m256i,
    idx: __m256i,
    e: __m256i,
    count: __m256i,
) -> (__m256i, __m256i) {
    let m = pick::<K, D>(best, e);
    let idx = if LAST {
        _mm256_blendv_epi8(idx, count, equal::<K>(m, e))
    } else {
        _mm256_blendv_epi8(count, idx, equal::<K>(m, best))
    };
    (m, idx)
}

/// Two candidates of each lane, `a` and `b` (extremes and row numbers), merged: `b` wins where
/// more extreme, or as extreme and earlier (later or the same with `LAST`). Also the lanes
/// `b` won.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn merge<K: Lanes, D: Direction, const LAST: bool>(
    a: __m256i,
    a_idx: __m256i,
    b: __m256i,
    b_idx: __m256i,
) -> (__m256i, __m256i, __m256i) {
    let ones = _mm256_cmpeq_epi8(a, a);
    let m = pick::<K, D>(a, b);
    let more = _mm256_andnot_si256(equal::<K>(m, a), ones);
    let tied = equal::<K>(a, b);
    let b_not_before = equal::<K>(pick::<K::Counts, crate::Max>(a_idx, b_idx), b_idx);
    let order = if LAST {
        b_not_before
    } else {
        _mm256_andnot_si256(b_not_before, ones)
    };
    let wins = _mm256_or_si256(more, _mm256_and_si256(tied, order));
    (m, _mm256_blendv_epi8(a_idx, b_idx, wins), wins)
}

/// The row numbers in the 16 bytes of `rows` from `from` (lanes of `K`, unsigned) into `y`, as
/// `i64`.
///
/// # Safety
/// The CPU has AVX2; `from + 24 <= 40`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn widen<K: Lanes>(rows: &[u8; 40], from: usize, y: &mut [i64]) {
    let step = 4 * K::SIZE;
    for (c, o) in y.chunks_exact_mut(4).take(16 / step).enumerate() {
        // SAFETY: the loads read 8 bytes from `from + c · step <= from + 12`, or 16 from
        // `from` (4-byte lanes), inside `rows`; `o` is 32 bytes.
        unsafe {
            let at = rows.as_ptr().add(from + c * step).cast();
            let w = match K::SIZE {
                1 => _mm256_cvtepu8_epi64(_mm_loadl_epi64(at)),
                2 => _mm256_cvtepu16_epi64(_mm_loadl_epi64(at)),
                _ => _mm256_cvtepu32_epi64(_mm_loadu_si128(at)),
            };
            _mm256_storeu_si256(o.as_mut_ptr().cast(), w);
        }
    }
}

/// The two candidates of each of 16 byte lanes (row `2s` in the low half of `best`, row `2s +
/// 1` in the high half, `s` in `idx`) folded into one row per lane, into `y`; the extremes
/// (keys) in the low half of the result.
///
/// # Safety
/// The CPU has AVX2; `K` is a byte type.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn fold_pairs<K: Lanes, D: Direction, const LAST: bool>(
    best: __m256i,
    idx: __m256i,
    y: &mut [i64],
) -> __m256i {
    let high = _mm256_permute2x128_si256::<0x01>(best, best);
    let high_idx = _mm256_permute2x128_si256::<0x01>(idx, idx);
    // The high row wins where more extreme, or as extreme and earlier (later with `LAST`):
    // rows 2s and 2s + 1 are in the order of their super-rows, the same super-row the high
    // one later.
    let (m, s, wins) = merge::<K, D, LAST>(best, idx, high, high_idx);
    let odd = _mm256_and_si256(wins, _mm256_set1_epi8(1));
    let (mut sb, mut ob) = ([0u8; 32], [0u8; 32]);
    // SAFETY: 32 bytes each; the loads below read 8 of them.
    unsafe {
        _mm256_storeu_si256(sb.as_mut_ptr().cast(), s);
        _mm256_storeu_si256(ob.as_mut_ptr().cast(), odd);
        for (c, o) in y.chunks_exact_mut(4).take(4).enumerate() {
            let s = _mm256_cvtepu8_epi64(_mm_loadl_epi64(sb.as_ptr().add(4 * c).cast()));
            let odd = _mm256_cvtepu8_epi64(_mm_loadl_epi64(ob.as_ptr().add(4 * c).cast()));
            let row = _mm256_add_epi64(_mm256_slli_epi64::<1>(s), odd);
            _mm256_storeu_si256(o.as_mut_ptr().cast(), row);
        }
    }
    m
}

/// The extremes in `best` (keys of `K`, lane `l` for `v[l]`) into `v` as elements (a zero of
/// f16 or bf16 as +0: the sign of a zero extreme is unspecified).
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn put_values<K: Lanes, T: Element>(best: __m256i, v: &mut [T]) {
    let e = if K::INF != 0 { unkey(best) } else { best };
    let mut bytes = [0u8; 32];
    // SAFETY: 32 bytes.
    unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().cast(), e) };
    for (o, b) in v.iter_mut().zip(bytes.chunks_exact(K::SIZE)) {
        if let Some(e) = T::read_le(b) {
            *o = e;
        }
    }
}
