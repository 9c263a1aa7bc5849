//! Rows of 2 to 7 bytes (`u8`, `i8` and bool rows of 2 to 7; `u16`, `i16`, f16 and bf16 rows
//! of 2 or 3) and `i32`/`u32` rows of 2 or 3: too short for a row per lane, which would leave
//! most of each 16-byte half idle (or a vector of eight rows' lanes over several loads), and
//! short enough for a sliding window. The vector loaded at a run of rows, folded with the
//! `n - 1` vectors loaded one element further each, holds in each position the extreme of the
//! `n` elements from there ([`window`]), and for the arg-reductions the position among them
//! that the tie rule picks (the loads folded from the window's end for the first, from its
//! start for the last). The rows' starts (every `n`-th element) are gathered by one in-lane
//! shuffle into tiles on the stack, which then go to `y` (and `v`). f16 and bf16 go by their
//! order keys, NaN flagged on the side: a tile that held one is done again by the exact rule.
//! (The portable kernels took one compare per element: `u8` rows of 5 reduced at 15x a
//! streaming read, and searched at 20x.)

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_blendv_epi8, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_set1_epi16, _mm256_set1_epi32, _mm256_set1_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_storeu_si256, _mm_storel_epi64,
};

use super::exact_rows;
use super::lanes::{
    any_nan, equal, key, load, nans, pick, track, unkey, Halves, I16s, I32s, I8s, Lanes, U16s,
    U32s, U8s,
};
use crate::kernels::index::{index, Index};
use crate::kernels::reduce::fold;
use crate::{DType, Direction, Element};

/// Calls `$f::<..., N>($args)` with the row length `$n` as the constant `N` (the window's
/// loads unrolled), for rows of 2 to 7 elements (1-byte types) or 2 and 3 (2- and 4-byte ones,
/// `short`); 0 for other lengths.
macro_rules! by_length {
    ($n:expr, short, $f:ident::<$($g:ty),*>($($a:expr),*)) => {
        match $n {
            2 => $f::<$($g),*, 2>($($a),*),
            3 => $f::<$($g),*, 3>($($a),*),
            _ => 0,
        }
    };
    ($n:expr, $f:ident::<$($g:ty),*>($($a:expr),*)) => {
        match $n {
            4 => $f::<$($g),*, 4>($($a),*),
            5 => $f::<$($g),*, 5>($($a),*),
            6 => $f::<$($g),*, 6>($($a),*),
            7 => $f::<$($g),*, 7>($($a),*),
            n => by_length!(n, short, $f::<$($g),*>($($a),*)),
        }
    };
}

/// The longest rows of 1- and 2-byte elements taken, in bytes: from 8 bytes a row per lane
/// does ([`super::MIN_BYTES`]).
pub(super) const MAX_ROW: usize = 7;

/// The longest rows of 4-byte elements taken, in elements.
pub(super) const MAX_ROW_4: usize = 3;

/// Vector loads a tile is made of (each `32 / row` rows): a tile's extremes are `32 · (32 /
/// row)` elements, a whole number of vectors.
const LOADS: usize = 32;

/// A tile of gathered lanes (at most 16 bytes a load), with room for the last load's
/// eight-byte stores.
const OUT: usize = LOADS * 16 + 8;

/// Whether rows of `n` elements of `T` are this kernel's: 1- and 2-byte integers, bool, f16
/// and bf16, two elements or more and at most [`MAX_ROW`] bytes; `i32` and `u32` rows of two
/// to [`MAX_ROW_4`].
#[inline(always)]
pub(super) fn fits<T: Element>(n: usize) -> bool {
    match T::DTYPE {
        DType::U8
        | DType::Bool
        | DType::I8
        | DType::U16
        | DType::I16
        | DType::F16
        | DType::BF16 => n >= 2 && n * size_of::<T>() <= MAX_ROW,
        DType::I32 | DType::U32 => (2..=MAX_ROW_4).contains(&n),
        _ => false,
    }
}

