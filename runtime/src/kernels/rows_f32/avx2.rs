//! The arg-reductions of contiguous `f32` rows of 8 to [`MAX_ROW`](super::MAX_ROW) elements
//! in 32-byte AVX2 vectors, for CPUs that have them (checked at run time; the default x86-64
//! target has only SSE2). [`super`] takes rows from [`AVX2_FROM`](super::AVX2_FROM) this way.
//!
//! Each row is folded by the order alone into eight lanes (the last eight elements loaded first,
//! so any length is covered; NaN flagged on the way), its extreme spread to every lane, and its
//! position read from one bit mask per eight elements, gathered without branches into a 64-bit
//! word per 64 elements. A row with a NaN is done again by the exact rule. Against the SSE2
//! kernel this halves the instructions per element and drops the per-block early exits, whose
//! branches mispredicted about once per row. Rows longer than
//! [`TRACK_FROM`](super::tracked::TRACK_FROM) take [`super::tracked`]'s one-pass search instead.

use core::arch::x86_64::{
    __m128, __m256, _mm256_castps256_ps128, _mm256_cmp_ps, _mm256_extractf128_ps, _mm256_loadu_ps,
    _mm256_max_ps, _mm256_min_ps, _mm256_movemask_ps, _mm256_or_ps, _mm256_set_m128,
    _mm256_setzero_ps, _mm256_shuffle_ps, _mm256_storeu_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps,
    _CMP_EQ_OQ, _CMP_UNORD_Q,
};

use super::{across, load4, pick, spread, store, Values};
use crate::kernels::arg_row::arg_row;
use crate::kernels::index::{index, Index};
use crate::kernels::reduce::fold;
use crate::Direction;

#[cfg(not(feature = "small-code"))]
mod fold512;

/// The shortest rows this kernel takes (one vector).
pub(in crate::kernels) const MIN_ROW: usize = 8;

cpufeatures::new!(cpu, "avx2", "bmi1", "bmi2");

/// Whether this CPU runs [`arg_rows`] (AVX2, BMI1 and BMI2, with the AVX registers saved by
/// the operating system): one relaxed atomic load after the first call.
#[inline(always)]
pub(in crate::kernels) fn available() -> bool {
    #[cfg(test)]
    if SSE2_ONLY.with(core::cell::Cell::get) {
        return false;
    }
    cpu::get()
}

#[cfg(test)]
extern crate std;

#[cfg(test)]
std::thread_local! {
    /// Set by a test to take the SSE2 paths on this thread even where the CPU has AVX2, so that
    /// both forms of each kernel are checked on the machine that runs the tests.
    pub(in crate::kernels) static SSE2_ONLY: core::cell::Cell<bool> =
        const { core::cell::Cell::new(false) };
}

/// The index of the extreme of each contiguous row of `n` (from [`MIN_ROW`] to
/// [`MAX_ROW`](super::MAX_ROW)) of `x` into `y`, as [`arg_row`] gives it, and with `VALUES`
/// each row's extreme into `v`; other lengths do nothing.
///
/// # Safety
/// The CPU must have the features [`available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn arg_rows<
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
    n: usize,
) {
    crate::kernels::shared::align_frame();
    if !(MIN_ROW..=super::MAX_ROW).contains(&n) {
        return;
    }
    let mut vals = Values::<VALUES>::new(v);
    let tracked = n > super::tracked::TRACK_FROM;
    for (o, row) in y.iter_mut().zip(x.chunks_exact(n)) {
        let found = if tracked {
            super::tracked::position::<D, LAST>(row)
        } else {
            position::<D, LAST>(row)
        };
        let at = match found {
            Some(at) => at,
            None => arg_row::<f32, D, LAST>(row),
        };
        vals.put(row, at);
        *o = index::<I>(at);
    }
}

