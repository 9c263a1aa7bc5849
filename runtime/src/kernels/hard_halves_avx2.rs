//! Strided Hardmax of f16 and bf16 (a node's blocks of two to [`MAX_ROWS`] rows of sixteen
//! lanes or more) in AVX2, by the order keys of their bits, sixteen lanes (32 bytes) at a time.
//!
//! The portable way finds each lane's row first (indices, eight bytes a lane) and then writes
//! the block's zeros and ones apart: 2 MiB as `[32768, 2, 16]` took 4x a pass that reads and
//! writes as much. Here a chunk of sixteen lanes goes down the block's rows for each lane's
//! maximum (a max of keys per row, NaN noticed on the side), then down again: each row's keys
//! compared with the maxima, a 1 where one is equal for the first time down the lane, 0
//! elsewhere, stored as the row goes (the second pass reads the chunk again from L1). The last
//! chunk of a row that is not whole chunks overlaps the one before (its lanes written twice,
//! alike). A block with a NaN is done by the portable pass and its rule.
//!
//! For the CPUs [`available`] finds; [`hardmax_blocks`] checks.

use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi16,
    _mm256_cmpgt_epi16, _mm256_or_si256, _mm256_set1_epi16, _mm256_set1_epi32,
    _mm256_setzero_si256, _mm256_slli_epi32, _mm256_srli_epi32, _mm256_storeu_si256,
};

use super::hardmax::{hardmax_lanes, hardmax_row};
use super::reduce_lanes_small_avx2::bytes_mut;
use super::short_rows_avx2::lanes::{any_nan, key, load, pick, track, Halves, Lanes};
use super::short_rows_avx2::{available, bytes};
use crate::{DType, Element, Max};

/// The most rows a block may have: a chunk's rows are read twice, the second time from L1
/// (64 rows of 32 bytes are 64 lines, whatever the stride); taller blocks take the lane
/// kernels.
pub(super) const MAX_ROWS: usize = 64;

/// Lanes of a chunk.
const LANES: usize = 16;

/// Hardmax of each block of `r` rows of `inner` lanes of `x` into `y` (along the rows; the
/// first maximum, NaN winning): `true` if done, `false` (nothing written) where this kernel does
/// not take the blocks (not f16 or bf16, fewer than sixteen lanes, fewer than two rows or more
/// than [`MAX_ROWS`], no AVX2).
#[inline(always)]
pub(super) fn hardmax_blocks<T: Element>(x: &[T], y: &mut [T], r: usize, inner: usize) -> bool {
    let size = r * inner;
    if !available()
        || !(2..=MAX_ROWS).contains(&r)
        || inner < LANES
        || x.len() != y.len()
        || !x.len().is_multiple_of(size)
    {
        return false;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::F16 => blocks_in::<Halves<0x7c00>, T>(x, y, r, inner, 0x3c00),
            DType::BF16 => blocks_in::<Halves<0x7f80>, T>(x, y, r, inner, 0x3f80),
        } else false)
    }
}

/// [`hardmax_blocks`] for lanes `K`, `one` the bits of 1.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `x` and `y` are whole blocks, as long.
#[target_feature(enable = "avx2")]
unsafe fn blocks_in<K: Lanes, T: Element>(
    x: &[T],
    y: &mut [T],
    r: usize,
    inner: usize,
    one: i16,
) -> bool {
    let Some(xb) = bytes(x) else {
        return false;
    };
    let one = _mm256_set1_epi16(one);
    let (size, row) = (r * inner, inner * 2);
    let last = (inner - LANES) * 2;
    for (b, (xs, ys)) in x
        .chunks_exact(size)
        .zip(y.chunks_exact_mut(size))
        .enumerate()
    {
        let base = b * size * 2;
        // SAFETY: `T` is `K`'s type (f16 or bf16 bits).
        let yb = unsafe { bytes_mut(ys) };
        let mut at = 0;
        loop {
            // SAFETY: AVX2; the chunk's 32 bytes of each row lie inside the block.
            if !unsafe { chunk::<K>(xb, yb, (base + at, at), r, row, one) } {
                // A NaN: the whole block by the portable pass and its NaN rule.
                hardmax_lanes(xs, ys, inner);
                break;
            }
            if at == last {
                break;
            }
            at = (at + LANES * 2).min(last);
        }
    }
    true
}

