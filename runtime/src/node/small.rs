//! The debug builds' kernels for small work (see `dynamic`): blocks of few rows or few lanes,
//! and tensors too small to pay the large kernels' setup (tiles on the stack, blocks of lanes,
//! parts of rows). Sixteen lanes at a time are kept in fixed-size arrays, so the loops vectorize
//! without copy calls whatever the run-time sizes; lanes left over go one at a time. Every step
//! applies the contract's rule exactly (a NaN wins, the first or last tie or NaN), so there is no
//! second pass.

use crate::kernels::{fill, take};
use crate::{Direction, Element, Max};

/// Lanes kept in registers at a time.
const W: usize = 16;

/// The index and extreme of each of `W` lanes starting at lane `l` of a block of rows of
/// `inner`: the rows folded in order from the direction's identity.
#[inline(always)]
fn arg_chunk<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    inner: usize,
    l: usize,
) -> ([T; W], [u32; W]) {
    let chunk = |row: &[T]| -> Option<[T; W]> {
        row.get(l..l + W).and_then(|r| <[T; W]>::try_from(r).ok())
    };
    let mut rows = x.chunks_exact(inner);
    // The first row as the start (a NaN there stays: `take` never replaces a NaN).
    let Some(mut best) = rows.next().and_then(chunk) else {
        return ([D::identity::<T>(); W], [0; W]);
    };
    let mut idx = [0u32; W];
    for (j, row) in rows.enumerate() {
        let j = j + 1;
        let Some(row) = chunk(row) else {
            break;
        };
        for k in 0..W {
            let t = take::<T, D, LAST>(best[k], row[k]);
            best[k] = if t { row[k] } else { best[k] };
            idx[k] = if t { j as u32 } else { idx[k] };
        }
    }
    (best, idx)
}

/// [`arg_chunk`] for the last lanes of a row when fewer than `W` are left: lanes past the row's
/// end read as the lane's running best (so they never move).
#[inline(never)]
fn arg_chunk_partial<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    inner: usize,
    l: usize,
) -> ([T; W], [u32; W]) {
    let mut best = [D::identity::<T>(); W];
    let mut idx = [0u32; W];
    for (j, row) in x.chunks_exact(inner).enumerate() {
        let row: [T; W] = core::array::from_fn(|k| row.get(l + k).copied().unwrap_or(best[k]));
        for k in 0..W {
            let t = take::<T, D, LAST>(best[k], row[k]);
            best[k] = if t { row[k] } else { best[k] };
            idx[k] = if t { j as u32 } else { idx[k] };
        }
    }
    (best, idx)
}

/// The index and extreme of lane `l` of a block of rows of `inner`.
#[inline(always)]
fn arg_lane<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    inner: usize,
    l: usize,
) -> (T, usize) {
    let (mut best, mut idx) = (D::identity::<T>(), 0);
    for (j, &e) in x.iter().skip(l).step_by(inner).enumerate() {
        if take::<T, D, LAST>(best, e) {
            best = e;
            idx = j;
        }
    }
    (best, idx)
}

/// Arg-reduction along `r` rows (fewer than 2^32) of `inner` lanes, block after block of `x`;
/// each lane's extreme into `v` too when `v` is not empty. Whole chunks start from the block's
/// first row; the lanes left start from the direction's identity, which is exact: the first
/// row either beats it, ties it (then it is the identity itself, at index 0 or replaced under
/// the last-tie rule) or is NaN (which wins).
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
    let mut empty: [T; 0] = [];
    for (b, (x, y)) in x
        .chunks_exact(block)
        .zip(y.chunks_exact_mut(inner))
        .enumerate()
    {
        let v = v.get_mut(b * inner..(b + 1) * inner).unwrap_or(&mut empty);
        let mut l = 0;
        while l + W <= inner {
            let (best, idx) = arg_chunk::<T, D, LAST>(x, inner, l);
            if let Some(y) = y.get_mut(l..l + W) {
                for (o, &i) in y.iter_mut().zip(&idx) {
                    *o = i64::from(i);
                }
            }
            if let Some(v) = v.get_mut(l..l + W) {
                for (o, &e) in v.iter_mut().zip(&best) {
                    *o = e;
                }
            }
            l += W;
        }
        if inner - l >= W / 2 {
            let (best, idx) = arg_chunk_partial::<T, D, LAST>(x, inner, l);
            for (o, &i) in y.iter_mut().skip(l).zip(&idx) {
                *o = i64::from(i);
            }
            for (o, &e) in v.iter_mut().skip(l).zip(&best) {
                *o = e;
            }
        } else {
            // A few lanes: one at a time.
            for l in l..inner {
                let (best, idx) = arg_lane::<T, D, LAST>(x, inner, l);
                if let Some(o) = y.get_mut(l) {
                    *o = idx as i64;
                }
                if let Some(o) = v.get_mut(l) {
                    *o = best;
                }
            }
        }
    }
}