/// Reduces each contiguous row of `N` (from [`MIN_ROW`] to [`MAX_ROW`](super::MAX_ROW)) of
/// `x` into the matching element of `y`, as [`reduce_rows`](crate::kernels::reduce_rows)
/// does; other lengths do nothing. Four rows at a time: NaN checked over the four rows'
/// vectors (two per compare), each row folded by the order alone into eight lanes and then
/// four, the four rows' extremes reduced together; four rows with a NaN are folded again
/// exactly.
///
/// # Safety
/// The CPU must have the features [`available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn reduce_rows<D: Direction, const N: usize>(
    y: &mut [f32],
    x: &[f32],
) {
    let n = N;
    if !(MIN_ROW..=super::MAX_ROW).contains(&n) {
        return;
    }
    let (outs, _) = y.as_chunks_mut::<4>();
    let groups = x.chunks_exact(4 * n);
    let done = groups.len().min(outs.len()) * 4;
    for (g, o) in groups.zip(outs.iter_mut()) {
        let (eights, rest) = g.as_chunks::<8>();
        let (pairs, odd) = eights.as_chunks::<2>();
        let mut flags = match g.last_chunk::<8>() {
            // The four elements past the eights (4n is a multiple of four), with the four before.
            Some(last) if !rest.is_empty() => unord(load8(last), load8(last)),
            _ => zero8(),
        };
        for [v, w] in pairs {
            flags = or(flags, unord(load8(v), load8(w)));
        }
        for v in odd {
            flags = or(flags, unord(load8(v), load8(v)));
        }
        if mask(flags) != 0 {
            for (o, row) in o.iter_mut().zip(g.chunks_exact(n)) {
                *o = fold::<f32, D>(*o, row);
            }
            continue;
        }
        let mut m = [super::zero(); 4];
        let mut none = zero8();
        for (m, row) in m.iter_mut().zip(g.chunks_exact(n)) {
            *m = fold8::<D, false>(row, &mut none);
        }
        let [a, b, c, d] = m;
        // An accumulator that is NaN stays (`pick` keeps `acc` when either is NaN).
        store(o, pick::<D>(across::<D>(a, b, c, d), load4(o)));
    }
    if let (Some(ys), Some(rs)) = (y.get_mut(done..), x.get(done * n..)) {
        for (o, row) in ys.iter_mut().zip(rs.chunks_exact(n)) {
            *o = fold::<f32, D>(*o, row);
        }
    }
}

/// Reduces each contiguous row of `N` (4 to 16) of `x`, which holds no NaN, into the matching
/// element of `y` (an accumulator that is NaN stays); other lengths do nothing. For the tiles
/// of [`reduce_planes`](crate::kernels::reduce_planes), whose fold has already looked for NaN.
/// Eight rows at a time ([`eight_extremes`]): against the SSE2 kernel (four rows at a time, NaN
/// checked on the way) this is about half the instructions per row.
///
/// # Safety
/// The CPU must have the features [`available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn reduce_rows_nan_free<D: Direction, const N: usize>(
    y: &mut [f32],
    x: &[f32],
) {
    if !(4..=16).contains(&N) {
        return;
    }
    let (outs, _) = y.as_chunks_mut::<8>();
    let groups = x.chunks_exact(8 * N);
    let done = groups.len().min(outs.len()) * 8;
    for (g, o) in groups.zip(outs.iter_mut()) {
        let m = eight_extremes::<D, N>(g);
        // An accumulator that is NaN stays (`pick8` keeps `acc` when either is NaN).
        store8(o, pick8::<D>(m, load8(o)));
    }
    if let (Some(ys), Some(rs)) = (y.get_mut(done..), x.get(done * N..)) {
        for (o, row) in ys.iter_mut().zip(rs.chunks_exact(N)) {
            *o = fold::<f32, D>(*o, row);
        }
    }
}

/// The extremes of the eight contiguous rows of `N` (4 to 16) that `g` holds, by the order
/// alone, row `k` in lane `k`: rows `k` and `k + 4` share a vector, one in each half, each
/// folded into four lanes from loads of four (the last four first, so any length is covered),
/// then the four vectors reduced together ([`across_pairs`]).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn eight_extremes<D: Direction, const N: usize>(g: &[f32]) -> __m256 {
    let pair = |k: usize| {
        let (Some(lo), Some(hi)) = (g.get(k * N..(k + 1) * N), g.get((k + 4) * N..(k + 5) * N))
        else {
            return zero8();
        };
        let four = |r: &[f32], at: usize| {
            r.get(at..)
                .and_then(<[f32]>::first_chunk::<4>)
                .map_or_else(super::zero, super::load4)
        };
        let mut m = _mm256_set_m128(four(hi, N - 4), four(lo, N - 4));
        for at in (0..N - 4).step_by(4) {
            m = pick8::<D>(_mm256_set_m128(four(hi, at), four(lo, at)), m);
        }
        m
    };
    across_pairs::<D>(pair(0), pair(1), pair(2), pair(3))
}

