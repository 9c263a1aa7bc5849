//! The arg-reductions of contiguous `f64` rows of [`MIN_ROW`] to [`MAX_ROW`] elements in AVX2
//! vectors, four rows at a time, for CPUs that have them (the entry checks).
//!
//! The row kernels walk an `f64` row of a few vectors one row at a time and pay a setup and a
//! horizontal step per row (rows of 12 to 80: 2.2-2.6x of a streaming read); here a group of
//! four rows is looked at for NaN first (two vectors per compare; a group with one is done
//! again by the exact rule), then each row is folded by the order alone into the four lanes of
//! one vector (its last four elements first, so any length is covered: a max or min may see an
//! element twice), the four rows' vectors are reduced together by shuffles into one vector of
//! their extremes (row `r` in lane `r`), and each row's position is the lowest (highest with
//! `LAST`) bit of the mask of its elements equal to its extreme. Compared as doubles, `-0.0`
//! and `+0.0` are equal, so either zero's first (or last) position is found, as the contract
//! asks of a tie.

use core::arch::x86_64::{
    __m256d, _mm256_broadcast_sd, _mm256_cmp_pd, _mm256_loadu_pd, _mm256_max_pd, _mm256_min_pd,
    _mm256_movemask_pd, _mm256_or_pd, _mm256_permute2f128_pd, _mm256_setzero_pd, _mm256_storeu_pd,
    _mm256_unpackhi_pd, _mm256_unpacklo_pd, _CMP_EQ_OQ, _CMP_UNORD_Q,
};

use super::index::{index, Index};
use super::isa;
use super::shared::position;
use super::short_rows_avx2::exact_rows;
use crate::{DType, Direction, Element};

/// The shortest rows taken (one vector).
pub(super) const MIN_ROW: usize = 4;

/// The longest rows taken (twenty vectors, two words of bits).
pub(super) const MAX_ROW: usize = 80;

/// The index of the extreme of each contiguous row of `n` of `x` into `y` (the first, or the
/// last with `LAST`; a NaN beats every number), with `VALUES` each row's extreme into `v` (the
/// element at its index; of two equal zeros either), for whole groups of four rows of `f64`
/// (of eight in AVX-512 vectors from rows of eight where the CPU has them, then of four);
/// the rows done (0 for other types and lengths, or where the CPU lacks AVX2), the rest the
/// caller's.
#[inline(always)]
pub(super) fn arg_rows<T: Element, D: Direction, const LAST: bool, const VALUES: bool, I: Index>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> usize {
    if T::DTYPE != DType::F64 || !(MIN_ROW..=MAX_ROW).contains(&n) || isa::level() < isa::AVX2 {
        return 0;
    }
    // SAFETY: `T` is `f64` (its `DTYPE` says so): same size, alignment and bits.
    let (x, v) = unsafe {
        (
            core::slice::from_raw_parts(x.as_ptr().cast::<f64>(), x.len()),
            core::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<f64>(), v.len()),
        )
    };
    // Eight rows at a time in AVX-512 vectors where the CPU has them, then four at a time.
    let done = if n >= avx512::MIN_ROW && isa::level() >= isa::AVX512 {
        // SAFETY: `level` found AVX-512 F, BW, VL and DQ.
        unsafe { avx512::arg_rows::<D, LAST, VALUES, I>(x, y, v, n) }
    } else {
        0
    };
    let (Some(x), Some(y)) = (x.get(done * n..), y.get_mut(done..)) else {
        return done;
    };
    let v = v.get_mut(done..).unwrap_or_default();
    // SAFETY: `level` found AVX2.
    done + unsafe { fours::<D, LAST, VALUES, I>(x, y, v, n) }
}

