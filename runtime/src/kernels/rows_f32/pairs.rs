//! Rows of two `f32` in 32-byte AVX2 vectors, eight rows at a time, for CPUs that have them
//! (checked at run time): the arg-reduction (with each row's extreme when asked), the reduction
//! and Hardmax.
//!
//! Sixteen elements are two loads; one shuffle each gives the rows' first and second elements
//! (in the lane order rows 0 1 4 5 2 3 6 7, put back in order by one permute of the result).
//! The contract's NaN rule is computed in the lanes (no second pass): over rows of two the
//! SSE2 kernel spent about twenty instructions per four rows, which kept it at a quarter of
//! the memory's speed; here it is about fifteen per eight.

use core::arch::x86_64::{
    __m256, __m256i, _mm256_and_ps, _mm256_andnot_ps, _mm256_blendv_ps, _mm256_castps_si256,
    _mm256_castsi256_ps, _mm256_castsi256_si128, _mm256_cmp_ps, _mm256_cvtepu32_epi64,
    _mm256_extracti128_si256, _mm256_max_ps, _mm256_min_ps, _mm256_or_ps, _mm256_permute4x64_epi64,
    _mm256_set1_ps, _mm256_shuffle_ps, _mm256_srli_epi32, _mm256_storeu_si256, _mm256_unpackhi_ps,
    _mm256_unpacklo_ps, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_LE_OQ, _CMP_LT_OQ, _CMP_UNORD_Q,
};

use super::avx2::{self, load8, store8};
use super::fits;
use crate::{Direction, Element};

/// The rows' first and second elements of sixteen elements (eight rows), in the lane order
/// rows 0 1 4 5 2 3 6 7.
#[inline]
#[target_feature(enable = "avx2")]
fn split(x: &[f32; 16]) -> Option<(__m256, __m256)> {
    let ([a, b], _) = x.as_chunks::<8>() else {
        return None;
    };
    let (a, b) = (load8(a), load8(b));
    Some((
        _mm256_shuffle_ps::<0b10_00_10_00>(a, b),
        _mm256_shuffle_ps::<0b11_01_11_01>(a, b),
    ))
}

/// Lanes of `v` (in the order of [`split`]) back in row order.
#[inline]
#[target_feature(enable = "avx2")]
fn in_order(v: __m256i) -> __m256i {
    _mm256_permute4x64_epi64::<0b11_01_10_00>(v)
}

/// Lanes where the row's pick is its second element `b` (over its first `a`): the contract's
/// rule (the first extreme, or the last with `LAST`; a NaN before everything, the first or the
/// last NaN), as an all-ones mask.
#[inline]
#[target_feature(enable = "avx2")]
fn second<D: Direction, const LAST: bool>(a: __m256, b: __m256) -> __m256 {
    let a_nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(a, a);
    let b_nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(b, b);
    if LAST {
        // A NaN second, or a number first that the second is not worse than.
        let not_worse = if D::IS_MIN {
            _mm256_cmp_ps::<_CMP_LE_OQ>(b, a)
        } else {
            _mm256_cmp_ps::<_CMP_GE_OQ>(b, a)
        };
        _mm256_or_ps(b_nan, _mm256_andnot_ps(a_nan, not_worse))
    } else {
        // A number first, and the second NaN or strictly better.
        let better = if D::IS_MIN {
            _mm256_cmp_ps::<_CMP_LT_OQ>(b, a)
        } else {
            _mm256_cmp_ps::<_CMP_GT_OQ>(b, a)
        };
        _mm256_andnot_ps(a_nan, _mm256_or_ps(b_nan, better))
    }
}

/// Stores the eight `u32` lanes of `v` into `y` as `i64`s.
#[inline]
#[target_feature(enable = "avx2")]
fn store_wide(y: &mut [i64; 8], v: __m256i) {
    let ([lo, hi], _) = y.as_chunks_mut::<4>() else {
        return;
    };
    // SAFETY: each of `lo` and `hi` holds 32 bytes; `storeu` has no alignment requirement.
    unsafe {
        _mm256_storeu_si256(
            lo.as_mut_ptr().cast(),
            _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)),
        );
        _mm256_storeu_si256(
            hi.as_mut_ptr().cast(),
            _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(v)),
        );
    }
}

