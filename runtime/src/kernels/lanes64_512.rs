//! Strided reductions (ReduceMax, ReduceMin) of `i64` and `u64` in AVX-512: blocks of rows of
//! lanes, each lane reduced down its rows, with the AVX-512 64-bit integer max and min.
//!
//! Written out in intrinsics rather than left to the portable lane fold compiled for AVX-512 (the
//! node shims' twin, `node/wide.rs`): in one build of the benchmark matrix LLVM vectorized that
//! fold's loop over rows instead of its lanes, eight rows a vector by gathers, and ReduceMin of
//! `i64` `[1000, 262]` along axis 0 ran at 4.4-4.7x of a streaming read (ReduceMax of the same
//! build 0.9-1.0x). Here a chunk of [`V`] vectors of lanes keeps its extremes in registers down
//! a group of [`ROWS`] rows and stores them once a group; the lanes past the last whole vector
//! go as one masked vector.

use core::arch::x86_64::{
    __m512i, _mm512_loadu_si512, _mm512_mask_storeu_epi64, _mm512_maskz_loadu_epi64,
    _mm512_max_epi64, _mm512_max_epu64, _mm512_min_epi64, _mm512_min_epu64, _mm512_set1_epi64,
    _mm512_storeu_si512,
};

use crate::{DType, Direction, Element};

/// Lanes of a vector.
const L: usize = 8;

/// Vectors of a chunk: four independent chains of max/min, four loads a row.
const V: usize = 4;

/// Rows a chunk goes down with its extremes in registers before storing them.
const ROWS: usize = 16;

/// Whether [`reduce_blocks`] takes `T`: `i64` and `u64`.
#[inline(always)]
pub(super) const fn takes<T: Element>() -> bool {
    matches!(T::DTYPE, DType::I64 | DType::U64)
}

/// The extreme of `D` of `a` and `b` in each lane, as signed or unsigned 64-bit integers.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn step<D: Direction, const SIGNED: bool>(a: __m512i, b: __m512i) -> __m512i {
    match (D::IS_MIN, SIGNED) {
        (false, true) => _mm512_max_epi64(a, b),
        (true, true) => _mm512_min_epi64(a, b),
        (false, false) => _mm512_max_epu64(a, b),
        (true, false) => _mm512_min_epu64(a, b),
    }
}

/// Each block of `xs` elements of `x` (rows of `ys` lanes; a partial last row ignored) reduced
/// down its rows into its block of `ys` elements of `y`: from the identity when `fresh`, else
/// folded into what `y` holds. Blocks go while both `x` and `y` have one.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ (`isa::level` finds them); `T` must be one that
/// [`takes`] holds for; `xs >= ys > 0`.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn reduce_blocks<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    fresh: bool,
) {
    let identity = D::identity::<T>();
    // SAFETY: `T` is `i64` or `u64` (the caller's): eight bytes of an integer.
    let identity = _mm512_set1_epi64(unsafe { (&raw const identity).cast::<i64>().read() });
    for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
        let (x, y) = (x.as_ptr().cast::<i64>(), y.as_mut_ptr().cast::<i64>());
        let rows = xs / ys;
        // SAFETY: `x` holds `rows` rows of `ys` and `y` holds `ys`, of 8-byte integers.
        unsafe {
            if matches!(T::DTYPE, DType::I64) {
                block::<D, true>(y, x, (rows, ys), fresh, identity);
            } else {
                block::<D, false>(y, x, (rows, ys), fresh, identity);
            }
        }
    }
}

/// One block: `rows` rows of `n` lanes at `x` into the `n` lanes at `y`.
///
/// # Safety
/// AVX-512 as [`reduce_blocks`]; `x` readable for `rows * n` and `y` writable for `n` 8-byte
/// integers.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn block<D: Direction, const SIGNED: bool>(
    y: *mut i64,
    x: *const i64,
    (rows, n): (usize, usize),
    fresh: bool,
    identity: __m512i,
) {
    let mut first = fresh;
    let mut done = 0;
    while done < rows {
        let group = ROWS.min(rows - done);
        // SAFETY: row `done` is within `x`.
        let g = unsafe { x.add(done * n) };
        let mut off = 0;
        // SAFETY (the three passes): each reads lanes `off..off + width` (masked past `n`) of
        // the group's rows and of `y`, all within `n`.
        while off + V * L <= n {
            unsafe { chunk::<D, SIGNED, V>(y.add(off), g.add(off), (group, n), first, identity) };
            off += V * L;
        }
        while off + L <= n {
            unsafe { chunk::<D, SIGNED, 1>(y.add(off), g.add(off), (group, n), first, identity) };
            off += L;
        }
        if off < n {
            let mask = (1u8 << (n - off)) - 1;
            unsafe {
                tail::<D, SIGNED>(y.add(off), g.add(off), (group, n), (first, mask), identity)
            };
        }
        first = false;
        done += group;
    }
}