/// [`arg_rows`] four rows at a time in AVX2 vectors: each length's kernel a function of its
/// own (compiled into one function with the others, it kept a frame of 728 bytes and rows of 12
/// and 16 took 1.2-1.3x the time).
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
unsafe fn fours<D: Direction, const LAST: bool, const VALUES: bool, I: Index>(
    x: &[f64],
    y: &mut [I],
    v: &mut [f64],
    n: usize,
) -> usize {
    match n.div_ceil(4) {
        1 => groups::<D, LAST, VALUES, I, 1, 1>(x, y, v, n),
        2 => groups::<D, LAST, VALUES, I, 2, 1>(x, y, v, n),
        3 => groups::<D, LAST, VALUES, I, 3, 1>(x, y, v, n),
        4 => groups::<D, LAST, VALUES, I, 4, 1>(x, y, v, n),
        5 => groups::<D, LAST, VALUES, I, 5, 1>(x, y, v, n),
        6 => groups::<D, LAST, VALUES, I, 6, 1>(x, y, v, n),
        7 => groups::<D, LAST, VALUES, I, 7, 1>(x, y, v, n),
        8 => groups::<D, LAST, VALUES, I, 8, 1>(x, y, v, n),
        9 => groups::<D, LAST, VALUES, I, 9, 1>(x, y, v, n),
        10 => groups::<D, LAST, VALUES, I, 10, 1>(x, y, v, n),
        11 => groups::<D, LAST, VALUES, I, 11, 1>(x, y, v, n),
        12 => groups::<D, LAST, VALUES, I, 12, 1>(x, y, v, n),
        13 => groups::<D, LAST, VALUES, I, 13, 1>(x, y, v, n),
        14 => groups::<D, LAST, VALUES, I, 14, 1>(x, y, v, n),
        15 => groups::<D, LAST, VALUES, I, 15, 1>(x, y, v, n),
        16 => groups::<D, LAST, VALUES, I, 16, 1>(x, y, v, n),
        17 => groups::<D, LAST, VALUES, I, 17, 2>(x, y, v, n),
        18 => groups::<D, LAST, VALUES, I, 18, 2>(x, y, v, n),
        19 => groups::<D, LAST, VALUES, I, 19, 2>(x, y, v, n),
        20 => groups::<D, LAST, VALUES, I, 20, 2>(x, y, v, n),
        _ => 0,
    }
}

/// [`arg_rows`] of rows of `K` vectors (`n` from `4 * K - 3` to `4 * K`, at least four), their
/// bits in `W` words (`K.div_ceil(16)`).
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn groups<
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
    const K: usize,
    const W: usize,
>(
    x: &[f64],
    y: &mut [I],
    v: &mut [f64],
    n: usize,
) -> usize {
    if n < MIN_ROW || n.div_ceil(4) != K {
        return 0;
    }
    let mut rows = (x.len() / n).min(y.len());
    if VALUES {
        rows = rows.min(v.len());
    }
    let done = rows / 4 * 4;
    let Some(y) = y.get_mut(..done) else {
        return 0;
    };
    for (q, o) in y.chunks_exact_mut(4).enumerate() {
        let (Some(g), Some(o)) = (x.get(q * 4 * n..(q + 1) * 4 * n), o.first_chunk_mut::<4>())
        else {
            return q * 4;
        };
        let vs = if VALUES {
            v.get_mut(q * 4..).and_then(<[f64]>::first_chunk_mut::<4>)
        } else {
            None
        };
        // Every load below reads four elements of a row of `g` ending by the row's end (the
        // whole vectors start at 4k < 4(K - 1) < n - 3, the last at n - 4): within `g`, whose
        // length was just checked, so they go by a pointer.
        if has_nan(g) {
            exact::<D, LAST, I>(g, n, o, vs);
            continue;
        }
        // SAFETY: the rows `r < 4` of `g` (4n elements); the CPU has AVX2.
        let m = unsafe { [0, 1, 2, 3].map(|r| fold::<D, K>(g, r * n, n)) };
        let mut extremes = [0.0f64; 4];
        // SAFETY: four `f64`s; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_pd(extremes.as_mut_ptr(), across4::<D>(m)) };
        if let Some(vs) = vs {
            *vs = extremes;
        }
        for (r, (o, e)) in o.iter_mut().zip(&extremes).enumerate() {
            // SAFETY: as for `fold` above.
            let words = unsafe { equal_words::<K, W>(g, r * n, n, _mm256_broadcast_sd(e)) };
            let at = position::<LAST, W>(&words);
            *o = index::<I>(at);
        }
    }
    done
}

/// The four rows of `n` of `g` by the exact rule (a group with a NaN): each index into `o`,
/// each element there into `vs`.
#[inline(never)]
fn exact<D: Direction, const LAST: bool, I: Index>(
    g: &[f64],
    n: usize,
    o: &mut [I; 4],
    vs: Option<&mut [f64; 4]>,
) {
    // Out of line: the groups' loop compiled worse with more inlined into it (max+argmax of
    // rows of 16 1.9x slower when the values were handled as slices there).
    exact_rows::<f64, D, LAST, I>(g, o, vs.map(|v| &mut v[..]).unwrap_or_default(), n);
}

/// The four elements of `g` from `at`.
///
/// # Safety
/// `at + 4 <= g.len()`, and the CPU has AVX2.
#[inline(always)]
unsafe fn load(g: &[f64], at: usize) -> __m256d {
    debug_assert!(at + 4 <= g.len());
    // SAFETY: the caller's; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_pd(g.as_ptr().add(at)) }
}