/// One chunk of sixteen lanes from byte `from` of `xb` (a block's first row) into byte `to` of
/// `yb` (the block's output): `false`, nothing written, if it holds a NaN.
///
/// # Safety
/// The CPU has AVX2; the chunk's 32 bytes of each of the `r` rows (`row` bytes apart) lie
/// inside `xb` and `yb`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn chunk<K: Lanes>(
    xb: &[u8],
    yb: &mut [u8],
    (from, to): (usize, usize),
    r: usize,
    row: usize,
    one: __m256i,
) -> bool {
    let mut top = _mm256_setzero_si256();
    let mut m = _mm256_setzero_si256();
    for k in 0..r {
        // SAFETY: as the caller's.
        let w = unsafe { load(xb, from + k * row) };
        top = track::<K>(top, w);
        m = if k == 0 {
            key::<K>(w)
        } else {
            pick::<K, Max>(m, key::<K>(w))
        };
    }
    if any_nan::<K>(top) {
        return false;
    }
    let mut found = _mm256_setzero_si256();
    for k in 0..r {
        // SAFETY: as the caller's.
        let w = unsafe { load(xb, from + k * row) };
        let hit = _mm256_cmpeq_epi16(key::<K>(w), m);
        let first = _mm256_andnot_si256(found, hit);
        found = _mm256_or_si256(found, hit);
        let at = to + k * row;
        debug_assert!(at + 32 <= yb.len());
        // SAFETY: as the caller's.
        unsafe {
            _mm256_storeu_si256(yb.as_mut_ptr().add(at).cast(), _mm256_and_si256(first, one))
        };
    }
    true
}

/// Hardmax of the contiguous rows of two of `x` (f16 or bf16) into `y`, eight rows a vector:
/// each element's key against its partner's, the first winning ties (NaN winning: a vector
/// with a NaN goes row by row by the contract). The rows done (whole vectors of them; 0 where
/// this kernel does not take them: not f16 or bf16, lengths that differ, no AVX2). Rows of two
/// went one at a time (2 MiB of f16 as `[524288, 2]`: 2.8x a pass that reads and writes as
/// much).
#[inline(always)]
pub(super) fn hardmax_pairs<T: Element>(x: &[T], y: &mut [T]) -> usize {
    if !available() || x.len() != y.len() {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::F16 => pairs_in::<Halves<0x7c00>, T>(x, y, 0x3c00),
            DType::BF16 => pairs_in::<Halves<0x7f80>, T>(x, y, 0x3f80),
        } else 0)
    }
}

/// [`hardmax_pairs`] for lanes `K`, `one` the bits of 1.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `y` is as long as `x`.
#[target_feature(enable = "avx2")]
unsafe fn pairs_in<K: Lanes, T: Element>(x: &[T], y: &mut [T], one: i16) -> usize {
    let Some(xb) = bytes(x) else {
        return 0;
    };
    let one = _mm256_set1_epi16(one);
    // The second element of each pair (odd 16-bit lanes).
    let second = _mm256_set1_epi32(-0x1_0000);
    let vectors = xb.len() / 32;
    for v in 0..vectors {
        // SAFETY: 32 bytes inside `xb`.
        let w = unsafe { load(xb, v * 32) };
        if any_nan::<K>(track::<K>(_mm256_setzero_si256(), w)) {
            for (xr, yr) in x[v * 16..(v + 1) * 16]
                .chunks_exact(2)
                .zip(y[v * 16..(v + 1) * 16].chunks_exact_mut(2))
            {
                hardmax_row(xr, yr);
            }
            continue;
        }
        let k = key::<K>(w);
        let partner = _mm256_or_si256(_mm256_slli_epi32::<16>(k), _mm256_srli_epi32::<16>(k));
        // The first of a pair wins unless its partner is greater; the second only if greater.
        let first = _mm256_cmpeq_epi16(_mm256_cmpgt_epi16(partner, k), _mm256_setzero_si256());
        let wins = _mm256_blendv_epi8(first, _mm256_cmpgt_epi16(k, partner), second);
        // SAFETY: `T` is `K`'s type; 32 bytes inside `y` (as long as `x`).
        unsafe {
            let yb = bytes_mut(y);
            _mm256_storeu_si256(
                yb.as_mut_ptr().add(v * 32).cast(),
                _mm256_and_si256(wins, one),
            );
        }
    }
    vectors * 8
}

#[cfg(test)]
mod tests;
