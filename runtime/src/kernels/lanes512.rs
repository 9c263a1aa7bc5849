//! Strided reductions (ReduceMax, ReduceMin) of `i64`, `u64` and `f32` in AVX-512: blocks of
//! rows of lanes, each lane reduced down its rows, with the AVX-512 64-bit integer max and min
//! or the `f32` max and min (a NaN flagged on the side and put back at the store).
//!
//! Written out in intrinsics rather than left to the portable lane fold compiled for AVX-512 (the
//! node shims' twin, `node/wide.rs`): in one build of the benchmark matrix LLVM vectorized that
//! fold's loop over rows instead of its lanes, eight rows a vector by gathers, and ReduceMin of
//! `i64` `[1000, 262]` along axis 0 ran at 4.4-4.7x of a streaming read (ReduceMax of the same
//! build 0.9-1.0x). Here a chunk of [`V`] vectors of lanes keeps its extremes in registers down
//! a group of [`ROWS`] rows and stores them once a group; a single vector (and the lanes past the
//! last whole vector, as one masked vector) keeps [`K`] extremes, of alternate pairs of rows, so
//! that its maxima are not one chain.
//!
//! `f32` lanes under sixteen (a narrow block) keep their own kernels. An `f32` lane's NaN: the
//! max and min instructions drop it, so each vector of extremes has a mask of lanes that met
//! one (one compare a pair of rows, the lanes of both rows at once: they are the same lanes),
//! and those lanes are stored as NaN; a folded block starts with the NaNs its `y` holds. On an
//! AMD EPYC (Zen 4), where the 2 MiB inputs of the matrix stream from L3 at about 100 GB/s, the
//! portable pass as built (SSE2, inlined in the generated code) took ReduceMax over axis 1 of
//! `[1638, 20, 16]` to 2.0x of a streaming read and `[32, 1000, 16]` to 1.47x.

use core::arch::x86_64::{
    __m512i, _mm512_castps_si512, _mm512_castsi512_ps, _mm512_cmp_ps_mask, _mm512_loadu_si512,
    _mm512_mask_mov_epi32, _mm512_mask_storeu_epi32, _mm512_mask_storeu_epi64,
    _mm512_maskz_loadu_epi32, _mm512_maskz_loadu_epi64, _mm512_max_epi64, _mm512_max_epu64,
    _mm512_max_ps, _mm512_min_epi64, _mm512_min_epu64, _mm512_min_ps, _mm512_set1_epi32,
    _mm512_set1_epi64, _mm512_storeu_si512, _CMP_UNORD_Q,
};

use crate::{DType, Direction, Element};

/// Vectors of a chunk: four independent chains of max/min, four loads a row.
const V: usize = 4;

/// Extremes a single vector keeps, of alternate pairs of rows (two chains).
const K: usize = 2;

/// Rows a chunk goes down with its extremes in registers before storing them.
const ROWS: usize = 16;

/// Blocks of up to this many bytes go down all their rows in one group rather than [`ROWS`] at
/// a time: the groups after the first read `y` back, just stored. AMD EPYC (Zen 4), kernel
/// alone, ReduceMax and ReduceMin over axis 1 of `[1638, 20, 16]` (a group of 16 rows and one
/// of 4 a block before) 34.5 -> 28.3 us.
const WHOLE_BYTES: usize = 8192;

/// Whether [`reduce_blocks`] takes blocks of `xs` elements in rows of `ys` lanes of `T`: `i64`
/// and `u64` at any width, `f32` rows of sixteen lanes or more (a whole vector) in blocks of
/// [`F32_ROWS`] rows or more.
#[inline(always)]
pub(super) const fn takes<T: Element>(xs: usize, ys: usize) -> bool {
    match T::DTYPE {
        DType::I64 | DType::U64 => true,
        DType::F32 => ys >= 16 && xs >= F32_ROWS * ys,
        _ => false,
    }
}

/// The fewest rows a block of `f32` takes this kernel with: blocks of fewer rows went faster
/// through the shims' own passes (AMD EPYC, Zen 4, 2 MiB, ReduceMax over axis 1: `[n, 2, 16]`
/// 54 -> 105 us here, `[n, 4, 16]` 46 -> 58, `[n, 3, 100]` 33 -> 40), blocks of more gained
/// (`[n, 5, 16]` 78 -> 53 us, `[n, 20, 16]` 62 -> 34, `[n, 8, 64]` 44 -> 34; `[n, 1000, 524]` 1.5%
/// slower than the AVX2 twin).
const F32_ROWS: usize = 5;

