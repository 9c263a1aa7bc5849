//! Hardmax of contiguous `f32` rows of [`MIN_ROW`] to [`MAX_ROW`] elements by equality with the
//! row's maximum, in 32-byte AVX2 vectors, for CPUs that have them (checked at run time).
//!
//! Each row is folded into eight lanes by the order alone (its last eight elements first, then
//! the whole vectors before them in four chains), the lanes' maximum is spread to every lane,
//! and the row is read again from L1 while its outputs are written whole: 1 where an element
//! equals the maximum or is NaN (unordered), 0 elsewhere. The lanes of those compares are
//! counted, each element once (the last vector's lanes that the whole vectors already covered
//! are left out of the count), over a group of [`GROUP`] rows. Every row counts at least one
//! lane (its maximum is one of its elements, or a NaN is), so a group whose count equals its
//! number of rows holds exactly one 1 per row: the maximum, unique, of a row without NaN, or
//! the row's only NaN. Any other group (ties, ±0 together at the maximum, NaN) is mended row
//! by row ([`mend`]): a row with a NaN by the exact rule, a tie by its first maximum. After a
//! mended group, the next groups go by the kernels that find positions first
//! ([`by_positions`]), more of them for each mended group in a row: rows with many ties
//! (integers, quantized values, rows of zeros) would otherwise pay the mending for nearly every
//! group (2.8-4.1x slower than those kernels over 2 MiB of integers 0 to 63; 1.0-1.3x with the
//! hand-over).
//!
//! Against the kernels these rows took before (eight rows' positions as bit masks, then their
//! zeros and ones; rows past 64 one at a time with lanes that keep their positions), this does
//! no per-row bit work and no scalar stores on the way; measured in the README (Hardmax of short
//! f32 rows by equality).

use core::arch::x86_64::{
    __m256, __m256i, _mm256_and_ps, _mm256_and_si256, _mm256_castps_si256, _mm256_castsi256_si128,
    _mm256_cmp_ps, _mm256_cmpgt_epi32, _mm256_extracti128_si256, _mm256_loadu_ps,
    _mm256_movemask_ps, _mm256_permute2f128_ps, _mm256_permutevar8x32_ps, _mm256_set1_epi32,
    _mm256_set1_ps, _mm256_setr_epi32, _mm256_setzero_ps, _mm256_setzero_si256, _mm256_shuffle_ps,
    _mm256_storeu_ps, _mm256_sub_epi32, _mm_add_epi32, _mm_cvtsi128_si32, _mm_shuffle_epi32,
    _CMP_EQ_UQ,
};

use super::avx2::{eq, pick8, unord};
use super::eights::{across8, MAX_ROW as EIGHTS_MAX};
use super::hard_eights::hardmax_eights;
use super::hard_row::hardmax_rows_one;
use super::Ones;
use crate::kernels::hardmax::hardmax_row;
use crate::{DType, Element, Max};

/// The shortest rows this kernel takes (shorter ones were as fast or faster by the kernels of
/// eight rows at a time, whose per-row bit work is smaller there: rows of 9 and 12 1.0-1.3x
/// slower this way, of 13 to 15 the same).
pub(in crate::kernels) const MIN_ROW: usize = 13;

/// The longest rows this kernel takes: 4 KiB, read twice, the second time from L1. Longer rows
/// keep the kernel of parts ([`super::hard_row`]), which was faster from rows of 1500 (1.04-1.25x
/// slower this way over rows of 1500 to 4096).
pub(in crate::kernels) const MAX_ROW: usize = 1024;

/// Rows longer than this take the kernel only eight or more at a time: a single row of 200 to
/// 1000 waits on its two passes one after the other, where the kernel of parts stores its zeros
/// during its one read (a row of 400 1.4x slower this way, two rows of 200 1.2x; three rows of
/// 128 0.7x, one row of 80 alike).
const FEW_FROM: usize = 128;

/// Rows whose counts are checked together.
const GROUP: usize = 8;

