//! Arg-reductions of blocks of two to four rows ([`ARG_ROWS`]) of any element type, without
//! folding lanes: each vector is read at the lanes of its blocks' first rows, and the same
//! lanes a row, two rows, ... later (masked loads shifted by whole rows) are compared with it,
//! each lane keeping its best element and row; the rows (and, when asked, the elements) of
//! those lanes are then packed together (`compress`: 1- and 2-byte lanes need VBMI2) and
//! stored, a block's `c` outputs after the one before (for 1- and 2-byte lanes whole vectors
//! of `i64`, the lanes past the outputs written again by the next: 0.88-0.93x the time of
//! masked stores for f16; not for 4- and 8-byte lanes, where it was no faster). f16 and bf16
//! compare as signed keys of their bits (three operations a vector).
//!
//! As in [`super::shifted`], the first rows' lanes repeat every `lcm(v, r·c)` lanes (`v` a
//! vector's lanes), so their masks are a table of one period, and the kernel goes a group of
//! whole periods at a time. A group holding a NaN is done again lane by lane by the contract's
//! rule ([`lane_by_lane`]).

use core::arch::x86_64::{
    __m512i, _mm512_add_epi64, _mm512_castsi512_si128, _mm512_castsi512_si256,
    _mm512_cmp_epi16_mask, _mm512_cvtepu16_epi64, _mm512_cvtepu32_epi64, _mm512_cvtepu8_epi64,
    _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_mask_storeu_epi64,
    _mm512_maskz_compress_epi16, _mm512_maskz_compress_epi32, _mm512_maskz_compress_epi64,
    _mm512_maskz_compress_epi8, _mm512_permutexvar_epi64, _mm512_set1_epi64, _mm512_set_epi64,
    _mm512_setzero_si512, _mm512_storeu_si512, _MM_CMPINT_LE, _MM_CMPINT_LT, _MM_CMPINT_NLE,
    _MM_CMPINT_NLT,
};

use super::super::arg_lanes::lane_by_lane;
use super::hard_rows;
use super::lanes::{better, has_nan, load, magnitude, mov, prep, splat, store_lanes, widest};
use super::shifted::{group, MAX_VECTORS};
use super::{isa, FLOAT, HALF, SIGNED, UNSIGNED};
use crate::{Direction, Element};

/// The most rows a block may have here: a vector of first rows takes `r` loads, and only one
/// lane in `r` of each is an output.
pub(super) const ARG_ROWS: usize = 4;

/// Whether [`super::arg_blocks`] takes blocks of `r` rows of `c` lanes of `W`-byte elements of
/// kind `KIND` here (`values`: their elements asked too), where this kernel was measured faster
/// than the windows of whole rows. On `[n, r, 5]` (two alternating runs): `f32`
/// blocks of 2 and 3 rows (0.73-0.78x the time; 4 rows 0.96x), with values also 4 rows
/// (0.55x), `i32` 4 rows with values (0.59x; without, 2-4 rows 0.97-1.23x), 8-byte integers 2
/// rows (0.87x); not `f64` (2 rows 1.03x, 3 and 4 rows 1.4-1.7x: a vector holds 8 lanes, one in
/// `r` an output, and its NaN check) nor 8-byte blocks of 3 or 4 rows (0.95x-1.85x). Over 2 MiB
/// of `[n, r, c]`, `c` 2 to 15 (an AMD EPYC, Zen 4): 2-byte blocks of 2 or 3 rows up to 54
/// bytes (f16 0.59-0.93x, `u16` 0.67-0.97x; 60 bytes and over 0.95-1.25x), 1-byte blocks of 3
/// rows (0.55-0.95x) and of 2 rows of 9 lanes or more (0.84-0.98x; fewer lanes 0.86-1.23x);
/// 4 rows of either 1.0-1.8x.
#[inline(always)]
pub(super) fn prefers(w: usize, kind: u8, r: usize, c: usize, values: bool) -> bool {
    match (w, kind == FLOAT) {
        (1, _) => r == 3 || (r == 2 && c >= 9),
        (2, _) => r <= 3 && r * c * 2 <= 54,
        (4, true) => r <= 3 || (values && r == 4),
        (4, false) => values && r == 4,
        (8, false) => r == 2,
        _ => false,
    }
}

