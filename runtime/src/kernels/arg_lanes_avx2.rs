//! The fast pass of the strided `f32` arg-reduction ([`super::arg_lanes`]) in 32-byte AVX2
//! vectors, for CPUs that have them (checked at run time; the default x86-64 target has only
//! SSE2, where each lane's two selects are three instructions each on four lanes).
//!
//! A chunk of 32 lanes (four vectors; sixteen in a tile of fewer than 32) keeps each lane's best
//! value and row in registers down the rows, a chain per vector. Per row: one compare and one
//! max for the values,
//! and the row number masked by the compare and kept by an unsigned max (rows only grow, so the
//! last row that took the lane is the largest); NaN flagged two vectors per compare. About a
//! third of the SSE2 pass's instructions per element. On an Intel Xeon (Emerald Rapids), where a
//! compare and a max each take four cycles, chunks of 32 lanes were 0.82-0.89x of the time of
//! chunks of sixteen over 8 to 100 rows of 1000 to 65536 lanes (2 MiB).

use core::arch::x86_64::{
    __m128i, __m256, __m256i, _mm256_and_si256, _mm256_castps_si256, _mm256_castsi256_si128,
    _mm256_cmp_ps, _mm256_cvtepu32_epi64, _mm256_extracti128_si256, _mm256_loadu_ps,
    _mm256_max_epu32, _mm256_max_ps, _mm256_min_ps, _mm256_movemask_ps, _mm256_or_ps,
    _mm256_set1_epi32, _mm256_setzero_ps, _mm256_setzero_si256, _mm256_storeu_si256, _CMP_GE_OQ,
    _CMP_GT_OQ, _CMP_LE_OQ, _CMP_LT_OQ, _CMP_UNORD_Q,
};

use super::rows_f32::avx2::store8 as store;
use super::shared::{far_rows, prefetch};
use crate::Direction;

/// Elements ahead of a chunk's loads that each row prefetches: eight chunks of 32 lanes (1 KiB).
/// A chunk goes down every row before the next chunk starts, so a block of many wide rows is that
/// many streams of lines at once; the CPU's own prefetchers did not keep them fed once the block
/// was out of L2 (and the loads waited on L3 with the per-row compares filling the window). AMD
/// EPYC (Zen 5), `--ours`, minimum of two interleaved runs: ArgMax over axis 1 of `[1, 21, 512,
/// 512]` 1.67 -> 0.71 ms, `[1, 21, 500, 500]` 0.82 -> 0.35 ms, `[1, 84, 8400]` 51 -> 43 us; over
/// axis 0, `[20, 26214]` 42-47 -> 31-33 us and `[80, 6553]` 41-42 -> 32-35 us (every f32 type of
/// arg-reduction and `max+argmax` alike); the other strided f32 cells within 4%. Four chunks
/// ahead measured slower on the 21-row maps, two slower again.
const PF: usize = super::shared::AHEAD_BYTES / 4;

/// Lanes of the narrower chunk (two vectors of eight): the fewest lanes the pass takes.
pub(super) const LANES: usize = 16;

/// Stores the four `u32` lanes of `r` into `y` as `i64`s.
#[inline]
#[target_feature(enable = "avx2")]
fn store_wide(y: &mut [i64; 4], r: __m128i) {
    // SAFETY: `y` holds 32 bytes; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), _mm256_cvtepu32_epi64(r)) }
}

/// One vector of lanes: each lane's best value and the row it was in.
#[derive(Clone, Copy)]
struct Best {
    value: __m256,
    row: __m256i,
}

impl Best {
    /// Takes row `r` (`r` splat, larger than every row taken so far) where its element `v` is
    /// strictly more extreme (with `LAST`, not less extreme), by the order alone. The value is
    /// the max (min) either way: of two equal elements only a zero's sign differs, which the
    /// contract leaves open.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn add<D: Direction, const LAST: bool>(&mut self, v: __m256, r: __m256i) {
        let take = match (D::IS_MIN, LAST) {
            (false, false) => _mm256_cmp_ps::<_CMP_GT_OQ>(v, self.value),
            (false, true) => _mm256_cmp_ps::<_CMP_GE_OQ>(v, self.value),
            (true, false) => _mm256_cmp_ps::<_CMP_LT_OQ>(v, self.value),
            (true, true) => _mm256_cmp_ps::<_CMP_LE_OQ>(v, self.value),
        };
        self.value = if D::IS_MIN {
            _mm256_min_ps(v, self.value)
        } else {
            _mm256_max_ps(v, self.value)
        };
        self.row = _mm256_max_epu32(self.row, _mm256_and_si256(_mm256_castps_si256(take), r));
    }
}

