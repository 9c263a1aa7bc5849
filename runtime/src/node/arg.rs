//! ArgMax and ArgMin: the shims generated code calls (see the module [`super`]).

#[cfg(not(debug_assertions))]
use super::wide::wide;
#[cfg(not(debug_assertions))]
use crate::kernels;
use crate::{Direction, Element};

use super::{Thin, ThinIndex, ThinRounded};

/// Blocks of fewer rows than this have the lane kernel inlined whole in optimized builds
/// (`kernels::arg_lanes_inlined`).
#[cfg(not(debug_assertions))]
const FEW_ROWS: usize = 32;

/// Indices a debug build converts at a time when a node writes them in another type.
#[cfg(debug_assertions)]
const INDEX_TILE: usize = 256;

/// Indices of the extreme of each contiguous row of `r` of `x` (`y.len()` rows, `r` from 32),
/// written as `I`.
#[inline(always)]
pub fn arg_rows<T: Thin, D: Direction, const LAST: bool, I: ThinIndex>(
    x: &[T],
    y: &mut [I],
    r: usize,
) {
    #[cfg(debug_assertions)]
    if let Some(y) = I::as_i64s(y) {
        T::arg_rows(x, y, r, D::IS_MIN, LAST);
    } else if r > 0 {
        let mut tile = [0i64; INDEX_TILE];
        for (x, out) in x.chunks(INDEX_TILE * r).zip(y.chunks_mut(INDEX_TILE)) {
            let tile = &mut tile[..out.len()];
            T::arg_rows(x, tile, r, D::IS_MIN, LAST);
            I::from_i64s(tile, out);
        }
    }
    #[cfg(not(debug_assertions))]
    if kernels::arg_rows_long::<T, D, LAST, I>(x, y, &mut [], r)
        || kernels::arg_rows_f32::<T, D, LAST, I>(x, y, r)
    {
        return;
    }
    // Integers of 1 to 4 bytes, bool, f16 and bf16, rows of 8 to 256 bytes: whole blocks of rows
    // in AVX2 (`kernels::short_rows`).
    #[cfg(not(debug_assertions))]
    let (x, y) = {
        let done = kernels::arg_rows_narrow::<T, D, LAST, false, I>(x, y, &mut [], r);
        match (x.get(done * r..), y.get_mut(done..)) {
            (Some(x), Some(y)) => (x, y),
            _ => return,
        }
    };
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()) && (r <= kernels::ARG_ROW_MID || wide_compare::<T>());
        [T: Thin, D: Direction, const LAST: bool, I: ThinIndex] [T, D, LAST, I]
        (x: &[T], y: &mut [I], r: usize) -> () {
        if r > 0 {
            for (o, row) in y.iter_mut().zip(x.chunks_exact(r)) {
                *o = kernels::index::<I>(kernels::arg_row::<T, D, LAST>(row));
            }
        }
    } else {
        if r > 0 {
            for (o, row) in y.iter_mut().zip(x.chunks_exact(r)) {
                *o = kernels::index::<I>(kernels::arg_row_wide::<T, D, LAST>(row));
            }
        }
    });
}

/// Whether rows of `T` of any length take the AVX2 twin of [`arg_rows`]: 64-bit integers,
/// which SSE2 compares in about ten instructions per pair and AVX2 in one (over rows of 1000
/// the twin ran i64 ArgMax 1.6x faster). Other types take it up to
/// [`kernels::ARG_ROW_MID`] elements per row.
#[cfg(not(debug_assertions))]
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline(always)]
const fn wide_compare<T: Thin>() -> bool {
    matches!(T::DTYPE, crate::DType::I64 | crate::DType::U64)
}

/// Indices of the extreme of each contiguous row of `R` (a few tens at most).
#[inline(always)]
pub fn arg_rows_short<T: Thin, D: Direction, const LAST: bool, const R: usize>(
    x: &[T],
    y: &mut [i64],
) {
    #[cfg(debug_assertions)]
    T::arg_rows(x, y, R, D::IS_MIN, LAST);
    #[cfg(not(debug_assertions))]
    kernels::arg_rows_short::<T, D, LAST, R>(x, y);
}