/// Lane by lane, `v` where it is strictly more extreme than `acc`, otherwise `acc`.
#[inline]
#[target_feature(enable = "avx2")]
fn pick<D: Direction>(v: __m256d, acc: __m256d) -> __m256d {
    if D::IS_MIN {
        _mm256_min_pd(v, acc)
    } else {
        _mm256_max_pd(v, acc)
    }
}

/// Whether the group `g` (a whole number of fours) holds a NaN: two vectors per compare.
#[inline]
#[target_feature(enable = "avx2")]
fn has_nan(g: &[f64]) -> bool {
    let (eights, rest) = g.as_chunks::<8>();
    let mut flags = _mm256_setzero_pd();
    for e in eights {
        // SAFETY: eight `f64`s from the chunk's start.
        let (a, b) = unsafe { (load(e, 0), load(e, 4)) };
        flags = _mm256_or_pd(flags, _mm256_cmp_pd::<_CMP_UNORD_Q>(a, b));
    }
    if rest.len() >= 4 {
        // SAFETY: four `f64`s.
        let a = unsafe { load(rest, 0) };
        flags = _mm256_or_pd(flags, _mm256_cmp_pd::<_CMP_UNORD_Q>(a, a));
    }
    _mm256_movemask_pd(flags) != 0
}

/// The row of `n` at `start` of `g` folded by the order alone into four lanes: its last four
/// elements, then the `K - 1` whole vectors before them (two chains past eight vectors).
///
/// # Safety
/// `4 <= n`, `4 * (K - 1) < n` and `start + n <= g.len()`; the CPU has AVX2.
#[inline(always)]
unsafe fn fold<D: Direction, const K: usize>(g: &[f64], start: usize, n: usize) -> __m256d {
    // SAFETY: every load ends by `start + n` (the caller's bounds).
    unsafe {
        let mut m = load(g, start + n - 4);
        if K <= 8 {
            for k in 0..K - 1 {
                m = pick::<D>(load(g, start + 4 * k), m);
            }
            return m;
        }
        let mut m2 = load(g, start);
        for k in 1..K - 1 {
            if k % 2 == 0 {
                m2 = pick::<D>(load(g, start + 4 * k), m2);
            } else {
                m = pick::<D>(load(g, start + 4 * k), m);
            }
        }
        pick::<D>(m2, m)
    }
}

/// One bit per element of the row of `n` at `start` of `g` that equals `splat`'s lanes, in
/// `W` words (elements 0 to 63, then 64 to 127): the `K - 1` whole vectors', then the last
/// four elements' past them.
///
/// # Safety
/// As for [`fold`].
#[inline(always)]
unsafe fn equal_words<const K: usize, const W: usize>(
    g: &[f64],
    start: usize,
    n: usize,
    splat: __m256d,
) -> [u64; W] {
    // SAFETY: as in `fold`.
    unsafe {
        let bits = |at| {
            let eq = _mm256_cmp_pd::<_CMP_EQ_OQ>(load(g, start + at), splat);
            _mm256_movemask_pd(eq).cast_unsigned() as u64
        };
        let mut words = [0u64; W];
        for k in 0..K - 1 {
            words[k / 16] |= bits(4 * k) << (4 * (k % 16));
        }
        // The last four elements' bits past the whole vectors (one to four of them), placed
        // after those: within one word, since the whole vectors end at a multiple of four.
        let whole = 4 * (K - 1);
        let tail = bits(n - 4) >> (whole + 4 - n);
        words[whole / 64] |= tail << (whole % 64);
        words
    }
}

/// The extremes of four rows' lanes `m` (one vector per row) by the order alone, row `r` in
/// lane `r`: pairs of rows interleaved and reduced, then the halves.
#[inline]
#[target_feature(enable = "avx2")]
fn across4<D: Direction>(m: [__m256d; 4]) -> __m256d {
    let [a, b, c, d] = m;
    // (a01, b01, a23, b23) and (c01, d01, c23, d23).
    let ab = pick::<D>(_mm256_unpackhi_pd(a, b), _mm256_unpacklo_pd(a, b));
    let cd = pick::<D>(_mm256_unpackhi_pd(c, d), _mm256_unpacklo_pd(c, d));
    pick::<D>(
        _mm256_permute2f128_pd::<0x31>(ab, cd),
        _mm256_permute2f128_pd::<0x20>(ab, cd),
    )
}

mod avx512;
#[cfg(test)]
mod tests;
