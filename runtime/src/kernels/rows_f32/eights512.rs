//! The arg-reductions of contiguous `f32` rows of [`MIN_ROW`] to [`MAX_ROW`] elements in
//! 64-byte AVX-512 vectors, eight rows at a time, for CPUs that have them (checked at run time,
//! [`crate::kernels::isa`]): the kernel of [`super::eights`] with sixteen lanes a vector and
//! the equalities in mask registers.
//!
//! The eight rows' vectors (each row's whole vectors, then its last sixteen elements, so any
//! length is covered) are loaded once and kept in registers. An unordered compare of them into a
//! mask looks for NaN; eight rows with one are done again by the exact rule. Otherwise each row
//! is folded by the order alone into sixteen lanes, then into eight, the eight rows' lanes are
//! reduced together ([`super::eights::across8`]), and each row's position is the lowest
//! (highest with `LAST`) bit of the masks of its elements equal to its extreme: one compare into
//! a mask register per sixteen elements, against the AVX2 kernel's compare, mask move, shift
//! and merge per eight.
//!
//! ReduceMax and ReduceMin of the same rows ([`reduce_eights512`]) are the first half of that:
//! the eight rows folded and reduced together, a group with a NaN folded again exactly.

use core::arch::x86_64::{
    __m256, __m512, _mm512_castps512_ps256, _mm512_cmp_ps_mask, _mm512_extractf32x8_ps,
    _mm512_loadu_ps, _mm512_max_ps, _mm512_min_ps, _mm512_set1_ps, _mm512_setzero_ps, _CMP_EQ_OQ,
    _CMP_UNORD_Q,
};

use super::avx2::{load8, pick8, store8, zero8};
use super::eights::across8;
use super::Values;
#[cfg(doc)]
use crate::kernels::arg_row::arg_row;
use crate::kernels::index::{index, Index};
use crate::kernels::reduce::fold;
use crate::kernels::shared::highest_bit;
use crate::kernels::shared::lowest_bit;
use crate::Direction;

/// The shortest rows this kernel takes: rows of sixteen (one vector) ran no faster than in the
/// AVX2 kernel (ArgMax 0.91x of its time, ArgMin with the last index 1.06x).
pub(in crate::kernels) const MIN_ROW: usize = 17;

/// The longest rows this kernel takes (four vectors: the row's bits fill one 64-bit word).
pub(in crate::kernels) const MAX_ROW: usize = 64;

/// The index of the extreme of each contiguous row of `n` ([`MIN_ROW`] to [`MAX_ROW`]) of `x`
/// into `y`, as [`arg_row`] gives it, and with `VALUES` each row's extreme into `v` (of two
/// equal zeros either), for the rows of whole groups of eight; returns how many rows it did
/// (0 for other lengths), which the caller's kernel follows with the rest.
///
/// # Safety
/// The CPU must have AVX2, BMI1, BMI2 and AVX-512 F, BW, VL and DQ
/// ([`crate::kernels::isa::AVX512`]).
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(in crate::kernels) unsafe fn arg_eights512<
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
    n: usize,
) -> usize {
    crate::kernels::shared::align_frame();
    match n.div_ceil(16) {
        _ if n < MIN_ROW => 0,
        1 => groups::<D, LAST, VALUES, I, 1>(x, y, v, n),
        2 => groups::<D, LAST, VALUES, I, 2>(x, y, v, n),
        3 => groups::<D, LAST, VALUES, I, 3>(x, y, v, n),
        4 => groups::<D, LAST, VALUES, I, 4>(x, y, v, n),
        _ => 0,
    }
}

