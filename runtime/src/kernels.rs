//! The inner kernels that generated loops call.
//!
//! Every kernel works on slices with iterators (`chunks_exact`, `zip`) or checked access, so
//! none can panic whatever the lengths; generated code always passes consistent lengths, and
//! after inlining the constant sizes let rustc drop the checks.
//!
//! Rules (see SEMANTICS.md): reductions propagate NaN; arg-reductions pick the first extreme
//! (the last with `LAST`), and a NaN beats every number (the first NaN, or the last with
//! `LAST`); `-0.0 == +0.0`.

use crate::{Direction, Element, Max};

/// Lanes processed together by the strided arg-reduction and Hardmax kernels.
const TILE: usize = 64;

/// Fills `y` with `v`.
#[inline]
pub fn fill<T: Copy>(y: &mut [T], v: T) {
    for o in y {
        *o = v;
    }
}

/// Copies `x` into `y` (up to the shorter length).
#[inline]
pub fn copy<T: Copy>(y: &mut [T], x: &[T]) {
    for (o, i) in y.iter_mut().zip(x) {
        *o = *i;
    }
}

/// One step of a NaN-propagating reduction: `v` replaces `acc` if it is NaN or more extreme.
/// Once `acc` is NaN it stays NaN.
#[inline(always)]
pub fn pick<T: Element, D: Direction>(acc: T, v: T) -> T {
    if v.is_nan() || D::better(v, acc) {
        v
    } else {
        acc
    }
}

/// `acc[j] = pick(acc[j], x[j])` lane by lane: accumulates one row into the kept lanes.
#[inline]
pub fn reduce_lanes<T: Element, D: Direction>(acc: &mut [T], x: &[T]) {
    for (a, &v) in acc.iter_mut().zip(x) {
        *a = pick::<T, D>(*a, v);
    }
}

/// Folds a contiguous row into `acc`.
#[inline]
pub fn fold<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    row.iter().fold(acc, |a, &v| pick::<T, D>(a, v))
}

/// For each element of `y`, folds the matching row of `n` elements of `x` into it.
#[inline]
pub fn reduce_rows<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize) {
    if n == 0 {
        return;
    }
    for (o, row) in y.iter_mut().zip(x.chunks_exact(n)) {
        *o = fold::<T, D>(*o, row);
    }
}

/// Whether `v` (later along the axis) replaces the current choice `best`.
#[inline(always)]
fn take<T: Element, D: Direction, const LAST: bool>(best: T, v: T) -> bool {
    if LAST {
        v.is_nan() || (!best.is_nan() && !D::better(best, v))
    } else {
        !best.is_nan() && (v.is_nan() || D::better(v, best))
    }
}

/// Index of the extreme of a contiguous row (0 for an empty row).
#[inline]
pub fn arg_row<T: Element, D: Direction, const LAST: bool>(x: &[T]) -> usize {
    let Some((&first, rest)) = x.split_first() else {
        return 0;
    };
    let mut best = first;
    let mut idx = 0;
    for (i, &v) in rest.iter().enumerate() {
        if take::<T, D, LAST>(best, v) {
            best = v;
            idx = i + 1;
        }
    }
    idx
}

/// Arg-reduction of a block of rows of `inner` lanes (`x.len() / inner` rows) into `y`
/// (`inner` indices), tile by tile.
#[inline]
pub fn arg_lanes<T: Element, D: Direction, const LAST: bool>(x: &[T], y: &mut [i64], inner: usize) {
    if inner == 0 {
        return;
    }
    for (t, ytile) in y.chunks_mut(TILE).enumerate() {
        let start = t * TILE;
        let end = start + ytile.len();
        let mut best = [T::ZERO; TILE];
        for (r, row) in x.chunks_exact(inner).enumerate() {
            let Some(lanes) = row.get(start..end) else {
                return;
            };
            if r == 0 {
                for ((b, o), &v) in best.iter_mut().zip(ytile.iter_mut()).zip(lanes) {
                    *b = v;
                    *o = 0;
                }
                continue;
            }
            for ((b, o), &v) in best.iter_mut().zip(ytile.iter_mut()).zip(lanes) {
                if take::<T, D, LAST>(*b, v) {
                    *b = v;
                    *o = r as i64;
                }
            }
        }
    }
}

