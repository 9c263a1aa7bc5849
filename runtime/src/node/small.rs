//! The debug builds' kernels for small work (see `dynamic`): blocks of few rows or few lanes,
//! and tensors too small to pay the large kernels' setup (tiles on the stack, blocks of lanes,
//! parts of rows). Lanes are kept in fixed-size arrays (sixteen, eight or four at a time), so the
//! loops vectorize without copy calls whatever the run-time sizes; only rows narrower than four
//! lanes go lane by lane. Every step
//! applies the contract's rule exactly (a NaN wins, the first or last tie or NaN), so there is no
//! second pass.

use crate::kernels::{fill, step, take};
use crate::{Direction, Element, Max};

/// Lanes kept in registers at a time.
const W: usize = 16;

/// The consecutive pieces of `n` elements of `x` (none when `n` is 0), a partial last piece
/// left out: `chunks_exact` without its divisions (a 64-bit division, which it makes to count
/// its pieces and the zip of two of them makes again, costs more than a small tensor's
/// compares).
#[inline(always)]
pub(super) fn pieces<T>(x: &[T], n: usize) -> impl Iterator<Item = &[T]> {
    let mut rest = if n == 0 { &[][..] } else { x };
    core::iter::from_fn(move || {
        let (piece, after) = rest.split_at_checked(n)?;
        rest = after;
        Some(piece)
    })
}

/// [`pieces`] of a mutable slice.
#[inline(always)]
pub(super) fn pieces_mut<T>(x: &mut [T], n: usize) -> impl Iterator<Item = &mut [T]> {
    let mut rest = if n == 0 { &mut [][..] } else { x };
    core::iter::from_fn(move || {
        let (piece, after) = core::mem::take(&mut rest).split_at_mut_checked(n)?;
        rest = after;
        Some(piece)
    })
}

/// Element `l` of each piece of `n` of `x` (`l < n`): `iter().skip(l).step_by(n)` without
/// the divisions of its length.
#[inline(always)]
fn lane_of<T: Copy>(x: &[T], n: usize, l: usize) -> impl Iterator<Item = T> + '_ {
    pieces(x, n).filter_map(move |row| row.get(l).copied())
}

/// The lanes of a block of rows taken in chunks whose width is known when compiling: sixteen at
/// a time, then eight, then four, and the last four ending at the row's end, so that no lane
/// goes alone unless the rows are narrower than four. Lanes of that last chunk already done are
/// done again with the same answer (each chunk's result depends on its lanes' elements alone).
trait Chunks {
    /// Lanes `l..l + N`.
    fn chunk<const N: usize>(&mut self, l: usize);
    /// Lane `l` alone.
    fn lane(&mut self, l: usize);
}

/// Runs `op` over lanes `0..inner` in chunks (see [`Chunks`]).
#[inline(always)]
fn by_chunks(inner: usize, op: &mut impl Chunks) {
    let mut l = 0;
    while l + W <= inner {
        op.chunk::<W>(l);
        l += W;
    }
    if l + 8 <= inner {
        op.chunk::<8>(l);
        l += 8;
    }
    if l + 4 <= inner {
        op.chunk::<4>(l);
        l += 4;
    }
    if l < inner && inner >= 4 {
        op.chunk::<4>(inner - 4);
    } else {
        for l in l..inner {
            op.lane(l);
        }
    }
}

/// The index and extreme of each of `N` lanes starting at lane `l` of a block of rows of
/// `inner` (fewer than 2^32 rows): the rows folded in order from the first. A first pass
/// compares by the order alone, its NaN only flagged (a shorter chain of dependent steps per
/// row); lanes that met one are done again by the exact rule.
#[inline(always)]
fn arg_chunk<T: Element, D: Direction, const LAST: bool, const N: usize>(
    x: &[T],
    inner: usize,
    l: usize,
) -> ([T; N], [u32; N]) {
    let (best, idx, nan) = arg_chunk_pass::<T, D, LAST, N, false>(x, inner, l);
    if nan {
        let (best, idx, _) = arg_chunk_pass::<T, D, LAST, N, true>(x, inner, l);
        return (best, idx);
    }
    (best, idx)
}

