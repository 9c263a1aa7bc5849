//! Short rows and few lanes, where the general kernels pay a setup per row or walk lanes one
//! at a time: sizes are constants here, so that a row of a few elements is unrolled and the loop
//! runs across rows, and a handful of strided lanes is widened to a period of several rows.
//!
//! - [`arg_rows_short`] and [`reduce_rows_short`]: contiguous rows of `R` elements (the reduced
//!   axis last, `R` a few tens at most: the generator's choice).
//! - [`arg_lanes_narrow`] and [`reduce_lanes_narrow`]: rows of `C` lanes (the reduced axis
//!   before a few kept elements), read as rows of `W = C·K` lanes, that is `K` rows at a time,
//!   so that the lane kernels see wide contiguous rows; the `K` partial answers of each lane and
//!   the rows left over are combined at the end.

use super::arg_lanes::arg_lanes;
use super::arg_row::arg_row;
use super::half_rows::{inf_of, keyed, reduce_rows_short_half};
use super::hardmax::hardmax_row;
use super::reduce::{fold, reduce_lanes_rows};
#[cfg(not(feature = "small-code"))]
use super::shared::take;
use super::shared::{fill, step, LANES};
use crate::{Direction, Element, Max};
#[cfg(not(debug_assertions))]
pub(crate) use small::arg_values_rows_short;
use small::{arg_small, arg_tile_half, arg_tile_small};
use wide::ArgLanes;
#[cfg_attr(
    not(all(
        target_arch = "x86_64",
        not(target_feature = "avx2"),
        not(feature = "small-code"),
        not(debug_assertions)
    )),
    allow(unused_imports)
)]
pub(crate) use wide::{arg_lanes_narrow_wide, hardmax_lanes_narrow_wide};

mod small;
mod wide;

/// Rows of the unrolled kernels taken together: their indices are kept as `u32` on the stack and
/// widened once per tile.
const ROW_TILE: usize = 64;

/// Fewer short rows than this go one at a time by the exact rule: a tile's setup would cost a
/// tiny model more than its rows.
const FEW_SHORT_ROWS: usize = 8;

/// Index of the extreme of each contiguous row of `R` elements of `x`, into `y` (one per row;
/// a partial last row is ignored).
///
/// ```
/// use onnx_aot::{kernels::arg_rows_short, Max};
/// let x = [1.0, 3.0, f32::NAN, 0.0, 2.0, 2.0];
/// let mut y = [0i64; 3];
/// arg_rows_short::<f32, Max, false, 2>(&x, &mut y);
/// assert_eq!(y, [1, 0, 0]); // NaN wins; the first of a tie
/// ```
///
/// Each row is unrolled (one compare and two selects per element), so the loop runs across
/// rows.
#[cfg_attr(feature = "small-code", inline)]
#[cfg_attr(not(feature = "small-code"), inline(always))]
pub fn arg_rows_short<T: Element, D: Direction, const LAST: bool, const R: usize>(
    x: &[T],
    y: &mut [i64],
) {
    if cfg!(feature = "small-code") {
        // One row at a time through the compact row kernel: no unrolled copy per row length.
        for (o, row) in y.iter_mut().zip(x.chunks_exact(R)) {
            *o = arg_row::<T, D, LAST>(row) as i64;
        }
        return;
    }
    let (rows, _) = x.as_chunks::<R>();
    if super::arg_rows_long::<T, D, LAST, i64>(x, y, &mut [], R) {
        return;
    }
    // Float rows, two or more a vector: by equality with their best in AVX-512, where the CPU
    // has it.
    if super::arg_rows_wide::<T, D, LAST>(x, y, &mut [], R) {
        return;
    }
    if rows.len() >= FEW_SHORT_ROWS && super::arg_rows_f32::<T, D, LAST, i64>(x, y, R) {
        return;
    }
    // Integers of 1 to 4 bytes, bool, f16 and bf16: whole blocks of rows in AVX2, one row per
    // lane (`short_rows`).
    let done = super::arg_rows_narrow::<T, D, LAST, false, i64>(x, y, &mut [], R);
    let (Some(y), Some(rows)) = (y.get_mut(done..), rows.get(done..)) else {
        return;
    };
    if rows.len() < FEW_SHORT_ROWS {
        for (o, row) in y.iter_mut().zip(rows) {
            *o = i64::from(arg_small::<T, D, LAST, R>(row));
        }
        return;
    }
    for (ys, rs) in y.chunks_mut(ROW_TILE).zip(rows.chunks(ROW_TILE)) {
        let idx = arg_tile_small::<T, D, LAST, R>(rs);
        for (o, &i) in ys.iter_mut().zip(&idx) {
            *o = i64::from(i);
        }
    }
}

