//! [`super::columns`] for 4-byte integers (`i32`, `u32`): rows of 9 to 1024 elements, eight rows
//! a block, transposed eight columns at a time (the last eight from the rows' ends), then one
//! pass over the columns in order keeps each row's extreme and its index, lane by lane (ArgMax
//! of `i32` over `[26214, 20]` in the benchmark matrix, best of three: 165 -> 126 us).

use core::arch::x86_64::{
    __m256i, _mm256_blendv_epi8, _mm256_castsi256_si128, _mm256_cmpgt_epi32, _mm256_cvtepu32_epi64,
    _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_max_epi32, _mm256_min_epi32,
    _mm256_permute2x128_si256, _mm256_set1_epi32, _mm256_setzero_si256, _mm256_storeu_si256,
    _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
    _mm256_xor_si256,
};

use super::block::arg_blocks;
use super::bytes;
use super::lanes::Lanes;
use crate::kernels::index::{index, Index};
use crate::{Direction, Element};

/// Rows per block, and columns per transpose: one 32-bit lane each.
const ROWS: usize = 8;

/// Whether rows of `n` 4-byte elements are this module's: from 9, past the rows the other
/// kernels of [`super`] take (searched twice, over [`super::ARG_MAX_BYTES`] bytes the rows go
/// to the row kernels one at a time). Eight rows a block, the columns of rows of up to 4 KiB
/// stay in L1. ArgMax of `i32` over 2 MiB, best of three on the 2-core AVX-512 Xeon (session
/// 46), one row at a time -> by columns: rows of 80 171 -> 87 us, of 200 124 -> 80, of 500
/// 101 -> 83, of 1000 75 -> 77 (even).
#[inline(always)]
pub(super) fn fits(n: usize) -> bool {
    (9..=1024).contains(&n)
}

/// The eight columns of the eight rows of 32 bytes that start at bytes `at`, `at + row`, ... of
/// `x`: column `c` holds element `c` of row `j` in lane `j`.
///
/// # Safety
/// The CPU has AVX2; `at + 7 * row + 32 <= x.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn columns(x: &[u8], at: usize, row: usize) -> [__m256i; ROWS] {
    debug_assert!(at + 7 * row + 32 <= x.len());
    // SAFETY: the caller's bound covers every row's 32 bytes.
    let load = |j: usize| unsafe { _mm256_loadu_si256(x.as_ptr().add(at + j * row).cast()) };
    let [r0, r1, r2, r3, r4, r5, r6, r7]: [__m256i; ROWS] = core::array::from_fn(load);
    // Pairs of rows interleaved, then fours: element `c` of rows 0-3 in the low half of `c0..c3`
    // (by `c % 4`), element `c + 4` in the high half; rows 4-7 likewise in `e0..e3`.
    let (a01, b01) = (_mm256_unpacklo_epi32(r0, r1), _mm256_unpackhi_epi32(r0, r1));
    let (a23, b23) = (_mm256_unpacklo_epi32(r2, r3), _mm256_unpackhi_epi32(r2, r3));
    let (a45, b45) = (_mm256_unpacklo_epi32(r4, r5), _mm256_unpackhi_epi32(r4, r5));
    let (a67, b67) = (_mm256_unpacklo_epi32(r6, r7), _mm256_unpackhi_epi32(r6, r7));
    let c = [
        _mm256_unpacklo_epi64(a01, a23),
        _mm256_unpackhi_epi64(a01, a23),
        _mm256_unpacklo_epi64(b01, b23),
        _mm256_unpackhi_epi64(b01, b23),
    ];
    let e = [
        _mm256_unpacklo_epi64(a45, a67),
        _mm256_unpackhi_epi64(a45, a67),
        _mm256_unpacklo_epi64(b45, b67),
        _mm256_unpackhi_epi64(b45, b67),
    ];
    let mut out = [_mm256_setzero_si256(); ROWS];
    for k in 0..4 {
        out[k] = _mm256_permute2x128_si256::<0x20>(c[k], e[k]);
        out[k + 4] = _mm256_permute2x128_si256::<0x31>(c[k], e[k]);
    }
    out
}