/// [`arg_eights512`] of rows of `K` vectors (`n` from `16 * K - 15` to `16 * K`, at least 16).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl,avx512dq")]
fn groups<D: Direction, const LAST: bool, const VALUES: bool, I: Index, const K: usize>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
    n: usize,
) -> usize {
    if n < MIN_ROW || n.div_ceil(16) != K {
        return 0;
    }
    let mut rows = (x.len() / n).min(y.len());
    if VALUES {
        rows = rows.min(v.len());
    }
    let done = rows / 8 * 8;
    let mut vals = Values::<VALUES>::new(v);
    for (q, o) in y
        .get_mut(..done)
        .unwrap_or(&mut [])
        .chunks_exact_mut(8)
        .enumerate()
    {
        let Some(g) = x.get(q * 8 * n..(q + 1) * 8 * n) else {
            return 0;
        };
        // Every load below reads sixteen elements of a row of `g` ending by the row's end (the
        // whole vectors start at 16k < 16(K - 1) < n - 15, the last at n - 16): within `g`,
        // whose length was just checked. The eight rows' vectors are loaded once and kept in
        // registers (8K of the 32) for the NaN check, the fold and the equalities: against
        // loading each row again for its equalities, rows of 17 to 32 took 0.79-0.90x of the
        // time, 40 to 64 0.91-0.93x.
        let mut rows = [[zero16(); K]; 8];
        let mut nan = 0u16;
        for (r, vs) in rows.iter_mut().enumerate() {
            // SAFETY: the row `r < 8` of `g` (8n elements); the CPU has AVX-512.
            *vs = unsafe { row::<K>(g, r * n, n) };
            nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(vs[0], vs[K - 1]);
            for &v in vs.iter().take(K - 1).skip(1) {
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
            }
        }
        if nan != 0 {
            vals.exact::<D, LAST, I>(o, g.chunks_exact(n));
            continue;
        }
        let mut m = [zero8(); 8];
        for (m, vs) in m.iter_mut().zip(&rows) {
            let mut f = vs[K - 1];
            for &v in vs.iter().take(K - 1) {
                f = pick16::<D>(v, f);
            }
            *m = halves::<D>(f);
        }
        let mut extremes = [0.0f32; 8];
        store8(&mut extremes, across8::<D>(m));
        vals.put8(&extremes);
        for ((o, &e), vs) in o.iter_mut().zip(&extremes).zip(&rows) {
            let splat = _mm512_set1_ps(e);
            let last = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(vs[K - 1], splat);
            let mut bits = u64::from(last) << (n - 16);
            for (k, &v) in vs.iter().take(K - 1).enumerate() {
                let whole = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(v, splat);
                bits |= u64::from(whole) << (16 * k);
            }
            *o = index::<I>(if LAST {
                highest_bit(bits)
            } else {
                lowest_bit(bits)
            });
        }
    }
    done
}

/// Each contiguous row of `N` ([`MIN_ROW`] to [`MAX_ROW`]) of `x` reduced into the matching
/// element of `y`, eight rows at a time: with `FRESH` each element of `y` becomes its row's
/// extreme, otherwise the row is folded into it (a NaN there stays). NaN-propagating: a group
/// of eight rows with a NaN is folded again exactly. Returns how many rows it did (whole groups
/// of eight; 0 for other lengths), which the caller follows with the rest.
///
/// Against the AVX2 kernel of four rows at a time (`super::avx2::reduce_rows`): AMD EPYC (Zen
/// 4), 2 MiB, time per call of the kernel alone, ReduceMax of rows of 20 33.3 -> 27.4-27.9 us;
/// the benchmark matrix, `--ours`, two runs of each build in turn, ReduceMax and ReduceMin of
/// `[26214, 20]` over axis 1 and of `[2, 13107, 4, 5]` over axes 2 and 3 33-44 -> 27.5-28 us.
/// Tried and slower: the row length known only at run time (31.5 us); NaN looked for over the
/// group's contiguous vectors, two to a compare, rather than over each row's (32.4 us); rows of
/// 80 and 128 (eight vectors) gained nothing over the AVX2 kernel.
///
/// # Safety
/// The CPU must have AVX2, BMI1, BMI2 and AVX-512 F, BW, VL and DQ
/// ([`crate::kernels::isa::AVX512`]).
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(in crate::kernels) unsafe fn reduce_eights512<
    D: Direction,
    const FRESH: bool,
    const N: usize,
>(
    y: &mut [f32],
    x: &[f32],
) -> usize {
    crate::kernels::shared::align_frame();
    match N.div_ceil(16) {
        _ if N < MIN_ROW => 0,
        2 => reduce_groups::<D, FRESH, N, 2>(y, x),
        3 => reduce_groups::<D, FRESH, N, 3>(y, x),
        4 => reduce_groups::<D, FRESH, N, 4>(y, x),
        _ => 0,
    }
}