/// Hardmax of each contiguous row of `n` (13 to 1024) by equality with its maximum, by the AVX2
/// kernel ([`hardmax_rows_equal`]) where the CPU has it: `false` (nothing done) otherwise. `N` is `n`
/// where the caller has it as a constant, 0 otherwise.
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline(always)]
pub(in crate::kernels) fn hardmax_rows_by_equality<T: Element, const N: usize>(
    x: &[T],
    y: &mut [T],
    n: usize,
) -> bool {
    if (N != 0 && N != n)
        || cfg!(feature = "small-code")
        || !matches!(T::DTYPE, DType::F32)
        || !(MIN_ROW..=MAX_ROW).contains(&n)
        || !super::avx2::available()
    {
        return false;
    }
    let (Some(x), Some(y)) = (T::f32s(x), T::f32s_mut(y)) else {
        return false;
    };
    // SAFETY: `available` found the features the kernel is compiled for.
    unsafe { hardmax_rows_equal::<N>(x, y, n) }
}

/// Hardmax of each contiguous row of `n` ([`MIN_ROW`] to [`MAX_ROW`]) of `x` into `y`; `false`
/// (nothing done) for other lengths, fewer than eight rows longer than [`FEW_FROM`], or where `y`
/// is not as long as `x`. `N` is `n` where the caller has it as a constant (the row's loops then
/// unroll), 0 otherwise (rows of up to sixteen vectors then take the instance of their number of
/// vectors).
///
/// # Safety
/// The CPU must have the features [`super::avx2::available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn hardmax_rows_equal<const N: usize>(
    x: &[f32],
    y: &mut [f32],
    n: usize,
) -> bool {
    let n = if N == 0 { n } else { N };
    if !(MIN_ROW..=MAX_ROW).contains(&n)
        || x.len() != y.len()
        || (n > FEW_FROM && x.len() < GROUP * n)
    {
        return false;
    }
    if N != 0 {
        rows::<N, 0>(x, y);
        return true;
    }
    match n.div_ceil(8) {
        2 => rows_of::<2>(x, y, n),
        3 => rows_of::<3>(x, y, n),
        4 => rows_of::<4>(x, y, n),
        5 => rows_of::<5>(x, y, n),
        6 => rows_of::<6>(x, y, n),
        7 => rows_of::<7>(x, y, n),
        8 => rows_of::<8>(x, y, n),
        9 => rows_of::<9>(x, y, n),
        10 => rows_of::<10>(x, y, n),
        11 => rows_of::<11>(x, y, n),
        12 => rows_of::<12>(x, y, n),
        13 => rows_of::<13>(x, y, n),
        14 => rows_of::<14>(x, y, n),
        15 => rows_of::<15>(x, y, n),
        16 => rows_of::<16>(x, y, n),
        _ => rows_of::<0>(x, y, n),
    }
    true
}

/// [`rows`] with the row length known at run time and, unless `K` is 0, its number of vectors
/// as a constant.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn rows_of<const K: usize>(x: &[f32], y: &mut [f32], n: usize) {
    let shape = Shape::new::<K>(n);
    every_row::<0>(x, y, shape);
}

/// [`every_row`] of rows of the constant `N`.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn rows<const N: usize, const K: usize>(x: &[f32], y: &mut [f32]) {
    let shape = Shape::new::<K>(N);
    every_row::<N>(x, y, shape);
}

/// A row's layout in vectors: `whole` vectors from its start, then its last eight elements, of
/// which the first `held` the whole vectors already hold.
#[derive(Clone, Copy)]
struct Shape {
    /// The row's length (at least eight).
    n: usize,
    /// Whole vectors before the last eight elements: `(n - 1) / 8`.
    whole: usize,
    /// Lanes of the last vector that no whole vector holds, as a mask (all ones there).
    fresh: __m256i,
    /// How many lanes at the start of the last vector the whole vectors hold (0 to 7).
    held: u32,
}