/// The index of the extreme of one contiguous row.
#[inline(always)]
#[must_use]
pub fn arg_row<T: Thin, D: Direction, const LAST: bool>(x: &[T]) -> usize {
    #[cfg(debug_assertions)]
    return T::arg_row(x, D::IS_MIN, LAST);
    #[cfg(not(debug_assertions))]
    kernels::arg_row::<T, D, LAST>(x)
}

/// [`arg_rows`] of `x` as rounded to `U` (a Cast to a narrower float folded into the read).
#[inline(always)]
pub fn arg_rows_rounded<T: ThinRounded<U>, U: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    r: usize,
) {
    #[cfg(debug_assertions)]
    T::arg_rows_rounded(x, y, r, D::IS_MIN, LAST);
    #[cfg(not(debug_assertions))]
    if r > 0 {
        for (o, row) in y.iter_mut().zip(x.chunks_exact(r)) {
            *o = kernels::index::<i64>(kernels::arg_row_rounded::<T, U, D, LAST>(row));
        }
    }
}

/// Arg-reduction along `r` rows of `inner` lanes (sixteen or more), block after block of
/// `r · inner` elements of `x`, `TILE` lanes at a time ([`crate::kernels::arg_tile`]).
#[inline(always)]
pub fn arg_blocks<T: Thin, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    r: usize,
    inner: usize,
) {
    #[cfg(debug_assertions)]
    T::arg_blocks(x, y, &mut [], (r, inner), D::IS_MIN, LAST);
    #[cfg(not(debug_assertions))]
    if kernels::arg_stacked_wide::<T, D, LAST>(x, y, &mut [], r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    if few::<T, D, LAST>(x, y, &mut [], r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    if kernels::arg_blocks_small::<T, D, LAST>(x, y, &mut [], r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    if r == 2
        && (inner >= kernels::TWO_ROWS_LANES || (inner >= 8 && kernels::two_rows_f32_fit::<T>()))
        && !matches!(T::DTYPE, crate::DType::F16 | crate::DType::BF16)
    {
        kernels::arg_two_rows::<T, D, LAST>(x, y, &mut [], inner);
        return;
    }
    #[cfg(not(debug_assertions))]
    if kernels::arg_blocks_f32::<T, D, LAST, TILE>(x, y, &mut [], r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()) && r >= super::wide::ROWS; avx512 true;
        [T: Thin, D: Direction, const LAST: bool, const TILE: usize] [T, D, LAST, TILE]
        (x: &[T], y: &mut [i64], r: usize, inner: usize) -> () {
        if r * inner > 0 {
            for (x, y) in x.chunks_exact(r * inner).zip(y.chunks_exact_mut(inner)) {
                if r < FEW_ROWS {
                    kernels::arg_lanes_inlined::<T, D, LAST, TILE>(x, y, &mut [], inner);
                } else {
                    kernels::arg_lanes::<T, D, LAST, TILE>(x, y, inner);
                }
            }
        }
    } else {
        if r * inner > 0 {
            for (x, y) in x.chunks_exact(r * inner).zip(y.chunks_exact_mut(inner)) {
                kernels::arg_lanes_wide::<T, D, LAST, TILE>(x, y, &mut [], inner);
            }
        }
    });
}

/// [`kernels::arg_blocks_few`] (many blocks of a few rows of a few lanes), through its AVX2
/// twin where the CPU has it, or its AVX-512 one (whose 64-byte vectors and mask registers took
/// ArgMax of `f64` and `i64` `[5461, 3, 16]` 0.63-0.71x the AVX2 twin's time, `i8` and `u8`
/// `[43690, 3, 16]` 0.71-0.86x, on an Intel Xeon, Emerald Rapids): `false` (nothing written)
/// where it does not take the blocks.
#[cfg(not(debug_assertions))]
#[inline(always)]
fn few<T: Thin, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    inner: usize,
) -> bool {
    if !kernels::arg_few_fits::<T>(r, inner) {
        return false;
    }
    wide!(super::wide::enough::<T>(x.len()); avx512 true;
        [T: Thin, D: Direction, const LAST: bool] [T, D, LAST]
        (x: &[T], y: &mut [i64], v: &mut [T], r: usize, inner: usize) -> bool {
        kernels::arg_blocks_few::<T, D, LAST>(x, y, v, r, inner)
    })
}

/// [`arg_blocks`] that also writes each lane's extreme into `v` (ReduceMax or ReduceMin of the
/// same lanes, fused).
#[inline(always)]
pub fn arg_blocks_values<T: Thin, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    inner: usize,
) {
    #[cfg(debug_assertions)]
    T::arg_blocks(x, y, v, (r, inner), D::IS_MIN, LAST);
    #[cfg(not(debug_assertions))]
    if kernels::arg_stacked_wide::<T, D, LAST>(x, y, v, r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    if few::<T, D, LAST>(x, y, v, r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    if kernels::arg_blocks_small::<T, D, LAST>(x, y, v, r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    if r == 2 && inner >= 8 && kernels::two_rows_f32_fit::<T>() {
        kernels::arg_two_rows::<T, D, LAST>(x, y, v, inner);
        return;
    }
    #[cfg(not(debug_assertions))]
    if kernels::arg_blocks_f32::<T, D, LAST, TILE>(x, y, v, r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()) && r >= super::wide::ROWS; avx512 true;
        [T: Thin, D: Direction, const LAST: bool, const TILE: usize] [T, D, LAST, TILE]
        (x: &[T], y: &mut [i64], v: &mut [T], r: usize, inner: usize) -> () {
        if r * inner > 0 {
            let blocks = x.chunks_exact(r * inner).zip(y.chunks_exact_mut(inner));
            for ((x, y), v) in blocks.zip(v.chunks_exact_mut(inner)) {
                if r < FEW_ROWS {
                    kernels::arg_lanes_inlined::<T, D, LAST, TILE>(x, y, v, inner);
                } else {
                    kernels::arg_lanes_values::<T, D, LAST, TILE>(x, y, v, inner);
                }
            }
        }
    } else {
        if r * inner > 0 {
            let blocks = x.chunks_exact(r * inner).zip(y.chunks_exact_mut(inner));
            for ((x, y), v) in blocks.zip(v.chunks_exact_mut(inner)) {
                kernels::arg_lanes_wide::<T, D, LAST, TILE>(x, y, v, inner);
            }
        }
    });
}

/// Arg-reduction along `r` rows of `C` lanes (under sixteen), block after block of `r · C`,
/// read `W / C` rows at a time ([`crate::kernels::narrow_period`]).
#[inline(always)]
pub fn arg_blocks_narrow<
    T: Thin,
    D: Direction,
    const LAST: bool,
    const C: usize,
    const W: usize,
    const TILE: usize,
>(
    x: &[T],
    y: &mut [i64],
    r: usize,
) {
    #[cfg(debug_assertions)]
    T::arg_blocks(x, y, &mut [], (r, C), D::IS_MIN, LAST);
    // Many short blocks: the thin-block kernel, but for the last blocks.
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()); avx512 true;
        [T: Thin, D: Direction, const LAST: bool, const C: usize, const W: usize, const TILE: usize]
        [T, D, LAST, C, W, TILE]
        (x: &[T], y: &mut [i64], r: usize) -> () {
        let done = thin_in::<T, D, LAST, C>(x, y, &mut [], r);
        let (Some(x), Some(y)) = (x.get(done * r * C..), y.get_mut(done * C..)) else {
            return;
        };
        if r * C > 0 {
            for (x, y) in x.chunks_exact(r * C).zip(y.chunks_exact_mut(C)) {
                kernels::arg_lanes_narrow::<T, D, LAST, C, W, TILE>(x, y);
            }
        }
    } else {
        if r * C > 0 {
            let done = thin_in::<T, D, LAST, C>(x, y, &mut [], r);
            let (Some(x), Some(y)) = (x.get(done * r * C..), y.get_mut(done * C..)) else {
                return;
            };
            for (x, y) in x.chunks_exact(r * C).zip(y.chunks_exact_mut(C)) {
                kernels::narrow::arg_lanes_narrow_wide::<T, D, LAST, C, W, TILE>(x, y);
            }
        }
    });
}

