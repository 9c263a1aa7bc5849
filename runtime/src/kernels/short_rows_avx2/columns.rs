//! Arg-reductions of 2-byte rows of 17 to 22 elements (34 to 44 bytes; see [`fits`]) by
//! columns: a block of sixteen rows is transposed in registers (its first sixteen columns from
//! the rows' starts, its last sixteen from their ends), so that lane `j` of column `c` holds
//! element `c` of row `j`; then one pass over the columns in order keeps each row's extreme and
//! its index, lane by lane. Searching each row again for its extreme (two loads, two compares,
//! two masks a row) cost more than the transposes: ArgMax over `[52428, 20]` in the benchmark
//! matrix, best of three, 274 -> 183 us for f16, 183 -> 121 us for `i16` (session 45, the
//! 2-core Xeon).
//!
//! Lanes as in [`super::lanes`]: `i16` as it is, `u16` with its sign bit flipped, f16 and bf16
//! as their order keys. A NaN's key lies past an infinity's (above for a positive NaN, below
//! for a negative one), so that the least and greatest keys show it; a block with a NaN is done
//! again by the exact rule.

use core::arch::x86_64::{
    __m256i, _mm256_abs_epi16, _mm256_blendv_epi8, _mm256_castsi256_si128, _mm256_cmpeq_epi16,
    _mm256_cmpgt_epi16, _mm256_cvtepu16_epi64, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_max_epi16, _mm256_min_epi16, _mm256_movemask_epi8, _mm256_permute2x128_si256,
    _mm256_set1_epi16, _mm256_setzero_si256, _mm256_storeu_si256, _mm256_unpackhi_epi16,
    _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi16, _mm256_unpacklo_epi32,
    _mm256_unpacklo_epi64, _mm256_xor_si256, _mm_unpackhi_epi64,
};

use super::block::arg_blocks;
use super::lanes::{key, unkey, Lanes};
use super::{bytes, exact_rows};
use crate::kernels::index::{index, Index};
use crate::{DType, Direction, Element};

/// Rows per block: one 16-bit lane each.
const ROWS: usize = 16;

/// Whether rows of `n` elements of `T` (2 bytes) are this module's: rows of 17 to 22 `i16`,
/// f16 or bf16. Other rows go widened with their positions ([`super::tagged`]), which took them
/// as fast or faster. Measured (ArgMax over 2 MiB, best of 600 calls, each kernel in its own
/// build, 2-core AVX-512 Xeon, session 49): by columns against widened, `i16` rows of 17 and 18
/// 0.92x of the time, 20 to 24 0.97-1.0x; f16 rows of 17 and 18 0.87x, of 20 0.96x, of 22
/// 0.99x, of 24 1.14x, of 25 1.19x, of 28 1.37x; `u16` (its sign bit flipped per element here)
/// rows of 17 to 24 1.18-1.34x, so never. In session 46 longer rows went widened already
/// (`i16` rows of 25 97 -> 72 us and of 31 97 -> 61 us).
#[inline(always)]
pub(super) fn fits<T: Element>(n: usize) -> bool {
    matches!(T::DTYPE, DType::I16 | DType::F16 | DType::BF16) && (MIN_ROW..=MAX_ROW).contains(&n)
}

/// The shortest rows taken (past one vector of sixteen elements).
pub(super) const MIN_ROW: usize = 17;

/// The longest rows taken (see [`fits`]).
pub(super) const MAX_ROW: usize = 22;

/// Eight rows of sixteen elements (`r`) transposed within each 128-bit half: vector `c` holds
/// element `c` of the eight rows in its low half and element `c + 8` in its high half.
#[inline]
#[target_feature(enable = "avx2")]
fn transpose8(r: &[__m256i; 8]) -> [__m256i; 8] {
    let [r0, r1, r2, r3, r4, r5, r6, r7] = *r;
    let (a01, b01) = (_mm256_unpacklo_epi16(r0, r1), _mm256_unpackhi_epi16(r0, r1));
    let (a23, b23) = (_mm256_unpacklo_epi16(r2, r3), _mm256_unpackhi_epi16(r2, r3));
    let (a45, b45) = (_mm256_unpacklo_epi16(r4, r5), _mm256_unpackhi_epi16(r4, r5));
    let (a67, b67) = (_mm256_unpacklo_epi16(r6, r7), _mm256_unpackhi_epi16(r6, r7));
    let (c0, c1) = (
        _mm256_unpacklo_epi32(a01, a23),
        _mm256_unpackhi_epi32(a01, a23),
    );
    let (c2, c3) = (
        _mm256_unpacklo_epi32(b01, b23),
        _mm256_unpackhi_epi32(b01, b23),
    );
    let (d0, d1) = (
        _mm256_unpacklo_epi32(a45, a67),
        _mm256_unpackhi_epi32(a45, a67),
    );
    let (d2, d3) = (
        _mm256_unpacklo_epi32(b45, b67),
        _mm256_unpackhi_epi32(b45, b67),
    );
    [
        _mm256_unpacklo_epi64(c0, d0),
        _mm256_unpackhi_epi64(c0, d0),
        _mm256_unpacklo_epi64(c1, d1),
        _mm256_unpackhi_epi64(c1, d1),
        _mm256_unpacklo_epi64(c2, d2),
        _mm256_unpackhi_epi64(c2, d2),
        _mm256_unpacklo_epi64(c3, d3),
        _mm256_unpackhi_epi64(c3, d3),
    ]
}