/// The extremes of eight rows from four vectors that each hold two rows' four lanes (rows
/// `k` and `k + 4` in `a`, `b`, `c`, `d` for `k` from 0 to 3), row `k` in lane `k`: the
/// 16-byte halves reduced as [`across`](super::across) does.
#[inline]
#[target_feature(enable = "avx2")]
fn across_pairs<D: Direction>(a: __m256, b: __m256, c: __m256, d: __m256) -> __m256 {
    let ab = pick8::<D>(_mm256_unpackhi_ps(a, b), _mm256_unpacklo_ps(a, b));
    let cd = pick8::<D>(_mm256_unpackhi_ps(c, d), _mm256_unpacklo_ps(c, d));
    pick8::<D>(
        _mm256_shuffle_ps::<0b11_10_11_10>(ab, cd),
        _mm256_shuffle_ps::<0b01_00_01_00>(ab, cd),
    )
}

/// One row (at least eight elements) folded by the order alone into eight lanes, in two
/// chains (both from the last eight elements when the length is not a multiple of eight),
/// then into four; with `FLAGS`, NaN flagged into `nan`, two vectors per compare.
#[inline]
#[target_feature(enable = "avx2")]
fn fold8<D: Direction, const FLAGS: bool>(row: &[f32], nan: &mut __m256) -> __m128 {
    let Some(tail) = row.last_chunk::<8>() else {
        return super::zero();
    };
    let (chunks, extra) = row.as_chunks::<8>();
    let (start, chunks) = match chunks.split_first() {
        Some((first, others)) if extra.is_empty() => (first, others),
        _ => (tail, chunks),
    };
    let mut a = load8(start);
    let mut b = a;
    let mut flags = if FLAGS { unord(a, a) } else { zero8() };
    let (pairs, rest) = chunks.as_chunks::<2>();
    for [v, w] in pairs {
        let (v, w) = (load8(v), load8(w));
        if FLAGS {
            flags = or(flags, unord(v, w));
        }
        a = pick8::<D>(v, a);
        b = pick8::<D>(w, b);
    }
    for v in rest {
        let v = load8(v);
        if FLAGS {
            flags = or(flags, unord(v, v));
        }
        a = pick8::<D>(v, a);
    }
    if FLAGS {
        *nan = or(*nan, flags);
    }
    let a = pick8::<D>(b, a);
    pick::<D>(_mm256_extractf128_ps::<1>(a), _mm256_castps256_ps128(a))
}

/// [`reduce_rows`] of rows of `n` known only at run time (8 to under
/// [`LONG_ROW`](super::LONG_ROW); other lengths do nothing): four rows at a time, each folded
/// with its NaN flagged on the way, the rows found by multiplying (a `chunks_exact` of a
/// run-time length divides).
///
/// # Safety
/// The CPU must have the features [`available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn reduce_rows_dyn<D: Direction>(y: &mut [f32], x: &[f32], n: usize) {
    if !(MIN_ROW..super::LONG_ROW).contains(&n) {
        return;
    }
    let rows = (x.len() / n).min(y.len());
    let Some(y) = y.get_mut(..rows) else {
        return;
    };
    let (outs, _) = y.as_chunks_mut::<4>();
    let done = outs.len() * 4;
    for (q, o) in outs.iter_mut().enumerate() {
        let Some(g) = x.get(4 * q * n..4 * (q + 1) * n) else {
            return;
        };
        let mut flags = zero8();
        let mut m = [super::zero(); 4];
        for (r, m) in m.iter_mut().enumerate() {
            let row = g.get(r * n..(r + 1) * n).unwrap_or(&[]);
            *m = fold8::<D, true>(row, &mut flags);
        }
        if mask(flags) != 0 {
            for (r, o) in o.iter_mut().enumerate() {
                *o = fold::<f32, D>(*o, g.get(r * n..(r + 1) * n).unwrap_or(&[]));
            }
            continue;
        }
        let [a, b, c, d] = m;
        // An accumulator that is NaN stays (`pick` keeps `acc` when either is NaN).
        store(o, pick::<D>(across::<D>(a, b, c, d), load4(o)));
    }
    for (i, o) in y.iter_mut().enumerate().skip(done) {
        *o = fold::<f32, D>(*o, x.get(i * n..(i + 1) * n).unwrap_or(&[]));
    }
}

/// The extreme of `row` (at least eight elements) by the order alone, and whether `row` holds
/// a NaN (then the extreme is not the contract's): four chains of eight lanes, all from the
/// last eight elements, NaN flagged two vectors per compare.
///
/// # Safety
/// The CPU must have the features [`available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn row_extreme<D: Direction>(row: &[f32]) -> (f32, bool) {
    fold_row::<D, false>(row, &mut [], zero8())
}

