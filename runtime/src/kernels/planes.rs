//! Reductions over two axes that are not adjacent (`[P, K, N]` over the first and the last):
//! the planes are folded element by element into a small tile first (contiguous lanes, one
//! max/min per element), then each of the tile's rows of `N` into its output.

use super::narrow::reduce_rows_short;
use super::reduce::{fold, fold_inlined};
use super::shared::{nan_pairs, step, take_chunk, LANES};
use crate::{Direction, Element};

/// Elements of the tile the planes are folded into (kept on the stack: 1 KiB of `f32`).
const TILE: usize = 256;

/// Elements of the tile of the `f32` row kernels' path (`planes_then_rows`).
const F32_TILE: usize = 1024;

/// For `x` of `planes` planes of `y.len()` rows of `N` elements, folds every element of row `k`
/// of every plane into `y[k]` (NaN-propagating: a NaN in `y` stays, otherwise a NaN of the rows
/// is the result).
///
/// ```
/// use onnx_aot::{kernels::reduce_planes, Max};
/// // Two planes of three rows of two.
/// let x = [1.0, 2.0, 9.0, 0.0, 3.0, 3.0, /**/ 4.0, 1.0, 2.0, 2.0, f32::NAN, 5.0];
/// let mut y = [f32::NEG_INFINITY; 3];
/// reduce_planes::<f32, Max, 2>(&mut y, &x, 2);
/// assert_eq!((y[0], y[1]), (4.0, 9.0));
/// assert!(y[2].is_nan());
/// ```
///
/// Rows are taken a tile at a time (as many whole rows as fit 256 elements): the planes'
/// parts of those rows are folded into the tile lane by lane, then each row of the tile is
/// folded into `y` (unrolled for rows under 32). Rows longer than the tile are folded plane by
/// plane straight into `y` by the row kernels ([`super::reduce_rows`]: `i32` `[250, 5, 400]`
/// over axes 0 and 2 0.62x the time of a fold a row, f16 `[250, 10, 400]` 0.67x). For `f32`
/// rows that the x86-64 row kernels take (2 to 128), the tile holds 1024 elements and both
/// steps are those kernels': sixteen lanes at a time down the planes in vector registers (AVX2
/// where the CPU has it), then the tile's rows; rows of 2 to 16 on a CPU with AVX-512 skip the
/// tile, sixteen rows at a time in registers (`planes512`: `[2, 52428, 5]` 1.38-1.44x
/// of the stream -> 1.15-1.19x, `[4, 26214, 5]` 1.20-1.22x -> 1.07-1.10x).
#[inline]
pub fn reduce_planes<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
) {
    if super::reduce_rows_f32_const_fit::<T>(N) {
        if planes == 1 {
            let x = x.get(..y.len() * N).unwrap_or(&[]);
            if N < 32 {
                reduce_rows_short::<T, D, N>(y, x);
            } else {
                super::reduce_rows::<T, D>(y, x, N);
            }
        } else {
            planes_then_rows::<T, D, N>(y, x, planes);
        }
        return;
    }
    if blocks_then_rows::<T, D, N>(y, x, planes) || planes_small::<T, D, N>(y, x, planes) {
        return;
    }
    reduce_planes_in::<T, D>(y, x, planes, N, |ys, tile| {
        if N < 32 {
            reduce_rows_short::<T, D, N>(ys, tile);
        } else {
            for (o, row) in ys.iter_mut().zip(tile.chunks_exact(N)) {
                *o = fold::<T, D>(*o, row);
            }
        }
    });
}

/// The planes of 1-, 2- and 4-byte types in AVX2 (`reduce_lanes_small_avx2::planes`), where the
/// CPU has it and the planes fit it: `false` (nothing written) where it does not take them.
#[inline(always)]
fn planes_small<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    // Rows over the short-row kernel's 512 bytes never go there (known at compile time: no
    // call in the caller).
    return N * size_of::<T>() <= super::short_rows_avx2::MAX_BYTES
        && super::reduce_lanes_small_avx2::planes::reduce_planes::<T, D, N>(y, x, planes);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (y, x, planes, core::marker::PhantomData::<D>);
        false
    }
}