/// Folds each contiguous row of `n` of `x` into the matching element of `y` (a NaN in `y`
/// stays, otherwise the row's first NaN), whole tiles of rows; the rows done (the rest are the
/// caller's; none unless [`fits`]).
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn reduce_rows<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    n: usize,
) -> usize {
    if !fits::<T>(n) {
        return 0;
    }
    // SAFETY (each arm): AVX2 (the caller's); the lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::U8 | DType::Bool => by_length!(n, reduce_in::<U8s, D, T>(y, x)),
            DType::I8 => by_length!(n, reduce_in::<I8s, D, T>(y, x)),
            DType::U16 => by_length!(n, short, reduce_in::<U16s, D, T>(y, x)),
            DType::I16 => by_length!(n, short, reduce_in::<I16s, D, T>(y, x)),
            DType::F16 => by_length!(n, short, reduce_in::<Halves<0x7c00>, D, T>(y, x)),
            DType::BF16 => by_length!(n, short, reduce_in::<Halves<0x7f80>, D, T>(y, x)),
            DType::U32 => by_length!(n, short, reduce_in::<U32s, D, T>(y, x)),
            DType::I32 => by_length!(n, short, reduce_in::<I32s, D, T>(y, x)),
        } else 0)
    }
}

/// The index of the extreme of each contiguous row of `n` of `x` into `y` (the first, or the
/// last with `LAST`; a NaN beats every number), with `VALUES` each row's extreme into `v`;
/// whole tiles of rows, the rows done (the rest are the caller's; none unless [`fits`]).
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn arg_rows<T, D, const LAST: bool, const VALUES: bool, I>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> usize
where
    T: Element,
    D: Direction,
    I: Index,
{
    if !fits::<T>(n) {
        return 0;
    }
    // SAFETY (each arm): AVX2 (the caller's); the lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::U8 | DType::Bool => {
                by_length!(n, arg_in::<U8s, D, LAST, VALUES, T, I>(x, y, v))
            },
            DType::I8 => by_length!(n, arg_in::<I8s, D, LAST, VALUES, T, I>(x, y, v)),
            DType::U16 => by_length!(n, short, arg_in::<U16s, D, LAST, VALUES, T, I>(x, y, v)),
            DType::I16 => by_length!(n, short, arg_in::<I16s, D, LAST, VALUES, T, I>(x, y, v)),
            DType::F16 => {
                by_length!(n, short, arg_in::<Halves<0x7c00>, D, LAST, VALUES, T, I>(x, y, v))
            },
            DType::BF16 => {
                by_length!(n, short, arg_in::<Halves<0x7f80>, D, LAST, VALUES, T, I>(x, y, v))
            },
            DType::U32 => by_length!(n, short, arg_in::<U32s, D, LAST, VALUES, T, I>(x, y, v)),
            DType::I32 => by_length!(n, short, arg_in::<I32s, D, LAST, VALUES, T, I>(x, y, v)),
        } else 0)
    }
}

/// The tile of rows of `N` elements of lanes `K`: which bytes of a load's windows are the
/// rows' starts, and how many rows and bytes a tile covers.
struct Shape {
    /// Rows per load (`32 / row`).
    per: usize,
    /// Rows starting in a load's low half.
    low: usize,
    /// The in-lane shuffle that gathers the rows' starts of each half into its first bytes.
    mask: __m256i,
    /// Bytes per row.
    row: usize,
    /// Bytes a tile reads from its start: to 32 bytes past its last load's last window.
    reach: usize,
}

/// Rows a tile holds for rows of `row` bytes (of the lengths this kernel takes; 0 for
/// others).
pub(super) fn tile_rows(row: usize) -> usize {
    if (2..=4 * MAX_ROW_4).contains(&row) {
        LOADS * (32 / row)
    } else {
        0
    }
}