/// One pass of [`arg_chunk`]: with `EXACT` each step applies the contract's rule ([`take`]),
/// without it the order alone, exact when no NaN is met; and whether a NaN was met.
#[inline(always)]
fn arg_chunk_pass<T: Element, D: Direction, const LAST: bool, const N: usize, const EXACT: bool>(
    x: &[T],
    inner: usize,
    l: usize,
) -> ([T; N], [u32; N], bool) {
    let chunk = |row: &[T]| -> Option<[T; N]> {
        row.get(l..l + N).and_then(|r| <[T; N]>::try_from(r).ok())
    };
    let mut rows = pieces(x, inner);
    // The first row as the start (a NaN there stays: `take` never replaces a NaN).
    let Some(mut best) = rows.next().and_then(chunk) else {
        return ([D::identity::<T>(); N], [0; N], false);
    };
    let mut nan = best.map(Element::is_nan);
    let mut idx = [0u32; N];
    for (j, row) in rows.enumerate() {
        let j = j + 1;
        let Some(row) = chunk(row) else {
            break;
        };
        for k in 0..N {
            let t = if EXACT {
                take::<T, D, LAST>(best[k], row[k])
            } else if LAST {
                !D::better(best[k], row[k])
            } else {
                D::better(row[k], best[k])
            };
            nan[k] |= row[k].is_nan();
            best[k] = if t { row[k] } else { best[k] };
            idx[k] = if t { j as u32 } else { idx[k] };
        }
    }
    (best, idx, nan.contains(&true))
}

/// The index and extreme of lane `l` of a block of rows of `inner`.
#[inline(always)]
fn arg_lane<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    inner: usize,
    l: usize,
) -> (T, usize) {
    let (mut best, mut idx) = (D::identity::<T>(), 0);
    for (j, e) in lane_of(x, inner, l).enumerate() {
        if take::<T, D, LAST>(best, e) {
            best = e;
            idx = j;
        }
    }
    (best, idx)
}

/// One block of [`arg_blocks`]: its indices into `y`, its extremes into `v` unless empty.
struct ArgBlock<'a, T, D, const LAST: bool> {
    x: &'a [T],
    inner: usize,
    y: &'a mut [i64],
    v: &'a mut [T],
    dir: core::marker::PhantomData<D>,
}

impl<T: Element, D: Direction, const LAST: bool> ArgBlock<'_, T, D, LAST> {
    /// Lane `l + k` of each of `idx` and `best`, written.
    #[inline(always)]
    fn put(&mut self, l: usize, best: &[T], idx: &[u32]) {
        if let Some(y) = self.y.get_mut(l..l + idx.len()) {
            for (o, &i) in y.iter_mut().zip(idx) {
                *o = i64::from(i);
            }
        }
        if let Some(v) = self.v.get_mut(l..l + best.len()) {
            v.copy_from_slice(best);
        }
    }
}

impl<T: Element, D: Direction, const LAST: bool> Chunks for ArgBlock<'_, T, D, LAST> {
    #[inline(always)]
    fn chunk<const N: usize>(&mut self, l: usize) {
        let (best, idx) = arg_chunk::<T, D, LAST, N>(self.x, self.inner, l);
        self.put(l, &best, &idx);
    }
    #[inline(always)]
    fn lane(&mut self, l: usize) {
        let (best, idx) = arg_lane::<T, D, LAST>(self.x, self.inner, l);
        self.put(l, &[best], &[idx as u32]);
    }
}

/// Arg-reduction along `r` rows (fewer than 2^32) of `inner` lanes, block after block of `x`;
/// each lane's extreme into `v` too when `v` is not empty. Each chunk of lanes starts from the
/// block's first row, a lane alone from the direction's identity, which is exact: the first row
/// either beats it, ties it (then it is the identity itself, at index 0 or replaced under the
/// last-tie rule) or is NaN (which wins).
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
    for (b, (x, y)) in pieces(x, block).zip(pieces_mut(y, inner)).enumerate() {
        let v = v.get_mut(b * inner..(b + 1) * inner).unwrap_or(&mut empty);
        let dir = core::marker::PhantomData::<D>;
        by_chunks(
            inner,
            &mut ArgBlock::<T, D, LAST> {
                x,
                inner,
                y,
                v,
                dir,
            },
        );
    }
}

/// One block of [`reduce_blocks`]: its rows folded into `y`.
struct ReduceBlock<'a, T, D> {
    x: &'a [T],
    y: &'a mut [T],
    dir: core::marker::PhantomData<D>,
}