/// Folds each block of `xs` elements of `x` (rows of `ys` lanes) into its block of `ys` of `y`
/// (NaN-propagating: the running value stays once it is NaN).
pub(super) fn reduce_blocks<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
) {
    if xs == 0 || ys == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
        let mut l = 0;
        while l + W <= ys {
            if let Some(y) = y
                .get_mut(l..l + W)
                .and_then(|y| <&mut [T; W]>::try_from(y).ok())
            {
                let mut acc = *y;
                for row in x.chunks_exact(ys) {
                    if let Some(row) = row.get(l..l + W).and_then(|r| <&[T; W]>::try_from(r).ok()) {
                        for k in 0..W {
                            acc[k] = if take::<T, D, false>(acc[k], row[k]) {
                                row[k]
                            } else {
                                acc[k]
                            };
                        }
                    }
                }
                *y = acc;
            }
            l += W;
        }
        for (k, o) in y.iter_mut().enumerate().skip(l) {
            for &e in x.iter().skip(k).step_by(ys) {
                if take::<T, D, false>(*o, e) {
                    *o = e;
                }
            }
        }
    }
}

/// Indices of the extreme of each contiguous row of `r` of `x` into `y`, sixteen rows at a time
/// side by side (row `k` of a group is lane `k`; a group's missing rows repeat their lane's best).
pub(super) fn arg_rows<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    r: usize,
) {
    if r == 0 {
        return;
    }
    if x.len() < W * r {
        // Fewer than sixteen rows: each one read in order (sixteen lanes would be partly
        // padding, and their gathers cost more than the rows' own compares).
        for (o, row) in y.iter_mut().zip(x.chunks_exact(r)) {
            let (mut best, mut i) = (D::identity::<T>(), 0);
            for (j, &e) in row.iter().enumerate() {
                if take::<T, D, LAST>(best, e) {
                    best = e;
                    i = j;
                }
            }
            *o = i as i64;
        }
        return;
    }
    for (x, y) in x.chunks(W * r).zip(y.chunks_mut(W)) {
        let mut best = [D::identity::<T>(); W];
        let mut idx = [0u32; W];
        for j in 0..r {
            let col: [T; W] =
                core::array::from_fn(|k| x.get(k * r + j).copied().unwrap_or(best[k]));
            for k in 0..W {
                let t = take::<T, D, LAST>(best[k], col[k]);
                best[k] = if t { col[k] } else { best[k] };
                idx[k] = if t { j as u32 } else { idx[k] };
            }
        }
        for (o, &i) in y.iter_mut().zip(&idx) {
            *o = i64::from(i);
        }
    }
}

/// Hardmax along `r` rows of `inner` lanes, block after block: zeros, then a one at each
/// lane's first maximum (or first NaN).
pub(super) fn hardmax_blocks<T: Element>(x: &[T], y: &mut [T], (r, inner): (usize, usize)) {
    let block = r * inner;
    if block == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(block).zip(y.chunks_exact_mut(block)) {
        fill(y, T::ZERO);
        let mut one = |l: usize, i: usize| {
            if let Some(o) = y.get_mut(i * inner + l) {
                *o = T::ONE;
            }
        };
        let mut l = 0;
        while l + W <= inner {
            let (_, idx) = arg_chunk::<T, Max, false>(x, inner, l);
            for (k, &i) in idx.iter().enumerate() {
                one(l + k, i as usize);
            }
            l += W;
        }
        if inner - l >= W / 2 {
            let (_, idx) = arg_chunk_partial::<T, Max, false>(x, inner, l);
            for (k, &i) in idx.iter().enumerate().take(inner - l) {
                one(l + k, i as usize);
            }
        } else {
            for l in l..inner {
                one(l, arg_lane::<T, Max, false>(x, inner, l).1);
            }
        }
    }
}