/// The fast pass of the strided arg-reduction of `f32` over lanes `start..end` (at least
/// [`LANES`]) of every row of `x` (rows of `inner`, fewer than 2^32): each lane's row into `y`
/// and, when `v` is not empty, its element into `v`. Returns false, `y` and `v` possibly written,
/// if it met a NaN or the lanes are fewer than a chunk (the caller's exact pass then decides and
/// writes them all).
///
/// Each chunk of lanes goes down all the rows at once (blocks of 1 MiB and more over
/// [`GROUPED_ROWS`] rows and more: [`GROUP_ROWS`] rows at a time, see [`arg_chunks_grouped`]) and
/// writes its lanes' rows and values straight from its registers; the lanes past the whole
/// chunks are one more chunk that ends at `end` (overlapping the one before, which it writes
/// again alike).
///
/// # Safety
/// The CPU must have AVX2 (`rows_f32::avx2::available` checks it and more).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn arg_tile<D: Direction, const LAST: bool>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    // Tiles of 32 lanes or more go four vectors at a time: four chains down the rows, where a
    // compare and a max each take four cycles (Intel cores) and two chains left the pass waiting.
    if end.saturating_sub(start) >= 2 * LANES {
        arg_chunks::<D, LAST, 4>(x, y, v, inner, start, end)
    } else {
        arg_chunks::<D, LAST, 2>(x, y, v, inner, start, end)
    }
}

/// [`arg_tile`] over whole blocks of `x`, from block `from` to `blocks`, in one call: `x` in
/// blocks of `rows` rows of `inner` lanes ([`LANES`] or more), block `b`'s rows into
/// `y[b * inner..]` and, when `v` is not empty, its values into `v[b * inner..]`. Returns the
/// first block it did not finish (one with a NaN, `y` and `v` possibly written there), or
/// `blocks` once all are done; `x`, `y` and `v` hold every block up to `blocks`.
///
/// # Safety
/// The CPU must have AVX2 (`rows_f32::avx2::available` checks it and more).
#[target_feature(enable = "avx2")]
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
        let done = if inner >= 2 * LANES {
            arg_chunks::<D, LAST, 4>(xb, yb, vb, inner, 0, inner)
        } else {
            arg_chunks::<D, LAST, 2>(xb, yb, vb, inner, 0, inner)
        };
        if !done {
            return b;
        }
    }
    blocks
}

/// [`arg_tile`] in chunks of `V` vectors of eight lanes (`V` even, the tile at least `8 V`
/// lanes).
#[inline]
#[target_feature(enable = "avx2")]
fn arg_chunks<D: Direction, const LAST: bool, const V: usize>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    crate::kernels::shared::align_frame();
    let w = 8 * V;
    let n = end.saturating_sub(start);
    if n < w || inner == 0 || x.len() < inner || x.len() / inner > u32::MAX as usize {
        return false;
    }
    let rows = x.len() / inner;
    if V == 4 && rows >= GROUPED_ROWS && x.len() >= GROUPED_FROM && n.div_ceil(w) <= GROUPED_CHUNKS
    {
        return arg_chunks_grouped::<D, LAST>(x, y, v, inner, start, end);
    }
    let mut nan = _mm256_setzero_ps();
    let far = far_rows::<f32>(inner);
    for c in 0..n.div_ceil(w) {
        // The chunk's first lane, within the tile.
        let at = (c * w).min(n - w);
        // Every row's `w` lanes from `start + at` lie within `x`: checked once here, so the
        // loads down the rows go by a pointer (a check per row was four instructions of about
        // fifteen).
        let base = start + at;
        let last = (rows - 1)
            .checked_mul(inner)
            .and_then(|o| o.checked_add(base + w));
        if last.is_none_or(|l| l > x.len()) {
            return false;
        }
        // SAFETY: `base + (rows - 1) * inner + w <= x.len()` (checked above), and every load
        // below reads eight `f32`s at `base + r * inner + 8 i` for a row `r < rows`, `i < V`.
        let at_row = |r: usize, i: usize| unsafe {
            _mm256_loadu_ps(x.as_ptr().add(base + r * inner + 8 * i))
        };
        let mut best = first_row::<V>(core::array::from_fn(|i| at_row(0, i)), &mut nan);
        // One chain per vector down the rows.
        for r in 1..rows {
            let rs = _mm256_set1_epi32(r as i32);
            prefetch(x.as_ptr().wrapping_add(base + r * inner + PF), far);
            prefetch(x.as_ptr().wrapping_add(base + r * inner + PF + 16), far);
            for i in (0..V).step_by(2) {
                let (e0, e1) = (at_row(r, i), at_row(r, i + 1));
                nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(e0, e1));
                best[i].add::<D, LAST>(e0, rs);
                best[i + 1].add::<D, LAST>(e1, rs);
            }
        }
        if !put(&best, y, v, at) {
            return false;
        }
    }
    _mm256_movemask_ps(nan) == 0
}