/// The sixteen columns of the sixteen rows of 32 bytes that start at bytes `at`, `at + row`, ...
/// of `x`: column `c` holds element `c` of row `j` in lane `j`.
///
/// # Safety
/// The CPU has AVX2; `at + 15 * row + 32 <= x.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn columns(x: &[u8], at: usize, row: usize) -> [__m256i; 16] {
    debug_assert!(at + 15 * row + 32 <= x.len());
    // SAFETY: the caller's bound covers every row's 32 bytes.
    let load = |j: usize| unsafe { _mm256_loadu_si256(x.as_ptr().add(at + j * row).cast()) };
    let low: [__m256i; 8] = core::array::from_fn(load);
    let high: [__m256i; 8] = core::array::from_fn(|j| load(j + 8));
    let (a, b) = (transpose8(&low), transpose8(&high));
    let mut out = [_mm256_setzero_si256(); 16];
    for c in 0..8 {
        out[c] = _mm256_permute2x128_si256::<0x20>(a[c], b[c]);
        out[c + 8] = _mm256_permute2x128_si256::<0x31>(a[c], b[c]);
    }
    out
}

/// A column's elements as signed 16-bit keys in the elements' order.
#[inline]
#[target_feature(enable = "avx2")]
fn signed<K: Lanes>(v: __m256i) -> __m256i {
    if K::INF != 0 {
        key::<K>(v)
    } else if K::SIGNED {
        v
    } else {
        _mm256_xor_si256(v, _mm256_set1_epi16(i16::MIN))
    }
}

/// The lanes' other extreme: the least of `a` and `v` for a maximum, the greatest for a minimum.
#[inline]
#[target_feature(enable = "avx2")]
fn opposite<D: Direction>(a: __m256i, v: __m256i) -> __m256i {
    if D::IS_MIN {
        _mm256_max_epi16(a, v)
    } else {
        _mm256_min_epi16(a, v)
    }
}

/// Whether a lane of `k` (f16 or bf16 keys) is a NaN's: beyond the infinities' keys.
#[inline]
#[target_feature(enable = "avx2")]
fn past_infinity<K: Lanes>(k: __m256i) -> bool {
    let inf = _mm256_set1_epi16(K::INF);
    _mm256_movemask_epi8(_mm256_cmpgt_epi16(_mm256_abs_epi16(k), inf)) != 0
}

/// Each lane's extreme so far and its column, with column `c` (keys `v`) taken next: it
/// replaces the extreme when better (or as good, with `LAST`).
#[inline]
#[target_feature(enable = "avx2")]
fn step<D: Direction, const LAST: bool>(
    best: &mut __m256i,
    at: &mut __m256i,
    v: __m256i,
    c: usize,
) {
    let c = _mm256_set1_epi16(c as i16);
    // `v` strictly past the extreme (first), or the extreme strictly past `v` (last).
    let (hi, lo) = if D::IS_MIN { (*best, v) } else { (v, *best) };
    *at = if LAST {
        _mm256_blendv_epi8(c, *at, _mm256_cmpgt_epi16(lo, hi))
    } else {
        _mm256_blendv_epi8(*at, c, _mm256_cmpgt_epi16(hi, lo))
    };
    *best = if D::IS_MIN {
        _mm256_min_epi16(*best, v)
    } else {
        _mm256_max_epi16(*best, v)
    };
}

