//! The scalar search of short rows of a length known at compile time (2 to 31 elements): each
//! row's extreme and its position by one compare and two selects an element, a tile of rows at
//! a time, the NaN rule applied again to a tile that held one; and the same with each row's
//! extreme as a value (a fused ReduceMax or ReduceMin).

use core::hint::select_unpredictable;

use super::super::half_rows::{arg_row_half, key, mag};
use super::super::shared::take;
use super::ROW_TILE;
use crate::{Direction, Element};

/// [`arg_rows_short`] with each row's extreme into `v` too (a ReduceMax or ReduceMin of the same
/// rows fused into the node), for rows of 2 to 4 that no vector kernel took (8-byte types):
/// one pass, a tile of positions and then its values from the rows just read. `false` (nothing
/// done) for other lengths and with `small-code`.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn arg_values_rows_short<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    n: usize,
) -> bool {
    if cfg!(feature = "small-code") {
        return false;
    }
    match n {
        2 => arg_values_short::<T, D, LAST, 2>(x, y, v),
        3 => arg_values_short::<T, D, LAST, 3>(x, y, v),
        4 => arg_values_short::<T, D, LAST, 4>(x, y, v),
        _ => return false,
    }
    true
}

/// [`arg_values_rows_short`] of rows of `R`.
#[cfg(not(debug_assertions))]
#[inline(always)]
fn arg_values_short<T: Element, D: Direction, const LAST: bool, const R: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
) {
    let (rows, _) = x.as_chunks::<R>();
    let tiles = y.chunks_mut(ROW_TILE).zip(v.chunks_mut(ROW_TILE));
    for ((ys, vs), rs) in tiles.zip(rows.chunks(ROW_TILE)) {
        let idx = arg_tile_small::<T, D, LAST, R>(rs);
        for (((o, e), &i), row) in ys.iter_mut().zip(vs.iter_mut()).zip(&idx).zip(rs) {
            *o = i64::from(i);
            if let Some(&w) = row.get(i as usize) {
                *e = w;
            }
        }
    }
}

/// The positions of a tile of short rows: by the order alone (one compare and two selects per
/// element, NaN only flagged), then, if the tile held a NaN, again by the exact rule.
#[inline(always)]
pub(super) fn arg_tile_small<T: Element, D: Direction, const LAST: bool, const R: usize>(
    rs: &[[T; R]],
) -> [u32; ROW_TILE] {
    let mut idx = [0u32; ROW_TILE];
    let mut nan = false;
    for (i, row) in idx.iter_mut().zip(rs) {
        let (at, n) = arg_small_ordered::<T, D, LAST, R>(row);
        *i = at;
        nan |= n;
    }
    if nan {
        for (i, row) in idx.iter_mut().zip(rs) {
            *i = arg_small::<T, D, LAST, R>(row);
        }
    }
    idx
}

/// [`arg_tile_small`] of f16 or bf16 bits (`inf`: [`inf_of`]): each row's order keys, then
/// its position among them; a tile that held a NaN done again by the exact rule.
#[inline(always)]
pub(super) fn arg_tile_half<D: Direction, const LAST: bool, const R: usize>(
    bits: &[u16],
    inf: i16,
) -> [u32; ROW_TILE] {
    let (rs, _) = bits.as_chunks::<R>();
    let mut idx = [0u32; ROW_TILE];
    let mut top = 0i16;
    for (i, row) in idx.iter_mut().zip(rs) {
        let mut keys = [0i16; R];
        for (k, &b) in keys.iter_mut().zip(row) {
            *k = key(b);
            // A NaN's magnitude is above `inf`'s.
            top = top.max(mag(b));
        }
        (*i, _) = arg_small_ordered::<i16, D, LAST, R>(&keys);
    }
    if top > inf {
        for (i, row) in idx.iter_mut().zip(rs) {
            *i = arg_row_half::<D, LAST>(row, inf) as u32;
        }
    }
    idx
}

/// [`arg_small`] by the order alone, and whether the row held a NaN (then the index is not
/// the contract's).
#[inline(always)]
fn arg_small_ordered<T: Element, D: Direction, const LAST: bool, const R: usize>(
    row: &[T; R],
) -> (u32, bool) {
    let Some(&first) = row.first() else {
        return (0, false);
    };
    let (mut best, mut at, mut nan) = (first, 0u32, first.is_nan());
    for (j, &v) in row.iter().enumerate().skip(1) {
        let t = if LAST {
            !D::better(best, v)
        } else {
            D::better(v, best)
        };
        (best, at) = pick_at::<T, R>(j, t, v, best, at);
        nan |= v.is_nan();
    }
    (at, nan)
}

/// The index of the extreme of one short row, unrolled: one compare and two selects per element.
#[inline(always)]
pub(super) fn arg_small<T: Element, D: Direction, const LAST: bool, const R: usize>(
    row: &[T; R],
) -> u32 {
    let Some(&first) = row.first() else {
        return 0;
    };
    let (mut best, mut at) = (first, 0u32);
    for (j, &v) in row.iter().enumerate().skip(1) {
        let t = take::<T, D, LAST>(best, v);
        (best, at) = pick_at::<T, R>(j, t, v, best, at);
    }
    at
}

/// The extreme so far and its position after element `j` (`v`) of a row of `R`, which is taken
/// if `t`. Rows of up to [`SELECTS`] by selects: random data takes an element of them as often
/// as not, where LLVM may make the choice a branch (the last tie rule: `i64` rows of 3 over
/// 2 MiB 376-420 us by a branch, 127-141 us by selects). Longer rows by what LLVM chooses:
/// their later elements are rarely taken, and selects would chain the extreme through two
/// cycles an element (`i64` rows of 20: 190 us, 334-488 us by selects).
#[inline(always)]
fn pick_at<T: Copy, const R: usize>(j: usize, t: bool, v: T, best: T, at: u32) -> (T, u32) {
    if R <= SELECTS {
        (
            select_unpredictable(t, v, best),
            select_unpredictable(t, j as u32, at),
        )
    } else if t {
        (v, j as u32)
    } else {
        (best, at)
    }
}

/// The longest rows [`pick_at`] takes by selects.
const SELECTS: usize = 4;
