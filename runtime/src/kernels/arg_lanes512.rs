//! The fast pass of the strided `f32` arg-reduction ([`super::arg_lanes`]) in 64-byte AVX-512
//! vectors, for CPUs that have them (checked at run time): [`super::arg_lanes_avx2`]'s pass with
//! the compare into a mask register, so that a lane's row is taken by one masked move instead
//! of a mask, an `and` and a max (three operations a vector of sixteen lanes, against four a
//! vector of eight); chunks of up to eight vectors. Blocks of many rows go by groups of eight
//! rows ([`arg_grouped`]).
//!
//! Over 2 MiB on an AMD EPYC (Zen 4), before and after builds in turn, the least of three
//! runs each: ArgMax and ArgMin-last along the first axis of `[20, 26214]` 0.84-0.87x the time
//! (46 us to 40; the stream 21), of `[80, 6553]` 0.84-0.89x, of `[33, 15887]` 0.89-0.91x, of
//! `[300, 1747]` 0.92-1.0x; `[1000, 524]` and `[5000, 104]` about 1x (the AVX2 pass's groups
//! then). Groups of eight rows ([`arg_grouped`]) and chunks of eight vectors down every row
//! since (least of three runs each, before and after in turn): `[1000, 524]` 0.66x (50 us to
//! 33), `[5000, 104]` 0.61x (51 to 31), `[300, 1747]` 0.77x (43.6 to 33.6), `[20, 26214]`
//! 0.92x, `[80, 6553]` 0.96x, `[33, 15887]` 1.01x.
//! In the benchmark matrix (two runs each, a noisy hour: cells this does not reach moved
//! 0.5-1.8x), the first axis of `[20, 26214]` and `[80, 6553]` 0.6-0.83x, the detector's `[1,
//! 84, 8400]` along its middle axis 0.76-0.84x. Over the 21 MB segmentation maps (`[1, 21, 500,
//! 500]`, from memory) this pass measured 1.1-1.2x and 0.83-0.87x in runs an hour apart, and
//! blocks over 4 MiB went to the AVX2 pass; since their rows a page apart and more are
//! prefetched into L2 (`shared::far_rows`), this pass took them faster on an AMD EPYC (Zen 4):
//! three runs of each build in turn, `--ours`, ArgMax over axis 1 of `[1, 19, 256, 256]`
//! 126-127 -> 113-115 us, `[1, 150, 128, 128]` 246-299 -> 226-243 us, `[1, 21, 512, 512]`
//! 1.08-1.25 -> 1.04-1.20 ms (`[1, 21, 500, 500]` within the noise: 0.82-1.10 against
//! 0.63-0.98 ms).

use core::arch::x86_64::{
    __m512, __m512i, _mm512_castsi512_si256, _mm512_cmp_ps_mask, _mm512_cvtepu32_epi64,
    _mm512_extracti64x4_epi64, _mm512_loadu_ps, _mm512_mask_mov_epi32, _mm512_mask_mov_ps,
    _mm512_max_ps, _mm512_min_ps, _mm512_set1_epi32, _mm512_setzero_ps, _mm512_setzero_si512,
    _mm512_storeu_ps, _mm512_storeu_si512, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_LE_OQ, _CMP_LT_OQ,
    _CMP_UNORD_Q,
};
use core::arch::x86_64::{_mm512_cmpgt_epu32_mask, _mm512_cmplt_epu32_mask, _CMP_EQ_OQ};

use super::arg_lanes_avx2::GROUPED_FROM;
use super::shared::{far_rows, prefetch};
use crate::Direction;

/// Elements ahead of a chunk's loads that each row prefetches (as the AVX2 pass).
const PF: usize = super::shared::AHEAD_BYTES / 4;

/// Blocks of at least this many rows and [`GROUPED_FROM`] elements go by [`arg_grouped`].
/// Over 2 MiB on an AMD EPYC (Zen 4), grouped against down every row (chunks of eight vectors
/// both): `[300, 1747]` 41 -> 37 us, `[1000, 524]` 50 -> 38, `[5000, 104]` 51 -> 31; fewer rows
/// lost (`[20, 26214]` 38 -> 52 us, `[33, 15887]` 42 -> 47), `[80, 6553]` alike.
const GROUPED_ROWS: usize = 128;