/// Lanes of a vector of `T`.
const fn lanes<T>() -> usize {
    64 / size_of::<T>()
}

/// The extreme of `D` of `a` and `b` in each lane of `T` (`f32`: either one where one is NaN).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn step<T: Element, D: Direction>(a: __m512i, b: __m512i) -> __m512i {
    let (fa, fb) = (_mm512_castsi512_ps(a), _mm512_castsi512_ps(b));
    match (T::DTYPE, D::IS_MIN) {
        (DType::I64, false) => _mm512_max_epi64(a, b),
        (DType::I64, true) => _mm512_min_epi64(a, b),
        (DType::U64, false) => _mm512_max_epu64(a, b),
        (DType::U64, true) => _mm512_min_epu64(a, b),
        (_, false) => _mm512_castps_si512(_mm512_max_ps(fa, fb)),
        (_, true) => _mm512_castps_si512(_mm512_min_ps(fa, fb)),
    }
}

/// The lanes where `a` or `b` is NaN (`f32`; none for integers).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn nan<T: Element>(a: __m512i, b: __m512i) -> u16 {
    if matches!(T::DTYPE, DType::F32) {
        _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))
    } else {
        0
    }
}

/// `v` with the lanes of `nans` set to NaN (`f32`; `v` for integers).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn with_nans<T: Element>(v: __m512i, nans: u16) -> __m512i {
    if matches!(T::DTYPE, DType::F32) && nans != 0 {
        _mm512_mask_mov_epi32(v, nans, _mm512_set1_epi32(f32::NAN.to_bits() as i32))
    } else {
        v
    }
}

/// The lanes of `mask` at `p` (every lane where `mask` is all of them), the rest zero.
///
/// # Safety
/// `p` readable for the lanes of `mask`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn load<T>(p: *const T, mask: u16) -> __m512i {
    // SAFETY: only the lanes of `mask` are read.
    unsafe {
        match (mask == full::<T>(), size_of::<T>()) {
            (true, _) => _mm512_loadu_si512(p.cast()),
            (false, 4) => _mm512_maskz_loadu_epi32(mask, p.cast()),
            _ => _mm512_maskz_loadu_epi64(mask as u8, p.cast()),
        }
    }
}

/// Stores the lanes of `mask` of `v` at `p`.
///
/// # Safety
/// `p` writable for the lanes of `mask`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn store<T>(p: *mut T, mask: u16, v: __m512i) {
    // SAFETY: only the lanes of `mask` are written.
    unsafe {
        match (mask == full::<T>(), size_of::<T>()) {
            (true, _) => _mm512_storeu_si512(p.cast(), v),
            (false, 4) => _mm512_mask_storeu_epi32(p.cast(), mask, v),
            _ => _mm512_mask_storeu_epi64(p.cast(), mask as u8, v),
        }
    }
}

/// The mask of a whole vector of `T`.
const fn full<T>() -> u16 {
    (((1u32 << lanes::<T>()) - 1) & 0xffff) as u16
}

/// Each block of `xs` elements of `x` (rows of `ys` lanes; a partial last row ignored) reduced
/// down its rows into its block of `ys` elements of `y`: from the identity when `fresh`, else
/// folded into what `y` holds (a NaN there stays). Blocks go while both `x` and `y` have one.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ (`isa::level` finds them); `T` must be `i64`,
/// `u64` or `f32` (any `xs >= ys > 0` is done exactly; [`takes`] says where it is faster).
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn reduce_blocks<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    fresh: bool,
) {
    let identity = D::identity::<T>();
    // SAFETY: `T` is `i64`, `u64` or `f32` (the caller's): its bits, splat.
    let identity = unsafe {
        if size_of::<T>() == 4 {
            _mm512_set1_epi32((&raw const identity).cast::<i32>().read())
        } else {
            _mm512_set1_epi64((&raw const identity).cast::<i64>().read())
        }
    };
    for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
        // SAFETY: `x` holds `xs / ys` rows of `ys` and `y` holds `ys`.
        unsafe { block::<T, D>(y.as_mut_ptr(), x.as_ptr(), (xs / ys, ys), fresh, identity) };
    }
}