/// Hardmax of each contiguous row of `R` elements of `x` into `y`: 1 at the first maximum (or
/// first NaN), 0 elsewhere.
///
/// ```
/// use onnx_aot::kernels::hardmax_rows_short;
/// let mut y = [9.0; 4];
/// hardmax_rows_short::<f32, 2>(&[1.0, 3.0, f32::NAN, 0.0], &mut y);
/// assert_eq!(y, [0.0, 1.0, 1.0, 0.0]);
/// ```
#[inline]
pub fn hardmax_rows_short<T: Element, const R: usize>(x: &[T], y: &mut [T]) {
    if cfg!(feature = "small-code") {
        for (x, y) in x.chunks_exact(R).zip(y.chunks_exact_mut(R)) {
            hardmax_row(x, y);
        }
        return;
    }
    // Float rows: by equality with their maximum in AVX-512, where the CPU has it.
    if super::hardmax_rows_wide(x, y, R) {
        return;
    }
    if (R == 2 || R > 4 || super::columns_f32_fit::<T>(R))
        && super::hardmax_rows_f32::<T, R>(x, y, R)
    {
        // f32 rows: by the x86-64 row kernels, a tile of positions and then its outputs (rows
        // of two eight at a time in AVX2 vectors, where the CPU has them; rows of three and
        // four only by the AVX2 kernel of columns).
        return;
    }
    // f16 and bf16 rows of two and three: several rows an AVX2 vector, each element against
    // the others of its row. Integers of 1 to 4 bytes, bool, f16 and bf16: whole blocks of
    // rows' positions in AVX2, one row per lane (`short_rows`).
    let done = super::hardmax_short_halves::<T, R>(x, y);
    let (Some(x), Some(y)) = (x.get(done * R..), y.get_mut(done * R..)) else {
        return;
    };
    let done = super::hardmax_rows_narrow::<T>(x, y, R);
    let (Some(x), Some(y)) = (x.get(done * R..), y.get_mut(done * R..)) else {
        return;
    };
    let (rows, _) = x.as_chunks::<R>();
    let (outs, _) = y.as_chunks_mut::<R>();
    if R <= 4 || rows.len() < FEW_SHORT_ROWS {
        // Rows this short: each row's position and outputs at once (a tile of positions
        // measured 10% slower for rows of 2, and costs a tiny model more than its rows).
        for (out, row) in outs.iter_mut().zip(rows) {
            let at = arg_small::<T, Max, false, R>(row) as usize;
            for (j, o) in out.iter_mut().enumerate() {
                *o = if j == at { T::ONE } else { T::ZERO };
            }
        }
        return;
    }
    // A tile of rows' positions first (that loop runs across rows, as in `arg_rows_short`),
    // then their outputs: rows of 20 304 -> 251 us over `[26214, 20]`.
    for (os, rs) in outs.chunks_mut(ROW_TILE).zip(rows.chunks(ROW_TILE)) {
        let idx = match T::half_bits(rs.as_flattened()) {
            // f16 and bf16: by their order keys (stepping through each element's NaN rule
            // instead, rows of 20 read 50x of a streaming read and write).
            Some(bits) if keyed::<T>() => arg_tile_half::<Max, false, R>(bits, inf_of::<T>()),
            _ => arg_tile_small::<T, Max, false, R>(rs),
        };
        for (out, &at) in os.iter_mut().zip(&idx) {
            for (j, o) in out.iter_mut().enumerate() {
                *o = if j as u32 == at { T::ONE } else { T::ZERO };
            }
        }
    }
}

/// Hardmax along rows of `C` few lanes (`x.len() / C` rows), by [`arg_lanes_narrow`]: zeros,
/// then a 1 in each lane at the row of its first maximum (or first NaN).
///
/// ```
/// use onnx_aot::kernels::hardmax_lanes_narrow;
/// let mut y = [9.0; 6];
/// hardmax_lanes_narrow::<f32, 2, 64, 64>(&[1.0, 3.0, 4.0, 0.0, 4.0, 5.0], &mut y);
/// assert_eq!(y, [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
/// ```
#[inline]
pub fn hardmax_lanes_narrow<T: Element, const C: usize, const W: usize, const TILE: usize>(
    x: &[T],
    y: &mut [T],
) {
    hardmax_lanes_narrow_in::<T, C, W, TILE, false>(x, y);
}