/// The sixteen rows' positions (`pos`, as stored in `found`) into `ys` as `I`: INT64 by
/// widening the vector.
#[inline]
#[target_feature(enable = "avx2")]
fn write_positions<I: Index>(ys: &mut [I], pos: __m256i, found: &[u16; ROWS]) {
    if let Some(ys) = I::as_int64(ys).filter(|ys| ys.len() == ROWS) {
        let (lo, hi) = (
            _mm256_castsi256_si128(pos),
            _mm256_extracti128_si256::<1>(pos),
        );
        let out = ys.as_mut_ptr();
        // SAFETY: `ys` is sixteen `i64`s, four vectors of four.
        unsafe {
            _mm256_storeu_si256(out.cast(), _mm256_cvtepu16_epi64(lo));
            _mm256_storeu_si256(
                out.add(4).cast(),
                _mm256_cvtepu16_epi64(_mm_unpackhi_epi64(lo, lo)),
            );
            _mm256_storeu_si256(out.add(8).cast(), _mm256_cvtepu16_epi64(hi));
            _mm256_storeu_si256(
                out.add(12).cast(),
                _mm256_cvtepu16_epi64(_mm_unpackhi_epi64(hi, hi)),
            );
        }
        return;
    }
    for (o, &c) in ys.iter_mut().zip(found) {
        *o = index::<I>(usize::from(c));
    }
}

/// The index of the extreme of each contiguous row of `n` (see [`fits`]) of `x` into `y` (the
/// first, or the last with `LAST`; a NaN beats every number), with `VALUES` each row's element
/// there into `v`; whole blocks of sixteen rows, the rows done.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type, 2 bytes.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn arg_in<K: Lanes, D: Direction, const LAST: bool, const VALUES: bool, T, I>(
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
    if K::SIZE != 2 || !fits::<T>(n) {
        return 0;
    }
    let row = 2 * n;
    let count = arg_blocks::<VALUES>(ROWS, row, xb.len(), y.len(), v.len());
    for b in 0..count {
        let (Some(ys), Some(rs)) = (
            y.get_mut(b * ROWS..(b + 1) * ROWS),
            x.get(b * ROWS * n..(b + 1) * ROWS * n),
        ) else {
            return b * ROWS;
        };
        let vs = v.get_mut(b * ROWS..(b + 1) * ROWS).unwrap_or_default();
        let at = b * ROWS * row;
        // Each half's columns taken as soon as transposed (the two halves' 32 vectors at once
        // would not stay in registers). SAFETY: `blocks` kept the block (sixteen whole rows of
        // 34 bytes or more) inside `x`; the second loads end at each row's end.
        let first = unsafe { columns(xb, at, row) };
        let mut best = signed::<K>(first[0]);
        // The other extreme of the keys (f16 and bf16): a NaN's key lies past an infinity's,
        // at one end or the other, so that `best` and `other` show every NaN.
        let mut other = best;
        let mut pos = _mm256_setzero_si256();
        for (c, &col) in first.iter().enumerate().skip(1) {
            let v = signed::<K>(col);
            step::<D, LAST>(&mut best, &mut pos, v, c);
            if K::INF != 0 {
                other = opposite::<D>(other, v);
            }
        }
        // Columns 16 to n - 1: the last ones of the rows' ends. SAFETY: as above.
        let last = unsafe { columns(xb, at + row - 32, row) };
        for (c, &col) in last.iter().enumerate().skip(32 - n) {
            let v = signed::<K>(col);
            step::<D, LAST>(&mut best, &mut pos, v, n - 16 + c);
            if K::INF != 0 {
                other = opposite::<D>(other, v);
            }
        }
        if K::INF != 0 && (past_infinity::<K>(best) || past_infinity::<K>(other)) {
            exact_rows::<T, D, LAST, I>(rs, ys, vs, n);
            continue;
        }
        let mut found = [0u16; ROWS];
        // SAFETY: 32 bytes.
        unsafe { _mm256_storeu_si256(found.as_mut_ptr().cast(), pos) };
        write_positions(ys, pos, &found);
        if VALUES && vs.len() == ROWS {
            if K::INF == 0 {
                // The keys are the elements (`u16` with the sign bit flipped back).
                let e = if K::SIGNED {
                    best
                } else {
                    _mm256_xor_si256(best, _mm256_set1_epi16(i16::MIN))
                };
                // SAFETY: `vs` is sixteen 2-byte elements; `e` holds elements of `T`.
                unsafe { _mm256_storeu_si256(vs.as_mut_ptr().cast(), e) };
            } else if _mm256_movemask_epi8(_mm256_cmpeq_epi16(best, _mm256_setzero_si256())) == 0 {
                // SAFETY: as above; the keys turned back into the elements' bits.
                unsafe { _mm256_storeu_si256(vs.as_mut_ptr().cast(), unkey(best)) };
            } else {
                // A key of 0 is +0 or -0: the elements themselves.
                for (j, (o, &c)) in vs.iter_mut().zip(&found).enumerate() {
                    if let Some(&e) = rs.get(j * n + usize::from(c)) {
                        *o = e;
                    }
                }
            }
        }
    }
    count * ROWS
}
