//! Strided arg-reductions over many small blocks: blocks of [`MIN_ROWS`] to [`MAX_ROWS`] rows
//! of [`LANES`] to [`MAX_LANES`] lanes (ArgMax over axis 1 of `[n, 5, 24]`), every block in one
//! call, the integer types and `f64` (which types and rows: [`fits`]).
//!
//! The lane kernels set up a tile per block (its state zeroed, its plan chosen, NaN looked for
//! first), which over blocks of a few hundred bytes cost more than the blocks' elements: 2 MiB
//! of `u8` as `[43690, 3, 16]` took 4.8 ms (a streaming read 50 us), `i16` `[21845, 3, 16]`
//! 2.6 ms, `f64` `[1820, 6, 24]` 0.66 ms. Here each chunk of sixteen lanes (the last chunk ending
//! at the block's last lane, overlapping the one before, which it writes again alike) goes down
//! its rows twice: first its extremes by the order alone, as keys (`Element::Key`), NaN flagged on the side; then, down the rows the other way,
//! the row of each lane's extreme by equality (the first: from the last row up; with `LAST` the
//! last: from the first down). A block with a NaN goes lane by lane by the contract's rule.

use super::arg_lanes::lane_by_lane;
use core::mem::size_of;

use crate::{DType, Direction, Element};

/// The fewest rows taken (blocks of two rows have their own kernel, `arg_two_rows`).
pub(crate) const MIN_ROWS: usize = 3;

/// The most rows taken: past them the lane kernels' set-up is paid over enough rows.
pub(crate) const MAX_ROWS: usize = 16;

/// Lanes of a chunk, and the fewest lanes a block must have.
pub(crate) const LANES: usize = 16;

/// The most lanes taken: wider blocks are few for their size, and the lane kernels' tiles pay.
pub(crate) const MAX_LANES: usize = 256;

/// Whether blocks of `r` rows of `inner` lanes of `T` are this module's (with or without each
/// lane's extreme): 8-byte types over [`MIN_ROWS`] to [`MAX_ROWS`] rows, the 1-, 2-
/// and 4-byte integers over three rows. From four rows the AVX2 kernel of narrow lanes
/// (`arg_lanes_small_avx2`) was as fast or faster (`u8` `[4194, 5, 100]` 351 us there, 894
/// here, where LLVM reads a chunk four bytes at a time), and so it was for f16 and bf16 in every
/// case (ArgMax f16 `[21845, 3, 16]` 557 -> 200 us: the keys are built here in the baseline
/// build, which has no AVX2 twin for them). The values are picked in the pass that finds the
/// rows (on an AMD EPYC, Zen 4, ReduceMax+ArgMax of `[n, 3, 16..40]` took 0.4-0.6x the time of
/// the other kernels for `i16` and `i32`, and 1.0-1.1x ArgMax alone for every type here). `f32`
/// has its own AVX2 pass over blocks (`arg_blocks_f32`). None with `small-code` (one kernel for
/// all).
#[inline(always)]
pub(crate) fn fits<T: Element>(r: usize, inner: usize) -> bool {
    let most = match (size_of::<T>(), T::DTYPE) {
        (_, DType::F32 | DType::F16 | DType::BF16) => 0,
        (8, _) => MAX_ROWS,
        _ => MIN_ROWS,
    };
    !cfg!(feature = "small-code")
        && (MIN_ROWS..=most).contains(&r)
        && (LANES..=MAX_LANES).contains(&inner)
}

/// The index of the extreme of each of `inner` lanes down the `r` rows of each block of `x`
/// into `y` (`inner` indices a block), the first or with `LAST` the last, and with `v` not
/// empty the extreme into `v`: `true` if done, `false` (nothing written) where the blocks are
/// not this module's ([`fits`]).
#[inline(always)]
pub(crate) fn arg_blocks_few<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    inner: usize,
) -> bool {
    if !fits::<T>(r, inner) {
        return false;
    }
    let size = r * inner;
    let mut blocks = (x.len() / size).min(y.len() / inner);
    if !v.is_empty() {
        blocks = blocks.min(v.len() / inner);
    }
    for b in 0..blocks {
        let (Some(xs), Some(ys)) = (
            x.get(b * size..(b + 1) * size),
            y.get_mut(b * inner..(b + 1) * inner),
        ) else {
            break;
        };
        let vs = v.get_mut(b * inner..(b + 1) * inner).unwrap_or_default();
        let done = if vs.is_empty() {
            block::<T, T::Key, D, LAST, false>(xs, ys, vs, inner, T::key, |e| e.is_nan())
        } else {
            block::<T, T::Key, D, LAST, true>(xs, ys, vs, inner, T::key, |e| e.is_nan())
        };
        if !done {
            lane_by_lane::<T, D, LAST>(xs, ys, vs, inner);
        }
    }
    true
}

/// One block of `E` (rows of `inner` lanes), compared as keys `K` (`key`), with `VALUES` each
/// lane's extreme into `v` too: `false`, with `y` and `v` possibly written, if it holds an
/// element that `nan` says is a NaN.
#[inline(always)]
fn block<E: Copy, K: Element, D: Direction, const LAST: bool, const VALUES: bool>(
    x: &[E],
    y: &mut [i64],
    v: &mut [E],
    inner: usize,
    key: impl Fn(E) -> K,
    nan: impl Fn(E) -> bool,
) -> bool {
    let rows = x.len() / inner;
    let row = |k: usize, at: usize| {
        x.get(k * inner + at..)
            .and_then(|s| s.first_chunk::<LANES>())
    };
    let mut c = 0;
    while c < inner {
        let at = c.min(inner - LANES);
        c += LANES;
        let Some(first) = row(0, at) else {
            return false;
        };
        let mut m = [K::ZERO; LANES];
        let mut seen = [false; LANES];
        for ((m, s), &e) in m.iter_mut().zip(seen.iter_mut()).zip(first) {
            *m = key(e);
            *s = nan(e);
        }
        // The extremes, by the order alone.
        for k in 1..rows {
            let Some(ch) = row(k, at) else {
                return false;
            };
            for ((m, s), &e) in m.iter_mut().zip(seen.iter_mut()).zip(ch) {
                let kv = key(e);
                *m = if D::better(kv, *m) { kv } else { *m };
                *s |= nan(e);
            }
        }
        if seen.iter().any(|&s| s) {
            return false;
        }
        // The rows that hold them: the last match met wins, so the first row is met last
        // going up (with `LAST`, the last row going down). Rows are under 256: a byte each.
        // With `VALUES`, the element met with each index (the one it names).
        let mut idx = [0u8; LANES];
        let mut best = *first;
        for step in 0..rows {
            let k = if LAST { step } else { rows - 1 - step };
            let Some(ch) = row(k, at) else {
                return false;
            };
            for ((i, &m), &e) in idx.iter_mut().zip(&m).zip(ch) {
                *i = if key(e) == m { k as u8 } else { *i };
            }
            if VALUES {
                for ((b, &m), &e) in best.iter_mut().zip(&m).zip(ch) {
                    *b = if key(e) == m { e } else { *b };
                }
            }
        }
        if let Some(out) = y.get_mut(at..).and_then(|s| s.first_chunk_mut::<LANES>()) {
            for (o, &i) in out.iter_mut().zip(&idx) {
                *o = i64::from(i);
            }
        }
        if let Some(out) = v.get_mut(at..).and_then(|s| s.first_chunk_mut::<LANES>()) {
            *out = best;
        }
    }
    true
}

#[cfg(test)]
mod tests;