/// [`row_extreme`], and with `ZERO` the lanes of `zero` (zeros the caller hid from the
/// optimizer, which turns a loop of zeros stored into a call of `memset`) stored into `out` (as
/// long as `row`) as the row is read: a Hardmax's outputs before its one, in the same pass.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) fn fold_row<D: Direction, const ZERO: bool>(
    row: &[f32],
    out: &mut [f32],
    zero: __m256,
) -> (f32, bool) {
    let Some(tail) = row.last_chunk::<8>() else {
        return (0.0, false);
    };
    if ZERO && out.len() != row.len() {
        return (0.0, true);
    }
    let t = load8(tail);
    let (mut a, mut b, mut c, mut d) = (t, t, t, t);
    let mut flags = unord(t, t);
    if ZERO {
        // The last eight outputs (over the eights' below where the length is not a multiple
        // of eight).
        if let Some(o) = out.last_chunk_mut::<8>() {
            store8(o, zero);
        }
    }
    let (blocks, rest) = row.as_chunks::<32>();
    let (out_blocks, out_rest) = out.as_chunks_mut::<32>();
    let mut out_blocks = out_blocks.iter_mut();
    for blk in blocks {
        let (q, _) = blk.as_chunks::<8>();
        let [q0, q1, q2, q3] = q else {
            continue;
        };
        let (v0, v1, v2, v3) = (load8(q0), load8(q1), load8(q2), load8(q3));
        flags = or(flags, or(unord(v0, v1), unord(v2, v3)));
        a = pick8::<D>(v0, a);
        b = pick8::<D>(v1, b);
        c = pick8::<D>(v2, c);
        d = pick8::<D>(v3, d);
        if let Some(o) = out_blocks.next().filter(|_| ZERO) {
            let (o, _) = o.as_chunks_mut::<8>();
            for o in o {
                store8(o, zero);
            }
        }
    }
    let (eights, _) = rest.as_chunks::<8>();
    for v in eights {
        let v = load8(v);
        flags = or(flags, unord(v, v));
        a = pick8::<D>(v, a);
    }
    if ZERO {
        let (o, _) = out_rest.as_chunks_mut::<8>();
        for o in o {
            store8(o, zero);
        }
    }
    let m = pick8::<D>(pick8::<D>(c, a), pick8::<D>(d, b));
    let m = pick::<D>(_mm256_extractf128_ps::<1>(m), _mm256_castps256_ps128(m));
    let mut lanes = [0.0f32; 4];
    store(&mut lanes, m);
    let [l0, l1, l2, l3] = lanes;
    let best = |p: f32, q: f32| if D::better(q, p) { q } else { p };
    (best(best(l0, l1), best(l2, l3)), mask(flags) != 0)
}

/// Eight zeros.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn zero8() -> __m256 {
    _mm256_setzero_ps()
}

/// The position of the extreme of `row` (8 to 128 elements) by the order alone, or `None` if
/// the row holds a NaN.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn position<D: Direction, const LAST: bool>(row: &[f32]) -> Option<usize> {
    let (chunks, _) = row.as_chunks::<8>();
    let tail = load8(row.last_chunk::<8>()?);
    // Fold: two chains, both from the last eight elements.
    let (mut a, mut b) = (tail, tail);
    let mut flags = unord(tail, tail);
    let (pairs, rest) = chunks.as_chunks::<2>();
    for [v, w] in pairs {
        let (v, w) = (load8(v), load8(w));
        flags = or(flags, unord(v, w));
        a = pick8::<D>(v, a);
        b = pick8::<D>(w, b);
    }
    for v in rest {
        let v = load8(v);
        flags = or(flags, unord(v, v));
        a = pick8::<D>(v, a);
    }
    if mask(flags) != 0 {
        return None;
    }
    let a = pick8::<D>(b, a);
    let half = pick::<D>(_mm256_extractf128_ps::<1>(a), _mm256_castps256_ps128(a));
    let m = spread::<D>(half);
    let m = _mm256_set_m128(m, m);
    // One bit per element, 64 to a word: chunk k's eight bits at 8k, then the tail's bits past
    // the last whole chunk (the tail overlaps the chunks when n is not a multiple of eight).
    let (mut lo, mut hi) = (0u64, 0u64);
    let (first, second) = chunks.split_at(chunks.len().min(8));
    for (k, c) in first.iter().enumerate() {
        lo |= u64::from(mask(eq(load8(c), m))) << (8 * k);
    }
    for (k, c) in second.iter().enumerate() {
        hi |= u64::from(mask(eq(load8(c), m))) << (8 * k);
    }
    let whole = chunks.len() * 8;
    if whole < row.len() {
        let bits = u64::from(mask(eq(tail, m))) >> (whole + 8 - row.len());
        if whole < 64 {
            lo |= bits << whole;
        } else {
            hi |= bits << (whole - 64);
        }
    }
    // The word to search, chosen by selects (which half holds the answer is as random as the
    // data: a branch mispredicted).
    let upper = if LAST { hi != 0 } else { lo == 0 };
    let word = if upper { hi } else { lo };
    let base = if upper { 64 } else { 0 };
    // (`word` is never zero: the extreme is one of the row's elements. Were it zero, `min`
    // keeps the index in the row rather than wrap.)
    Some(if LAST {
        base + 63 - word.leading_zeros().min(63) as usize
    } else {
        base + word.trailing_zeros().min(63) as usize
    })
}

