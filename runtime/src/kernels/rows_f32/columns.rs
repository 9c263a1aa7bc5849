//! The arg-reductions of contiguous `f32` rows of [`MIN_ROW`] to [`MAX_ROW`] elements in
//! 32-byte AVX2 vectors, eight rows at a time turned into columns, for CPUs that have them
//! (checked at run time).
//!
//! Eight loads of eight elements from the rows' starts (past a row's end they read the next
//! row's first elements, which no column below looks at) are transposed by shuffles into eight
//! columns: column `j` holds element `j` of the eight rows (rows of up to four: loads of four,
//! rows `r` and `r + 4` in one vector, half the shuffles). The position of each row's extreme
//! is then found down the columns as the value itself is, lane by lane: a compare, a max (or
//! min) and a blend of the column's index per column. NaN is looked for over the eight loads
//! first; eight rows with one are done again by the exact rule.
//!
//! Rows this short cost the kernels that search each row for its extreme (the SSE2 kernel,
//! [`super::eights`]) a fold, a spread and a search per row: over rows of 3 to 7 they ran at
//! 5-8x the time of a streaming read. Here it is about seven instructions a row.

use core::arch::x86_64::{
    __m256, __m256i, _mm256_blendv_ps, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cmp_ps,
    _mm256_loadu2_m128, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_set1_epi32,
    _mm256_shuffle_ps, _mm256_storeu_si256, _mm256_unpackhi_ps, _mm256_unpacklo_ps, _CMP_GT_OQ,
    _CMP_LT_OQ,
};

use super::avx2::{mask, or, pick8, unord, zero8};
use super::{Ones, Values};
#[cfg(doc)]
use crate::kernels::arg_row::arg_row;
use crate::kernels::index::{index, Index};
use crate::Direction;

/// The shortest rows this kernel takes (rows of two have their own).
pub(in crate::kernels) const MIN_ROW: usize = 3;

/// The longest rows this kernel takes (one load per row).
pub(in crate::kernels) const MAX_ROW: usize = 8;

/// The index of the extreme of each contiguous row of `n` ([`MIN_ROW`] to [`MAX_ROW`]) of `x`
/// into `y`, as [`arg_row`] gives it, and with `VALUES` each row's extreme into `v` (of two
/// equal zeros either), for whole groups of eight rows whose loads stay within `x` (a group
/// reads eight elements from its last row's start); returns how many rows it did (0 for other
/// lengths), which the caller's kernel follows with the rest. With `HARD`, each group's Hardmax
/// outputs go to `ones` as soon as its positions are known.
///
/// # Safety
/// The CPU must have the features [`super::avx2::available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn arg_columns<
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
    const HARD: bool,
>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
    ones: Ones<'_, HARD>,
    n: usize,
) -> usize {
    crate::kernels::shared::align_frame();
    match n {
        3 => groups::<D, LAST, VALUES, I, HARD, 3>(x, y, v, ones),
        4 => groups::<D, LAST, VALUES, I, HARD, 4>(x, y, v, ones),
        5 => groups::<D, LAST, VALUES, I, HARD, 5>(x, y, v, ones),
        6 => groups::<D, LAST, VALUES, I, HARD, 6>(x, y, v, ones),
        7 => groups::<D, LAST, VALUES, I, HARD, 7>(x, y, v, ones),
        8 => groups::<D, LAST, VALUES, I, HARD, 8>(x, y, v, ones),
        _ => 0,
    }
}

/// [`arg_columns`] of rows of `N`.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn groups<
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
    const HARD: bool,
    const N: usize,
>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
    mut ones: Ones<'_, HARD>,
) -> usize {
    crate::kernels::shared::align_frame();
    // Group `q` reads up to `(8q + 7)N + W`: the groups whose reads stay within `x`.
    let w = if N <= 4 { 4 } else { 8 };
    let reach = x
        .len()
        .checked_sub(7 * N + w)
        .map_or(0, |r| r / (8 * N) + 1);
    let mut groups = reach.min(x.len() / (8 * N)).min(ones.rows() / 8);
    if !HARD {
        // (A Hardmax writes no indices: its outputs bound the groups.)
        groups = groups.min(y.len() / 8);
    }
    if VALUES {
        groups = groups.min(v.len() / 8);
    }
    let mut vals = Values::<VALUES>::new(v);
    for q in 0..groups {
        let Some(g) = x.get(q * 8 * N..q * 8 * N + 7 * N + w) else {
            return 0;
        };
        let o = y.get_mut(q * 8..q * 8 + 8).unwrap_or(&mut []);
        // SAFETY: row `r < 8` starts at `rN`, and `7N + w <= g.len()`: the reads below end
        // there at most.
        let (columns, nan) = if N <= 4 {
            // SAFETY: as above (four elements from each row's start).
            let rows: [__m256; 4] = core::array::from_fn(|r| unsafe {
                let p = g.as_ptr();
                _mm256_loadu2_m128(p.add((r + 4) * N), p.add(r * N))
            });
            let nan = or(unord(rows[0], rows[1]), unord(rows[2], rows[3]));
            (transpose4(rows), nan)
        } else {
            // SAFETY: as above (eight elements from each row's start).
            let rows: [__m256; 8] =
                core::array::from_fn(|r| unsafe { _mm256_loadu_ps(g.as_ptr().add(r * N)) });
            let nan = (0..4).fold(zero8(), |f, k| or(f, unord(rows[2 * k], rows[2 * k + 1])));
            (transpose(rows), nan)
        };
        if mask(nan) != 0 {
            vals.exact::<D, LAST, I>(o, g.chunks(N));
            ones.exact(q, g.chunks(N));
            continue;
        }
        let (best, at) = down::<D, LAST, N>(|j| columns[j % 8]);
        let mut extremes = [0.0f32; 8];
        super::avx2::store8(&mut extremes, best);
        vals.put8(&extremes);
        if HARD {
            // A Hardmax needs the positions only for its outputs.
            ones.columns::<N>(q, at);
            continue;
        }
        let mut positions = [0u32; 8];
        // SAFETY: `positions` holds 32 bytes; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(positions.as_mut_ptr().cast(), at) };
        for (o, &p) in o.iter_mut().zip(&positions) {
            *o = index::<I>(p as usize);
        }
    }
    groups * 8
}

