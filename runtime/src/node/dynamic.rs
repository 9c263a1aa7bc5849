//! The kernels of debug builds' entry points ([`super::Thin`]): the node's sizes as run-time
//! values. Every element type, direction and tie rule is compiled here whether a model uses it
//! or not, so each kernel family has one instance per type, direction and tie rule, built on the
//! optimized kernels with run-time sizes:
//! - contiguous rows of 32 and more: the row kernels;
//! - short rows: many of them, a tile of rows turned into lanes (a transposing copy), then the
//!   lane kernel; a few, sixteen side by side (`small`);
//! - lanes down fewer than 32 rows, and blocks of at most 256 elements: sixteen lanes at a time
//!   in registers (`small`); longer blocks of fewer than sixteen lanes: several rows read as one
//!   wide row; the rest: the lane kernel.

use super::small;
use crate::kernels::{
    self, afresh, afresh_rows, arg_lanes_narrow_in, arg_lanes_values, arg_row, arg_row_rounded,
    arg_rows_short, arg_values, fill, fold, hardmax_lanes, hardmax_rows_short, narrow_period,
    reduce_lane_blocks_fresh, reduce_lanes_narrow_in, reduce_lanes_rows, reduce_planes_in,
    reduce_rows as reduce_rows_kernel, reduce_rows_short, Narrowing,
};
use crate::{Direction, Element, Max};

/// Rows shorter than this take the short-row path, lanes fewer than [`FEW_LANES`] are read
/// several rows at a time: the generator's thresholds.
const SHORT_ROW: usize = 32;
const FEW_LANES: usize = 16;

/// Blocks of at most this many elements go to the small-work kernels whatever their shape.
const SMALL_BLOCK: usize = 256;

/// Lanes the lane kernel takes at once here (the optimized build sizes them by type).
const TILE: usize = 256;

/// Elements of the stack buffer the short-row and few-row paths rearrange a tile in.
const SPREAD: usize = SHORT_ROW * TILE;

/// Fewer rows than this are not worth rearranging: one row at a time.
const FEW_ROWS: usize = 64;

/// The lane kernel over `x` (rows of `inner` lanes) into `y` (and `v`, unless empty).
#[inline(always)]
fn lanes<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) {
    arg_lanes_values::<T, D, LAST, TILE>(x, y, v, inner);
}

/// Indices of the extreme of each contiguous row of `r` of `x` into `y`.
pub(super) fn arg_rows<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    r: usize,
) {
    if (2..SHORT_ROW).contains(&r) && x.len() <= SMALL_BLOCK {
        // Small tensors: the small-work loops, no setup (row by row under sixteen rows).
        return small::arg_rows::<T, D, LAST>(x, y, r);
    }
    if kernels::arg_short_f32::<T, D, LAST>(x, y, r) {
        // f32 rows of 4 to 31: the optimized builds' kernels, one instance per length.
        return;
    }
    match r {
        0 => {}
        1 => fill(y, 0),
        // The commonest short rows (two classes, ...), unrolled as the optimized build does.
        2 => arg_rows_short::<T, D, LAST, 2>(x, y),
        3 => arg_rows_short::<T, D, LAST, 3>(x, y),
        4 => arg_rows_short::<T, D, LAST, 4>(x, y),
        r if r < SHORT_ROW && y.len() >= FEW_ROWS => arg_rows_spread::<T, D, LAST>(x, y, r),
        r if r < SHORT_ROW => small::arg_rows::<T, D, LAST>(x, y, r),
        r => {
            for (o, row) in y.iter_mut().zip(x.chunks_exact(r)) {
                *o = arg_row::<T, D, LAST>(row) as i64;
            }
        }
    }
}

/// [`arg_rows`] over many short rows: a tile of rows becomes `r` rows of as many lanes (a
/// transposing copy), then the lane kernel. Not inlined: its tile (32 KiB of f32) would make
/// every call of [`arg_rows`] probe that much stack, which cost a two-row model more than its
/// kernel.
#[inline(never)]
fn arg_rows_spread<T: Element, D: Direction, const LAST: bool>(x: &[T], y: &mut [i64], r: usize) {
    let mut t = [T::ZERO; SPREAD];
    for (ys, xs) in y.chunks_mut(TILE).zip(x.chunks(TILE * r)) {
        let n = ys.len().min(xs.len() / r);
        let t = &mut t[..n * r];
        for (k, row) in xs.chunks_exact(r).take(n).enumerate() {
            for (j, &v) in row.iter().enumerate() {
                if let Some(o) = t.get_mut(j * n + k) {
                    *o = v;
                }
            }
        }
        lanes::<T, D, LAST>(t, &mut ys[..n], &mut [], n);
    }
}