/// Hardmax of a contiguous row: 1 at the first maximum (or first NaN), 0 elsewhere.
#[inline]
pub fn hardmax_row<T: Element>(x: &[T], y: &mut [T]) {
    let idx = arg_row::<T, Max, false>(x);
    fill(y, T::ZERO);
    if let Some(o) = y.get_mut(idx) {
        *o = T::ONE;
    }
}

/// Hardmax of a block of rows of `inner` lanes, along the rows, tile by tile.
#[inline]
pub fn hardmax_lanes<T: Element>(x: &[T], y: &mut [T], inner: usize) {
    if inner == 0 {
        return;
    }
    let lanes = inner;
    let mut start = 0;
    while start < lanes {
        let end = if lanes - start < TILE {
            lanes
        } else {
            start + TILE
        };
        let mut best = [T::ZERO; TILE];
        let mut idx = [0usize; TILE];
        for (r, row) in x.chunks_exact(inner).enumerate() {
            let Some(vals) = row.get(start..end) else {
                return;
            };
            for ((b, i), &v) in best.iter_mut().zip(idx.iter_mut()).zip(vals) {
                if r == 0 || take::<T, Max, false>(*b, v) {
                    *b = v;
                    *i = r;
                }
            }
        }
        for (r, row) in y.chunks_exact_mut(inner).enumerate() {
            let Some(outs) = row.get_mut(start..end) else {
                return;
            };
            for (o, &i) in outs.iter_mut().zip(idx.iter()) {
                *o = if i == r { T::ONE } else { T::ZERO };
            }
        }
        start = end;
    }
}

/// The offset of the `i`-th position (row-major) of runs given as (size, stride).
#[inline]
fn offset(mut i: usize, runs: &[(usize, usize)]) -> usize {
    let mut off = 0;
    for &(size, stride) in runs.iter().rev() {
        let (q, r) = match (i.checked_div(size), i.checked_rem(size)) {
            (Some(q), Some(r)) => (q, r),
            _ => return 0,
        };
        off += r * stride;
        i = q;
    }
    off
}

/// Hardmax over reduced axes that are not contiguous: for every position of the `kept` runs,
/// a 1 at the first maximum in row-major order over the `reduced` runs. Runs are
/// (size, stride in elements).
pub fn hardmax_general<T: Element>(
    x: &[T],
    y: &mut [T],
    kept: &[(usize, usize)],
    reduced: &[(usize, usize)],
) {
    fill(y, T::ZERO);
    let kept_n: usize = kept.iter().map(|r| r.0).product();
    let reduced_n: usize = reduced.iter().map(|r| r.0).product();
    for k in 0..kept_n {
        let base = offset(k, kept);
        let mut best: Option<(T, usize)> = None;
        for r in 0..reduced_n {
            let off = base + offset(r, reduced);
            let Some(&v) = x.get(off) else {
                return;
            };
            best = match best {
                Some((b, _)) if !take::<T, Max, false>(b, v) => best,
                _ => Some((v, off)),
            };
        }
        if let Some(o) = best.and_then(|(_, off)| y.get_mut(off)) {
            *o = T::ONE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Min;

    #[test]
    fn arg_row_ties_and_nan() {
        let x = [1.0f32, 3.0, 3.0, f32::NAN, 0.0, f32::NAN];
        assert_eq!(arg_row::<f32, Max, false>(&x), 3);
        assert_eq!(arg_row::<f32, Max, true>(&x), 5);
        assert_eq!(arg_row::<f32, Min, false>(&x), 3);
        let y = [2i8, -1, 2, -1];
        assert_eq!(arg_row::<i8, Max, false>(&y), 0);
        assert_eq!(arg_row::<i8, Max, true>(&y), 2);
        assert_eq!(arg_row::<i8, Min, true>(&y), 3);
        assert_eq!(arg_row::<f32, Max, false>(&[-0.0, 0.0]), 0);
        assert_eq!(arg_row::<f32, Max, true>(&[-0.0, 0.0]), 1);
    }

    #[test]
    fn reductions_propagate_nan() {
        let r = fold::<f32, Max>(f32::NEG_INFINITY, &[1.0, f32::NAN, 5.0]);
        assert!(r.is_nan());
        assert_eq!(fold::<f32, Min>(f32::INFINITY, &[1.0, -2.0, 5.0]), -2.0);
        assert!(fold::<bool, Max>(false, &[false, true]));
        assert!(!fold::<bool, Min>(true, &[false, true]));
    }
}
