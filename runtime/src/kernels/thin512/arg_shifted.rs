//! Arg-reductions of blocks of two to four rows ([`ARG_ROWS`]) of 4- and 8-byte elements,
//! without folding lanes: each vector is read at the lanes of its blocks' first rows, and the
//! same lanes a row, two rows, ... later (masked loads shifted by whole rows) are compared with
//! it, each lane keeping its best element and row; the rows (and, when asked, the elements) of
//! those lanes are then packed together (`compress`) and stored, a block's `c` outputs after
//! the one before.
//!
//! As in [`super::shifted`], the first rows' lanes repeat every `lcm(v, r·c)` lanes (`v` a
//! vector's lanes), so their masks are a table of one period, and the kernel goes a group of
//! whole periods at a time. A group holding a NaN is done again lane by lane by the contract's
//! rule ([`lane_by_lane`]).

use core::arch::x86_64::{
    __m512i, _mm512_castsi512_si256, _mm512_cvtepu32_epi64, _mm512_extracti64x4_epi64,
    _mm512_loadu_si512, _mm512_mask_storeu_epi64, _mm512_maskz_compress_epi32,
    _mm512_maskz_compress_epi64, _mm512_setzero_si512,
};

use super::super::arg_lanes::lane_by_lane;
use super::lanes::{better, has_nan, load, magnitude, mov, prep, splat, store_lanes, widest};
use super::shifted::{group, MAX_VECTORS};
use super::FLOAT;
use crate::{Direction, Element};

/// The most rows a block may have here: a vector of first rows takes `r` loads, and only one
/// lane in `r` of each is an output.
pub(super) const ARG_ROWS: usize = 4;

/// Whether [`super::arg_blocks`] takes blocks of `r` rows of `W`-byte elements of kind `KIND`
/// here (`values`: their elements asked too), where this kernel was measured faster than the
/// windows of whole rows on `[n, r, 5]` (two alternating runs): `f32` blocks of 2 and 3 rows
/// (0.73-0.78x the time; 4 rows 0.96x), with values also 4 rows (0.55x), `i32` 4 rows with
/// values (0.59x; without, 2-4 rows 0.97-1.23x), 8-byte integers 2 rows (0.87x). Not `f64`
/// (2 rows 1.03x, 3 and 4 rows 1.4-1.7x: a vector holds 8 lanes, one in `r` an output, and its
/// NaN check) nor 8-byte blocks of 3 or 4 rows (0.95x-1.85x).
#[inline(always)]
pub(super) fn prefers(w: usize, kind: u8, r: usize, values: bool) -> bool {
    match (w, kind == FLOAT) {
        (4, true) => r <= 3 || (values && r == 4),
        (4, false) => values && r == 4,
        (8, false) => r == 2,
        _ => false,
    }
}

/// The index of the extreme of each of the `c` lanes of each block of `r` rows into `y` (the
/// first, or with `LAST` the last; a NaN beats every number), with `v` not empty the extreme
/// into `v`, for the whole groups of blocks from the start of `x`: their count (none for other
/// widths than 4 and 8 bytes, other rows than 2 to [`ARG_ROWS`], or a period over the table).
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `T` is `W` bytes of kind `KIND`, `inf` (floats) its
/// infinity's magnitude bits.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn arg_shifted<
    T: Element,
    D: Direction,
    const LAST: bool,
    const W: usize,
    const KIND: u8,
>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    if !(W == 4 || W == 8) || !(2..=ARG_ROWS).contains(&r) || c == 0 {
        return 0;
    }
    let lanes = 64 / W;
    let size = r * c;
    let Some((period, vectors, blocks)) = group(lanes, size) else {
        return 0;
    };
    let mut n = (x.len() / size).min(y.len() / c);
    if !v.is_empty() {
        n = n.min(v.len() / c);
    }
    // The lanes of each vector of a period at the first row of their block, counted along.
    let mut firsts = [0u16; MAX_VECTORS];
    let mut at = 0;
    for m in firsts.iter_mut().take(period) {
        for l in 0..lanes {
            if at < c {
                *m |= 1 << l;
            }
            at += 1;
            if at == size {
                at = 0;
            }
        }
    }
    let groups = n / blocks;
    for gi in 0..groups {
        let (Some(xg), Some(yg)) = (
            x.get(gi * blocks * size..(gi + 1) * blocks * size),
            y.get_mut(gi * blocks * c..(gi + 1) * blocks * c),
        ) else {
            return gi * blocks;
        };
        let vg = v.get_mut(gi * blocks * c..(gi + 1) * blocks * c);
        let vals = vg
            .as_ref()
            .map_or(core::ptr::null_mut(), |s| s.as_ptr().cast_mut());
        // SAFETY: as the caller's; `xg` is `vectors` vectors from a block's start, `yg` (and
        // `vg` when not null) hold its blocks' outputs.
        let nan = unsafe {
            match r {
                2 => pass::<D, LAST, W, KIND, 2>(xg, yg, vals, &firsts, period, vectors, c, inf),
                3 => pass::<D, LAST, W, KIND, 3>(xg, yg, vals, &firsts, period, vectors, c, inf),
                _ => pass::<D, LAST, W, KIND, 4>(xg, yg, vals, &firsts, period, vectors, c, inf),
            }
        };
        if nan {
            let mut vb = vg.map(|s| s.chunks_exact_mut(c));
            for (xb, yb) in xg.chunks_exact(size).zip(yg.chunks_exact_mut(c)) {
                let vb = vb.as_mut().and_then(Iterator::next).unwrap_or_default();
                lane_by_lane::<T, D, LAST>(xb, yb, vb, c);
            }
        }
    }
    groups * blocks
}