/// [`arg_rows`] as rounded to `U` (a Cast to a narrower float folded into the read).
pub(super) fn arg_rows_rounded<T: Narrowing<U>, U: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    r: usize,
) {
    if r == 0 {
        return;
    }
    for (o, row) in y.iter_mut().zip(x.chunks_exact(r)) {
        *o = arg_row_rounded::<T, U, D, LAST>(row) as i64;
    }
}

/// Arg-reduction along `r` rows of `inner` lanes, block after block of `x`; each lane's extreme
/// into `v` too when `v` is not empty.
pub(super) fn arg_blocks<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    (r, inner): (usize, usize),
) {
    let block = r * inner;
    if block == 0 {
        return;
    }
    if block <= SMALL_BLOCK {
        small::arg_blocks::<T, D, LAST>(x, y, v, (r, inner));
    } else if inner < FEW_LANES {
        // Several rows at a time as one wide row.
        let w = narrow_period(inner);
        for (x, y) in x.chunks_exact(block).zip(y.chunks_exact_mut(inner)) {
            arg_lanes_narrow_in::<T, D, LAST>(
                x,
                y,
                inner,
                w,
                |x: &[T], y: &mut [i64], n: usize| {
                    lanes::<T, D, LAST>(x, y, &mut [], n);
                },
            );
        }
        if !v.is_empty() {
            arg_values(x, y, v, r, inner);
        }
    } else if r < SHORT_ROW {
        // Few rows: sixteen lanes at a time down them, block after block.
        small::arg_blocks::<T, D, LAST>(x, y, v, (r, inner));
    } else if v.is_empty() {
        for (x, y) in x.chunks_exact(block).zip(y.chunks_exact_mut(inner)) {
            lanes::<T, D, LAST>(x, y, &mut [], inner);
        }
    } else {
        let blocks = x.chunks_exact(block).zip(y.chunks_exact_mut(inner));
        for ((x, y), v) in blocks.zip(v.chunks_exact_mut(inner)) {
            lanes::<T, D, LAST>(x, y, v, inner);
        }
    }
}

/// Folds each contiguous row of `n` of `x` into the matching element of `y`, or with `fresh`
/// writes each its row's extreme (piece by piece, see `kernels::afresh`).
pub(super) fn reduce_rows<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize, fresh: bool) {
    if fresh {
        return afresh_rows::<T, D>(y, x, n, |y, x| fold_rows::<T, D>(y, x, n));
    }
    fold_rows::<T, D>(y, x, n);
}

/// [`reduce_rows`] folding into `y`.
fn fold_rows<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize) {
    if n > 4 && x.len() <= SMALL_BLOCK {
        // Small tensors: row after row, without the dispatch over row lengths.
        for (o, row) in y.iter_mut().zip(small::pieces(x, n)) {
            *o = small::fold_row::<T, D>(*o, row);
        }
        return;
    }
    if kernels::reduce_short_f32::<T, D>(y, x, n) {
        // f32 rows of 4 to 31: the optimized builds' kernels, one instance per length.
        return;
    }
    match n {
        0 => {}
        2 => reduce_rows_short::<T, D, 2>(y, x),
        3 => reduce_rows_short::<T, D, 3>(y, x),
        4 => reduce_rows_short::<T, D, 4>(y, x),
        n => reduce_rows_kernel::<T, D>(y, x, n),
    }
}

/// Folds each block of `xs` elements of `x` (rows of `ys` lanes) into its block of `ys` of `y`,
/// or with `fresh` writes each block's extremes.
pub(super) fn reduce_lanes<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    fresh: bool,
) {
    if fresh && ys >= FEW_LANES {
        // The lane kernel starts from the identity itself.
        return reduce_lane_blocks_fresh::<T, D>(y, x, (xs, ys));
    }
    if fresh {
        return afresh::<T, D>(y, x, (xs, ys), |y, x| fold_lanes::<T, D>(y, x, (xs, ys)));
    }
    fold_lanes::<T, D>(y, x, (xs, ys));
}

/// [`reduce_lanes`] folding into `y`.
fn fold_lanes<T: Element, D: Direction>(y: &mut [T], x: &[T], (xs, ys): (usize, usize)) {
    if xs == 0 || ys == 0 {
        return;
    }
    if ys < FEW_LANES && xs <= SMALL_BLOCK {
        // Small blocks of few lanes: the narrow kernel's widened lanes would cost more to set
        // up than the block (the lane kernel has no such setup).
        return small::reduce_blocks::<T, D>(y, x, (xs, ys));
    }
    for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
        if ys < FEW_LANES {
            reduce_lanes_narrow_in::<T, D>(y, x, ys, narrow_period(ys));
        } else {
            reduce_lanes_rows::<T, D>(y, x);
        }
    }
}

