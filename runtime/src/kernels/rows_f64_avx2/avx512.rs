//! [`super`]'s kernel in 64-byte AVX-512 vectors for CPUs that have them (checked at run time,
//! [`crate::kernels::isa`]): eight lanes a vector, the equalities in mask registers (one compare
//! per eight elements, against the AVX2 kernel's compare, mask move, shift and merge per four).
//!
//! Each row is folded into one vector, its extreme spread to every lane by three shuffles, and
//! its equalities taken at once, so that no row waits for the others: reducing eight rows'
//! vectors together first, as the AVX2 kernel does four, kept the eight rows' addresses and
//! vectors live across the group (spilled) and took 1.1-1.3x the time over rows of 12 to 31.

use core::arch::x86_64::{
    __m512d, _mm512_cmp_pd_mask, _mm512_cvtsd_f64, _mm512_loadu_pd, _mm512_max_pd, _mm512_min_pd,
    _mm512_permute_pd, _mm512_shuffle_f64x2, _CMP_EQ_OQ, _CMP_UNORD_Q,
};

use super::exact;
use crate::kernels::index::{index, Index};
use crate::kernels::shared::position;
use crate::Direction;

/// The shortest rows this kernel takes (more than two vectors). Measured on an Intel Xeon
/// (Emerald Rapids), 2 MiB of rows, against the AVX2 kernel: rows of 25 and 31 0.72-0.91x of
/// its time, of 16 and 20 0.95-1.0x, of 12 1.09-1.19x (two vectors for twelve elements, where
/// AVX2 reads three whole ones).
pub(super) const MIN_ROW: usize = 17;

/// [`super::arg_rows`] of rows of [`MIN_ROW`] to [`super::MAX_ROW`] elements, eight rows at a
/// time; the rows done (0 for other lengths).
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ ([`crate::kernels::isa::AVX512`]).
#[inline(always)]
pub(super) unsafe fn arg_rows<D: Direction, const LAST: bool, const VALUES: bool, I: Index>(
    x: &[f64],
    y: &mut [I],
    v: &mut [f64],
    n: usize,
) -> usize {
    match n.div_ceil(8) {
        _ if !(MIN_ROW..=super::MAX_ROW).contains(&n) => 0,
        3 => groups::<D, LAST, VALUES, I, 3, 1>(x, y, v, n),
        4 => groups::<D, LAST, VALUES, I, 4, 1>(x, y, v, n),
        5 => groups::<D, LAST, VALUES, I, 5, 1>(x, y, v, n),
        6 => groups::<D, LAST, VALUES, I, 6, 1>(x, y, v, n),
        7 => groups::<D, LAST, VALUES, I, 7, 1>(x, y, v, n),
        8 => groups::<D, LAST, VALUES, I, 8, 1>(x, y, v, n),
        9 => groups::<D, LAST, VALUES, I, 9, 2>(x, y, v, n),
        10 => groups::<D, LAST, VALUES, I, 10, 2>(x, y, v, n),
        _ => 0,
    }
}

/// [`arg_rows`] of rows of `K` vectors (`n` from `8 * K - 7` to `8 * K`, at least [`MIN_ROW`]),
/// their bits in `W` words (`K.div_ceil(8)`).
///
/// # Safety
/// As for [`arg_rows`].
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
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
    if n < MIN_ROW || n.div_ceil(8) != K {
        return 0;
    }
    let mut rows = (x.len() / n).min(y.len());
    if VALUES {
        rows = rows.min(v.len());
    }
    let done = rows / 8 * 8;
    let Some(y) = y.get_mut(..done) else {
        return 0;
    };
    for (q, o) in y.chunks_exact_mut(8).enumerate() {
        let Some(g) = x.get(q * 8 * n..(q + 1) * 8 * n) else {
            return q * 8;
        };
        let mut vs = if VALUES {
            v.get_mut(q * 8..).and_then(<[f64]>::first_chunk_mut::<8>)
        } else {
            None
        };
        // Every load below reads eight elements of a row of `g` ending by the row's end (the
        // whole vectors start at 8k < 8(K - 1) < n - 7, the last at n - 8): within `g`, whose
        // length was just checked, so they go by a pointer.
        if has_nan(g) {
            for (r, (o, row)) in o.chunks_mut(4).zip(g.chunks(4 * n)).enumerate() {
                let vs = vs
                    .as_deref_mut()
                    .and_then(|vs| vs.get_mut(4 * r..))
                    .and_then(<[f64]>::first_chunk_mut::<4>);
                if let Some(o) = o.first_chunk_mut::<4>() {
                    exact::<D, LAST, I>(row, n, o, vs);
                }
            }
            continue;
        }
        for r in 0..8 {
            // SAFETY: the row `r < 8` of `g` (8n elements); the CPU has AVX-512 F.
            let splat = spread::<D>(unsafe { fold::<D, K>(g, r * n, n) });
            if let Some(vs) = vs.as_deref_mut() {
                vs[r] = _mm512_cvtsd_f64(splat);
            }
            // SAFETY: as for `fold` above.
            let words = unsafe { equal_words::<K, W>(g, r * n, n, splat) };
            let at = position::<LAST, W>(&words);
            if let Some(o) = o.get_mut(r) {
                *o = index::<I>(at);
            }
        }
    }
    done
}