/// A column's elements as signed 32-bit keys in the elements' order.
#[inline]
#[target_feature(enable = "avx2")]
fn signed<K: Lanes>(v: __m256i) -> __m256i {
    if K::SIGNED {
        v
    } else {
        _mm256_xor_si256(v, _mm256_set1_epi32(i32::MIN))
    }
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
    let c = _mm256_set1_epi32(c as i32);
    let (hi, lo) = if D::IS_MIN { (*best, v) } else { (v, *best) };
    *at = if LAST {
        _mm256_blendv_epi8(c, *at, _mm256_cmpgt_epi32(lo, hi))
    } else {
        _mm256_blendv_epi8(*at, c, _mm256_cmpgt_epi32(hi, lo))
    };
    *best = if D::IS_MIN {
        _mm256_min_epi32(*best, v)
    } else {
        _mm256_max_epi32(*best, v)
    };
}

/// The index of the extreme of each contiguous row of `n` (see [`fits`]) of `x` into `y` (the
/// first, or the last with `LAST`), with `VALUES` each row's extreme into `v`; whole blocks of
/// eight rows, the rows done.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type, 4 bytes.
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
    if K::SIZE != 4 || !fits(n) {
        return 0;
    }
    let row = 4 * n;
    let count = arg_blocks::<VALUES>(ROWS, row, xb.len(), y.len(), v.len());
    for b in 0..count {
        let Some(ys) = y.get_mut(b * ROWS..(b + 1) * ROWS) else {
            return b * ROWS;
        };
        let at = b * ROWS * row;
        // SAFETY (each `columns`): `blocks` kept the block (eight whole rows of 36 bytes or
        // more) inside `x`; each group of eight columns starts at most 32 bytes before a row's
        // end.
        let first = unsafe { columns(xb, at, row) };
        let mut best = signed::<K>(first[0]);
        let mut pos = _mm256_setzero_si256();
        for (c, &col) in first.iter().enumerate().skip(1) {
            step::<D, LAST>(&mut best, &mut pos, signed::<K>(col), c);
        }
        // The next eight columns, the last group from the rows' ends (overlapping the columns
        // seen, which are skipped).
        let mut seen = ROWS;
        while seen < n {
            let start = seen.min(n - ROWS);
            let group = unsafe { columns(xb, at + 4 * start, row) };
            for (c, &col) in group.iter().enumerate().skip(seen - start) {
                step::<D, LAST>(&mut best, &mut pos, signed::<K>(col), start + c);
            }
            seen = start + ROWS;
        }
        if let Some(ys) = I::as_int64(ys).filter(|ys| ys.len() == ROWS) {
            let (lo, hi) = (
                _mm256_castsi256_si128(pos),
                _mm256_extracti128_si256::<1>(pos),
            );
            // SAFETY: `ys` is eight `i64`s, two vectors of four.
            unsafe {
                _mm256_storeu_si256(ys.as_mut_ptr().cast(), _mm256_cvtepu32_epi64(lo));
                _mm256_storeu_si256(ys.as_mut_ptr().add(4).cast(), _mm256_cvtepu32_epi64(hi));
            }
        } else {
            let mut found = [0u32; ROWS];
            // SAFETY: 32 bytes.
            unsafe { _mm256_storeu_si256(found.as_mut_ptr().cast(), pos) };
            for (o, &c) in ys.iter_mut().zip(&found) {
                *o = index::<I>(c as usize);
            }
        }
        if VALUES {
            if let Some(vs) = v.get_mut(b * ROWS..(b + 1) * ROWS) {
                // The keys are the elements (`u32` with the sign bit flipped back).
                let e = signed::<K>(best);
                // SAFETY: `vs` is eight 4-byte elements; `e` holds elements of `T`.
                unsafe { _mm256_storeu_si256(vs.as_mut_ptr().cast(), e) };
            }
        }
    }
    count * ROWS
}