/// The state of a chunk of `V` vectors (`V` even) after its first row `e`, NaN in it flagged
/// into `nan` (two vectors per compare).
#[inline]
#[target_feature(enable = "avx2")]
fn first_row<const V: usize>(e: [__m256; V], nan: &mut __m256) -> [Best; V] {
    for i in (0..V).step_by(2) {
        *nan = _mm256_or_ps(*nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(e[i], e[i + 1]));
    }
    e.map(|value| Best {
        value,
        row: _mm256_setzero_si256(),
    })
}

/// Writes a chunk's rows into `y` and, when `v` is not empty, its values into `v`, from lane
/// `at` of the tile; false if `y` does not hold the chunk.
#[inline]
#[target_feature(enable = "avx2")]
fn put<const V: usize>(best: &[Best; V], y: &mut [i64], v: &mut [f32], at: usize) -> bool {
    let Some(ys) = y.get_mut(at..at + 8 * V) else {
        return false;
    };
    for (b, ys) in best.iter().zip(ys.chunks_exact_mut(8)) {
        let ([y0, y1], _) = ys.as_chunks_mut::<4>() else {
            return false;
        };
        store_wide(y0, _mm256_castsi256_si128(b.row));
        store_wide(y1, _mm256_extracti128_si256::<1>(b.row));
    }
    if let Some(vs) = v.get_mut(at..at + 8 * V) {
        for (b, vs) in best.iter().zip(vs.chunks_exact_mut(8)) {
            if let Some(vs) = vs.first_chunk_mut::<8>() {
                store(vs, b.value);
            }
        }
    }
    true
}

/// Rows a chunk goes down at a time in [`arg_chunks_grouped`].
const GROUP_ROWS: usize = 16;

/// Blocks of at least this many rows and [`GROUPED_FROM`] elements go by [`arg_chunks_grouped`]
/// (over fewer rows, as many pages at a time are few enough: 20 to 50 rows of wide blocks ran
/// 1.0-1.15x slower grouped).
pub(super) const GROUPED_ROWS: usize = 64;

/// Blocks of at least this many `f32` (1 MiB, half the L2 of the Xeon measured) go by
/// [`arg_chunks_grouped`].
pub(super) const GROUPED_FROM: usize = 256 * 1024;

/// The most chunks of 32 lanes [`arg_chunks_grouped`] keeps the state of (8 KiB of it): a tile
/// of 1024 lanes, the widest `arg_tile` gives `f32`.
const GROUPED_CHUNKS: usize = 32;