/// The index (0 or 1) of each row of two of `x` into `y`, as `arg_row` gives it, and with
/// `VALUES` the element there into `v`; eight rows at a time. Returns the rows done (the whole
/// groups of eight); the caller takes the rest.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn arg_pairs<D: Direction, const LAST: bool, const VALUES: bool>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
) -> usize {
    let (groups, _) = x.as_chunks::<16>();
    let (outs, _) = y.as_chunks_mut::<8>();
    let (vals, _) = v.as_chunks_mut::<8>();
    if VALUES && vals.len() < outs.len().min(groups.len()) {
        return 0;
    }
    let mut done = 0;
    for (k, (g, o)) in groups.iter().zip(outs.iter_mut()).enumerate() {
        let Some((a, b)) = split(g) else {
            return done;
        };
        let pick = second::<D, LAST>(a, b);
        store_wide(
            o,
            in_order(_mm256_srli_epi32::<31>(_mm256_castps_si256(pick))),
        );
        if VALUES {
            if let Some(slot) = vals.get_mut(k) {
                let e = _mm256_blendv_ps(a, b, pick);
                store8(slot, _mm256_castsi256_ps(in_order(_mm256_castps_si256(e))));
            }
        }
        done += 8;
    }
    done
}

/// Folds each row of two of `x` into the matching element of `y` (the running extreme: NaN
/// stays, a NaN of either element enters), eight rows at a time; with `FRESH`, writes each row's
/// extreme without reading `y`. Returns the rows done (the whole groups of eight); the caller
/// takes the rest.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn reduce_pairs<D: Direction, const FRESH: bool>(
    y: &mut [f32],
    x: &[f32],
) -> usize {
    let (groups, _) = x.as_chunks::<16>();
    let (outs, _) = y.as_chunks_mut::<8>();
    let mut done = 0;
    for (g, o) in groups.iter().zip(outs.iter_mut()) {
        let Some((a, b)) = split(g) else {
            return done;
        };
        // `max(b, a)` is `a` where either is NaN; then a NaN `b` replaces it.
        let m = if D::IS_MIN {
            _mm256_min_ps(b, a)
        } else {
            _mm256_max_ps(b, a)
        };
        let m = _mm256_blendv_ps(m, b, _mm256_cmp_ps::<_CMP_UNORD_Q>(b, b));
        let m = _mm256_castsi256_ps(in_order(_mm256_castps_si256(m)));
        if FRESH {
            store8(o, m);
            done += 8;
            continue;
        }
        // With the running value: it wins when NaN (kept by `max(m, acc)`), a NaN `m` replaces it.
        let acc = load8(o);
        let r = if D::IS_MIN {
            _mm256_min_ps(m, acc)
        } else {
            _mm256_max_ps(m, acc)
        };
        store8(
            o,
            _mm256_blendv_ps(r, m, _mm256_cmp_ps::<_CMP_UNORD_Q>(m, m)),
        );
        done += 8;
    }
    done
}

/// Hardmax of each row of two of `x` into `y`: 1 at the row's first maximum (or first NaN),
/// 0 at the other; eight rows at a time. Returns the rows done (the whole groups of eight);
/// the caller takes the rest.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn hardmax_pairs_f32(x: &[f32], y: &mut [f32]) -> usize {
    let (groups, _) = x.as_chunks::<16>();
    let (outs, _) = y.as_chunks_mut::<16>();
    let one = _mm256_set1_ps(1.0);
    let mut done = 0;
    for (g, o) in groups.iter().zip(outs.iter_mut()) {
        let (Some((a, b)), ([lo, hi], _)) = (split(g), o.as_chunks_mut::<8>()) else {
            return done;
        };
        let pick = second::<crate::Max, false>(a, b);
        let (first, second) = (_mm256_andnot_ps(pick, one), _mm256_and_ps(pick, one));
        // Interleaving undoes the split's order: rows 0-3, then rows 4-7.
        store8(lo, _mm256_unpacklo_ps(first, second));
        store8(hi, _mm256_unpackhi_ps(first, second));
        done += 8;
    }
    done
}