/// One group: `vectors` vectors of `x` (whole periods of `firsts`) from a block's start, the
/// rows of their first rows' lanes into `y` and (`vals` not null) their elements into `vals`,
/// `R` rows of `c` lanes a block: whether a float of the group is a NaN (then the outputs are
/// to be written again).
///
/// # Safety
/// As for [`arg_shifted`]; `y` (and `vals`) hold the outputs of `x`'s blocks.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
#[allow(clippy::too_many_arguments)]
unsafe fn pass<D: Direction, const LAST: bool, const W: usize, const KIND: u8, const R: usize>(
    x: &[impl Element],
    y: &mut [i64],
    vals: *mut impl Element,
    firsts: &[u16; MAX_VECTORS],
    period: usize,
    vectors: usize,
    c: usize,
    inf: u64,
) -> bool {
    let src: *const u8 = x.as_ptr().cast();
    let out = y.as_mut_ptr();
    let vals: *mut u8 = vals.cast();
    let mut widest_seen = _mm512_setzero_si512();
    let mut done = 0usize;
    let mut j = 0;
    while j < vectors {
        for &m in firsts.iter().take(period) {
            let p = src.wrapping_add(j * 64);
            let m = u64::from(m);
            // SAFETY: as the caller's: the vector lies in `x`, the lanes of `m` shifted by up to
            // `R - 1` rows in their blocks.
            unsafe {
                if KIND == FLOAT {
                    let all = _mm512_loadu_si512(p.cast());
                    widest_seen = widest::<W, KIND>(widest_seen, magnitude::<W, KIND>(all));
                }
                let first = load::<W>(p, m);
                let mut best = prep::<D, W, KIND>(first);
                let mut raw = first;
                let mut row = _mm512_setzero_si512();
                for k in 1..R {
                    let e = load::<W>(p.wrapping_add(k * c * W), m);
                    let key = prep::<D, W, KIND>(e);
                    let take = better::<D, LAST, W, KIND>(key, best) & m;
                    best = mov::<W>(best, take, key);
                    row = mov::<W>(row, take, splat::<W>(k as u64));
                    if !vals.is_null() {
                        raw = mov::<W>(raw, take, e);
                    }
                }
                let count = m.count_ones() as usize;
                rows_out::<W>(row, m, out.add(done), count);
                if !vals.is_null() {
                    let packed = compress::<W>(m, raw);
                    store_lanes::<W>(vals.add(done * W), (1u64 << count) - 1, packed);
                }
                done += count;
            }
            j += 1;
        }
    }
    has_nan::<W>(widest_seen, inf)
}

/// The lanes of `m` of `v` (`W` 4 or 8 bytes wide) packed to the low lanes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn compress<const W: usize>(m: u64, v: __m512i) -> __m512i {
    if W == 8 {
        _mm512_maskz_compress_epi64(m as u8, v)
    } else {
        _mm512_maskz_compress_epi32(m as u16, v)
    }
}

/// The rows of the lanes of `m` (`count` of them) in `row` as `i64` to `y`.
///
/// # Safety
/// The CPU has AVX-512 F and DQ; `y` holds `count` lanes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn rows_out<const W: usize>(row: __m512i, m: u64, y: *mut i64, count: usize) {
    let packed = compress::<W>(m, row);
    let lanes = |n: usize| ((1u32 << n.min(8)) - 1) as u8;
    // SAFETY: as the caller's: the first `count` lanes of `y`.
    unsafe {
        if W == 8 {
            _mm512_mask_storeu_epi64(y, lanes(count), packed);
        } else {
            let lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(packed));
            _mm512_mask_storeu_epi64(y, lanes(count), lo);
            if count > 8 {
                let hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(packed));
                _mm512_mask_storeu_epi64(y.add(8), lanes(count - 8), hi);
            }
        }
    }
}

#[cfg(test)]
mod tests;