/// [`reduce_eights512`] of rows of `K` vectors (`N` from `16 * K - 15` to `16 * K`, at least
/// 17).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl,avx512dq")]
fn reduce_groups<D: Direction, const FRESH: bool, const N: usize, const K: usize>(
    y: &mut [f32],
    x: &[f32],
) -> usize {
    let n = N;
    if n < MIN_ROW || n.div_ceil(16) != K {
        return 0;
    }
    let (outs, _) = y.as_chunks_mut::<8>();
    let groups = x.chunks_exact(8 * n);
    let done = groups.len().min(outs.len()) * 8;
    for (g, o) in groups.zip(outs.iter_mut()) {
        let mut m = [zero8(); 8];
        let mut nan = 0u16;
        for (r, m) in m.iter_mut().enumerate() {
            // SAFETY: the row `r < 8` of `g` (8n elements); the CPU has AVX-512.
            let vs = unsafe { row::<K>(g, r * n, n) };
            // Vectors from both ends in pairs: one unordered compare looks at two.
            for k in 0..K.div_ceil(2) {
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(vs[k], vs[K - 1 - k]);
            }
            let mut f = vs[K - 1];
            for &v in vs.iter().take(K - 1) {
                f = pick16::<D>(v, f);
            }
            *m = halves::<D>(f);
        }
        if nan != 0 {
            for (o, row) in o.iter_mut().zip(g.chunks_exact(n)) {
                let start = if FRESH { D::identity::<f32>() } else { *o };
                *o = fold::<f32, D>(start, row);
            }
            continue;
        }
        let e = across8::<D>(m);
        if FRESH {
            store8(o, e);
        } else {
            // A NaN in `y` stays: `pick8` keeps `acc` when either is NaN.
            store8(o, pick8::<D>(e, load8(o)));
        }
    }
    done
}

/// The sixteen elements of `g` from `at`.
///
/// # Safety
/// `at + 16 <= g.len()`, and the CPU has AVX-512 F.
#[inline(always)]
unsafe fn load(g: &[f32], at: usize) -> __m512 {
    debug_assert!(at + 16 <= g.len());
    // SAFETY: the caller's; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_ps(g.as_ptr().add(at)) }
}

/// A vector of zeros.
#[inline(always)]
fn zero16() -> __m512 {
    // SAFETY: only reached from this module's kernels, which run where the CPU has AVX-512 F.
    unsafe { _mm512_setzero_ps() }
}

/// The row of `n` at `start` of `g` as `K` vectors: the `K - 1` whole vectors, then the
/// last sixteen elements in `[K - 1]`.
///
/// # Safety
/// `16 <= n`, `16 * (K - 1) < n` and `start + n <= g.len()`; the CPU has AVX-512 F.
#[inline(always)]
unsafe fn row<const K: usize>(g: &[f32], start: usize, n: usize) -> [__m512; K] {
    // SAFETY: every load ends by `start + n` (the caller's bounds).
    unsafe {
        let mut vs = [zero16(); K];
        for (k, v) in vs.iter_mut().enumerate().take(K - 1) {
            *v = load(g, start + 16 * k);
        }
        vs[K - 1] = load(g, start + n - 16);
        vs
    }
}

/// The two halves of `m` folded into eight lanes by the order alone.
#[inline(always)]
fn halves<D: Direction>(m: __m512) -> __m256 {
    // SAFETY: only reached from this module's kernels, which run where the CPU has AVX-512 DQ.
    unsafe { pick8::<D>(_mm512_extractf32x8_ps::<1>(m), _mm512_castps512_ps256(m)) }
}

/// `v` where it is more extreme than `acc` by the order alone, lane by lane.
#[inline(always)]
fn pick16<D: Direction>(v: __m512, acc: __m512) -> __m512 {
    // SAFETY: only reached from this module's kernels, which run where the CPU has AVX-512 F.
    unsafe {
        if D::IS_MIN {
            _mm512_min_ps(v, acc)
        } else {
            _mm512_max_ps(v, acc)
        }
    }
}