/// [`arg_chunks`] of four vectors over a block larger than [`GROUPED_FROM`]: every chunk of the
/// tile goes down [`GROUP_ROWS`] rows, its state kept on the stack between groups, before any
/// goes further. Down all the rows at once, a chunk reads one line in each of as many pages as
/// the block has rows, more streams than the CPU's prefetchers follow once the block is out of
/// L2.
#[inline]
#[target_feature(enable = "avx2")]
fn arg_chunks_grouped<D: Direction, const LAST: bool>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    const V: usize = 4;
    let w = 8 * V;
    let n = end.saturating_sub(start);
    let rows = x.len() / inner;
    let chunks = n.div_ceil(w);
    if n < w || chunks > GROUPED_CHUNKS {
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
        value: _mm256_setzero_ps(),
        row: _mm256_setzero_si256(),
    };
    let mut state = [[zero; V]; GROUPED_CHUNKS];
    let mut nan = _mm256_setzero_ps();
    let far = far_rows::<f32>(inner);
    let base = |c: usize| start + (c * w).min(n - w);
    // SAFETY: every chunk's `base(c) + (rows - 1) * inner + w <= x.len()` (checked above), and
    // every load below reads eight `f32`s at `base(c) + r * inner + 8 i` for a row `r < rows`,
    // `i < V`.
    let at_row = |c: usize, r: usize, i: usize| unsafe {
        _mm256_loadu_ps(x.as_ptr().add(base(c) + r * inner + 8 * i))
    };
    for first in (0..rows).step_by(GROUP_ROWS) {
        let end_row = rows.min(first + GROUP_ROWS);
        for (c, s) in state.iter_mut().take(chunks).enumerate() {
            let mut best = *s;
            let from = if first == 0 {
                best = first_row(core::array::from_fn(|i| at_row(c, 0, i)), &mut nan);
                1
            } else {
                first
            };
            for r in from..end_row {
                let rs = _mm256_set1_epi32(r as i32);
                prefetch(x.as_ptr().wrapping_add(base(c) + r * inner + PF), far);
                prefetch(x.as_ptr().wrapping_add(base(c) + r * inner + PF + 16), far);
                for i in (0..V).step_by(2) {
                    let (e0, e1) = (at_row(c, r, i), at_row(c, r, i + 1));
                    nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(e0, e1));
                    best[i].add::<D, LAST>(e0, rs);
                    best[i + 1].add::<D, LAST>(e1, rs);
                }
            }
            *s = best;
        }
    }
    for (c, best) in state.iter().take(chunks).enumerate() {
        if !put(best, y, v, base(c) - start) {
            return false;
        }
    }
    _mm256_movemask_ps(nan) == 0
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use crate::kernels::rows_f32::avx2::SSE2_ONLY;
    use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
    use crate::kernels::{arg_lanes_values, reduce_lanes_rows, reduce_planes};
    use crate::{Max, Min};

    /// Caps this thread's kernels at AVX2 (`true`) or lifts the cap: with AVX-512 the AVX2 pass
    /// hands most tiles to its AVX-512 twin. Nothing with `small-code`, which has neither.
    fn cap_avx2(on: bool) {
        #[cfg(not(feature = "small-code"))]
        crate::kernels::isa::HERE.with(|h| h.set(on.then_some(crate::kernels::isa::AVX2)));
        #[cfg(feature = "small-code")]
        let _ = on;
    }

    /// ArgMin with the last index (tiles of `A` lanes) and ArgMax (tiles of `B`) along the rows
    /// of `x` (`inner` lanes), with their values, against the definition.
    fn check_both<const A: usize, const B: usize>(x: &[f32], rows: usize, inner: usize, ctx: &str) {
        let lane = |j: usize| (0..rows).map(|r| x[r * inner + j]).collect::<Vec<_>>();
        let (mut y, mut v) = (std::vec![-1i64; inner], std::vec![0f32; inner]);
        arg_lanes_values::<f32, Min, true, A>(x, &mut y, &mut v, inner);
        let (mut ym, mut vm) = (std::vec![-1i64; inner], std::vec![0f32; inner]);
        arg_lanes_values::<f32, Max, false, B>(x, &mut ym, &mut vm, inner);
        for j in 0..inner {
            let l = lane(j);
            let ctx = std::format!("{ctx} {rows}x{inner} lane {j}");
            assert_eq!(y[j] as usize, naive_arg::<f32, Min>(&l, true), "{ctx}");
            assert_eq!(ym[j] as usize, naive_arg::<f32, Max>(&l, false), "{ctx}");
            for (v, at) in [(v[j], y[j]), (vm[j], ym[j])] {
                let b = l[at as usize];
                assert!(v == b || (v.is_nan() && b.is_nan()), "{ctx}");
            }
        }
    }

    /// Blocks of 1 MiB and more over 64 rows or more (each chunk of the tile down sixteen rows at
    /// a time, its state kept between the groups; 128 rows and more as well, which no longer go
    /// by the portable grouped pass), a partial last group, lanes that are not whole chunks,
    /// with and without NaN, the pool's ties and zeros of both signs: both tie rules against the
    /// definition, with the values.
    #[test]
    fn grouped_chunks_match_the_definition() {
        let mut g = Lcg(23);
        for (rows, inner) in [
            (64, 4096),
            (70, 3990),
            (100, 2650),
            (150, 1800),
            (300, 1000),
            (600, 2000),
            (1001, 300),
            (5003, 60),
        ] {
            assert!(rows * inner >= super::GROUPED_FROM && rows >= super::GROUPED_ROWS);
            // Capped at AVX2, and (on CPUs with AVX-512) by the AVX-512 pass: down every row
            // under 128 rows, by its own groups of eight from 128 rows (a partial last group in
            // each), and this pass's groups over 4 MiB.
            for (cap, nan) in [(true, false), (true, true), (false, false), (false, true)] {
                cap_avx2(cap);
                let x: Vec<f32> = (0..rows * inner)
                    .map(|i| {
                        // NaN in a few lanes only, so that most tiles stay on the fast pass.
                        let v = f32_pool(&mut g, false);
                        if nan && i % 99_991 == 7 {
                            f32::NAN
                        } else {
                            v
                        }
                    })
                    .collect();
                check_both::<1024, 1024>(&x, rows, inner, &std::format!("nan {nan} capped {cap}"));
            }
        }
        cap_avx2(false);
    }

    /// The kernels that take an AVX2 path where the CPU has it (the strided f32 arg pass, the
    /// strided f16 reduction, the planes' fold), each with and without it, against the
    /// definitions: where the CPU has AVX2 this is the only check of their SSE2 forms.
    #[test]
    fn avx2_paths_and_their_sse2_forms_match_the_definitions() {
        let mut g = Lcg(5);
        // The AVX2 pass, capped there, and (on CPUs with AVX-512) the AVX-512 pass.
        for (sse2, cap) in [(false, true), (false, false), (true, false)] {
            SSE2_ONLY.with(|c| c.set(sse2));
            cap_avx2(cap);
            for (rows, inner) in [
                (8, 16),
                (9, 17),
                (20, 40),
                (127, 100),
                (150, 700),
                (200, 16),
                (1001, 33),
            ] {
                for nan in [false, true] {
                    let x: Vec<f32> = (0..rows * inner).map(|_| f32_pool(&mut g, nan)).collect();
                    check_both::<256, 16>(&x, rows, inner, &std::format!("sse2 {sse2}"));
                    // f16 bits through the strided reduction.
                    let h: Vec<half::f16> = x.iter().map(|&e| half::f16::from_f32(e)).collect();
                    let mut acc = std::vec![half::f16::NEG_INFINITY; inner];
                    reduce_lanes_rows::<half::f16, Max>(&mut acc, &h);
                    for j in 0..inner {
                        let l: Vec<half::f16> = (0..rows).map(|r| h[r * inner + j]).collect();
                        let want = if l.iter().any(|e| e.is_nan()) {
                            f32::NAN
                        } else {
                            l.iter()
                                .map(|e| e.to_f32())
                                .fold(f32::NEG_INFINITY, f32::max)
                        };
                        let got = acc[j].to_f32();
                        assert!(
                            got == want || (got.is_nan() && want.is_nan()),
                            "sse2 {sse2}"
                        );
                    }
                    // Two axes apart: `rows` planes of `inner / 4` rows of four.
                    let k = inner / 4;
                    let mut y = std::vec![f32::INFINITY; k];
                    reduce_planes::<f32, Min, 4>(&mut y, &x[..rows * k * 4], rows);
                    for (i, &got) in y.iter().enumerate() {
                        let all = (0..rows).flat_map(|p| &x[(p * k + i) * 4..(p * k + i + 1) * 4]);
                        let want = all.fold(f32::INFINITY, |m, &e| {
                            if m.is_nan() || e.is_nan() {
                                f32::NAN
                            } else {
                                m.min(e)
                            }
                        });
                        assert!(
                            got == want || (got.is_nan() && want.is_nan()),
                            "sse2 {sse2}"
                        );
                    }
                }
            }
        }
        SSE2_ONLY.with(|c| c.set(false));
        cap_avx2(false);
    }
}