impl Shape {
    /// The shape of rows of `n` elements of `s` bytes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(n: usize, s: usize) -> Self {
        let row = n * s;
        let (per, low) = (32 / row, 16usize.div_ceil(row));
        let mut mask = [0x80u8; 32];
        for (i, m) in mask.iter_mut().enumerate() {
            let (half, at) = (i / 16, i % 16);
            let k = at / s + half * low;
            if (half == 0 && k < low) || (half == 1 && k < per) {
                *m = (k * row + at % s - half * 16) as u8;
            }
        }
        Self {
            per,
            low,
            // SAFETY: 32 bytes.
            mask: unsafe { load(&mask, 0) },
            row,
            reach: (LOADS - 1) * per * row + (n - 1) * s + 32,
        }
    }

    /// Rows per tile.
    fn rows(&self) -> usize {
        tile_rows(self.row)
    }

    /// Whole tiles in `rows` rows of an input of `len` bytes, the last one's reach inside it.
    fn tiles(&self, rows: usize, len: usize) -> usize {
        let mut tiles = rows / self.rows();
        while tiles > 0 && (tiles - 1) * self.rows() * self.row + self.reach > len {
            tiles -= 1;
        }
        tiles
    }

    /// Byte offset in `x` of load `j` of tile `t`.
    fn at(&self, t: usize, j: usize) -> usize {
        (t * LOADS + j) * self.per * self.row
    }

    /// The lanes of `w` at load `j`'s rows' starts into `out`, from row `j · per` on (elements
    /// of `s` bytes): the low half's rows, then the high half's over the low half's zeros; the
    /// next load's stores go over this one's zeros.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn gather(&self, out: &mut [u8; OUT], j: usize, s: usize, w: __m256i) {
        let g = _mm256_shuffle_epi8(w, self.mask);
        let (lo, hi) = (_mm256_castsi256_si128(g), _mm256_extracti128_si256::<1>(g));
        let o = j * self.per * s;
        debug_assert!(j < LOADS && self.per * s <= 16);
        // SAFETY: `o + low · s + 8 <= LOADS · 16 + 8 = OUT`: `j < LOADS`, `per · s <= 16`.
        unsafe {
            _mm_storel_epi64(out.as_mut_ptr().add(o).cast::<__m128i>(), lo);
            _mm_storel_epi64(out.as_mut_ptr().add(o + self.low * s).cast::<__m128i>(), hi);
        }
    }
}

/// Position `e` in every lane of `K`.
#[inline]
#[target_feature(enable = "avx2")]
fn splat<K: Lanes>(e: usize) -> __m256i {
    match K::SIZE {
        1 => _mm256_set1_epi8(e as i8),
        2 => _mm256_set1_epi16(e as i16),
        _ => _mm256_set1_epi32(e as i32),
    }
}

/// The window of `N` elements from each position of the vector at byte `at` of `x`: the
/// extreme keys, and with `ARG` the position in the window the tie rule picks (the first, the
/// last with `LAST`); NaN magnitudes tracked into `nan` (f16 and bf16).
///
/// # Safety
/// `at + (N - 1) · size + 32 <= x.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn window<K: Lanes, D: Direction, const N: usize, const ARG: bool, const LAST: bool>(
    x: &[u8],
    at: usize,
    nan: &mut __m256i,
) -> (__m256i, __m256i) {
    // Folded from the end for the first position (a tie goes to the load nearer the start),
    // from the start for the last.
    let e_of = |i: usize| if LAST { i } else { N - 1 - i };
    let mut m = _mm256_setzero_si256();
    let mut pos = _mm256_setzero_si256();
    for i in 0..N {
        let e = e_of(i);
        // SAFETY: the caller's.
        let raw = unsafe { load(x, at + e * K::SIZE) };
        if K::INF != 0 {
            *nan = track::<K>(*nan, raw);
        }
        let c = key::<K>(raw);
        if i == 0 {
            (m, pos) = (c, splat::<K>(e));
            continue;
        }
        let p = pick::<K, D>(c, m);
        if ARG {
            pos = _mm256_blendv_epi8(pos, splat::<K>(e), equal::<K>(p, c));
        }
        m = p;
    }
    (m, pos)
}