/// The blocks of `r` rows of `C` lanes (under sixteen) at the start of `x` that the kernel of
/// many short blocks takes (`kernels::thin_blocks`), done: their count (none unless two or
/// more), but for blocks of under four rows of `i64` and `u64` (1.5x the time). Through an AVX2
/// twin (but for f16 and bf16, compared by integer keys of their bits in either build).
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(super) fn thin<T: Thin, D: Direction, const LAST: bool, const C: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
) -> usize {
    wide!(super::wide::enough::<T>(x.len());
        [T: Thin, D: Direction, const LAST: bool, const C: usize] [T, D, LAST, C]
        (x: &[T], y: &mut [i64], v: &mut [T], r: usize) -> usize {
        thin_in::<T, D, LAST, C>(x, y, v, r)
    })
}

/// [`thin`] in the build of its caller.
#[cfg(not(debug_assertions))]
#[inline(always)]
fn thin_in<T: Thin, D: Direction, const LAST: bool, const C: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
) -> usize {
    if (matches!(T::DTYPE, crate::DType::I64 | crate::DType::U64) && r < 4)
        || kernels::thin_blocks::<C>(x.len(), r) < 2
    {
        return 0;
    }
    kernels::arg_blocks_thin::<T, D, LAST, C>(x, y, v, r)
}