impl<T: Element, D: Direction> Chunks for ReduceBlock<'_, T, D> {
    #[inline(always)]
    fn chunk<const N: usize>(&mut self, l: usize) {
        let ys = self.y.len();
        let Some(y) = self
            .y
            .get_mut(l..l + N)
            .and_then(|y| <&mut [T; N]>::try_from(y).ok())
        else {
            return;
        };
        let mut acc = *y;
        for row in pieces(self.x, ys) {
            if let Some(row) = row.get(l..l + N).and_then(|r| <&[T; N]>::try_from(r).ok()) {
                for k in 0..N {
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
    #[inline(always)]
    fn lane(&mut self, l: usize) {
        let ys = self.y.len();
        if let Some(o) = self.y.get_mut(l) {
            for e in lane_of(self.x, ys, l) {
                if take::<T, D, false>(*o, e) {
                    *o = e;
                }
            }
        }
    }
}

/// Folds each block of `xs` elements of `x` (rows of `ys` lanes) into its block of `ys` of `y`
/// (NaN-propagating: the running value stays once it is NaN). A lane folded twice (see
/// [`Chunks`]) keeps its value: a max or min of values it already holds.
pub(super) fn reduce_blocks<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
) {
    if xs == 0 || ys == 0 {
        return;
    }
    for (x, y) in pieces(x, xs).zip(pieces_mut(y, ys)) {
        let dir = core::marker::PhantomData::<D>;
        by_chunks(ys, &mut ReduceBlock { x, y, dir });
    }
}

/// `acc` folded with the elements of `row` (NaN-propagating), four lanes at a time: the lanes
/// start from the row's first four, take its whole chunks of four and then its last four (which
/// may hold elements already taken: a max or min of them again changes nothing), by the order
/// alone with NaN flagged on the side, and are folded into `acc` at the end. A row that holds a
/// NaN gives it; rows under four go element by element.
pub(super) fn fold_row<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    let (Some(first), Some(last)) = (row.first_chunk::<4>(), row.last_chunk::<4>()) else {
        let pick = |a: T, e: T| if take::<T, D, false>(a, e) { e } else { a };
        return row.iter().fold(acc, |a, &e| pick(a, e));
    };
    let step = step::<T, D>;
    let (mut m, mut nan) = (*first, [false; 4]);
    let (chunks, _) = row.as_chunks::<4>();
    for c in chunks.iter().chain([last]) {
        for k in 0..4 {
            nan[k] |= c[k].is_nan();
            m[k] = step(m[k], c[k]);
        }
    }
    if acc.is_nan() {
        acc
    } else if nan.contains(&true) {
        row.iter().copied().find(|e| e.is_nan()).unwrap_or(acc)
    } else {
        step(acc, step(step(m[0], m[1]), step(m[2], m[3])))
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
        for (o, row) in y.iter_mut().zip(pieces(x, r)) {
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

/// One block of [`hardmax_blocks`]: a one at each lane's first maximum (or first NaN).
struct HardBlock<'a, T> {
    x: &'a [T],
    inner: usize,
    y: &'a mut [T],
}

impl<T: Element> HardBlock<'_, T> {
    /// The one of lane `l` at row `i`.
    #[inline(always)]
    fn one(&mut self, l: usize, i: usize) {
        if let Some(o) = self.y.get_mut(i * self.inner + l) {
            *o = T::ONE;
        }
    }
}

impl<T: Element> Chunks for HardBlock<'_, T> {
    #[inline(always)]
    fn chunk<const N: usize>(&mut self, l: usize) {
        let (_, idx) = arg_chunk::<T, Max, false, N>(self.x, self.inner, l);
        for (k, &i) in idx.iter().enumerate() {
            self.one(l + k, i as usize);
        }
    }
    #[inline(always)]
    fn lane(&mut self, l: usize) {
        let (_, i) = arg_lane::<T, Max, false>(self.x, self.inner, l);
        self.one(l, i);
    }
}

/// Hardmax along `r` rows of `inner` lanes, block after block: zeros, then a one at each
/// lane's first maximum (or first NaN).
pub(super) fn hardmax_blocks<T: Element>(x: &[T], y: &mut [T], (r, inner): (usize, usize)) {
    let block = r * inner;
    if block == 0 {
        return;
    }
    for (x, y) in pieces(x, block).zip(pieces_mut(y, block)) {
        fill(y, T::ZERO);
        by_chunks(inner, &mut HardBlock { x, inner, y });
    }
}