/// The index of the extreme of each of the `c` lanes of each block of `r` rows into `y` (the
/// first, or with `LAST` the last; a NaN beats every number), with `v` not empty the extreme
/// into `v`, for the whole groups of blocks from the start of `x`: their count (none for other
/// rows than 2 to [`ARG_ROWS`], a period over the table, or 1- and 2-byte elements on a CPU
/// without VBMI2, whose compress of such lanes they need).
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
    if !(2..=ARG_ROWS).contains(&r) || c == 0 || (W < 4 && !isa::vbmi2()) {
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
    // The lanes of each vector of a period at the first row of their block (and their
    // count), counted along.
    let mut firsts = [(0u64, 0usize); MAX_VECTORS];
    let mut at = 0;
    for (m, count) in firsts.iter_mut().take(period) {
        for l in 0..lanes {
            if at < c {
                *m |= 1 << l;
                *count += 1;
            }
            at += 1;
            if at == size {
                at = 0;
            }
        }
    }
    let groups = n / blocks;
    let end = groups * blocks * c;
    for gi in 0..groups {
        // The group's outputs, and those of the groups after it (which a store past the
        // group's may write, to be written again).
        let (Some(xg), Some(yg)) = (
            x.get(gi * blocks * size..(gi + 1) * blocks * size),
            y.get_mut(gi * blocks * c..end),
        ) else {
            return gi * blocks;
        };
        let vg = v.get_mut(gi * blocks * c..(gi + 1) * blocks * c);
        let vals = vg
            .as_ref()
            .map_or(core::ptr::null_mut(), |s| s.as_ptr().cast_mut());
        let group = Group {
            x: xg.as_ptr().cast(),
            y: yg.as_mut_ptr(),
            room: yg.len(),
            vals: vals.cast(),
            firsts: &firsts,
            period,
            vectors,
            c,
            inf,
        };
        // SAFETY: as the caller's (VBMI2 checked above for 1- and 2-byte lanes); `xg` is
        // `vectors` vectors from a block's start, `yg` (and `vg` when not null) hold its
        // blocks' outputs.
        let nan = unsafe {
            match (r, W < 4) {
                (2, false) => pass::<D, LAST, W, KIND, 2>(&group),
                (3, false) => pass::<D, LAST, W, KIND, 3>(&group),
                (_, false) => pass::<D, LAST, W, KIND, 4>(&group),
                (2, true) => pass_vbmi2::<D, LAST, W, KIND, 2>(&group),
                (3, true) => pass_vbmi2::<D, LAST, W, KIND, 3>(&group),
                (_, true) => pass_vbmi2::<D, LAST, W, KIND, 4>(&group),
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

/// One group of blocks as [`pass`] reads and writes it.
struct Group<'a> {
    /// `vectors` vectors (whole periods of `firsts`) from a block's start.
    x: *const u8,
    /// The rows of the group's blocks' first rows' lanes, `c` a block.
    y: *mut i64,
    /// The `i64` writable from `y` (past the group's outputs, to be written again later).
    room: usize,
    /// Their elements (`W` bytes each), or null where not asked.
    vals: *mut u8,
    /// The lanes of each vector of a period at the first row of their block, and their count.
    firsts: &'a [(u64, usize); MAX_VECTORS],
    /// The vectors of a period.
    period: usize,
    /// The vectors of the group.
    vectors: usize,
    /// A row's lanes.
    c: usize,
    /// Infinity's magnitude bits (floats).
    inf: u64,
}

/// [`pass_in`] for 4- and 8-byte lanes.
///
/// # Safety
/// As for [`pass_in`].
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn pass<D: Direction, const LAST: bool, const W: usize, const KIND: u8, const R: usize>(
    g: &Group,
) -> bool {
    // SAFETY: as the caller's.
    unsafe { pass_in::<D, LAST, W, KIND, R>(g) }
}

/// [`pass_in`] for 1- and 2-byte lanes, whose compress needs VBMI2.
///
/// # Safety
/// As for [`pass_in`], and the CPU has AVX-512 VBMI2.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2")]
unsafe fn pass_vbmi2<
    D: Direction,
    const LAST: bool,
    const W: usize,
    const KIND: u8,
    const R: usize,
>(
    g: &Group,
) -> bool {
    // SAFETY: as the caller's.
    unsafe { pass_in::<D, LAST, W, KIND, R>(g) }
}

/// One group, `R` rows of `c` lanes a block: each first row's lane against the same lane of the
/// rows after it, its best row into `y` and (`vals` not null) its best element into `vals`;
/// whether a float of the group is a NaN (then the outputs are to be written again). Inlined
/// into [`pass`] or [`pass_vbmi2`], whose CPU features it is compiled with.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ (and VBMI2 for 1- and 2-byte lanes); `g` is as its
/// fields say.
#[inline(always)]
unsafe fn pass_in<
    D: Direction,
    const LAST: bool,
    const W: usize,
    const KIND: u8,
    const R: usize,
>(
    g: &Group,
) -> bool {
    // SAFETY (of the whole body): as the caller's: each vector lies in `x`, the lanes of its
    // mask shifted by up to `R - 1` rows in their blocks, and `y` (and `vals`) hold the outputs
    // of the first rows' lanes, counted along.
    unsafe {
        let mut widest_seen = _mm512_setzero_si512();
        let mut done = 0usize;
        let mut j = 0;
        while j < g.vectors {
            for &(m, count) in g.firsts.iter().take(g.period) {
                let p = g.x.wrapping_add(j * 64);
                if KIND == FLOAT || KIND == HALF {
                    let all = _mm512_loadu_si512(p.cast());
                    widest_seen = widest::<W, KIND>(widest_seen, magnitude::<W, KIND>(all));
                }
                let first = load::<W>(p, m);
                let mut best = order::<D, W, KIND>(first);
                let mut raw = first;
                let mut row = _mm512_setzero_si512();
                for k in 1..R {
                    let e = load::<W>(p.wrapping_add(k * g.c * W), m);
                    let key = order::<D, W, KIND>(e);
                    let take = beats::<D, LAST, W, KIND>(key, best) & m;
                    best = mov::<W>(best, take, key);
                    row = mov::<W>(row, take, splat::<W>(k as u64));
                    if !g.vals.is_null() {
                        raw = mov::<W>(raw, take, e);
                    }
                }
                rows_out::<W>(compress::<W>(m, row), g.y.add(done), count, g.room - done);
                if !g.vals.is_null() {
                    let packed = compress::<W>(m, raw);
                    store_lanes::<W>(g.vals.add(done * W), low_lanes(count), packed);
                }
                done += count;
                j += 1;
            }
        }
        KIND != UNSIGNED && KIND != SIGNED && has_nan::<W>(widest_seen, g.inf)
    }
}

/// The lanes of `raw` as [`beats`] compares them: f16 and bf16 as signed keys
/// ([`hard_rows::keys`], three operations), the others as [`prep`] makes them.
#[inline(always)]
pub(super) fn order<D: Direction, const W: usize, const KIND: u8>(raw: __m512i) -> __m512i {
    // SAFETY: the caller's CPU runs AVX-512 F, BW, VL and DQ (as `pass_in` requires).
    unsafe {
        if KIND == HALF {
            hard_rows::keys::<W, KIND>(raw)
        } else {
            prep::<D, W, KIND>(raw)
        }
    }
}

/// The lanes where `e` beats `m` (as [`order`] made them; strictly, or with `LAST` at least
/// ties): f16 and bf16 keys by signed compares, the rest by [`better`].
#[inline(always)]
pub(super) fn beats<D: Direction, const LAST: bool, const W: usize, const KIND: u8>(
    e: __m512i,
    m: __m512i,
) -> u64 {
    // SAFETY: as in `order`.
    unsafe {
        if KIND != HALF {
            return better::<D, LAST, W, KIND>(e, m);
        }
        u64::from(match (D::IS_MIN, LAST) {
            (false, false) => _mm512_cmp_epi16_mask::<_MM_CMPINT_NLE>(e, m),
            (false, true) => _mm512_cmp_epi16_mask::<_MM_CMPINT_NLT>(e, m),
            (true, false) => _mm512_cmp_epi16_mask::<_MM_CMPINT_LT>(e, m),
            (true, true) => _mm512_cmp_epi16_mask::<_MM_CMPINT_LE>(e, m),
        })
    }
}

/// A mask of the lowest `n` lanes (all 64 for `n` of 64 or more).
#[inline(always)]
pub(super) fn low_lanes(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// The lanes of `m` of `v` (`W` bytes wide) packed to the low lanes.
///
/// # Safety
/// The CPU has AVX-512 F (and VBMI2 for 1- and 2-byte lanes).
#[inline(always)]
unsafe fn compress<const W: usize>(m: u64, v: __m512i) -> __m512i {
    // SAFETY: as the caller's.
    unsafe {
        match W {
            1 => _mm512_maskz_compress_epi8(m, v),
            2 => _mm512_maskz_compress_epi16(m as u32, v),
            4 => _mm512_maskz_compress_epi32(m as u16, v),
            _ => _mm512_maskz_compress_epi64(m as u8, v),
        }
    }
}

/// The first `count` lanes of `packed` (rows, `W` bytes wide) as `i64` to `y`, eight a store
/// (for 1- and 2-byte lanes a whole vector where `room` lanes hold it: the lanes past `count`
/// are written again later).
///
/// # Safety
/// The CPU has AVX-512 F and DQ; `y` holds `room` lanes, at least `count`.
#[inline(always)]
pub(super) unsafe fn rows_out<const W: usize>(
    packed: __m512i,
    y: *mut i64,
    count: usize,
    room: usize,
) {
    // SAFETY: as the caller's: the first `count` lanes of `y`.
    unsafe {
        let put = |p: *mut i64, from: usize, v: __m512i| {
            if W < 4 && from + 8 <= room {
                _mm512_storeu_si512(p.cast(), v);
            } else {
                _mm512_mask_storeu_epi64(p, low_lanes(count - from) as u8, v);
            }
        };
        match W {
            8 => return put(y, 0, packed),
            4 => {
                put(y, 0, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(packed)));
                if count > 8 {
                    let high = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(packed));
                    put(y.add(8), 8, high);
                }
                return;
            }
            _ => {}
        }
        let mut k = 0;
        while k < count {
            // The eight lanes from `k` at the bottom of a vector, widened.
            let wide = if W == 1 {
                let at = _mm512_set1_epi64((k / 8) as i64);
                _mm512_cvtepu8_epi64(_mm512_castsi512_si128(_mm512_permutexvar_epi64(at, packed)))
            } else {
                let at = _mm512_add_epi64(
                    _mm512_set1_epi64((k / 4) as i64),
                    _mm512_set_epi64(0, 0, 0, 0, 0, 0, 1, 0),
                );
                _mm512_cvtepu16_epi64(_mm512_castsi512_si128(_mm512_permutexvar_epi64(at, packed)))
            };
            put(y.add(k), k, wide);
            k += 8;
        }
    }
}

#[cfg(test)]
mod tests;