/// The body of [`hardmax_lanes_narrow`]; `WIDE` in the twins.
#[inline(always)]
fn hardmax_lanes_narrow_in<
    T: Element,
    const C: usize,
    const W: usize,
    const TILE: usize,
    const WIDE: bool,
>(
    x: &[T],
    y: &mut [T],
) {
    // Blocks under one wide row: each lane's row by a plain loop (`C` known), then the outputs.
    // (The lane kernel's setup cost these blocks more than their rows: `[16384, 16, 2]` over
    // axis 1 0.45-0.49x of the time; over a few wide rows, `[128, 4]` blocks, 1.2x slower.)
    #[cfg(not(feature = "small-code"))]
    if x.len() < W {
        hardmax_lanes_few::<T, C>(x, y);
        return;
    }
    // Each lane's row by the arg-reduction's lane kernel, then the block filled with zeros and
    // the ones stored. (An AVX2 walk of `f32` that stored the zeros as it read, in one pass, was
    // slower on an Intel Xeon, Ice Lake, about 2 MiB, medians over the read-and-write fold:
    // `[100000, 5]` over axis 0 1.22 against 1.11 here, `[2, 100000, 2]` over axis 1 1.29
    // against 1.02, `[87, 2000, 3]` 2.05 against 1.45, `[10, 4000, 12]` 1.38 against 1.24; as
    // fast over rows of 1000 and fewer.)
    let mut at = [0i64; C];
    if WIDE {
        arg_lanes_narrow_wide::<T, Max, false, C, W, TILE>(x, &mut at);
    } else {
        arg_lanes_narrow::<T, Max, false, C, W, TILE>(x, &mut at);
    }
    fill(y, T::ZERO);
    for (c, &r) in at.iter().enumerate() {
        if let Some(o) = (r as usize).checked_mul(C).and_then(|i| y.get_mut(i + c)) {
            *o = T::ONE;
        }
    }
}

/// Hardmax along the rows of `C` lanes of a small block (`x.len() / C` rows): each lane's row
/// of its first maximum (or first NaN) in one loop over the rows, then each output.
#[cfg(not(feature = "small-code"))]
#[inline(always)]
fn hardmax_lanes_few<T: Element, const C: usize>(x: &[T], y: &mut [T]) {
    let mut rows = x.chunks_exact(C);
    let Some(first) = rows.next() else {
        return;
    };
    let mut best = [T::ZERO; C];
    best.copy_from_slice(first);
    let mut at = [0usize; C];
    for (r, row) in rows.enumerate() {
        for ((b, a), &v) in best.iter_mut().zip(&mut at).zip(row) {
            if take::<T, Max, false>(*b, v) {
                (*b, *a) = (v, r + 1);
            }
        }
    }
    for (r, out) in y.chunks_exact_mut(C).take(x.len() / C).enumerate() {
        for (o, &a) in out.iter_mut().zip(&at) {
            *o = if a == r { T::ONE } else { T::ZERO };
        }
    }
}

/// Folds each contiguous row of `R` elements of `x` into the matching element of `y`
/// (NaN-propagating: a NaN in `y` stays, otherwise a NaN of the row is the result).
///
/// ```
/// use onnx_aot::{kernels::reduce_rows_short, Max};
/// let x = [1.0, 3.0, f32::NAN, 0.0, 2.0, -2.0];
/// let mut y = [f32::NEG_INFINITY; 3];
/// reduce_rows_short::<f32, Max, 2>(&mut y, &x);
/// assert_eq!((y[0], y[2]), (3.0, 2.0));
/// assert!(y[1].is_nan());
/// ```
///
/// Each row is unrolled with one max/min per element and NaN flagged on the side; a tile of
/// rows that held a NaN is done again exactly.
#[inline]
pub fn reduce_rows_short<T: Element, D: Direction, const R: usize>(y: &mut [T], x: &[T]) {
    if cfg!(feature = "small-code") {
        for (o, row) in y.iter_mut().zip(x.chunks_exact(R)) {
            *o = fold::<T, D>(*o, row);
        }
        return;
    }
    if super::reduce_rows_f32_const::<T, D, R>(y, x)
        || super::avx2_entry::reduce_rows_wide::<T, D, R, false>(y, x)
        || super::reduce_rows_512::<T, D>(y, x, R, false)
    {
        return;
    }
    // Integers of 1 to 4 bytes, bool, f16 and bf16: whole blocks of rows in AVX2, one row per
    // lane (`short_rows`).
    let done = super::reduce_rows_narrow::<T, D>(y, x, R);
    let (Some(y), Some(x)) = (y.get_mut(done..), x.get(done * R..)) else {
        return;
    };
    if keyed::<T>() {
        // f16 and bf16: by their order keys, in their own width.
        if let (Some(yb), Some(xb)) = (T::half_bits_mut(y), T::half_bits(x)) {
            reduce_rows_short_half::<D, R>(yb, xb, inf_of::<T>());
            return;
        }
    }
    let (rows, _) = x.as_chunks::<R>();
    for (ys, rs) in y.chunks_mut(ROW_TILE).zip(rows.chunks(ROW_TILE)) {
        let mut nan = false;
        let mut out = [T::ZERO; ROW_TILE];
        for ((o, &acc), row) in out.iter_mut().zip(ys.iter()).zip(rs) {
            let mut m = acc;
            for &v in row {
                m = step::<T, D>(m, v);
                nan |= v.is_nan();
            }
            nan |= acc.is_nan();
            *o = m;
        }
        if nan {
            // The order-only fold never lets a NaN in nor out: give those rows a NaN.
            for ((o, &acc), row) in out.iter_mut().zip(ys.iter()).zip(rs) {
                if acc.is_nan() {
                    *o = acc;
                } else if let Some(&v) = row.iter().find(|v| v.is_nan()) {
                    *o = v;
                }
            }
        }
        for (y, &o) in ys.iter_mut().zip(&out) {
            *y = o;
        }
    }
}

