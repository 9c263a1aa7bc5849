//! The position of the extreme of a contiguous `f32` row of [`TRACK_FROM`] to
//! [`MAX_ROW`](super::MAX_ROW) elements in 32-byte AVX2 vectors, by lanes that keep their own
//! extreme and its position as the row goes (a compare and two blends per vector), then the
//! lanes' extreme and, of the lanes that hold it, the first position (the last with
//! `LAST`). A sum of the row's vectors turns NaN where the row holds one: the caller then takes
//! the exact rule.
//!
//! Over rows this long it reads each element once, where [`super::avx2`]'s search folds the row
//! and then compares every vector with the extreme again (a compare, a mask and a shift per
//! vector more). Measured (AMD EPYC, Zen 3, 2 MiB of rows, minimum of 200-400 interleaved calls
//! through the node shims, old kernel -> this one): rows of 96 to 128 5-18% faster (ArgMax,
//! ArgMin with the last index, ArgMax with its values), rows of 80 0-25%, rows of 65 alike for
//! ArgMax and 25-33% faster for the others; in a kernel of its own over rows of 33 to 64 it was
//! alike or slower (the lanes' reduction at the end weighs more over a row of few vectors).
//! On an Intel Xeon (Emerald Rapids), whose blends are three operations, the kernel of eight
//! rows at a time ([`super::eights`]) was 1.5-1.6x faster over rows of 65 to 128: it takes their
//! whole groups of eight rows, and this search only the rows left over.

use core::arch::x86_64::{
    __m256, __m256i, _mm256_add_epi32, _mm256_add_ps, _mm256_blendv_ps, _mm256_castps_si256,
    _mm256_castsi256_ps, _mm256_cmp_ps, _mm256_cvtsi256_si32, _mm256_max_epi32, _mm256_min_epi32,
    _mm256_permute2f128_ps, _mm256_permute2x128_si256, _mm256_set1_epi32, _mm256_setr_epi32,
    _mm256_setzero_ps, _mm256_shuffle_epi32, _mm256_shuffle_ps, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_LE_OQ,
    _CMP_LT_OQ,
};

use super::avx2::{eq, load8, mask, pick8, store8, unord};
use crate::Direction;

/// Rows longer than this take [`position`] (see the module docs).
pub(super) const TRACK_FROM: usize = 64;

/// The position of the extreme of `row` (16 to `i32::MAX` elements; the caller passes
/// [`TRACK_FROM`] to [`MAX_ROW`](super::MAX_ROW)) as [`arg_row`](crate::kernels::arg_row::arg_row)
/// gives it, or `None` if the row holds a NaN (or both infinities, whose sum is NaN too) or is
/// shorter.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn position<D: Direction, const LAST: bool>(row: &[f32]) -> Option<usize> {
    position_zeroing::<D, LAST, false>(row, &mut [], _mm256_setzero_ps())
}

/// [`position`], and with `ZERO` the lanes of `zero` (zeros hidden from the optimizer, which
/// turns a loop of zeros stored into a call of `memset`) stored into `out` (as long as `row`)
/// as the row is read, each vector's beside its load: a Hardmax's outputs before its one (with
/// a NaN, `out` may be left partly written). Stored in a loop of their own before the row's,
/// they made a Hardmax over rows of 72 to 128 1.1-1.45x slower (rows of 65 alike).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn position_zeroing<D: Direction, const LAST: bool, const ZERO: bool>(
    row: &[f32],
    out: &mut [f32],
    zero: __m256,
) -> Option<usize> {
    let n = row.len();
    let (chunks, _) = row.as_chunks::<8>();
    let ([head, ..], Some(tail)) = (chunks, row.last_chunk::<8>()) else {
        return None;
    };
    if n < 16 || n > i32::MAX as usize || (ZERO && out.len() != n) {
        return None;
    }
    if ZERO {
        if let Some(o) = out.last_chunk_mut::<8>() {
            store8(o, zero);
        }
        if let Some(o) = out.first_chunk_mut::<8>() {
            store8(o, zero);
        }
    }
    let (mut outs, _) = out.as_chunks_mut::<8>();
    if let [_, rest @ ..] = outs {
        outs = rest;
    }
    let mut outs = outs.iter_mut();
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let step = _mm256_set1_epi32(8);
    let mut extreme = load8(head);
    let mut sum = extreme;
    // Each lane's position as an `i32`, in the bits of a float vector (for the blends).
    let mut at = _mm256_castsi256_ps(lanes);
    let mut here = lanes;
    // (No closure: it would not take the function's target features.)
    for c in chunks.iter().skip(1) {
        here = _mm256_add_epi32(here, step);
        track::<D, LAST>(load8(c), here, &mut extreme, &mut at, &mut sum);
        if ZERO {
            if let Some(o) = outs.next() {
                store8(o, zero);
            }
        }
    }
    if chunks.len() * 8 < n {
        // The last eight elements, overlapping the last whole vector: each lane's element there
        // lies after every one it has seen, and an element seen twice (in two lanes) gives the
        // same position either way.
        let here = _mm256_add_epi32(lanes, _mm256_set1_epi32((n - 8) as i32));
        track::<D, LAST>(load8(tail), here, &mut extreme, &mut at, &mut sum);
    }
    if mask(unord(sum, sum)) != 0 {
        return None;
    }
    // The lanes' extreme in every lane, then the first (last) position of the lanes that hold
    // it (-0 and +0 equal: the first or last of either).
    let s = pick8::<D>(_mm256_permute2f128_ps::<1>(extreme, extreme), extreme);
    let s = pick8::<D>(_mm256_shuffle_ps::<0b01_00_11_10>(s, s), s);
    let s = pick8::<D>(_mm256_shuffle_ps::<0b10_11_00_01>(s, s), s);
    let none = _mm256_set1_epi32(if LAST { -1 } else { i32::MAX });
    let held = _mm256_blendv_ps(_mm256_castsi256_ps(none), at, eq(extreme, s));
    let c = _mm256_castps_si256(held);
    let c = first::<LAST>(c, _mm256_permute2x128_si256::<1>(c, c));
    let c = first::<LAST>(c, _mm256_shuffle_epi32::<0b01_00_11_10>(c));
    let c = first::<LAST>(c, _mm256_shuffle_epi32::<0b10_11_00_01>(c));
    // (Always a position in the row: some lane holds the extreme. Checked all the same, so
    // that a slip here reaches the exact rule rather than an index past the row.)
    usize::try_from(_mm256_cvtsi256_si32(c))
        .ok()
        .filter(|&at| at < n)
}