/// The arg-reduction of blocks of two rows of `inner` lanes (eight or more) of `x`: each lane's
/// index (0 or 1) into `y` (`inner` per block), as `arg_row` gives it for the lane's pair, and
/// with `VALUES` its element there into `v`; eight lanes at a time, the last eight of a block
/// overlapping the ones before when `inner` is not a multiple of eight (the same lanes give the
/// same answers). Returns false, nothing written, if the sizes do not fit that.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn arg_two_rows<
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    inner: usize,
) -> bool {
    let blocks = y.len() / inner.max(1);
    if inner < 8 || x.len() < blocks * 2 * inner || (VALUES && v.len() < blocks * inner) {
        return false;
    }
    // Eight lanes: the index and, with `VALUES`, the element.
    let eight = |a: &[f32; 8], b: &[f32; 8], o: &mut [i64; 8], slot: Option<&mut [f32; 8]>| {
        let (a, b) = (load8(a), load8(b));
        let pick = second::<D, LAST>(a, b);
        // Lanes in order here: no permute.
        store_wide(o, _mm256_srli_epi32::<31>(_mm256_castps_si256(pick)));
        if let Some(slot) = slot {
            store8(slot, _mm256_blendv_ps(a, b, pick));
        }
    };
    // Blocks of a few eights of lanes with the width a constant: no per-block setup (the
    // general loop below spent about 2 ns a block on it, `max+argmax` of `[16384, 2, 16]`).
    match inner {
        8 => return blocks_of::<8, 16, VALUES>(x, y, v, eight),
        16 => return blocks_of::<16, 32, VALUES>(x, y, v, eight),
        24 => return blocks_of::<24, 48, VALUES>(x, y, v, eight),
        32 => return blocks_of::<32, 64, VALUES>(x, y, v, eight),
        _ => {}
    }
    let mut vs = v.chunks_exact_mut(inner);
    for (x, y) in x.chunks_exact(2 * inner).zip(y.chunks_exact_mut(inner)) {
        let v = if VALUES { vs.next() } else { None };
        let (r0, r1) = x.split_at(inner);
        // Whole eights by iterators (no index to check per step).
        let (a8, _) = r0.as_chunks::<8>();
        let (b8, _) = r1.as_chunks::<8>();
        let (o8, _) = y.as_chunks_mut::<8>();
        match v {
            Some(v) => {
                let (v8, _) = v.as_chunks_mut::<8>();
                for (((a, b), o), s) in a8.iter().zip(b8).zip(o8.iter_mut()).zip(v8.iter_mut()) {
                    eight(a, b, o, Some(s));
                }
                if !inner.is_multiple_of(8) {
                    // The last eight lanes, overlapping the ones before (the same answers).
                    let j = inner - 8;
                    if let (Some(a), Some(b), Some(o), Some(s)) = (
                        r0.get(j..).and_then(<[f32]>::first_chunk::<8>),
                        r1.get(j..).and_then(<[f32]>::first_chunk::<8>),
                        y.get_mut(j..).and_then(<[i64]>::first_chunk_mut::<8>),
                        v.get_mut(j..).and_then(<[f32]>::first_chunk_mut::<8>),
                    ) {
                        eight(a, b, o, Some(s));
                    }
                }
            }
            None => {
                for ((a, b), o) in a8.iter().zip(b8).zip(o8.iter_mut()) {
                    eight(a, b, o, None);
                }
                if !inner.is_multiple_of(8) {
                    let j = inner - 8;
                    if let (Some(a), Some(b), Some(o)) = (
                        r0.get(j..).and_then(<[f32]>::first_chunk::<8>),
                        r1.get(j..).and_then(<[f32]>::first_chunk::<8>),
                        y.get_mut(j..).and_then(<[i64]>::first_chunk_mut::<8>),
                    ) {
                        eight(a, b, o, None);
                    }
                }
            }
        }
    }
    true
}