/// Whether the candidate `v` at row `at` beats `best` at row `best_at` under the arg rules (a
/// NaN beats every number; among equals, or among NaNs, the lower row, or the higher with
/// `LAST`), whatever order the candidates come in.
#[inline(always)]
fn beats<T: Element, D: Direction, const LAST: bool>(
    v: T,
    at: usize,
    best: T,
    best_at: usize,
) -> bool {
    let earlier = if LAST { at > best_at } else { at < best_at };
    match (v.is_nan(), best.is_nan()) {
        (true, true) => earlier,
        (true, false) => true,
        (false, true) => false,
        (false, false) => D::better(v, best) || (!D::better(best, v) && earlier),
    }
}

/// Arg-reduction of rows of `C` lanes (`x.len() / C` rows) into `y` (`C` indices), read as rows
/// of `W` lanes (`W` a multiple of `C`), `W / C` rows at a time; `TILE` is `W` rounded up to
/// whole chunks of sixteen, as [`arg_tile`](super::arg_tile) gives it.
///
/// ```
/// use onnx_aot::{kernels::arg_lanes_narrow, Max};
/// // Five rows of two lanes.
/// let x = [1.0, 9.0, 4.0, 2.0, 4.0, 9.0, 0.0, f32::NAN, 7.0, 1.0];
/// let mut y = [0i64; 2];
/// arg_lanes_narrow::<f32, Max, false, 2, 16, 16>(&x, &mut y);
/// assert_eq!(y, [4, 3]);
/// ```
#[cfg_attr(feature = "small-code", inline)]
#[cfg_attr(not(feature = "small-code"), inline(always))]
pub fn arg_lanes_narrow<
    T: Element,
    D: Direction,
    const LAST: bool,
    const C: usize,
    const W: usize,
    const TILE: usize,
>(
    x: &[T],
    y: &mut [i64],
) {
    arg_lanes_narrow_in::<T, D, LAST>(x, y, C, W, arg_lanes::<T, D, LAST, TILE>);
}

/// The widest period of [`narrow_period`] (for fewer than sixteen lanes): the stack the run-time
/// sized narrow kernels keep.
pub(crate) const MAX_PERIOD: usize = 128;