/// Blocks of `xs` elements of `x`, each `planes` planes of `ys` rows of `n`: every row of every
/// plane folded into its element of the block's `ys` outputs (with `fresh`, outputs written
/// afresh).
pub(super) fn reduce_planes<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (planes, n): (usize, usize),
    (xs, ys): (usize, usize),
    fresh: bool,
) {
    if fresh {
        let fold = |y: &mut [T], x: &[T]| fold_planes::<T, D>(y, x, (planes, n), (xs, ys));
        return afresh::<T, D>(y, x, (xs, ys), fold);
    }
    fold_planes::<T, D>(y, x, (planes, n), (xs, ys));
}

/// [`reduce_planes`] folding into `y`.
fn fold_planes<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (planes, n): (usize, usize),
    (xs, ys): (usize, usize),
) {
    if xs == 0 || ys == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
        reduce_planes_in::<T, D>(y, x, planes, n, |ys, tile| {
            for (o, row) in ys.iter_mut().zip(tile.chunks_exact(n)) {
                *o = fold::<T, D>(*o, row);
            }
        });
    }
}

/// Rows (or lanes) whose Hardmax positions are found at a time.
const AT: usize = 256;

/// Hardmax of each contiguous row of `r`: the row's first maximum (or first NaN), then zeros
/// and a one.
pub(super) fn hardmax_rows<T: Element>(x: &[T], y: &mut [T], r: usize) {
    // Float rows up to 64 elements: by equality with their maximum in AVX-512, where the CPU
    // has it.
    if crate::kernels::hardmax_rows_wide(x, y, r) {
        return;
    }
    match r {
        0 => return,
        2 => return hardmax_rows_short::<T, 2>(x, y),
        3 => return hardmax_rows_short::<T, 3>(x, y),
        4 => return hardmax_rows_short::<T, 4>(x, y),
        _ => {}
    }
    // Few rows: a few positions on the stack, not a whole tile to clear.
    let mut few = [0i64; FEW_LANES];
    let mut tile;
    let at: &mut [i64] = if x.len() / r <= FEW_LANES {
        &mut few
    } else {
        tile = [0i64; AT];
        &mut tile
    };
    for (ys, xs) in y.chunks_mut(AT * r).zip(x.chunks(AT * r)) {
        let at = &mut at[..xs.len() / r];
        arg_rows::<T, Max, false>(xs, at, r);
        fill(ys, T::ZERO);
        for (row, &a) in ys.chunks_exact_mut(r).zip(at.iter()) {
            if let Some(o) = usize::try_from(a).ok().and_then(|a| row.get_mut(a)) {
                *o = T::ONE;
            }
        }
    }
}

/// Hardmax along `r` rows of `inner` lanes, block after block: the strided Hardmax kernel, or
/// for fewer than sixteen lanes, each lane's first maximum (or first NaN) read several rows at a
/// time, then zeros and a one per lane.
pub(super) fn hardmax_blocks<T: Element>(x: &[T], y: &mut [T], r: usize, inner: usize) {
    let block = r * inner;
    if block == 0
        || crate::kernels::hardmax_blocks_f32(x, y, r, inner)
        || crate::kernels::hardmax_blocks_halves(x, y, r, inner)
    {
        return;
    }
    // Two rows of many lanes: the strided kernel's own two-row pass (the small-work loops ran
    // Hardmax `[2, 262144]` over axis 0 13x slower than the optimized build).
    if block <= SMALL_BLOCK || (r < SHORT_ROW && !(r == 2 && inner >= FEW_LANES)) {
        return small::hardmax_blocks(x, y, (r, inner));
    }
    for (x, y) in x.chunks_exact(block).zip(y.chunks_exact_mut(block)) {
        if inner >= FEW_LANES {
            hardmax_lanes(x, y, inner);
            continue;
        }
        let mut at = [0i64; FEW_LANES];
        let at = &mut at[..inner];
        arg_blocks::<T, Max, false>(x, at, &mut [], (r, inner));
        fill(y, T::ZERO);
        for (l, &a) in at.iter().enumerate() {
            let i = usize::try_from(a).unwrap_or(usize::MAX);
            if let Some(o) = i.checked_mul(inner).and_then(|i| y.get_mut(i + l)) {
                *o = T::ONE;
            }
        }
    }
}