/// The eight columns of eight rows: `out[j]` holds element `j` of rows 0 to 7, in that order.
#[inline]
#[target_feature(enable = "avx2")]
fn transpose(r: [__m256; 8]) -> [__m256; 8] {
    // Rows (0, 1), (2, 3), ... interleaved: elements 0, 1 (and 4, 5) of two rows, then 2, 3.
    let lo = |a, b| _mm256_unpacklo_ps(a, b);
    let hi = |a, b| _mm256_unpackhi_ps(a, b);
    let t = [
        lo(r[0], r[1]),
        hi(r[0], r[1]),
        lo(r[2], r[3]),
        hi(r[2], r[3]),
        lo(r[4], r[5]),
        hi(r[4], r[5]),
        lo(r[6], r[7]),
        hi(r[6], r[7]),
    ];
    // Four rows' element j in the low half, element j + 4 in the high half.
    let even = |a, b| _mm256_shuffle_ps::<0b01_00_01_00>(a, b);
    let odd = |a, b| _mm256_shuffle_ps::<0b11_10_11_10>(a, b);
    let u = [
        even(t[0], t[2]),
        odd(t[0], t[2]),
        even(t[1], t[3]),
        odd(t[1], t[3]),
        even(t[4], t[6]),
        odd(t[4], t[6]),
        even(t[5], t[7]),
        odd(t[5], t[7]),
    ];
    let low = |a, b| _mm256_permute2f128_ps::<0x20>(a, b);
    let high = |a, b| _mm256_permute2f128_ps::<0x31>(a, b);
    [
        low(u[0], u[4]),
        low(u[1], u[5]),
        low(u[2], u[6]),
        low(u[3], u[7]),
        high(u[0], u[4]),
        high(u[1], u[5]),
        high(u[2], u[6]),
        high(u[3], u[7]),
    ]
}

/// The first four columns of eight rows of at most four elements, loaded as rows `r` and
/// `r + 4` in the halves of `h[r]`: `out[j]` holds element `j` of rows 0 to 7, in that order
/// (the other four are not filled).
#[inline]
#[target_feature(enable = "avx2")]
fn transpose4(h: [__m256; 4]) -> [__m256; 8] {
    // Within each half, the 4x4 transpose of `transpose`'s first two steps.
    let t = [
        _mm256_unpacklo_ps(h[0], h[1]),
        _mm256_unpackhi_ps(h[0], h[1]),
        _mm256_unpacklo_ps(h[2], h[3]),
        _mm256_unpackhi_ps(h[2], h[3]),
    ];
    let z = zero8();
    [
        _mm256_shuffle_ps::<0b01_00_01_00>(t[0], t[2]),
        _mm256_shuffle_ps::<0b11_10_11_10>(t[0], t[2]),
        _mm256_shuffle_ps::<0b01_00_01_00>(t[1], t[3]),
        _mm256_shuffle_ps::<0b11_10_11_10>(t[1], t[3]),
        z,
        z,
        z,
        z,
    ]
}

/// Each lane's extreme over the `N` columns `c(0)` to `c(N - 1)` (no NaN) and its column: the
/// first (the last with `LAST`) of equal ones, the columns taken in order (in reverse with
/// `LAST`), a column replacing the best only where strictly more extreme.
#[inline(always)]
fn down<D: Direction, const LAST: bool, const N: usize>(
    c: impl Fn(usize) -> __m256,
) -> (__m256, __m256i) {
    let order = |k: usize| if LAST { N - 1 - k } else { k };
    // SAFETY: the callers' target features include AVX2.
    unsafe {
        let mut best = c(order(0));
        let mut at = _mm256_castsi256_ps(_mm256_set1_epi32(order(0) as i32));
        for k in 1..N {
            let j = order(k);
            let col = c(j);
            let better = if D::IS_MIN {
                _mm256_cmp_ps::<_CMP_LT_OQ>(col, best)
            } else {
                _mm256_cmp_ps::<_CMP_GT_OQ>(col, best)
            };
            best = pick8::<D>(col, best);
            at = _mm256_blendv_ps(at, _mm256_castsi256_ps(_mm256_set1_epi32(j as i32)), better);
        }
        (best, _mm256_castps_si256(at))
    }
}