/// Every type but `f32` where the CPU has AVX-512 (1-byte types with VBMI), rows of 2 to 16
/// (to 11 of 1- and 2-byte types): blocks of rows folded over the planes and reduced in vector
/// registers ([`by_blocks`]), the blocks it leaves by the exact fold of each row's parts.
/// `false` (nothing done) elsewhere.
#[inline(never)]
fn blocks_then_rows<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
) -> bool {
    let plane = y.len() * N;
    if plane == 0 || planes == 0 || x.len() < planes * plane {
        return false;
    }
    by_blocks::<T, D, N>(y, x, planes, |ys, first| {
        for (k, o) in (first..).zip(ys) {
            for p in 0..planes {
                let row = x
                    .get(p * plane + k * N..p * plane + (k + 1) * N)
                    .unwrap_or(&[]);
                *o = fold::<T, D>(*o, row);
            }
        }
    })
}

/// Where the CPU has AVX-512 and rows are of 2 to 16, sixteen rows at a time folded over the
/// planes and reduced in vector registers ([`by_blocks`]); otherwise, and for a block of
/// sixteen rows with a NaN, [`tiles`]. Out of line: one call per node, and the node's other
/// code keeps its registers (inlined, the single-plane path beside it ran ReduceMin rows of 2
/// 1.14x slower).
#[inline(never)]
fn planes_then_rows<T: Element, D: Direction, const N: usize>(y: &mut [T], x: &[T], planes: usize) {
    let plane = y.len() * N;
    if N == 0 || plane == 0 || planes == 0 || x.len() < planes * plane {
        return;
    }
    let mut tile = [T::ZERO; F32_TILE];
    let by_tiles = |ys: &mut [T], first: usize, tile: &mut [T; F32_TILE]| {
        tiles::<T, D, N>(ys, x, planes, plane, first * N, tile);
    };
    if !by_blocks::<T, D, N>(y, x, planes, |ys, first| by_tiles(ys, first, &mut tile)) {
        by_tiles(y, 0, &mut tile);
    }
}

/// Rows `y` (`planes` planes of `y.len()` rows of `N` in `x`) by blocks of rows in AVX-512
/// registers (`planes512`: a vector's lanes of rows) from the first; each block the kernel
/// leaves (one with a NaN, the rows under a block at the end) by `rest(rows, first row)`, then
/// on. `false` (nothing done) where the kernel does not take these rows (the type, `N`,
/// the CPU: the same answer for every block).
#[inline(always)]
fn by_blocks<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    mut rest: impl FnMut(&mut [T], usize),
) -> bool {
    let plane = y.len() * N;
    let mut first = 0;
    while first < y.len() {
        let ys = y.get_mut(first..).unwrap_or_default();
        let Some(done) = super::fold_rows_planes::<T, D, N>(ys, x, planes, plane, first * N) else {
            return false;
        };
        first += done;
        let end = (first + 64 / size_of::<T>().max(1)).min(y.len());
        if let Some(ys) = y.get_mut(first..end) {
            rest(ys, first);
        }
        first = end;
    }
    true
}

