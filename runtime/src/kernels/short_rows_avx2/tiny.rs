//! Reductions of rows of 2 to 7 bytes (`u8`, `i8` and bool rows of 2 to 7, `u16` and `i16`
//! rows of 2 or 3): too short for a row per lane, which would leave most of each 16-byte half
//! idle, and short enough for a sliding window. The vector loaded at a run of rows, folded with
//! the `n - 1` vectors loaded one element further each, holds in each position the extreme of
//! the `n` elements from there; the rows' starts (every `n`-th element) are gathered by one
//! in-lane shuffle into a tile on the stack, which is then folded into `y` a vector at a time.
//! (The portable fold took one compare per element: `u8` rows of 5 at about 4x a streaming
//! read.)

use core::arch::x86_64::{
    __m128i, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_shuffle_epi8,
    _mm256_storeu_si256, _mm_storel_epi64,
};

use super::lanes::{load, pick, I16s, I8s, Lanes, U16s, U8s};
use crate::{DType, Direction, Element};

/// The longest rows taken, in bytes: from 8 bytes a row per lane does ([`super::MIN_BYTES`]).
pub(super) const MAX_ROW: usize = 7;

/// Vector loads a tile is made of (each `32 / row` rows): a tile's extremes are `32 · (32 /
/// row)` elements, a whole number of vectors.
const LOADS: usize = 32;

/// The tile of the extremes, with room for the last load's eight-byte stores.
const OUT: usize = LOADS * 16 + 8;

/// Whether rows of `n` elements of `T` are this kernel's: 1- and 2-byte integers and bool, two
/// elements or more and at most [`MAX_ROW`] bytes.
#[inline(always)]
pub(super) fn fits<T: Element>(n: usize) -> bool {
    matches!(
        T::DTYPE,
        DType::U8 | DType::Bool | DType::I8 | DType::U16 | DType::I16
    ) && n >= 2
        && n * size_of::<T>() <= MAX_ROW
}

/// Folds each contiguous row of `n` of `x` into the matching element of `y`, whole tiles of
/// rows; the rows done (the rest are the caller's; none unless [`fits`]).
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
    let Some(xb) = super::bytes(x) else {
        return 0;
    };
    // SAFETY: `fits` kept to types of one or two bytes without padding, where every bit
    // pattern the kernel writes (an element of `x` or of `y`) is a value; the bytes cover the
    // same memory, borrowed as long.
    let yb =
        unsafe { core::slice::from_raw_parts_mut(y.as_mut_ptr().cast::<u8>(), size_of_val(y)) };
    // SAFETY (each arm): AVX2 (the caller's); the lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::U8 | DType::Bool => by_length::<U8s, D>(yb, xb, n),
            DType::I8 => by_length::<I8s, D>(yb, xb, n),
            DType::U16 => by_length::<U16s, D>(yb, xb, n),
            DType::I16 => by_length::<I16s, D>(yb, xb, n),
        } else 0)
    }
}

/// [`reduce_rows`] of lanes `K`, the row length a constant (the window's loads unrolled).
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn by_length<K: Lanes, D: Direction>(y: &mut [u8], x: &[u8], n: usize) -> usize {
    // SAFETY (each arm): AVX2.
    unsafe {
        match n {
            2 => windows::<K, D, 2>(y, x),
            3 => windows::<K, D, 3>(y, x),
            4 if K::SIZE == 1 => windows::<K, D, 4>(y, x),
            5 if K::SIZE == 1 => windows::<K, D, 5>(y, x),
            6 if K::SIZE == 1 => windows::<K, D, 6>(y, x),
            7 if K::SIZE == 1 => windows::<K, D, 7>(y, x),
            _ => 0,
        }
    }
}

/// The in-lane shuffle that gathers, from a vector of window extremes of rows of `row` bytes
/// of elements of `s` bytes, the rows starting in each half into that half's first bytes; and
/// how many rows start in the low half.
fn gather(row: usize, s: usize) -> ([u8; 32], usize) {
    let rows = 32 / row;
    let low = 16usize.div_ceil(row);
    let mut mask = [0x80u8; 32];
    for (i, m) in mask.iter_mut().enumerate() {
        let (half, at) = (i / 16, i % 16);
        let k = at / s + half * low;
        if (half == 0 && k < low) || (half == 1 && k < rows) {
            *m = (k * row + at % s - half * 16) as u8;
        }
    }
    (mask, low)
}