impl Shape {
    /// The shape of rows of `n` (at least eight); `K`, if not 0, is `n.div_ceil(8)`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new<const K: usize>(n: usize) -> Shape {
        let whole = if K == 0 { (n - 1) / 8 } else { K - 1 };
        let held = 8 * whole + 8 - n;
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        // `held` is at most 7, so the cast is exact.
        let fresh = _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(held as i32 - 1));
        Shape {
            n,
            whole,
            fresh,
            held: held as u32,
        }
    }
}

/// Hardmax of each whole row of `x` into `y` (as long as `x`), [`GROUP`] rows' counts at a
/// time. After a group that had to be mended, the next groups ([`CALM_MIN`], twice as many after each
/// mended group in a row, up to [`CALM_MAX`]) go by the kernels that find positions first
/// ([`by_positions`]), which ties do not slow: rows with many ties (integers, quantized values,
/// rows of zeros) would otherwise pay the mending for nearly every group.
#[inline(always)]
fn every_row<const N: usize>(x: &[f32], y: &mut [f32], shape: Shape) {
    let n = shape.n;
    let rows = x.len() / n;
    let (x, y) = (&x[..rows * n], &mut y[..rows * n]);
    // SAFETY (the intrinsics below): the callers run only with AVX2 (`hardmax_rows_equal`'s
    // contract).
    let one = unsafe { _mm256_set1_ps(1.0) };
    let (mut calm, mut next_calm) = (0, CALM_MIN);
    let mut at = 0;
    while at < rows {
        if calm > 0 {
            let end = (at + calm * GROUP).min(rows);
            // SAFETY: AVX2 as above.
            unsafe { by_positions::<N>(&x[at * n..end * n], &mut y[at * n..end * n], n) };
            (at, calm) = (end, 0);
            continue;
        }
        let end = (at + GROUP).min(rows);
        let (gx, gy) = (&x[at * n..end * n], &mut y[at * n..end * n]);
        at = end;
        let mut count = unsafe { _mm256_setzero_si256() };
        if shape.whole < 4 && gx.len() == GROUP * n {
            // Short rows, a whole group: the eight rows' lanes reduced together, each row's
            // maximum then spread from its lane.
            let mut m = [unsafe { _mm256_setzero_ps() }; GROUP];
            for (m, row) in m.iter_mut().zip(gx.chunks_exact(n)) {
                // SAFETY: `row` holds `n` elements; AVX2 as above.
                *m = unsafe { lanes(row, shape) };
            }
            let m = unsafe { across8::<Max>(m) };
            for (r, (row, out)) in gx.chunks_exact(n).zip(gy.chunks_exact_mut(n)).enumerate() {
                // SAFETY: as above.
                unsafe {
                    let s = _mm256_permutevar8x32_ps(m, _mm256_set1_epi32(r as i32));
                    count = _mm256_sub_epi32(count, outputs(row, out, s, one, shape));
                }
            }
        } else {
            for (row, out) in gx.chunks_exact(n).zip(gy.chunks_exact_mut(n)) {
                // SAFETY: `row` and `out` hold `n` elements; AVX2 as above.
                unsafe {
                    let s = maximum(row, shape);
                    count = _mm256_sub_epi32(count, outputs(row, out, s, one, shape));
                }
            }
        }
        // SAFETY: AVX2 as above.
        if unsafe { total(count) } == (gx.len() / n) as i64 {
            next_calm = CALM_MIN;
        } else {
            // SAFETY: AVX2 as above.
            unsafe { mend(gx, gy, shape) };
            calm = next_calm;
            next_calm = (2 * next_calm).min(CALM_MAX);
        }
    }
}

/// The groups taken by [`by_positions`] after a first mended group (a group to mend costs about
/// four of the others).
const CALM_MIN: usize = 4;

/// The most groups taken by [`by_positions`] after a mended group before the kernel tries again.
const CALM_MAX: usize = 256;