/// [`reduce_rows`] of rows of `N` elements of lanes `K`: whole tiles in place, then the rows
/// after them (fewer than a tile's, or a tile's whose loads would reach past `x`) as a tile
/// over a copy of them ([`reduce_copied`]).
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn reduce_in<K: Lanes, D: Direction, T: Element, const N: usize>(
    y: &mut [T],
    x: &[T],
) -> usize {
    let Some(xb) = super::bytes(x) else {
        return 0;
    };
    let shape = Shape::new(N, K::SIZE);
    let all = (x.len() / N).min(y.len());
    let (tiles, rows) = (shape.tiles(all, xb.len()), shape.rows());
    let mut out = [0u8; OUT];
    for t in 0..tiles {
        let (Some(xt), Some(ys), Some(rs)) = (
            xb.get(shape.at(t, 0)..),
            y.get_mut(t * rows..(t + 1) * rows),
            x.get(t * rows * N..(t + 1) * rows * N),
        ) else {
            return t * rows;
        };
        // SAFETY: `tiles` kept the tile's reach inside `x`; the caller's.
        unsafe { reduce_tile::<K, D, T, N>(&shape, xt, ys, rs, &mut out) };
    }
    let mut done = tiles * rows;
    while done < all {
        let k = (all - done).min(rows);
        let (Some(ys), Some(rs)) = (y.get_mut(done..done + k), x.get(done * N..(done + k) * N))
        else {
            return done;
        };
        // SAFETY: the caller's.
        unsafe { reduce_copied::<K, D, T, N>(&shape, ys, rs, &mut out) };
        done += k;
    }
    done
}

/// Bytes of the copy [`reduce_copied`] makes of a tile's rows: more than a tile's reach (its
/// last load's window ends under `32 · LOADS + 8` bytes from its start).
const COPY: usize = 32 * LOADS + 32;

/// Bytes of a tile's outputs (`32 · (32 / row)` rows of `row / n` bytes each: at most 512).
const TILE_OUT: usize = 16 * LOADS;

/// Bytes aligned for any element type.
#[repr(C, align(32))]
struct Aligned<const B: usize>([u8; B]);

/// [`reduce_tile`] of the rows `rs` (at most a tile's) into `ys`, over a copy of them padded
/// with zeros to a tile's reach, the outputs through a copy of `ys`: the rows after the whole
/// tiles, which the portable loop took at about eight times the cost of a tile's row (`u8`
/// rows of three: the last 192 of each piece of 8192 cost a fifth of the time).
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `ys.len() <= shape.rows()`, `rs.len() == N · ys.len()`.
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn reduce_copied<K: Lanes, D: Direction, T: Element, const N: usize>(
    shape: &Shape,
    ys: &mut [T],
    rs: &[T],
    out: &mut [u8; OUT],
) {
    let rows = shape.rows();
    let (mut xc, mut yc) = (Aligned([0u8; COPY]), Aligned([0u8; TILE_OUT]));
    let ylen = size_of_val(ys);
    let (Some(xb), Some(yb), Some(yd)) = (super::bytes(rs), super::bytes(ys), yc.0.get_mut(..ylen))
    else {
        return;
    };
    let Some(xd) = xc.0.get_mut(..xb.len()) else {
        return;
    };
    xd.copy_from_slice(xb);
    yd.copy_from_slice(yb);
    debug_assert!(rows * K::SIZE <= TILE_OUT);
    // SAFETY: `yc` holds `rows` elements of `T` (`rows · size <= TILE_OUT`), aligned for it,
    // each element's bytes initialized (those past `ys` zeros: a number of every type); the
    // copy's length covers the tile's reach; the caller's.
    unsafe {
        let acc = core::slice::from_raw_parts_mut(yc.0.as_mut_ptr().cast::<T>(), rows);
        reduce_tile::<K, D, T, N>(shape, &xc.0, acc, rs, out);
    }
    // SAFETY: `ys` is `ylen` bytes of elements of `T`; the copy's first `ylen` bytes are the
    // tile's outputs for them (elements of `T`).
    unsafe {
        core::ptr::copy_nonoverlapping(yc.0.as_ptr(), ys.as_mut_ptr().cast::<u8>(), ylen);
    }
}