/// [`arg_lanes_narrow`] with `c` lanes and the period `w` as run-time values (`c` under
/// sixteen, `w` at most [`MAX_PERIOD`]; other sizes take the plain lane kernel), over the lane
/// kernel `lanes` (`lanes(x, y, inner)`: the index of each of `inner` lanes down the rows).
#[inline(always)]
pub(crate) fn arg_lanes_narrow_in<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    c: usize,
    w: usize,
    lanes: impl ArgLanes<T>,
) {
    let k = w.checked_div(c).unwrap_or(0);
    if c == 0 || k == 0 || !w.is_multiple_of(c) {
        return;
    }
    if cfg!(feature = "small-code") {
        // The plain lane kernel on `c` lanes: less code, and no widened state on the stack
        // (one chunk of sixteen lanes, not the tile of the `w` lanes).
        arg_lanes::<T, D, LAST, LANES>(x, y, c);
        return;
    }
    if c > LANES || w > MAX_PERIOD {
        lanes.run(x, y, c);
        return;
    }
    let rows = x.len() / c;
    let groups = rows / k;
    let mut best = [T::ZERO; LANES];
    let mut best_at = [0usize; LANES];
    let mut seen = false;
    if groups > 0 {
        let mut idx = [0i64; MAX_PERIOD];
        let idx = &mut idx[..w];
        lanes.run(&x[..groups * w], idx, w);
        for (j, &q) in idx.iter().enumerate() {
            let at = q as usize * k + j / c;
            let v = x[at * c + j % c];
            let l = j % c;
            if j < c || beats::<T, D, LAST>(v, at, best[l], best_at[l]) {
                best[l] = v;
                best_at[l] = at;
            }
        }
        seen = true;
    }
    for (at, row) in x.chunks_exact(c).enumerate().skip(groups * k) {
        for (l, &v) in row.iter().enumerate() {
            if !seen || beats::<T, D, LAST>(v, at, best[l], best_at[l]) {
                best[l] = v;
                best_at[l] = at;
            }
        }
        seen = true;
    }
    for (o, &at) in y.iter_mut().zip(&best_at[..c]) {
        *o = at as i64;
    }
}

/// Accumulates rows of `C` lanes of `x` into `acc` (`C` elements, NaN-propagating as
/// [`reduce_lanes_rows`]), read as rows of `W` lanes (`W` a multiple of `C`), `W / C` rows at a
/// time.
///
/// ```
/// use onnx_aot::{kernels::reduce_lanes_narrow, Min};
/// let x = [1.0, 9.0, 4.0, 2.0, -4.0, 9.0, 0.0, 3.0, 7.0, 1.0];
/// let mut acc = [f32::INFINITY; 2];
/// reduce_lanes_narrow::<f32, Min, 2, 16>(&mut acc, &x);
/// assert_eq!(acc, [-4.0, 1.0]);
/// ```
#[cfg_attr(feature = "small-code", inline)]
#[cfg_attr(not(feature = "small-code"), inline(always))]
pub fn reduce_lanes_narrow<T: Element, D: Direction, const C: usize, const W: usize>(
    acc: &mut [T],
    x: &[T],
) {
    reduce_lanes_narrow_in::<T, D>(acc, x, C, W);
}

/// [`reduce_lanes_narrow`] with `c` lanes and the period `w` as run-time values (`c` under
/// sixteen, `w` at most [`MAX_PERIOD`]; other sizes take the plain lane kernel).
#[inline(always)]
pub(crate) fn reduce_lanes_narrow_in<T: Element, D: Direction>(
    acc: &mut [T],
    x: &[T],
    c: usize,
    w: usize,
) {
    let k = w.checked_div(c).unwrap_or(0);
    if c == 0 || k == 0 || !w.is_multiple_of(c) || acc.len() < c {
        return;
    }
    if cfg!(feature = "small-code") || w > MAX_PERIOD {
        reduce_lanes_rows::<T, D>(&mut acc[..c], x);
        return;
    }
    let groups = x.len() / w;
    let fold = |a: T, v: T| {
        if a.is_nan() {
            a
        } else if v.is_nan() {
            v
        } else {
            step::<T, D>(a, v)
        }
    };
    // Fewer rows than one period (a small block): the rows folded directly, without the
    // widened lanes to set up and fold back.
    if groups > 0 {
        let mut wide = [T::ZERO; MAX_PERIOD];
        let wide = &mut wide[..w];
        for (j, v) in wide.iter_mut().enumerate() {
            *v = acc[j % c];
        }
        reduce_lanes_rows::<T, D>(wide, &x[..groups * w]);
        for (j, &v) in wide.iter().enumerate() {
            acc[j % c] = fold(acc[j % c], v);
        }
    }
    for row in x[groups * w..].chunks_exact(c) {
        for (a, &v) in acc.iter_mut().zip(row) {
            *a = fold(*a, v);
        }
    }
}

/// The period the generator picks for `C` few lanes (below sixteen): the smallest multiple of
/// `C` that is whole chunks of sixteen if that is at most 128, else the largest multiple of `C`
/// up to 128; doubled up to at least 64 lanes.
pub const fn narrow_period(c: usize) -> usize {
    if c == 0 {
        return 0;
    }
    let mut w = c;
    while !w.is_multiple_of(LANES) && w + c <= 128 {
        w += c;
    }
    if !w.is_multiple_of(LANES) {
        w = 128 / c * c;
    }
    if w == 0 {
        // More than 128 lanes: not a narrow row (the generator never asks).
        return c;
    }
    while w < 64 {
        w += w;
    }
    w
}

#[cfg(test)]
mod tests;