/// Hardmax of the rows of `n` of `x` into `y` by the kernels that find each row's position
/// first: eight rows at a time for rows up to 64 ([`super::hard_eights`]), then one at a time
/// ([`super::hard_row`]).
///
/// # Safety
/// The CPU must have the features [`super::avx2::available`] checks.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2,bmi1,bmi2")]
unsafe fn by_positions<const N: usize>(x: &[f32], y: &mut [f32], n: usize) {
    crate::kernels::shared::align_frame();
    let mut done = 0;
    if n <= EIGHTS_MAX {
        // SAFETY: the caller's.
        done = unsafe { hardmax_eights::<N>(x, Ones::new(y, n), n) };
    }
    // SAFETY: the caller's.
    let taken = unsafe { hardmax_rows_one::<N>(&x[done * n..], &mut y[done * n..], n) };
    debug_assert!(taken);
}

/// The eight elements of `row` from `at`.
///
/// # Safety
/// `at + 8 <= row.len()`; the CPU has AVX2.
#[inline(always)]
unsafe fn load(row: &[f32], at: usize) -> __m256 {
    debug_assert!(at + 8 <= row.len());
    // SAFETY: the caller's; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_ps(row.as_ptr().add(at)) }
}

/// The maximum of `row` (`shape.n` elements) by the order alone, in every lane (lanes may
/// differ where the row holds a NaN).
///
/// # Safety
/// `row.len() == shape.n`; the CPU has AVX2.
#[inline(always)]
unsafe fn maximum(row: &[f32], shape: Shape) -> __m256 {
    // SAFETY: the caller's.
    unsafe {
        let m = lanes(row, shape);
        let m = pick8::<Max>(m, _mm256_permute2f128_ps::<1>(m, m));
        let m = pick8::<Max>(m, _mm256_shuffle_ps::<0b01_00_11_10>(m, m));
        pick8::<Max>(m, _mm256_shuffle_ps::<0b10_11_00_01>(m, m))
    }
}

/// `row` (`shape.n` elements) folded into eight lanes by the order alone: its last eight
/// elements, then the whole vectors before them.
///
/// # Safety
/// `row.len() == shape.n`; the CPU has AVX2.
#[inline(always)]
unsafe fn lanes(row: &[f32], shape: Shape) -> __m256 {
    // SAFETY: every load ends by `shape.n` (the whole vectors before `n - 8`, then the last
    // eight); AVX2 is the caller's.
    unsafe {
        let mut a = load(row, shape.n - 8);
        if shape.whole < 4 {
            // One chain: a row this short waits on its few compares either way.
            for k in 0..shape.whole {
                a = pick8::<Max>(load(row, 8 * k), a);
            }
            a
        } else {
            let (mut b, mut c, mut d) = (load(row, 0), load(row, 8), load(row, 16));
            let mut k = 3;
            while k + 4 <= shape.whole {
                a = pick8::<Max>(load(row, 8 * k), a);
                b = pick8::<Max>(load(row, 8 * k + 8), b);
                c = pick8::<Max>(load(row, 8 * k + 16), c);
                d = pick8::<Max>(load(row, 8 * k + 24), d);
                k += 4;
            }
            while k < shape.whole {
                a = pick8::<Max>(load(row, 8 * k), a);
                k += 1;
            }
            pick8::<Max>(pick8::<Max>(a, c), pick8::<Max>(b, d))
        }
    }
}

/// The outputs of `row` into `out` (both `shape.n` long): 1 where an element equals its lane of
/// `s` or is NaN, 0 elsewhere; returns those lanes as all-ones, each element counted once.
///
/// # Safety
/// `row.len() == out.len() == shape.n`; the CPU has AVX2.
#[inline(always)]
unsafe fn outputs(row: &[f32], out: &mut [f32], s: __m256, one: __m256, shape: Shape) -> __m256i {
    debug_assert!(row.len() == shape.n && out.len() == shape.n);
    // SAFETY: as in `maximum`; the stores write `out` at the loads' offsets.
    unsafe {
        let mut count = _mm256_setzero_si256();
        for k in 0..shape.whole {
            count = _mm256_sub_epi32(count, put(row, out, 8 * k, s, one));
        }
        let last = _mm256_and_si256(put(row, out, shape.n - 8, s, one), shape.fresh);
        _mm256_sub_epi32(count, last)
    }
}