/// One tile of rows folded into `ys` (a tile's rows), its loads from the start of `xt`; a
/// tile holding a NaN folds its rows `rs` (as many as `ys` holds or fewer) by the exact rule.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `xt` holds the tile's reach; `ys.len() == rows`.
#[inline(always)]
unsafe fn reduce_tile<K: Lanes, D: Direction, T: Element, const N: usize>(
    shape: &Shape,
    xt: &[u8],
    ys: &mut [T],
    rs: &[T],
    out: &mut [u8; OUT],
) {
    let (s, rows) = (K::SIZE, shape.rows());
    let mut nan = _mm256_setzero_si256();
    for j in 0..LOADS {
        // SAFETY: the caller's.
        let (m, _) = unsafe { window::<K, D, N, false, false>(xt, shape.at(0, j), &mut nan) };
        shape.gather(out, j, s, m);
    }
    if any_nan::<K>(nan) {
        for (o, row) in ys.iter_mut().zip(rs.chunks_exact(N)) {
            *o = fold::<T, D>(*o, row);
        }
        return;
    }
    debug_assert!(ys.len() == rows);
    let yb = ys.as_mut_ptr().cast::<u8>();
    for c in (0..rows * s).step_by(32) {
        // SAFETY: `ys` is `rows · s` bytes, a whole number of vectors; `out` holds them;
        // what is stored are elements of `T` (a number's bits for f16 and bf16).
        unsafe {
            let (acc, m) = (
                load(core::slice::from_raw_parts(yb, rows * s), c),
                load(out, c),
            );
            let v = if K::INF != 0 {
                // An accumulator that is NaN stays.
                _mm256_blendv_epi8(unkey(pick::<K, D>(m, key::<K>(acc))), acc, nans::<K>(acc))
            } else {
                pick::<K, D>(m, acc)
            };
            _mm256_storeu_si256(yb.add(c).cast(), v);
        }
    }
}

/// [`arg_rows`] of rows of `N` elements of lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn arg_in<K, D, const LAST: bool, const VALUES: bool, T, I, const N: usize>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
) -> usize
where
    K: Lanes,
    D: Direction,
    T: Element,
    I: Index,
{
    let Some(xb) = super::bytes(x) else {
        return 0;
    };
    let s = K::SIZE;
    let shape = Shape::new(N, s);
    let mut rows = (x.len() / N).min(y.len());
    if VALUES {
        rows = rows.min(v.len());
    }
    let (tiles, rows) = (shape.tiles(rows, xb.len()), shape.rows());
    let (mut pos, mut ext) = ([0u8; OUT], [0u8; OUT]);
    for t in 0..tiles {
        let mut nan = _mm256_setzero_si256();
        for j in 0..LOADS {
            // SAFETY: `tiles` kept the tile's reach inside `x`.
            let (m, p) = unsafe { window::<K, D, N, true, LAST>(xb, shape.at(t, j), &mut nan) };
            shape.gather(&mut pos, j, s, p);
            if VALUES {
                shape.gather(&mut ext, j, s, if K::INF != 0 { unkey(m) } else { m });
            }
        }
        let (Some(ys), Some(rs)) = (
            y.get_mut(t * rows..(t + 1) * rows),
            x.get(t * rows * N..(t + 1) * rows * N),
        ) else {
            return t * rows;
        };
        let vs = v.get_mut(t * rows..(t + 1) * rows).unwrap_or_default();
        if any_nan::<K>(nan) {
            exact_rows::<T, D, LAST, I>(rs, ys, vs, N);
            continue;
        }
        // Positions are under 8: the low byte of each lane.
        for (o, p) in ys.iter_mut().zip(pos.iter().step_by(s)) {
            *o = index::<I>(usize::from(*p));
        }
        if VALUES && vs.len() == rows {
            // SAFETY: `vs` is `rows · s` bytes; `ext` holds as many, each an element of `T`
            // (a number's bits for f16 and bf16).
            unsafe {
                core::ptr::copy_nonoverlapping(
                    ext.as_ptr(),
                    vs.as_mut_ptr().cast::<u8>(),
                    rows * s,
                );
            }
        }
    }
    tiles * rows
}

#[cfg(test)]
mod tests;