/// Rows a chunk goes down at a time in [`arg_grouped`]: eight streams (sixteen, with a
/// prefetch as the AVX2 pass has, measured 1.03-1.1x slower, four 1.25-1.35x).
const GROUP: usize = 8;

/// The most vectors of sixteen lanes [`arg_grouped`] keeps the state of (8 KiB of it): a tile of
/// 1024 lanes, the widest `arg_tile` gives `f32`.
const GROUPED_VECTORS: usize = 64;

/// Lanes of the narrower chunk (two vectors of sixteen): the fewest lanes the chunked pass
/// takes (and strided Hardmax's choice of this pass, [`runs`]); fewer go by [`arg_single`].
const LANES: usize = 32;

/// Lanes of a single vector: the fewest lanes [`arg_tile`] takes ([`arg_single`]).
const SINGLE: usize = 16;

/// Whether [`arg_tile`] takes tiles of `n` lanes here: [`SINGLE`] or more, on a CPU with
/// AVX-512 (never with `small-code`).
#[inline(always)]
pub(super) fn takes(n: usize) -> bool {
    n >= SINGLE && runs(LANES)
}

/// Whether this pass takes tiles of `n` lanes here: [`LANES`] or more, on a CPU with AVX-512
/// (never with `small-code`).
#[inline(always)]
pub(super) fn runs(n: usize) -> bool {
    #[cfg(not(feature = "small-code"))]
    return n >= LANES && super::isa::level() >= super::isa::AVX512;
    #[cfg(feature = "small-code")]
    {
        let _ = n;
        false
    }
}

/// Whether a block of `rows` rows and `len` elements goes by [`arg_grouped`] (its tile taken).
#[inline(always)]
fn grouped(rows: usize, len: usize) -> bool {
    rows >= GROUPED_ROWS && len >= GROUPED_FROM
}

/// One vector of lanes: each lane's best value and the row it was in.
#[derive(Clone, Copy)]
struct Best {
    value: __m512,
    row: __m512i,
}

impl Best {
    /// Takes row `r` (splat) where its element `v` is strictly more extreme (with `LAST`, not
    /// less extreme), by the order alone; the value is the max (min) either way.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add<D: Direction, const LAST: bool>(&mut self, v: __m512, r: __m512i) {
        let take = match (D::IS_MIN, LAST) {
            (false, false) => _mm512_cmp_ps_mask::<_CMP_GT_OQ>(v, self.value),
            (false, true) => _mm512_cmp_ps_mask::<_CMP_GE_OQ>(v, self.value),
            (true, false) => _mm512_cmp_ps_mask::<_CMP_LT_OQ>(v, self.value),
            (true, true) => _mm512_cmp_ps_mask::<_CMP_LE_OQ>(v, self.value),
        };
        self.value = if D::IS_MIN {
            _mm512_min_ps(v, self.value)
        } else {
            _mm512_max_ps(v, self.value)
        };
        self.row = _mm512_mask_mov_epi32(self.row, take, r);
    }
}

/// [`super::arg_lanes_avx2::arg_tile`] in AVX-512: lanes `start..end` (at least [`LANES`]) of
/// every row of `x` (rows of `inner`, fewer than 2^32), each lane's row into `y` and, when `v`
/// is not empty, its element into `v`; false (`y` and `v` possibly written) at a NaN or where
/// the lanes are fewer than a chunk.
///
/// # Safety
/// The CPU has AVX-512 F.
#[target_feature(enable = "avx2,avx512f")]
pub(super) unsafe fn arg_tile<D: Direction, const LAST: bool>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    let n = end.saturating_sub(start);
    if n < LANES {
        arg_single::<D, LAST>(x, y, v, inner, start, end)
    } else if n >= 4 * LANES {
        arg_chunks::<D, LAST, 8>(x, y, v, inner, start, end)
    } else if n >= 2 * LANES {
        arg_chunks::<D, LAST, 4>(x, y, v, inner, start, end)
    } else {
        arg_chunks::<D, LAST, 2>(x, y, v, inner, start, end)
    }
}