/// One vector `e` of a row, at the positions `here`, into the lanes' extremes, their positions
/// and the row's sum (also the step of the strided Hardmax's tracked form, down its rows).
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn track<D: Direction, const LAST: bool>(
    e: __m256,
    here: __m256i,
    extreme: &mut __m256,
    at: &mut __m256,
    sum: &mut __m256,
) {
    *sum = _mm256_add_ps(*sum, e);
    let take = take::<D, LAST>(e, *extreme);
    *extreme = _mm256_blendv_ps(*extreme, e, take);
    *at = _mm256_blendv_ps(*at, _mm256_castsi256_ps(here), take);
}

/// Lane by lane, the first of two positions (the last with `LAST`).
#[inline]
#[target_feature(enable = "avx2")]
fn first<const LAST: bool>(a: __m256i, b: __m256i) -> __m256i {
    if LAST {
        _mm256_max_epi32(a, b)
    } else {
        _mm256_min_epi32(a, b)
    }
}

/// Lanes where `e` replaces the lane's extreme `m`: strictly more extreme, or with `LAST` not
/// less (false where either is NaN).
#[inline]
#[target_feature(enable = "avx2")]
fn take<D: Direction, const LAST: bool>(e: __m256, m: __m256) -> __m256 {
    match (D::IS_MIN, LAST) {
        (false, false) => _mm256_cmp_ps::<_CMP_GT_OQ>(e, m),
        (false, true) => _mm256_cmp_ps::<_CMP_GE_OQ>(e, m),
        (true, false) => _mm256_cmp_ps::<_CMP_LT_OQ>(e, m),
        (true, true) => _mm256_cmp_ps::<_CMP_LE_OQ>(e, m),
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::{position, TRACK_FROM};
    use crate::kernels::rows_f32::avx2::available;
    use crate::kernels::rows_f32::MAX_ROW;
    use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
    use crate::{Direction, Max, Min};

    fn check<D: Direction>(row: &[f32], ctx: &str) -> bool {
        // SAFETY (both calls): the caller found AVX2.
        let first = unsafe { position::<D, false>(row) };
        let last = unsafe { position::<D, true>(row) };
        assert_eq!(first.is_some(), last.is_some(), "{ctx}");
        if let (Some(f), Some(l)) = (first, last) {
            assert_eq!(f, naive_arg::<f32, D>(row, false), "first {ctx}");
            assert_eq!(l, naive_arg::<f32, D>(row, true), "last {ctx}");
        }
        first.is_some()
    }

    /// Every length the kernel takes and a few past it, both directions and tie rules, against
    /// the definition: values with ties, ±0 and one infinity (lanes of both infinities, or a
    /// NaN, return `None`: the exact rule takes them), the extreme placed in the overlapping
    /// tail, in the first vector, or repeated in every lane.
    #[test]
    fn tracked_positions_match_the_definition() {
        if !available() {
            std::eprintln!("no AVX2 on this CPU: the kernel is never called");
            return;
        }
        let mut g = Lcg(11);
        for n in (16..=MAX_ROW).chain([TRACK_FROM + 1, 200, 1000]) {
            for case in 0..6 {
                let inf = if case % 2 == 0 {
                    f32::INFINITY
                } else {
                    f32::NEG_INFINITY
                };
                let mut row: Vec<f32> = (0..n)
                    .map(|_| match f32_pool(&mut g, false) {
                        v if v.is_infinite() => inf,
                        v => v,
                    })
                    .collect();
                match case {
                    2 => row[n - 1 - g.next() as usize % 8] = 1e9,
                    3 => row[g.next() as usize % 8] = -1e9,
                    4 => row
                        .iter_mut()
                        .for_each(|v| *v = if v.is_sign_negative() { -0.0 } else { 0.0 }),
                    _ => {}
                }
                let ctx = std::format!("n {n} case {case}");
                assert!(
                    check::<Max>(&row, &ctx) && check::<Min>(&row, &ctx),
                    "{ctx}"
                );
                // A NaN (either sign) anywhere, or both infinities: the exact rule's.
                let at = g.next() as usize % n;
                let mut nan = row.clone();
                nan[at] = if case % 2 == 0 { f32::NAN } else { -f32::NAN };
                assert!(
                    !check::<Max>(&nan, &ctx) && !check::<Min>(&nan, &ctx),
                    "{ctx}"
                );
                // (Two elements of one lane: eight apart within the whole vectors.)
                let mut both = row.clone();
                let at = at % (n / 8 * 8 - 8);
                both[at] = f32::INFINITY;
                both[at + 8] = f32::NEG_INFINITY;
                assert!(!check::<Max>(&both, &ctx), "{ctx}");
            }
        }
        // Rows the kernel does not take.
        // SAFETY: as above.
        assert_eq!(unsafe { position::<Max, false>(&[1.0; 15]) }, None);
    }
}