/// `W` whole vectors of lanes down `rows` rows (`n` apart) into `y`.
///
/// # Safety
/// `x` readable for `W * L` lanes of each of `rows` rows `n` apart, `y` for `W * L` lanes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn chunk<D: Direction, const SIGNED: bool, const W: usize>(
    y: *mut i64,
    x: *const i64,
    (rows, n): (usize, usize),
    first: bool,
    identity: __m512i,
) {
    // SAFETY (loads and stores): within the lanes the caller's contract gives.
    let mut acc: [__m512i; W] = core::array::from_fn(|i| {
        if first {
            identity
        } else {
            unsafe { _mm512_loadu_si512(y.add(i * L).cast()) }
        }
    });
    for r in 0..rows {
        let p = unsafe { x.add(r * n) };
        for (i, a) in acc.iter_mut().enumerate() {
            *a = step::<D, SIGNED>(*a, unsafe { _mm512_loadu_si512(p.add(i * L).cast()) });
        }
    }
    for (i, a) in acc.iter().enumerate() {
        unsafe { _mm512_storeu_si512(y.add(i * L).cast(), *a) };
    }
}

/// The lanes of `mask` (the first few of a vector) down `rows` rows (`n` apart) into `y`.
///
/// # Safety
/// `x` readable for the lanes of `mask` of each of `rows` rows `n` apart, `y` for those lanes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn tail<D: Direction, const SIGNED: bool>(
    y: *mut i64,
    x: *const i64,
    (rows, n): (usize, usize),
    (first, mask): (bool, u8),
    identity: __m512i,
) {
    // SAFETY (masked loads and store): only the lanes of `mask` are touched.
    let mut acc = if first {
        identity
    } else {
        unsafe { _mm512_maskz_loadu_epi64(mask, y) }
    };
    for r in 0..rows {
        acc = step::<D, SIGNED>(acc, unsafe { _mm512_maskz_loadu_epi64(mask, x.add(r * n)) });
    }
    unsafe { _mm512_mask_storeu_epi64(y, mask, acc) };
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use crate::kernels::isa;
    use crate::kernels::test_util::Lcg;
    use crate::{Direction, Element, Max, Min};

    /// Each lane of each block by a plain loop over its rows (from the identity, or from `y`).
    fn expected<T: Element + Ord, D: Direction>(
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
                let lane = (0..rows).map(|r| x[b * xs + r * ys + j]);
                *o = lane.fold(start, |a, v| if D::IS_MIN { a.min(v) } else { a.max(v) });
            }
        }
        want
    }

    fn check<T: Element + Ord + core::fmt::Debug>(draw: fn(&mut Lcg) -> T) {
        let mut g = Lcg(17);
        // Lanes: under a vector, a vector, between whole vectors and chunks, across chunks;
        // rows: one, within a group, a group, across groups; blocks: one to three, with a
        // partial row after each block's whole rows where `xs` is not a multiple of `ys`.
        for ys in [1, 3, 7, 8, 9, 16, 24, 31, 32, 33, 40, 63, 64, 70, 262] {
            for rows in [1, 2, 5, 15, 16, 17, 33, 40] {
                for (blocks, extra) in [(1, 0), (3, 0), (2, 5)] {
                    let xs = rows * ys + extra.min(ys - 1);
                    let x: Vec<T> = (0..blocks * xs + 3).map(|_| draw(&mut g)).collect();
                    let y0: Vec<T> = (0..blocks * ys).map(|_| draw(&mut g)).collect();
                    for fresh in [true, false] {
                        let what =
                            std::format!("{:?} ys={ys} rows={rows} blocks={blocks}", T::DTYPE);
                        let mut got = y0.clone();
                        // SAFETY: the caller checked AVX-512; `T` is `i64` or `u64`; `xs >= ys`.
                        unsafe { super::reduce_blocks::<T, Max>(&mut got, &x, (xs, ys), fresh) };
                        let want = expected::<T, Max>(&y0, &x, (xs, ys), fresh);
                        assert_eq!(got, want, "Max {what} fresh={fresh}");
                        let mut got = y0.clone();
                        unsafe { super::reduce_blocks::<T, Min>(&mut got, &x, (xs, ys), fresh) };
                        let want = expected::<T, Min>(&y0, &x, (xs, ys), fresh);
                        assert_eq!(got, want, "Min {what} fresh={fresh}");
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
        // `Lcg::next` gives 31 bits: two make a value over the whole 64-bit range.
        fn any(g: &mut Lcg) -> u64 {
            (g.next() << 33) ^ g.next()
        }
        check::<i64>(|g| match g.next() % 9 {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => any(g) as i64,
        });
        check::<u64>(|g| match g.next() % 9 {
            0 => 0,
            1 => u64::MAX,
            _ => any(g),
        });
    }
}