/// [`fold_planes`](super::reduce::fold_planes) in AVX2 (tiles of sixteen elements or more,
/// `planes` at least one): sixteen lanes at a time down the planes, two vectors, NaN flagged one
/// compare per two vectors; whether the parts held a NaN. Against SSE2 this halves the
/// instructions of the planes' fold, most of the work of a reduction over two axes apart.
///
/// # Safety
/// The CPU must have the features [`available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn fold_planes<D: Direction>(
    tile: &mut [f32],
    x: &[f32],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<bool> {
    let len = tile.len();
    if len < 16 || planes == 0 {
        return None;
    }
    #[cfg(not(feature = "small-code"))]
    if len >= 64 && crate::kernels::isa::level() >= crate::kernels::isa::AVX512 {
        // SAFETY: `level` found AVX-512 F (the caller, AVX2).
        return unsafe { fold512::fold_planes512::<D>(tile, x, planes, plane, at) };
    }
    let two = |at: usize| -> Option<(__m256, __m256)> {
        let ([a, b], _) = x.get(at..)?.first_chunk::<16>()?.as_chunks::<8>() else {
            return None;
        };
        Some((load8(a), load8(b)))
    };
    let mut flags = zero8();
    for c in (0..len).step_by(16) {
        // The last sixteen may overlap the ones before: the same lanes, folded the same.
        let c = c.min(len - 16);
        let (mut a, mut b) = two(at + c)?;
        flags = or(flags, unord(a, b));
        for p in 1..planes {
            let (v, w) = two(p * plane + at + c)?;
            flags = or(flags, unord(v, w));
            (a, b) = (pick8::<D>(v, a), pick8::<D>(w, b));
        }
        let out = tile.get_mut(c..).and_then(<[f32]>::first_chunk_mut::<16>)?;
        let ([o0, o1], _) = out.as_chunks_mut::<8>() else {
            return None;
        };
        store8(o0, a);
        store8(o1, b);
    }
    Some(mask(flags) != 0)
}

/// Stores `v` into `y`.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn store8(y: &mut [f32; 8], v: __m256) {
    // SAFETY: `y` holds eight `f32`s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_ps(y.as_mut_ptr(), v) }
}

/// The eight elements of `x`.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) fn load8(x: &[f32; 8]) -> __m256 {
    // SAFETY: `x` holds eight `f32`s; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_ps(x.as_ptr()) }
}

/// Lane by lane, `v` where it is strictly more extreme than `acc`, otherwise `acc` (NaN in `v`
/// never enters), as [`pick`] in eight lanes.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn pick8<D: Direction>(v: __m256, acc: __m256) -> __m256 {
    if D::IS_MIN {
        _mm256_min_ps(v, acc)
    } else {
        _mm256_max_ps(v, acc)
    }
}

/// Lanes where `a` or `b` is NaN.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn unord(a: __m256, b: __m256) -> __m256 {
    _mm256_cmp_ps::<_CMP_UNORD_Q>(a, b)
}

/// Lanes where `a == b`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn eq(a: __m256, b: __m256) -> __m256 {
    _mm256_cmp_ps::<_CMP_EQ_OQ>(a, b)
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn or(a: __m256, b: __m256) -> __m256 {
    _mm256_or_ps(a, b)
}

/// The sign bits of the eight lanes.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn mask(a: __m256) -> u32 {
    _mm256_movemask_ps(a).cast_unsigned()
}