/// One block: `rows` rows of `n` lanes at `x` into the `n` lanes at `y`.
///
/// # Safety
/// AVX-512 as [`reduce_blocks`]; `x` readable for `rows * n` and `y` writable for `n` of `T`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn block<T: Element, D: Direction>(
    y: *mut T,
    x: *const T,
    (rows, n): (usize, usize),
    fresh: bool,
    identity: __m512i,
) {
    let l = lanes::<T>();
    let all = full::<T>();
    let mut first = fresh;
    let mut done = 0;
    // Blocks of a few KiB go down all their rows at once: no second group reading `y` back.
    let whole = rows * n * size_of::<T>() <= WHOLE_BYTES;
    while done < rows {
        let group = if whole { rows } else { ROWS.min(rows - done) };
        // SAFETY: row `done` is within `x`.
        let g = unsafe { x.add(done * n) };
        let mut off = 0;
        let start = (first, identity);
        // SAFETY (the three passes): each reads lanes `off..off + width` (masked past `n`) of
        // the group's rows and of `y`, all within `n`.
        while off + V * l <= n {
            unsafe { chunk::<T, D, V, 1>(y.add(off), g.add(off), (group, n), start, all) };
            off += V * l;
        }
        while off + l <= n {
            unsafe { chunk::<T, D, 1, K>(y.add(off), g.add(off), (group, n), start, all) };
            off += l;
        }
        if off < n {
            let mask = ((1u32 << (n - off)) - 1) as u16;
            unsafe { chunk::<T, D, 1, K>(y.add(off), g.add(off), (group, n), start, mask) };
        }
        first = false;
        done += group;
    }
}

