//! Rows of one to four vectors ([`super::arg_rows`]'s rows of at most `4 · 64 / W` elements):
//! each row's vectors loaded once and kept in registers, its best found as [`super`]'s first
//! pass does, then its index from those same registers without a branch: one compare a vector,
//! the masks joined, the lowest bit (the highest with the last index). The longer rows' second
//! pass ([`super::search::find`]) re-reads the row and branches on every step; over a row of a
//! vector or two that, and not the elements, was the cost. A row holding a NaN (or, of f16 and
//! bf16, whose best is a zero) has its index found by that pass, out of line.

use core::arch::x86_64::{__m512i, _mm512_loadu_si512};
use core::hint::select_unpredictable;

use super::super::arg_shifted::low_lanes;
use super::super::lanes::{magnitude, splat};
use super::search::{find, hits};
use super::FLOAT;
use super::{better, key, load_or, look, read_bits, settle, EQUAL, NAN, ZERO};
use crate::kernels::index::{index, Index};
use crate::Direction;

/// The longest rows of `W`-byte elements taken, in vectors: 16 (the registers hold them), of
/// bytes 8 (`i8` rows of 9 to 16 vectors took 1.3x the time of the longer rows' passes).
pub(super) const fn most_vectors(w: usize) -> usize {
    if w == 1 {
        8
    } else {
        16
    }
}

/// [`super::arg_rows`] of rows of `c` elements, `NV` vectors each (`c` over `(NV - 1) · 64 / W`
/// and at most `NV · 64 / W`).
///
/// # Safety
/// AVX-512 F, BW, VL, DQ; `y.len()` rows of `c` at `x`, and with `VALUES` as many elements at
/// `v`; `c` as above.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn arg_in<
    D: Direction,
    const LAST: bool,
    I: Index,
    const W: usize,
    const KIND: u8,
    const VALUES: bool,
    const NV: usize,
>(
    x: *const u8,
    y: &mut [I],
    v: *mut u8,
    c: usize,
    inf: u64,
) {
    let l = 64 / W;
    let tail = low_lanes(c - (NV - 1) * l);
    for (r, o) in y.iter_mut().enumerate() {
        let p = x.wrapping_add(r * c * W);
        // SAFETY: row `r` is the `c` elements at `p`: `NV - 1` whole vectors, then the lanes of
        // `tail`.
        let at = unsafe {
            let raw = row::<W, NV>(p, l, tail);
            let (target, mode) = best::<D, W, KIND, NV>(&raw, inf);
            match mode {
                EQUAL => position::<LAST, W, KIND, NV>(&raw, target, tail, inf),
                ZERO => find::<LAST, W, KIND, ZERO>(p, c, target, inf),
                _ => find::<LAST, W, KIND, NAN>(p, c, target, inf),
            }
        };
        *o = index::<I>(at);
        if VALUES {
            // SAFETY: element `at` of the row, to element `r` of `v`.
            unsafe { core::ptr::copy_nonoverlapping(p.add(at * W), v.add(r * W), W) };
        }
    }
}

/// The `NV` vectors of the row at `p`, the lanes of the last past `tail` its first element's
/// (which changes no extreme).
///
/// # Safety
/// AVX-512 F, BW; `NV - 1` whole vectors of `l` lanes at `p`, then the lanes of `tail`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn row<const W: usize, const NV: usize>(p: *const u8, l: usize, tail: u64) -> [__m512i; NV] {
    // SAFETY: as the caller's.
    unsafe {
        let first = splat::<W>(read_bits::<W>(p));
        let mut raw = [first; NV];
        for (j, raw) in raw.iter_mut().enumerate().take(NV - 1) {
            *raw = _mm512_loadu_si512(p.add(j * l * W).cast());
        }
        raw[NV - 1] = load_or::<W>(first, p.add((NV - 1) * l * W), tail);
        raw
    }
}

/// The best of `D` of the row's vectors `raw` in every lane, as the index is found by it, and
/// what is looked for ([`settle`]).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn best<D: Direction, const W: usize, const KIND: u8, const NV: usize>(
    raw: &[__m512i; NV],
    inf: u64,
) -> (__m512i, u8) {
    let mut b = key::<KIND>(raw[0]);
    let mut seen = if KIND == FLOAT {
        magnitude::<W, KIND>(raw[0])
    } else {
        raw[0]
    };
    for &r in &raw[1..] {
        b = better::<D, W, KIND>(b, key::<KIND>(r));
        seen = look::<D, W, KIND>(seen, r);
    }
    settle::<D, W, KIND>(b, seen, inf)
}

/// The first (with `LAST` the last) lane of the row's vectors `raw` equal to `target`, the
/// last vector's lanes past `tail` left out.
#[inline]
#[target_feature(enable = "avx2,bmi1,lzcnt,avx512f,avx512bw,avx512vl,avx512dq")]
fn position<const LAST: bool, const W: usize, const KIND: u8, const NV: usize>(
    raw: &[__m512i; NV],
    target: __m512i,
    tail: u64,
    inf: u64,
) -> usize {
    let l = 64 / W;
    let mut m = [0u64; NV];
    for (m, &r) in m.iter_mut().zip(raw) {
        *m = hits::<W, KIND, EQUAL>(r, target, inf);
    }
    m[NV - 1] &= tail;
    if NV * l <= 64 {
        // All the row's lanes in one mask.
        let all = m
            .iter()
            .enumerate()
            .fold(0u64, |a, (j, &m)| a | m << (j * l));
        return if LAST {
            63 - all.leading_zeros() as usize
        } else {
            all.trailing_zeros() as usize
        };
    }
    let mut at = 0;
    if LAST {
        for (j, &m) in m.iter().enumerate() {
            // Wrapping: a vector without a hit (`m` 0) gives a number the select drops.
            let hit = (j * l + 63).wrapping_sub(m.leading_zeros() as usize);
            at = select_unpredictable(m != 0, hit, at);
        }
    } else {
        for (j, &m) in m.iter().enumerate().rev() {
            at = select_unpredictable(m != 0, j * l + m.trailing_zeros() as usize, at);
        }
    }
    at
}
