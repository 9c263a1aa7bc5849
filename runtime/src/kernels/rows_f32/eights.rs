//! The arg-reductions of contiguous `f32` rows of [`MIN_ROW`] to [`ARG_MAX_ROW`] elements in
//! 32-byte AVX2 vectors, eight rows at a time, for CPUs that have them (checked at run time);
//! the Hardmax kernels of eight rows ([`super::hard_eights`]) share its folds, to [`MAX_ROW`].
//!
//! NaN is looked for over the eight rows' elements first (two vectors per compare); eight rows
//! with one are done again by the exact rule. Otherwise each row is folded by the order alone
//! into eight lanes (its last eight elements first, so any length is covered), the eight rows'
//! lanes are reduced together by shuffles into one vector of their extremes (under three
//! instructions a row, where spreading one row's extreme to every lane takes six), and each
//! row's position is the lowest (highest with `LAST`) bit of the mask of its elements equal to
//! its extreme, broadcast from memory.
//!
//! Measured (AMD EPYC, Zen 3; 2 MiB of rows, against the kernels these rows took before): rows
//! of 10 to 31 1.3-1.6x faster than the SSE2 kernel's four rows at a time, rows of 40 to 56
//! 1.2-1.3x faster than the AVX2 kernel's one row at a time ([`super::avx2`]); from 64 on they
//! ran alike. The number of vectors per row is a constant of each instance (one to twenty), so
//! the per-row loops unroll whatever the length; rows of more than eight vectors fold in two
//! chains and keep their bits in two or three words.

use core::arch::x86_64::{
    __m256, _mm256_broadcast_ss, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps,
    _mm256_unpackhi_ps, _mm256_unpacklo_ps,
};

use super::avx2::{eq, load8, mask, or, pick8, store8, unord, zero8};
use super::Values;
#[cfg(doc)]
use crate::kernels::arg_row::arg_row;
use crate::kernels::index::{index, Index};
use crate::kernels::shared::{highest_bit, lowest_bit, position};
use crate::Direction;

/// The shortest rows this kernel takes (one vector).
pub(in crate::kernels) const MIN_ROW: usize = 8;

/// The longest rows the kernels of eight rows at a time take for a Hardmax (eight vectors: the
/// row's bits fill one 64-bit word).
pub(in crate::kernels) const MAX_ROW: usize = 64;

/// The longest rows this kernel takes for the arg-reductions (twenty vectors: three words of
/// bits). Measured on an Intel Xeon (Emerald Rapids), against the kernels these rows took
/// before: rows of 65 to 128 1.5-1.6x faster than the one-row search that keeps each lane's
/// position ([`super::tracked`], whose blends are three operations there), 2.7-3.0x of the
/// stream -> 1.7-2.0x; rows of 129 1.3-1.5x and of 160 up to 1.15x faster than the kernel of
/// parts ([`super::long`]), which stays faster from rows of 200 (1.3-1.5x).
pub(in crate::kernels) const ARG_MAX_ROW: usize = 160;