/// Folds rows `y` (from element `from` of every plane of `plane` elements, rows of `N`) over
/// the planes a tile at a time: the planes' parts folded into the tile lane by lane, then the
/// tile's rows into `ys` by the f32 row kernels.
#[inline(always)]
fn tiles<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    from: usize,
    tile: &mut [T; F32_TILE],
) {
    let n = N;
    let rows = (F32_TILE / n).max(1);
    for (b, ys) in y.chunks_mut(rows).enumerate() {
        let at = from + b * rows * n;
        let len = ys.len() * n;
        let Some(tile) = tile.get_mut(..len) else {
            return;
        };
        let nan = match super::fold_planes_f32::<T, D>(tile, x, planes, plane, at) {
            Some(nan) => nan,
            None => fold_planes_portable::<T, D>(tile, x, planes, plane, at),
        };
        if nan {
            give_nans::<T>(ys, x, planes, plane, at, n);
        } else if super::reduce_rows_nan_free_f32::<T, D, N>(ys, tile) {
            // No NaN in the tile: its rows without the check (rows of 4 to 16, AVX2).
            continue;
        }
        if N < 32 {
            reduce_rows_short::<T, D, N>(ys, tile);
        } else {
            super::reduce_rows::<T, D>(ys, tile, n);
        }
    }
}

/// For `x` of `planes` planes of `plane` elements, the extreme over the planes of each element
/// of their parts from element `at` (as long as `y`) into `y` (overwritten; NaN-propagating: the
/// first NaN over the planes in order). A reduction over the leading axes of its input, one part
/// of its output at a time (a chunk of a chunked pair).
///
/// ```
/// use onnx_aot::{kernels::reduce_parts, Max};
/// // Two planes of four; the parts from element 1, three long.
/// let x = [1.0, 2.0, 9.0, 0.0, /**/ 4.0, 5.0, f32::NAN, -1.0];
/// let mut y = [0.0; 3];
/// reduce_parts::<f32, Max>(&mut y, &x, 2, 4, 1);
/// assert_eq!((y[0], y[2]), (5.0, 0.0));
/// assert!(y[1].is_nan());
/// ```
///
/// The planes' parts are read together, sixteen lanes at a time down the planes (the kernels of
/// [`reduce_planes`]' tiles): one pass over every part, where writing the first plane's part and
/// folding each other one into it read `y` once a plane and let the parts' streams restart
/// (ReduceMax over axis 0 of `[2, 4096, 64]` in chunks of 4096 before an ArgMax, on an AMD EPYC,
/// Zen 4: 49 -> 29 us, the pair 68 -> 46 us).
#[inline]
pub fn reduce_parts<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) {
    let n = y.len();
    let whole = planes.checked_mul(plane).is_some_and(|len| len <= x.len());
    if n == 0 || planes == 0 || !whole || at.checked_add(n).is_none_or(|end| end > plane) {
        return;
    }
    if cfg!(feature = "small-code") {
        // Little code: each plane's part folded into `y` in turn.
        for (p, part) in x.chunks_exact(plane).take(planes).enumerate() {
            for (o, &v) in y.iter_mut().zip(&part[at..at + n]) {
                let acc = if p == 0 { D::identity::<T>() } else { *o };
                *o = fold_inlined::<T, D>(acc, core::slice::from_ref(&v));
            }
        }
        return;
    }
    let nan = super::avx2_entry::fold_planes_wide::<T, D>(y, x, planes, plane, at)
        .or_else(|| super::fold_planes_f32::<T, D>(y, x, planes, plane, at))
        .or_else(|| fold_tile::<T, D>(y, x, planes, plane, at));
    if nan == Some(true) {
        give_nans::<T>(y, x, planes, plane, at, 1);
    }
}