/// [`super::arg_lanes_avx2::arg_blocks`] in AVX-512 (the CPU has AVX-512 F).
///
/// # Safety
/// The CPU has AVX-512 F.
#[target_feature(enable = "avx2,avx512f")]
pub(super) unsafe fn arg_blocks<D: Direction, const LAST: bool>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    (rows, inner): (usize, usize),
    from: usize,
    blocks: usize,
) -> usize {
    let block = rows * inner;
    for b in from..blocks {
        let (Some(xb), Some(yb)) = (
            x.get(b * block..(b + 1) * block),
            y.get_mut(b * inner..(b + 1) * inner),
        ) else {
            return b;
        };
        let vb = v.get_mut(b * inner..(b + 1) * inner).unwrap_or(&mut []);
        // SAFETY: as the caller's.
        if !unsafe { arg_tile::<D, LAST>(xb, yb, vb, inner, 0, inner) } {
            return b;
        }
    }
    blocks
}

/// [`arg_tile`] in chunks of `V` vectors of sixteen lanes (`V` even, the tile at least `16 V`
/// lanes): each chunk down every row, its state in registers; blocks of [`GROUPED_ROWS`] rows
/// and [`GROUPED_FROM`] elements or more by [`arg_grouped`].
#[inline]
#[target_feature(enable = "avx2,avx512f")]
fn arg_chunks<D: Direction, const LAST: bool, const V: usize>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    crate::kernels::shared::align_frame();
    let w = 16 * V;
    let n = end.saturating_sub(start);
    if n < w || inner == 0 || x.len() < inner || x.len() / inner > u32::MAX as usize {
        return false;
    }
    let rows = x.len() / inner;
    if grouped(rows, x.len()) && n.div_ceil(32) <= GROUPED_VECTORS / 2 {
        // Chunks of four vectors at most: eight measured slower here (`[1000, 524]` 33 -> 37
        // us, `[300, 1747]` 33 -> 35.5), where down every row they gain (`[20, 26214]` 38.4 ->
        // 36.4, `[80, 6553]` 42 -> 40).
        return if n >= 64 {
            arg_grouped::<D, LAST, 4>(x, y, v, inner, start, end)
        } else {
            arg_grouped::<D, LAST, 2>(x, y, v, inner, start, end)
        };
    }
    let mut nan = 0u16;
    let far = far_rows::<f32>(inner);
    for c in 0..n.div_ceil(w) {
        let at = (c * w).min(n - w);
        let base = start + at;
        let last = (rows - 1)
            .checked_mul(inner)
            .and_then(|o| o.checked_add(base + w));
        if last.is_none_or(|l| l > x.len()) {
            return false;
        }
        // SAFETY: `base + (rows - 1) * inner + w <= x.len()` (checked above), and every load
        // below reads sixteen `f32`s at `base + r * inner + 16 i` for a row `r < rows`, `i < V`.
        let at_row = |r: usize, i: usize| unsafe {
            _mm512_loadu_ps(x.as_ptr().add(base + r * inner + 16 * i))
        };
        let mut best: [Best; V] = core::array::from_fn(|i| Best {
            value: at_row(0, i),
            row: _mm512_setzero_si512(),
        });
        for i in (0..V).step_by(2) {
            nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(best[i].value, best[i + 1].value);
        }
        for r in 1..rows {
            let rs = _mm512_set1_epi32(r as i32);
            for k in 0..V {
                prefetch(x.as_ptr().wrapping_add(base + r * inner + PF + 16 * k), far);
            }
            for i in (0..V).step_by(2) {
                let (e0, e1) = (at_row(r, i), at_row(r, i + 1));
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(e0, e1);
                best[i].add::<D, LAST>(e0, rs);
                best[i + 1].add::<D, LAST>(e1, rs);
            }
        }
        if !put(&best, y, v, at) {
            return false;
        }
    }
    nan == 0
}