/// Indices of the extreme of each of the `inner` lanes (under sixteen) down each block of `r`
/// rows of `x`, and the extreme itself into `v` (a ReduceMax or ReduceMin of the same lanes
/// fused into the node), in one pass where a kernel does both for these blocks: `false` if none
/// does (then nothing was written).
#[inline(always)]
#[must_use]
pub fn arg_blocks_values_narrow<T: Thin, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    inner: usize,
) -> bool {
    #[cfg(not(debug_assertions))]
    return kernels::arg_values_thin_wide::<T, D, LAST>(x, y, v, r, inner);
    #[cfg(debug_assertions)]
    {
        let _ = (x, y, v, r, inner);
        false
    }
}

/// The values of `x` at the indices `idx` of an arg-reduction along `r` rows of `inner` lanes.
#[inline(always)]
pub fn arg_values<T: Thin>(x: &[T], idx: &[i64], v: &mut [T], r: usize, inner: usize) {
    #[cfg(debug_assertions)]
    T::arg_values(x, idx, v, r, inner);
    #[cfg(not(debug_assertions))]
    kernels::arg_values(x, idx, v, r, inner);
}

/// Indices of the extreme of each contiguous row of `r` of `x`, and the extreme itself into `v`
/// (a ReduceMax or ReduceMin of the same rows fused into the node), in one pass where a kernel
/// does both for these rows: `false` if none does (then nothing was written).
#[inline(always)]
#[must_use]
pub fn arg_rows_values<T: Thin, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
) -> bool {
    // f16 and bf16 rows of two to eight: by equality with their best in AVX-512, where the CPU
    // has it (`kernels::arg_rows_wide`).
    #[cfg(not(debug_assertions))]
    return kernels::arg_rows_wide::<T, D, LAST>(x, y, v, r)
        || kernels::arg_rows_long::<T, D, LAST, i64>(x, y, v, r)
        || kernels::arg_rows_values_f32::<T, D, LAST>(x, y, v, r)
        || kernels::arg_rows_values_narrow::<T, D, LAST>(x, y, v, r)
        || kernels::arg_values_rows_short::<T, D, LAST>(x, y, v, r);
    #[cfg(debug_assertions)]
    return T::arg_rows_values(x, y, v, r, D::IS_MIN, LAST);
}

/// INT64 indices written as `I` (a Cast folded into the node).
#[inline(always)]
pub fn cast_indices<I: ThinIndex>(x: &[i64], y: &mut [I]) {
    #[cfg(debug_assertions)]
    I::from_i64s(x, y);
    #[cfg(not(debug_assertions))]
    for (o, &i) in y.iter_mut().zip(x) {
        *o = kernels::cast_index::<I>(i);
    }
}