/// [`fold_planes_f32`](super::fold_planes_f32) in portable code (the tiles under sixteen).
fn fold_planes_portable<T: Element, D: Direction>(
    tile: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> bool {
    let mut nan = false;
    for (p, part) in x.chunks_exact(plane).take(planes).enumerate() {
        let part = part.get(at..at + tile.len()).unwrap_or(&[]);
        for (t, &v) in tile.iter_mut().zip(part) {
            *t = if p == 0 { v } else { step::<T, D>(*t, v) };
            nan |= v.is_nan();
        }
    }
    nan
}

/// Gives each of the rows `ys` (from element `at` of every plane of `plane` elements, rows of
/// `n`) the first NaN its planes hold, unless it holds one already: the order-only folds never
/// let a NaN in, and a NaN already there stays through the rows' own fold.
fn give_nans<T: Element>(ys: &mut [T], x: &[T], planes: usize, plane: usize, at: usize, n: usize) {
    for (k, o) in ys.iter_mut().enumerate() {
        let row_nan = x
            .chunks_exact(plane)
            .take(planes)
            .filter_map(|p| p.get(at + k * n..at + (k + 1) * n))
            .flatten()
            .find(|v| v.is_nan());
        if let (Some(&v), false) = (row_nan, o.is_nan()) {
            *o = v;
        }
    }
}

/// [`reduce_planes`] with rows of `n` (a run-time value); `rows` folds a tile's rows of `n` into
/// their outputs.
#[inline(always)]
pub(crate) fn reduce_planes_in<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    n: usize,
    rows_into: impl Fn(&mut [T], &[T]),
) {
    let rows = y.len();
    let plane = rows * n;
    // No planes: nothing to fold (the tile would hold no element of `x`).
    if n == 0 || plane == 0 || planes == 0 || x.len() < planes * plane {
        return;
    }
    if cfg!(feature = "small-code") {
        // Little code and stack: each plane's rows folded straight into `y`.
        for p in x.chunks_exact(plane).take(planes) {
            for (o, row) in y.iter_mut().zip(p.chunks_exact(n)) {
                *o = fold_inlined::<T, D>(*o, row);
            }
        }
        return;
    }
    if n > TILE {
        // Long rows: each plane's rows folded into `y` by the row kernels.
        for p in x.chunks_exact(plane).take(planes) {
            super::reduce_rows::<T, D>(y, p, n);
        }
        return;
    }
    let per_tile = TILE / n;
    let mut tile = [T::ZERO; TILE];
    for (t, ys) in y.chunks_mut(per_tile).enumerate() {
        let start = t * per_tile * n;
        let len = ys.len() * n;
        let tile = &mut tile[..len];
        // i64 and f64 in AVX2 where the CPU has it.
        let nan = match super::avx2_entry::fold_planes_wide::<T, D>(tile, x, planes, plane, start) {
            Some(nan) => nan,
            None => match fold_tile::<T, D>(tile, x, planes, plane, start) {
                Some(nan) => nan,
                None => return,
            },
        };
        if nan {
            give_nans::<T>(ys, x, planes, plane, start, n);
        }
        rows_into(ys, tile);
    }
}

/// The planes' parts of a tile's rows (from element `start` of each plane, as long as `tile`)
/// folded element by element into `tile` (overwritten), sixteen lanes at a time down the planes
/// kept in registers: whether they hold a NaN; `None` where `x` is shorter than the planes.
#[inline(always)]
fn fold_tile<T: Element, D: Direction>(
    tile: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    start: usize,
) -> Option<bool> {
    let len = tile.len();
    let mut nans = [0u32; LANES / 2];
    let mut tail_nan = false;
    let (chunks, rest) = tile.as_chunks_mut::<LANES>();
    let rest_at = chunks.len() * LANES;
    // Sixteen lanes at a time down the planes, kept in registers.
    for (c, lanes) in chunks.iter_mut().enumerate() {
        let at = start + c * LANES;
        for (p, part) in x.chunks_exact(plane).take(planes).enumerate() {
            let v = part.get(at..).and_then(|r| r.first_chunk::<LANES>())?;
            if p == 0 {
                *lanes = *v;
                nan_pairs(&mut nans, v);
            } else {
                take_chunk::<T, D>(lanes, v, &mut nans);
            }
        }
    }
    for (p, part) in x.chunks_exact(plane).take(planes).enumerate() {
        let v = part.get(start + rest_at..start + len).unwrap_or(&[]);
        for (a, &v) in rest.iter_mut().zip(v) {
            *a = if p == 0 { v } else { step::<T, D>(*a, v) };
            tail_nan |= v.is_nan();
        }
    }
    Some(tail_nan || nans.iter().fold(0, |a, &n| a | n) != 0)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_blocks;