/// [`arg_two_rows`] over blocks of two rows of `L` lanes (a multiple of eight; `B` is `2 * L`),
/// by `eight` on each eight lanes of a block's two rows (its outputs, and with `VALUES` its
/// values). The caller checked the lengths.
#[inline(always)]
fn blocks_of<const L: usize, const B: usize, const VALUES: bool>(
    x: &[f32],
    y: &mut [i64],
    v: &mut [f32],
    eight: impl Fn(&[f32; 8], &[f32; 8], &mut [i64; 8], Option<&mut [f32; 8]>),
) -> bool {
    let (xs, _) = x.as_chunks::<B>();
    let (ys, _) = y.as_chunks_mut::<L>();
    let (vs, _) = v.as_chunks_mut::<L>();
    let mut vs = vs.iter_mut();
    for (x, y) in xs.iter().zip(ys.iter_mut()) {
        let (Some(a), Some(b)) = (x.first_chunk::<L>(), x.last_chunk::<L>()) else {
            continue;
        };
        let ((a8, _), (b8, _), (o8, _)) = (
            a.as_chunks::<8>(),
            b.as_chunks::<8>(),
            y.as_chunks_mut::<8>(),
        );
        if VALUES {
            let Some(v) = vs.next() else { break };
            let (v8, _) = v.as_chunks_mut::<8>();
            for (((a, b), o), s) in a8.iter().zip(b8).zip(o8.iter_mut()).zip(v8.iter_mut()) {
                eight(a, b, o, Some(s));
            }
        } else {
            for ((a, b), o) in a8.iter().zip(b8).zip(o8.iter_mut()) {
                eight(a, b, o, None);
            }
        }
    }
    true
}

/// The extreme of each row of two `f32`s of `x` written into `y` (not read) by the AVX2 kernel
/// where the CPU has it: the rows done (whole groups of eight), 0 otherwise (nothing done).
#[cfg(not(any(feature = "small-code", debug_assertions)))]
#[inline(always)]
pub(in crate::kernels) fn reduce_pairs_fresh<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
) -> usize {
    if !fits::<T>(2) || !avx2::available() {
        return 0;
    }
    let (Some(y), Some(x)) = (T::f32s_mut(y), T::f32s(x)) else {
        return 0;
    };
    // SAFETY: `available` found AVX2.
    unsafe { reduce_pairs::<D, true>(y, x) }
}

/// Hardmax of rows of two `f32`s of `x` into `y` by the AVX2 kernel where the CPU
/// has it: the rows done (whole groups of eight), 0 otherwise (nothing done).
#[inline(always)]
pub(in crate::kernels) fn hardmax_pairs<T: Element>(x: &[T], y: &mut [T]) -> usize {
    if !fits::<T>(2) || !avx2::available() {
        return 0;
    }
    let (Some(x), Some(y)) = (T::f32s(x), T::f32s_mut(y)) else {
        return 0;
    };
    // SAFETY: `available` found AVX2.
    unsafe { hardmax_pairs_f32(x, y) }
}

/// The arg-reduction of blocks of two rows of `inner` lanes of `f32` by the AVX2 kernel
/// ([`arg_two_rows`]) where the CPU has it, with the picked elements into `v` when it is
/// not empty: `false` (nothing done) where it does not take them.
#[inline(always)]
pub(in crate::kernels) fn two_rows<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) -> bool {
    if !fits::<T>(2) || !avx2::available() {
        return false;
    }
    let (Some(x), Some(v)) = (T::f32s(x), T::f32s_mut(v)) else {
        return false;
    };
    // SAFETY: `available` found AVX2.
    unsafe {
        if v.is_empty() {
            arg_two_rows::<D, LAST, false>(x, y, v, inner)
        } else {
            arg_two_rows::<D, LAST, true>(x, y, v, inner)
        }
    }
}