/// The index of the extreme of each contiguous row of `n` ([`MIN_ROW`] to [`ARG_MAX_ROW`]) of
/// `x` into `y`, as [`arg_row`] gives it, and with `VALUES` each row's extreme into `v` (of two
/// equal zeros either), for the rows of whole groups of eight; returns how many rows it did
/// (0 for other lengths), which the caller's kernel follows with the rest. Rows of 17 to 64 go
/// by [`super::eights512`] where the CPU has AVX-512.
///
/// # Safety
/// The CPU must have the features [`super::avx2::available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn arg_eights<
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
    // Rows of 17 to 64 in 64-byte vectors where the CPU has AVX-512.
    #[cfg(not(feature = "small-code"))]
    if (super::eights512::MIN_ROW..=super::eights512::MAX_ROW).contains(&n)
        && crate::kernels::isa::level() >= crate::kernels::isa::AVX512
    {
        // SAFETY: `level` found AVX-512 F, BW, VL and DQ; the caller, AVX2, BMI1 and BMI2.
        return unsafe { super::eights512::arg_eights512::<D, LAST, VALUES, I>(x, y, v, n) };
    }
    match n.div_ceil(8) {
        1 => groups::<D, LAST, VALUES, I, 1, 1>(x, y, v, n),
        2 => groups::<D, LAST, VALUES, I, 2, 1>(x, y, v, n),
        3 => groups::<D, LAST, VALUES, I, 3, 1>(x, y, v, n),
        4 => groups::<D, LAST, VALUES, I, 4, 1>(x, y, v, n),
        5 => groups::<D, LAST, VALUES, I, 5, 1>(x, y, v, n),
        6 => groups::<D, LAST, VALUES, I, 6, 1>(x, y, v, n),
        7 => groups::<D, LAST, VALUES, I, 7, 1>(x, y, v, n),
        8 => groups::<D, LAST, VALUES, I, 8, 1>(x, y, v, n),
        9 => groups::<D, LAST, VALUES, I, 9, 2>(x, y, v, n),
        10 => groups::<D, LAST, VALUES, I, 10, 2>(x, y, v, n),
        11 => groups::<D, LAST, VALUES, I, 11, 2>(x, y, v, n),
        12 => groups::<D, LAST, VALUES, I, 12, 2>(x, y, v, n),
        13 => groups::<D, LAST, VALUES, I, 13, 2>(x, y, v, n),
        14 => groups::<D, LAST, VALUES, I, 14, 2>(x, y, v, n),
        15 => groups::<D, LAST, VALUES, I, 15, 2>(x, y, v, n),
        16 => groups::<D, LAST, VALUES, I, 16, 2>(x, y, v, n),
        17 => groups::<D, LAST, VALUES, I, 17, 3>(x, y, v, n),
        18 => groups::<D, LAST, VALUES, I, 18, 3>(x, y, v, n),
        19 => groups::<D, LAST, VALUES, I, 19, 3>(x, y, v, n),
        20 => groups::<D, LAST, VALUES, I, 20, 3>(x, y, v, n),
        _ => 0,
    }
}

/// [`arg_eights`] of rows of `K` vectors (`n` from `8 * K - 7` to `8 * K`, at least eight).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn groups<
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
    const K: usize,
    const W: usize,
>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
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
        // Every load below reads eight elements of a row of `g` ending by the row's end (the
        // whole vectors start at 8k < 8(K - 1) < n - 7, the last at n - 8): within `g`, whose
        // length was just checked, so they go by a pointer (a check per load was about a
        // fifth of the instructions).
        if has_nan(g) {
            vals.exact::<D, LAST, I>(o, g.chunks_exact(n));
            continue;
        }
        let mut m = [zero8(); 8];
        for (r, m) in m.iter_mut().enumerate() {
            // SAFETY: the row `r < 8` of `g` (8n elements); the CPU has AVX2.
            *m = unsafe { fold::<D, K>(g, r * n, n) };
        }
        let mut extremes = [0.0f32; 8];
        store8(&mut extremes, across8::<D>(m));
        vals.put8(&extremes);
        for (r, (o, e)) in o.iter_mut().zip(&extremes).enumerate() {
            let at = if K <= 8 {
                // SAFETY: as for `fold` above.
                let bits = unsafe { equal_bits::<K>(g, r * n, n, _mm256_broadcast_ss(e)) };
                if LAST {
                    highest_bit(bits)
                } else {
                    lowest_bit(bits)
                }
            } else {
                // SAFETY: as for `fold` above.
                let words = unsafe { equal_words::<K, W>(g, r * n, n, _mm256_broadcast_ss(e)) };
                position::<LAST, W>(&words)
            };
            *o = index::<I>(at);
        }
    }
    done
}

/// The eight elements of `g` from `at`.
///
/// # Safety
/// `at + 8 <= g.len()`, and the CPU has AVX2.
#[inline(always)]
unsafe fn load(g: &[f32], at: usize) -> __m256 {
    debug_assert!(at + 8 <= g.len());
    // SAFETY: the caller's; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_ps(g.as_ptr().add(at)) }
}

/// Whether the group `g` (a whole number of eights) holds a NaN: two vectors per compare.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn has_nan(g: &[f32]) -> bool {
    let (sixteens, rest) = g.as_chunks::<16>();
    let mut flags = zero8();
    for s in sixteens {
        let ([a, b], _) = s.as_chunks::<8>() else {
            continue;
        };
        flags = or(flags, unord(load8(a), load8(b)));
    }
    if let Some(last) = rest.first_chunk::<8>() {
        let v = load8(last);
        flags = or(flags, unord(v, v));
    }
    mask(flags) != 0
}