/// [`reduce_rows`] of rows of `N` elements of lanes `K` (`y` and `x` as bytes).
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn windows<K: Lanes, D: Direction, const N: usize>(y: &mut [u8], x: &[u8]) -> usize {
    let (s, row) = (K::SIZE, N * K::SIZE);
    let per = 32 / row;
    let (mask, low) = gather(row, s);
    // SAFETY: 32 bytes.
    let mask = unsafe { load(&mask, 0) };
    let (tile_rows, tile_bytes) = (LOADS * per, LOADS * per * row);
    // A tile reads from its start to 32 bytes past its last load's last window.
    let reach = (LOADS - 1) * per * row + (N - 1) * s + 32;
    let mut tiles = (x.len() / row).min(y.len() / s) / tile_rows;
    while tiles > 0 && (tiles - 1) * tile_bytes + reach > x.len() {
        tiles -= 1;
    }
    let mut out = [0u8; OUT];
    for t in 0..tiles {
        for j in 0..LOADS {
            let at = t * tile_bytes + j * per * row;
            // SAFETY (each load): `tiles` kept the tile's reach inside `x`.
            let mut w = unsafe { load(x, at) };
            for e in 1..N {
                w = pick::<K, D>(w, unsafe { load(x, at + e * s) });
            }
            let g = _mm256_shuffle_epi8(w, mask);
            // The low half's rows, then the high half's after them (over the low half's
            // zeros); the next load's stores go over this one's zeros.
            let o = j * per * s;
            let (lo, hi) = (_mm256_castsi256_si128(g), _mm256_extracti128_si256::<1>(g));
            // SAFETY: `o + low * s + 8 <= LOADS * 16 + 8`: `per * s <= 16`.
            unsafe {
                _mm_storel_epi64(out.as_mut_ptr().add(o).cast::<__m128i>(), lo);
                _mm_storel_epi64(out.as_mut_ptr().add(o + low * s).cast::<__m128i>(), hi);
            }
        }
        // The tile's extremes, `tile_rows · s` bytes (a whole number of vectors), into `y`.
        let ys = t * tile_rows * s;
        for c in (0..tile_rows * s).step_by(32) {
            // SAFETY: `tiles` kept the tile's rows inside `y`; `c + 32 <= tile_rows · s`,
            // within `out`.
            unsafe {
                let v = pick::<K, D>(load(y, ys + c), load(&out, c));
                _mm256_storeu_si256(y.as_mut_ptr().add(ys + c).cast(), v);
            }
        }
    }
    tiles * tile_rows
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::kernels::test_util::{bools, i16s, i8s, same, u16s, u8s, Lcg};
    use crate::{f16, Max, Min};
    use std::vec::Vec;

    /// A row's extreme folded into `acc`, one element at a time (the types have no NaN).
    fn naive<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
        row.iter()
            .fold(acc, |a, &v| if D::better(v, a) { v } else { a })
    }

    /// Rows of `n` (`rows` of them, and a few elements after) folded both ways into random
    /// accumulators: every row done matches the definition, the rows after are untouched, and
    /// all but the last tile's worth are done.
    fn check<T: Element>(g: &mut Lcg, n: usize, rows: usize, make: fn(&mut Lcg, bool) -> T) {
        if !super::super::available() {
            return;
        }
        let x: Vec<T> = (0..n * rows + 5).map(|_| make(g, false)).collect();
        let acc: Vec<T> = (0..rows).map(|_| make(g, false)).collect();
        for min in [false, true] {
            let mut y = acc.clone();
            // SAFETY: `available` found AVX2.
            let done = unsafe {
                if min {
                    reduce_rows::<T, Min>(&mut y, &x, n)
                } else {
                    reduce_rows::<T, Max>(&mut y, &x, n)
                }
            };
            let tile = LOADS * (32 / (n * size_of::<T>()));
            let what = (T::DTYPE, n, rows, min);
            assert_eq!(done % tile, 0, "{what:?}");
            assert!(
                done <= rows && done + 2 * tile > rows,
                "{what:?}: {done} done"
            );
            for (o, row) in x.chunks_exact(n).take(rows).enumerate() {
                let want = match (o < done, min) {
                    (false, _) => acc[o],
                    (true, false) => naive::<T, Max>(acc[o], row),
                    (true, true) => naive::<T, Min>(acc[o], row),
                };
                assert!(same(y[o], want), "{what:?} row {o}");
            }
        }
    }

    #[test]
    fn rows_of_two_to_seven_bytes_fold_by_the_definition() {
        let mut g = Lcg(77);
        for n in 2..=MAX_ROW {
            let tile = LOADS * (32 / n);
            for rows in [0, 1, tile - 1, tile, tile + 1, 3 * tile + 17] {
                check::<u8>(&mut g, n, rows, u8s);
                check::<i8>(&mut g, n, rows, i8s);
                check::<bool>(&mut g, n, rows, bools);
            }
        }
        for n in 2..=MAX_ROW / 2 {
            let tile = LOADS * (32 / (2 * n));
            for rows in [tile - 1, tile, 2 * tile + 3, 5 * tile] {
                check::<u16>(&mut g, n, rows, u16s);
                check::<i16>(&mut g, n, rows, i16s);
            }
        }
    }

    #[test]
    fn only_rows_of_two_to_seven_bytes_of_small_integers_fit() {
        assert!(fits::<u8>(2) && fits::<bool>(7) && fits::<i16>(3));
        assert!(!fits::<u8>(1) && !fits::<u8>(8) && !fits::<u16>(4) && !fits::<u16>(1));
        assert!(!fits::<f16>(2) && !fits::<i32>(2) && !fits::<f32>(1));
    }
}