/// The eight outputs at `at`: 1 where `row`'s element equals its lane of `s` or is NaN, else
/// 0; returns those lanes as all-ones.
///
/// # Safety
/// `at + 8 <= row.len() == out.len()`; the CPU has AVX2.
#[inline(always)]
unsafe fn put(row: &[f32], out: &mut [f32], at: usize, s: __m256, one: __m256) -> __m256i {
    debug_assert!(at + 8 <= out.len());
    // SAFETY: the caller's.
    unsafe {
        let e = _mm256_cmp_ps::<_CMP_EQ_UQ>(load(row, at), s);
        _mm256_storeu_ps(out.as_mut_ptr().add(at), _mm256_and_ps(e, one));
        _mm256_castps_si256(e)
    }
}

/// The sum of the eight lanes of `count` (negated counts of all-ones lanes: the count).
#[inline(always)]
unsafe fn total(count: __m256i) -> i64 {
    // SAFETY: the caller's AVX2.
    unsafe {
        let c = _mm_add_epi32(
            _mm256_castsi256_si128(count),
            _mm256_extracti128_si256::<1>(count),
        );
        let c = _mm_add_epi32(c, _mm_shuffle_epi32::<0b01_00_11_10>(c));
        let c = _mm_add_epi32(c, _mm_shuffle_epi32::<0b10_11_00_01>(c));
        -i64::from(_mm_cvtsi128_si32(c))
    }
}

/// The rows of a group whose count was off, again: a row with a NaN by the exact rule, a row
/// whose maximum occurs more than once by its first occurrence; the
/// others are already right.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn mend(gx: &[f32], gy: &mut [f32], shape: Shape) {
    crate::kernels::shared::align_frame();
    let n = shape.n;
    for (row, out) in gx.chunks_exact(n).zip(gy.chunks_exact_mut(n)) {
        // SAFETY: `row` holds `n` elements; AVX2 is this function's. Without a NaN, every
        // lane holds the maximum.
        let s = unsafe { maximum(row, shape) };
        let (mut nan, mut count, mut first) = (false, 0u32, None);
        for k in 0..shape.whole {
            // SAFETY: `8 * k + 8 <= n`.
            let (nans, bits) = unsafe { bits(row, 8 * k, s, 0) };
            note(&mut nan, &mut count, &mut first, 8 * k, nans, bits);
        }
        // SAFETY: `n >= 8`.
        let (nans, bits) = unsafe { bits(row, n - 8, s, shape.held) };
        note(
            &mut nan,
            &mut count,
            &mut first,
            n - 8 + shape.held as usize,
            nans,
            bits,
        );
        if nan {
            hardmax_row(row, out);
        } else if count != 1 {
            out.fill(0.0);
            if let Some(o) = first.and_then(|at| out.get_mut(at)) {
                *o = 1.0;
            }
        }
    }
}

/// The NaN lanes and the lanes equal to `s` of the eight elements of `row` at `at`, past the
/// first `held` lanes (their bits shifted out).
///
/// # Safety
/// `at + 8 <= row.len()`; the CPU has AVX2.
#[inline(always)]
unsafe fn bits(row: &[f32], at: usize, s: __m256, held: u32) -> (u32, u32) {
    // SAFETY: the caller's.
    unsafe {
        let v = load(row, at);
        (
            _mm256_movemask_ps(unord(v, v)).cast_unsigned() >> held,
            _mm256_movemask_ps(eq(v, s)).cast_unsigned() >> held,
        )
    }
}

/// Adds the bits of the elements from `at` to a row's tally: whether it holds a NaN, how many
/// elements equal its maximum, the first of them.
fn note(
    nan: &mut bool,
    count: &mut u32,
    first: &mut Option<usize>,
    at: usize,
    nans: u32,
    bits: u32,
) {
    *nan |= nans != 0;
    *count += bits.count_ones();
    if first.is_none() && bits != 0 {
        *first = Some(at + bits.trailing_zeros() as usize);
    }
}

#[cfg(test)]
#[path = "tests_equal.rs"]
mod tests;