/// [`arg_tile`] of [`SINGLE`] to [`LANES`] lanes: a vector of lanes at a time (the last one
/// ending at `end`, over the one before), down the rows in two chains, the even rows and the
/// odd ones, merged at the end (the odd chain takes a lane where its element is more extreme,
/// or as extreme from an earlier row, with `LAST` a later one), so that a row's compare and max
/// wait on the row two before. On an AMD EPYC (Zen 4), `--ours`, the benchmark matrix's ArgMax
/// over axis 1 of `[1638, 20, 16]` 47-48 -> 37 us (the AVX2 pass before, two vectors of eight
/// lanes), `[409, 80, 16]` 40 -> 26-27 us, `[32, 1000, 16]` 36.6 -> 22.6 us; ArgMin, ArgMin-last
/// and `max+argmax` alike (three runs of each build in turn).
#[inline]
#[target_feature(enable = "avx2,avx512f")]
fn arg_single<D: Direction, const LAST: bool>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    let n = end.saturating_sub(start);
    if n < SINGLE || inner == 0 || x.len() < inner || x.len() / inner > u32::MAX as usize {
        return false;
    }
    let rows = x.len() / inner;
    let mut nan = 0u16;
    for c in 0..n.div_ceil(SINGLE) {
        let at = (c * SINGLE).min(n - SINGLE);
        let base = start + at;
        let last = (rows - 1)
            .checked_mul(inner)
            .and_then(|o| o.checked_add(base + SINGLE));
        if last.is_none_or(|l| l > x.len()) {
            return false;
        }
        // SAFETY: `base + (rows - 1) * inner + 16 <= x.len()` (checked above), and every load
        // below reads sixteen `f32`s at `base + r * inner` for a row `r < rows`.
        let at_row = |r: usize| unsafe { _mm512_loadu_ps(x.as_ptr().add(base + r * inner)) };
        let e0 = at_row(0);
        nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(e0, e0);
        let mut even = Best {
            value: e0,
            row: _mm512_setzero_si512(),
        };
        if rows > 1 {
            let e1 = at_row(1);
            nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(e1, e1);
            let mut odd = Best {
                value: e1,
                row: _mm512_set1_epi32(1),
            };
            let mut r = 2;
            while r + 1 < rows {
                let (e0, e1) = (at_row(r), at_row(r + 1));
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(e0, e1);
                even.add::<D, LAST>(e0, _mm512_set1_epi32(r as i32));
                odd.add::<D, LAST>(e1, _mm512_set1_epi32(r as i32 + 1));
                r += 2;
            }
            if r < rows {
                let e = at_row(r);
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(e, e);
                even.add::<D, LAST>(e, _mm512_set1_epi32(r as i32));
            }
            let better = if D::IS_MIN {
                _mm512_cmp_ps_mask::<_CMP_LT_OQ>(odd.value, even.value)
            } else {
                _mm512_cmp_ps_mask::<_CMP_GT_OQ>(odd.value, even.value)
            };
            let tie = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(odd.value, even.value);
            let order = if LAST {
                _mm512_cmpgt_epu32_mask(odd.row, even.row)
            } else {
                _mm512_cmplt_epu32_mask(odd.row, even.row)
            };
            let take = better | (tie & order);
            even.value = _mm512_mask_mov_ps(even.value, take, odd.value);
            even.row = _mm512_mask_mov_epi32(even.row, take, odd.row);
        }
        if !put(&[even], y, v, at) {
            return false;
        }
    }
    nan == 0
}