/// The row of `n` at `start` of `g` folded by the order alone into eight lanes: its last eight
/// elements, then the `K - 1` whole vectors before them.
///
/// # Safety
/// `8 <= n`, `8 * (K - 1) < n` and `start + n <= g.len()`; the CPU has AVX2.
#[inline(always)]
pub(super) unsafe fn fold<D: Direction, const K: usize>(
    g: &[f32],
    start: usize,
    n: usize,
) -> __m256 {
    // SAFETY: every load ends by `start + n` (the caller's bounds).
    unsafe {
        let mut m = load(g, start + n - 8);
        if K <= 8 {
            for k in 0..K - 1 {
                m = pick8::<D>(load(g, start + 8 * k), m);
            }
            return m;
        }
        // Longer rows: two chains.
        let mut m2 = load(g, start);
        for k in 1..K - 1 {
            if k % 2 == 0 {
                m2 = pick8::<D>(load(g, start + 8 * k), m2);
            } else {
                m = pick8::<D>(load(g, start + 8 * k), m);
            }
        }
        pick8::<D>(m2, m)
    }
}

/// [`equal_bits`] of rows of nine to twenty vectors (`K`), in `W` words (`K.div_ceil(8)`):
/// elements 0 to 63, then 64 to 127, and so on.
///
/// # Safety
/// As for [`fold`].
#[inline(always)]
unsafe fn equal_words<const K: usize, const W: usize>(
    g: &[f32],
    start: usize,
    n: usize,
    splat: __m256,
) -> [u64; W] {
    // SAFETY: as in `fold`.
    unsafe {
        let mut words = [0u64; W];
        for k in 0..K - 1 {
            let bits = u64::from(mask(eq(load(g, start + 8 * k), splat)));
            words[k / 8] |= bits << (8 * (k % 8));
        }
        // The last eight elements' bits past the whole vectors (one to eight of them), placed
        // after those: within one word, since the whole vectors end at a multiple of eight.
        let whole = 8 * (K - 1);
        let tail = u64::from(mask(eq(load(g, start + n - 8), splat))) >> (whole + 8 - n);
        words[whole / 64] |= tail << (whole % 64);
        words
    }
}

/// One bit per element of the row of `n` at `start` of `g` that equals `splat`'s lanes: the
/// `K - 1` whole vectors', then the last eight elements' (the same bits again where they
/// overlap).
///
/// # Safety
/// As for [`fold`].
#[inline(always)]
pub(super) unsafe fn equal_bits<const K: usize>(
    g: &[f32],
    start: usize,
    n: usize,
    splat: __m256,
) -> u64 {
    // SAFETY: as in `fold`.
    unsafe {
        let mut bits = u64::from(mask(eq(load(g, start + n - 8), splat))) << (n - 8);
        for k in 0..K - 1 {
            bits |= u64::from(mask(eq(load(g, start + 8 * k), splat))) << (8 * k);
        }
        bits
    }
}

/// The extremes of eight rows' lanes `m` (one vector per row) by the order alone, row `r` in
/// lane `r`: pairs of rows interleaved and reduced, then pairs of pairs, then the halves.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn across8<D: Direction>(m: [__m256; 8]) -> __m256 {
    let [a, b, c, d, e, f, g, h] = m;
    // Rows (0, 1) alternate in the lanes of `ab`, each over lanes {0, 2} and {1, 3} of a half.
    let pair = |a, b| pick8::<D>(_mm256_unpackhi_ps(a, b), _mm256_unpacklo_ps(a, b));
    let (ab, cd, ef, gh) = (pair(a, b), pair(c, d), pair(e, f), pair(g, h));
    // Rows 0 to 3 in the lanes of each half.
    let quad = |ab, cd| {
        pick8::<D>(
            _mm256_shuffle_ps::<0b11_10_11_10>(ab, cd),
            _mm256_shuffle_ps::<0b01_00_01_00>(ab, cd),
        )
    };
    let (abcd, efgh) = (quad(ab, cd), quad(ef, gh));
    // The low halves (rows 0-3, then 4-7) against the high halves.
    pick8::<D>(
        _mm256_permute2f128_ps::<0x31>(abcd, efgh),
        _mm256_permute2f128_ps::<0x20>(abcd, efgh),
    )
}