/// `W` vectors of lanes (the lanes of `mask` in each) down `rows` rows (`n` apart) into `y`,
/// from the identity where `first`, else from `y`: `W` extremes, each kept as `P` of alternate
/// pairs of rows; the rows past the last whole `2 P` into the first.
///
/// # Safety
/// `x` readable for `W` vectors of lanes (those of `mask`) of each of `rows` rows `n` apart, `y`
/// writable for them.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn chunk<T: Element, D: Direction, const W: usize, const P: usize>(
    y: *mut T,
    x: *const T,
    (rows, n): (usize, usize),
    (first, identity): (bool, __m512i),
    mask: u16,
) {
    let l = lanes::<T>();
    // SAFETY (loads and stores): within the lanes the caller's contract gives.
    let at = |r: usize, i: usize| unsafe { load(x.add(r * n + i * l), mask) };
    let mut nans = [0u16; W];
    let mut acc: [[__m512i; W]; P] = [[identity; W]; P];
    if !first {
        for (i, (a, m)) in acc[0].iter_mut().zip(nans.iter_mut()).enumerate() {
            *a = unsafe { load(y.add(i * l), mask) };
            *m = nan::<T>(*a, *a);
        }
    }
    let whole = rows / (2 * P) * (2 * P);
    for r in (0..whole).step_by(2 * P) {
        for (p, acc) in acc.iter_mut().enumerate() {
            for (i, (a, m)) in acc.iter_mut().zip(nans.iter_mut()).enumerate() {
                let (e0, e1) = (at(r + 2 * p, i), at(r + 2 * p + 1, i));
                *m |= nan::<T>(e0, e1);
                *a = step::<T, D>(*a, step::<T, D>(e0, e1));
            }
        }
    }
    for r in whole..rows {
        for (i, (a, m)) in acc[0].iter_mut().zip(nans.iter_mut()).enumerate() {
            let e = at(r, i);
            *m |= nan::<T>(e, e);
            *a = step::<T, D>(*a, e);
        }
    }
    for i in 0..W {
        let v = (1..P).fold(acc[0][i], |a, p| step::<T, D>(a, acc[p][i]));
        unsafe { store(y.add(i * l), mask, with_nans::<T>(v, nans[i])) };
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use crate::kernels::isa;
    use crate::kernels::test_util::{fold_definition, Lcg};
    use crate::{Direction, Element, Max, Min};

    /// Each lane of each block by the definition, over its rows in order (from the identity, or
    /// folded into `y`).
    fn expected<T: Element, D: Direction>(
        y: &[T],
        x: &[T],
        (xs, ys): (usize, usize),
        fresh: bool,
    ) -> Vec<T> {
        let rows = xs / ys;
        let mut want = y.to_vec();
        for (b, out) in want.chunks_exact_mut(ys).enumerate() {
            for (j, o) in out.iter_mut().enumerate() {
                let start = if fresh { D::identity::<T>() } else { *o };
                *o = fold_definition::<T, D>(start, (0..rows).map(|r| x[b * xs + r * ys + j]));
            }
        }
        want
    }

    /// Equal as the contract has it: both NaN (any NaN), else equal by value (-0 is +0).
    fn agree<T: Element>(a: T, b: T) -> bool {
        (a.is_nan() && b.is_nan()) || (!a.is_nan() && !b.is_nan() && !a.gt(b) && !a.lt(b))
    }

    fn run<T: Element + core::fmt::Debug, D: Direction>(
        y0: &[T],
        x: &[T],
        (xs, ys): (usize, usize),
        fresh: bool,
        what: &str,
    ) {
        let mut got = y0.to_vec();
        // SAFETY: the caller checked AVX-512; `T` is one of the kernel's; `xs >= ys > 0`.
        unsafe { super::reduce_blocks::<T, D>(&mut got, x, (xs, ys), fresh) };
        let want = expected::<T, D>(y0, x, (xs, ys), fresh);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                agree(*g, *w),
                "{} {what} fresh={fresh} lane {k}: got {g:?}, want {w:?}",
                if D::IS_MIN { "Min" } else { "Max" }
            );
        }
    }

    fn check<T: Element + core::fmt::Debug>(lanes: &[usize], draw: fn(&mut Lcg) -> T) {
        let mut g = Lcg(17);
        // Lanes: under a vector, a vector, between whole vectors and chunks, across chunks;
        // rows: one, within a pair, within a group (a whole number of pairs of pairs or not), a
        // group, across groups (blocks over `WHOLE_BYTES`) or all in one (blocks within);
        // blocks: one to three, with a partial row after each block's whole rows where `xs` is
        // not a multiple of `ys`.
        for &ys in lanes {
            for rows in [1, 2, 3, 5, 6, 15, 16, 17, 33, 40] {
                for (blocks, extra) in [(1, 0), (3, 0), (2, 5)] {
                    let xs = rows * ys + extra.min(ys - 1);
                    let x: Vec<T> = (0..blocks * xs + 3).map(|_| draw(&mut g)).collect();
                    let y0: Vec<T> = (0..blocks * ys).map(|_| draw(&mut g)).collect();
                    for fresh in [true, false] {
                        let what =
                            std::format!("{:?} ys={ys} rows={rows} blocks={blocks}", T::DTYPE);
                        run::<T, Max>(&y0, &x, (xs, ys), fresh, &what);
                        run::<T, Min>(&y0, &x, (xs, ys), fresh, &what);
                    }
                }
            }
        }
    }

    /// Every lane count, row count and block count the passes split differently, both
    /// directions, fresh and folded, against a plain fold; values over the whole type, so that
    /// a signed compare of `u64` (or unsigned of `i64`) shows, and the type's ends.
    #[test]
    fn strided_64_bit_reductions_match_a_plain_fold() {
        if isa::level() < isa::AVX512 {
            return;
        }
        let lanes = [1, 3, 7, 8, 9, 16, 24, 31, 32, 33, 40, 63, 64, 70, 262];
        // `Lcg::next` gives 31 bits: two make a value over the whole 64-bit range.
        fn any(g: &mut Lcg) -> u64 {
            (g.next() << 33) ^ g.next()
        }
        check::<i64>(&lanes, |g| match g.next() % 9 {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => any(g) as i64,
        });
        check::<u64>(&lanes, |g| match g.next() % 9 {
            0 => 0,
            1 => u64::MAX,
            _ => any(g),
        });
    }

    /// `f32` the same way, from sixteen lanes (what the kernel takes) across chunks of 64 and the
    /// masked last lanes: NaN now and then (a lane with one gives NaN, wherever in its rows or in
    /// a folded `y` it is, whatever its payload), the infinities, both zeros, values of any sign
    /// and size; and rows without NaN, whose extremes the NaN of other rows must not hide.
    #[test]
    fn strided_f32_reductions_match_the_definition() {
        if isa::level() < isa::AVX512 {
            return;
        }
        let lanes = [
            16, 17, 24, 31, 32, 47, 48, 63, 64, 65, 70, 80, 127, 128, 262,
        ];
        check::<f32>(&lanes, |g| match g.next() % 40 {
            0 => f32::NAN,
            1 => f32::from_bits(0xffc0_1234),
            2 => f32::INFINITY,
            3 => f32::NEG_INFINITY,
            4 => -0.0,
            5 => 0.0,
            _ => f32::from_bits(((g.next() << 33) ^ g.next()) as u32 & 0xbf7f_ffff),
        });
        check::<f32>(&lanes, |g| {
            f32::from_bits(((g.next() << 33) ^ g.next()) as u32 & 0xbf7f_ffff)
        });
    }
}