/// The extreme of the eight lanes of `m` by the order alone, in every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn spread<D: Direction>(m: __m512d) -> __m512d {
    let m = pick::<D>(_mm512_shuffle_f64x2::<0b01_00_11_10>(m, m), m);
    let m = pick::<D>(_mm512_shuffle_f64x2::<0b10_11_00_01>(m, m), m);
    pick::<D>(_mm512_permute_pd::<0b0101_0101>(m), m)
}

/// The eight elements of `g` from `at`.
///
/// # Safety
/// `at + 8 <= g.len()`, and the CPU has AVX-512 F.
#[inline(always)]
unsafe fn load(g: &[f64], at: usize) -> __m512d {
    debug_assert!(at + 8 <= g.len());
    // SAFETY: the caller's; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_pd(g.as_ptr().add(at)) }
}

/// Lane by lane, `v` where it is strictly more extreme than `acc`, otherwise `acc`.
#[inline]
#[target_feature(enable = "avx512f")]
fn pick<D: Direction>(v: __m512d, acc: __m512d) -> __m512d {
    if D::IS_MIN {
        _mm512_min_pd(v, acc)
    } else {
        _mm512_max_pd(v, acc)
    }
}

/// Whether the group `g` (a whole number of eights) holds a NaN: two vectors per compare.
#[inline]
#[target_feature(enable = "avx512f")]
fn has_nan(g: &[f64]) -> bool {
    let (sixteens, rest) = g.as_chunks::<16>();
    let mut nan = 0u8;
    for s in sixteens {
        // SAFETY: sixteen `f64`s from the chunk's start.
        let (a, b) = unsafe { (load(s, 0), load(s, 8)) };
        nan |= _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, b);
    }
    if rest.len() >= 8 {
        // SAFETY: eight `f64`s.
        let a = unsafe { load(rest, 0) };
        nan |= _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, a);
    }
    nan != 0
}

/// The row of `n` at `start` of `g` folded by the order alone into eight lanes: its last eight
/// elements, then the `K - 1` whole vectors before them.
///
/// # Safety
/// `8 <= n`, `8 * (K - 1) < n` and `start + n <= g.len()`; the CPU has AVX-512 F.
#[inline(always)]
unsafe fn fold<D: Direction, const K: usize>(g: &[f64], start: usize, n: usize) -> __m512d {
    // SAFETY: every load ends by `start + n` (the caller's bounds).
    unsafe {
        let mut m = load(g, start + n - 8);
        for k in 0..K - 1 {
            m = pick::<D>(load(g, start + 8 * k), m);
        }
        m
    }
}

/// One bit per element of the row of `n` at `start` of `g` that equals `splat`'s lanes, in
/// `W` words: the `K - 1` whole vectors', then the last eight elements' past them.
///
/// # Safety
/// As for [`fold`].
#[inline(always)]
unsafe fn equal_words<const K: usize, const W: usize>(
    g: &[f64],
    start: usize,
    n: usize,
    splat: __m512d,
) -> [u64; W] {
    // SAFETY: as in `fold`.
    unsafe {
        let bits = |at| u64::from(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(load(g, start + at), splat));
        let mut words = [0u64; W];
        for k in 0..K - 1 {
            words[k / 8] |= bits(8 * k) << (8 * (k % 8));
        }
        // The last eight elements' bits past the whole vectors (one to eight of them), placed
        // after those: within one word, since the whole vectors end at a multiple of eight.
        let whole = 8 * (K - 1);
        let tail = bits(n - 8) >> (whole + 8 - n);
        words[whole / 64] |= tail << (whole % 64);
        words
    }
}