/// [`arg_chunks`] over a block of many rows: every chunk of the tile goes down [`GROUP`] rows,
/// its state kept on the stack between groups, before any goes further. The block is read as
/// [`GROUP`] streams, each along its row, where a chunk down every row reads one line or two in
/// as many pages as the block has rows. No prefetch: the CPU's own follows these streams, and
/// asking for lines ahead made it slower (`[1000, 524]` 38 -> 42 us).
#[inline(never)]
#[target_feature(enable = "avx2,avx512f")]
fn arg_grouped<D: Direction, const LAST: bool, const V: usize>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    let w = 16 * V;
    let n = end.saturating_sub(start);
    let rows = x.len() / inner;
    let chunks = n.div_ceil(w);
    if n < w || rows == 0 || chunks > GROUPED_VECTORS / V {
        return false;
    }
    // Every chunk's lanes in the last row lie within `x`: checked once for the last chunk, which
    // ends at `end`.
    let last = (rows - 1)
        .checked_mul(inner)
        .and_then(|o| o.checked_add(end));
    if last.is_none_or(|l| l > x.len()) {
        return false;
    }
    let zero = Best {
        value: _mm512_setzero_ps(),
        row: _mm512_setzero_si512(),
    };
    let mut state = [zero; GROUPED_VECTORS];
    let mut nan = 0u16;
    let base = |c: usize| start + (c * w).min(n - w);
    // SAFETY: every chunk's `base(c) + (rows - 1) * inner + w <= x.len()` (checked above), and
    // every load below reads sixteen `f32`s at `base(c) + r * inner + 16 i` for a row `r < rows`,
    // `i < V`.
    let at_row = |c: usize, r: usize, i: usize| unsafe {
        _mm512_loadu_ps(x.as_ptr().add(base(c) + r * inner + 16 * i))
    };
    for first in (0..rows).step_by(GROUP) {
        let end_row = rows.min(first + GROUP);
        for (c, s) in state.chunks_exact_mut(V).take(chunks).enumerate() {
            let Some(s) = s.first_chunk_mut::<V>() else {
                return false;
            };
            let mut best = *s;
            let from = if first == 0 {
                best = core::array::from_fn(|i| Best {
                    value: at_row(c, 0, i),
                    row: _mm512_setzero_si512(),
                });
                for i in (0..V).step_by(2) {
                    nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(best[i].value, best[i + 1].value);
                }
                1
            } else {
                first
            };
            for r in from..end_row {
                let rs = _mm512_set1_epi32(r as i32);
                for i in (0..V).step_by(2) {
                    let (e0, e1) = (at_row(c, r, i), at_row(c, r, i + 1));
                    nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(e0, e1);
                    best[i].add::<D, LAST>(e0, rs);
                    best[i + 1].add::<D, LAST>(e1, rs);
                }
            }
            *s = best;
        }
    }
    for (c, best) in state.chunks_exact(V).take(chunks).enumerate() {
        let Some(best) = best.first_chunk::<V>() else {
            return false;
        };
        if !put(best, y, v, base(c) - start) {
            return false;
        }
    }
    nan == 0
}

/// Writes a chunk's rows into `y` and, when `v` is not empty, its values into `v`, from lane
/// `at` of the tile; false if `y` does not hold the chunk.
#[inline]
#[target_feature(enable = "avx2,avx512f")]
fn put<const V: usize>(best: &[Best; V], y: &mut [i64], v: &mut [f32], at: usize) -> bool {
    let Some(ys) = y.get_mut(at..at + 16 * V) else {
        return false;
    };
    for (b, ys) in best.iter().zip(ys.chunks_exact_mut(16)) {
        let lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(b.row));
        let hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(b.row));
        // SAFETY: `ys` holds sixteen `i64`s (128 bytes); `storeu` has no alignment requirement.
        unsafe {
            _mm512_storeu_si512(ys.as_mut_ptr().cast(), lo);
            _mm512_storeu_si512(ys.as_mut_ptr().add(8).cast(), hi);
        }
    }
    if let Some(vs) = v.get_mut(at..at + 16 * V) {
        for (b, vs) in best.iter().zip(vs.chunks_exact_mut(16)) {
            // SAFETY: `vs` holds sixteen `f32`s.
            unsafe { _mm512_storeu_ps(vs.as_mut_ptr(), b.value) };
        }
    }
    true
}
