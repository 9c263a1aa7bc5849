//! Contiguous rows of 1-, 2- and 4-byte elements (`i8`, `u8`, `bool`, `i16`, `u16`, f16 and
//! bf16 as order keys, `i32`, `u32`) from [`MIN_BYTES`] to [`MAX_BYTES`] bytes ([`ARG_MAX_BYTES`]
//! for the arg-reductions and Hardmax), in AVX2 vectors with one row per lane: where a row fills
//! a vector or two, a kernel that walks one row at a time spends more on the row's setup and its
//! horizontal reduction than on its elements.
//!
//! A block of as many rows as a vector has lanes (8, 16 or 32) is read two rows at a time, each
//! row folded by the order alone into one half of a vector: rows of up to 32 bytes loaded 16
//! bytes at a time from the row's start and from its end (which overlap when the length is not a
//! multiple of 16: max and min do not mind; a row under 16 bytes has the lanes past it set to the
//! identity), longer rows a vector at a time and then folded across the halves ([`block`]). The
//! block's vectors are then reduced together in a tree of shuffles (128-bit halves, then 8-, 4-,
//! 2- and 1-byte units within them), so that the block's extremes come out as one vector, row
//! `r` in lane `r`. An arg-reduction then finds each row's extreme in its row by equality, the
//! positions of a row gathered without branches. f16 and bf16 are compared by their order keys,
//! NaN flagged on the side: a block with a NaN is done again by the exact rule.
//!
//! Rows of 2 to 7 bytes go by a sliding window instead ([`tiny`]). The arg-reductions of `i16`,
//! f16 and bf16 rows of 17 to 22 elements and 4-byte rows of 9 to 32 go by columns instead
//! ([`columns`], [`columns4`]): each block transposed in registers, one pass over its columns.
//!
//! [`tiled`] is the rule by which the strided AVX2 tiles, which share this module's lanes, leave
//! big blocks of wide rows to the grouped passes.
//!
//! For the CPUs [`available`] finds; the callers check.

use core::arch::x86_64::{
    _mm256_blendv_epi8, _mm256_loadu_si256, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_set1_epi8,
    _mm256_setzero_si256, _mm256_storeu_si256,
};
use core::mem::size_of;

use super::arg_row::arg_row;
use super::index::{index, Index};
use super::isa;
use super::reduce::fold;
use crate::{DType, Direction, Element};

mod block;
mod columns;
mod columns4;
pub(super) mod lanes;
mod one_hot;
mod tagged;
mod tiny;

use block::{arg_blocks, blocks, tree, Block};
use lanes::{any_nan, key, nans, pick, unkey, Halves, I16s, I32s, I8s, Lanes, U16s, U32s, U8s};

/// The longest rows the reductions take, in bytes (sixteen vectors). Longer rows amortize a
/// row's setup, and the row kernels take them.
pub(super) const MAX_BYTES: usize = 512;

/// The longest rows the arg-reductions and Hardmax take, in bytes (eight vectors): past them
/// the second pass over each row costs more than the row kernels' search (u8 rows of 200: 2.7x
/// of a max fold of the bytes by the row kernel, 3.8x here).
pub(super) const ARG_MAX_BYTES: usize = 256;

/// The shortest rows taken, in bytes: shorter rows leave most of a vector's lanes idle.
pub(super) const MIN_BYTES: usize = 8;

/// The widest rows, in bytes, that the strided tiles (`reduce_lanes_small_avx2`,
/// `arg_lanes_small_avx2`, whose kernels this module's lanes serve) read in blocks of more than
/// [`TILED_ROWS`] rows and over [`TILED_BLOCK`] bytes; each kernel passes its own width to
/// [`tiled`] from this one.
pub(super) const WIDE_ROW: usize = 128;

/// See [`tiled`]: blocks of up to this many bytes stay in L1 for the tiles after the first (at
/// 8 KiB, blocks of 16 KiB and 32 KiB were 1.04-1.4x slower in the grouped passes).
const TILED_BLOCK: usize = 32 * 1024;

/// See [`tiled`].
const TILED_ROWS: usize = 32;

/// Whether the strided tiles read a block of `rows` rows of `row` bytes rather than leave it to
/// the portable grouped passes, for a kernel whose rows are wide past `wide` bytes: tiles of four
/// vectors down many wide rows are that many streams, and a block past L1 is read from further
/// out once a tile, where a grouped pass reads it row by row. Blocks of few rows, of narrow rows
/// or within [`TILED_BLOCK`] stay with the tiles.
pub(super) const fn tiled(rows: usize, row: usize, wide: usize) -> bool {
    rows <= TILED_ROWS || row <= wide || rows * row <= TILED_BLOCK
}

/// Whether this CPU runs the kernels (AVX2), not capped narrower.
#[inline(always)]
pub(super) fn available() -> bool {
    isa::level() >= isa::AVX2
}

/// Whether rows of `n` elements of `T` are this module's (1-, 2- and 4-byte integers, bool, f16
/// and bf16; rows of [`MIN_BYTES`] to [`MAX_BYTES`]).
#[inline(always)]
pub(super) fn fits<T: Element>(n: usize) -> bool {
    narrow::<T>() && (MIN_BYTES..=MAX_BYTES).contains(&(n * size_of::<T>()))
}

/// [`fits`] for the arg-reductions and Hardmax (rows up to [`ARG_MAX_BYTES`]).
#[inline(always)]
pub(super) fn fits_arg<T: Element>(n: usize) -> bool {
    fits::<T>(n) && n * size_of::<T>() <= ARG_MAX_BYTES
}

/// Whether `T` is one of this module's types.
#[inline(always)]
const fn narrow<T: Element>() -> bool {
    matches!(
        T::DTYPE,
        DType::U8
            | DType::Bool
            | DType::I8
            | DType::U16
            | DType::I16
            | DType::F16
            | DType::BF16
            | DType::I32
            | DType::U32
    )
}

/// The bytes of `x`, for this module's types.
#[inline(always)]
pub(super) fn bytes<T: Element>(x: &[T]) -> Option<&[u8]> {
    if !narrow::<T>() {
        return None;
    }
    // SAFETY: these types are one or two bytes without padding, every byte initialized; the
    // bytes cover the same memory, borrowed as long.
    Some(unsafe { core::slice::from_raw_parts(x.as_ptr().cast::<u8>(), size_of_val(x)) })
}

/// [`reduce_rows`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn reduce_in<K: Lanes, D: Direction, T: Element>(y: &mut [T], x: &[T], n: usize) -> usize {
    let Some(xb) = bytes(x) else {
        return 0;
    };
    super::shared::align_frame();
    let block = Block::<K>::new::<D>(n);
    let (l, row) = (K::LANES, n * K::SIZE);
    let count = blocks(l, row, (x.len() / n).min(y.len()), xb.len());
    for b in 0..count {
        let (Some(xs), Some(ys), Some(rows)) = (
            xb.get(b * l * row..),
            y.get_mut(b * l..(b + 1) * l),
            x.get(b * l * n..(b + 1) * l * n),
        ) else {
            return b * l;
        };
        let mut nan = _mm256_setzero_si256();
        // SAFETY: `blocks` kept the block's reach inside `x`.
        let m = unsafe { tree::<K, D, _>(&block, xs, &mut nan) };
        if any_nan::<K>(nan) {
            for (o, row) in ys.iter_mut().zip(rows.chunks_exact(n)) {
                *o = fold::<T, D>(*o, row);
            }
            continue;
        }
        let out = ys.as_mut_ptr().cast::<u8>();
        // SAFETY: `ys` is `l` elements, 32 bytes; the extremes are elements of `T` (bits of a
        // number for f16 and bf16, 0 or 1 for bool).
        unsafe {
            let acc = _mm256_loadu_si256(out.cast());
            let v = if K::INF != 0 {
                // An accumulator that is NaN stays.
                let v = unkey(pick::<K, D>(m, key::<K>(acc)));
                _mm256_blendv_epi8(v, acc, nans::<K>(acc))
            } else {
                pick::<K, D>(m, acc)
            };
            _mm256_storeu_si256(out.cast(), v);
        }
    }
    count * l
}

/// [`arg_rows`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn arg_in<K: Lanes, D: Direction, const LAST: bool, const VALUES: bool, T, I>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> usize
where
    T: Element,
    I: Index,
{
    let Some(xb) = bytes(x) else {
        return 0;
    };
    let block = Block::<K>::new::<D>(n);
    let (l, row) = (K::LANES, n * K::SIZE);
    let count = arg_blocks::<VALUES>(l, row, xb.len(), y.len(), v.len());
    for b in 0..count {
        let (Some(xs), Some(ys), Some(rs)) = (
            xb.get(b * l * row..),
            y.get_mut(b * l..(b + 1) * l),
            x.get(b * l * n..(b + 1) * l * n),
        ) else {
            return b * l;
        };
        let vs = v.get_mut(b * l..(b + 1) * l).unwrap_or_default();
        let mut nan = _mm256_setzero_si256();
        // SAFETY: `blocks` kept the block's reach inside `x`.
        let m = unsafe { tree::<K, D, _>(&block, xs, &mut nan) };
        if any_nan::<K>(nan) {
            exact_rows::<T, D, LAST, I>(rs, ys, vs, n);
            continue;
        }
        let mut keys = [0u8; 32];
        // SAFETY: 32 bytes.
        unsafe { _mm256_storeu_si256(keys.as_mut_ptr().cast(), m) };
        for (r, o) in ys.iter_mut().enumerate() {
            let k = match K::SIZE {
                1 => _mm256_set1_epi8(keys[r] as i8),
                2 => _mm256_set1_epi16(i16::from_le_bytes([keys[2 * r], keys[2 * r + 1]])),
                _ => _mm256_set1_epi32(i32::from_le_bytes([
                    keys[4 * r],
                    keys[4 * r + 1],
                    keys[4 * r + 2],
                    keys[4 * r + 3],
                ])),
            };
            // SAFETY: `blocks` kept the block's reach inside `x`.
            *o = index::<I>(unsafe { block.position::<LAST>(xs, r, k) });
        }
        if VALUES && vs.len() == l {
            let e = if K::INF != 0 { unkey(m) } else { m };
            // SAFETY: `vs` is `l` elements, 32 bytes; the extremes are elements of `T`.
            unsafe { _mm256_storeu_si256(vs.as_mut_ptr().cast(), e) };
        }
    }
    count * l
}

/// The index of the extreme of each row of `n` of `rs` into `ys`, and the extreme into `vs`
/// where it holds one, by the exact rule (a block with a NaN).
#[inline(always)]
pub(super) fn exact_rows<T: Element, D: Direction, const LAST: bool, I: Index>(
    rs: &[T],
    ys: &mut [I],
    vs: &mut [T],
    n: usize,
) {
    for (r, (o, row)) in ys.iter_mut().zip(rs.chunks_exact(n)).enumerate() {
        let at = arg_row::<T, D, LAST>(row);
        *o = index::<I>(at);
        if let (Some(v), Some(&e)) = (vs.get_mut(r), row.get(at)) {
            *v = e;
        }
    }
}

/// Folds each contiguous row of `n` of `x` into the matching element of `y` (NaN-propagating,
/// as [`reduce_rows`](crate::kernels::reduce_rows)), whole blocks of 8, 16 or 32 rows; the rows
/// done (the rest are the caller's). Nothing done unless [`fits`] and [`available`].
#[inline(always)]
pub(super) fn reduce_rows<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize) -> usize {
    if tiny::fits::<T>(n) && available() {
        // SAFETY: `available` found AVX2.
        let done = unsafe { tiny::reduce_rows::<T, D>(y, x, n) };
        // Fewer rows than a tile of 4-byte rows of 8 or 12 bytes: the blocks below.
        if done > 0 || !fits::<T>(n) {
            return done;
        }
    }
    if !fits::<T>(n) || !available() {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::U8 | DType::Bool => reduce_in::<U8s, D, T>(y, x, n),
            DType::I8 => reduce_in::<I8s, D, T>(y, x, n),
            DType::U16 => reduce_in::<U16s, D, T>(y, x, n),
            DType::I16 => reduce_in::<I16s, D, T>(y, x, n),
            DType::F16 => reduce_in::<Halves<0x7c00>, D, T>(y, x, n),
            DType::BF16 => reduce_in::<Halves<0x7f80>, D, T>(y, x, n),
            DType::U32 => reduce_in::<U32s, D, T>(y, x, n),
            DType::I32 => reduce_in::<I32s, D, T>(y, x, n),
        } else 0)
    }
}

/// The index of the extreme of each contiguous row of `n` of `x` into `y` (the first, or the
/// last with `LAST`; a NaN beats every number), with `VALUES` each row's extreme into `v`;
/// whole blocks of 8, 16 or 32 rows, the rows done (the rest are the caller's). Nothing done
/// unless [`fits_arg`] and [`available`].
#[inline(always)]
pub(super) fn arg_rows<T: Element, D: Direction, const LAST: bool, const VALUES: bool, I: Index>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> usize {
    if tiny::fits::<T>(n) && available() {
        // SAFETY: `available` found AVX2.
        let done = unsafe { tiny::arg_rows::<T, D, LAST, VALUES, I>(x, y, v, n) };
        // Fewer rows than a tile of 4-byte rows of 8 or 12 bytes: the blocks below.
        if done > 0 || !fits_arg::<T>(n) {
            return done;
        }
    }
    if !available() {
        return 0;
    }
    // 4-byte rows of 9 elements and more by columns (see `columns4::fits`), past the longest
    // rows searched here too.
    if size_of::<T>() == 4 && columns4::fits(n) {
        // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
        return unsafe {
            by_dtype!(T {
                DType::U32 => columns4::arg_in::<U32s, D, LAST, VALUES, T, I>(x, y, v, n),
                DType::I32 => columns4::arg_in::<I32s, D, LAST, VALUES, T, I>(x, y, v, n),
            } else 0)
        };
    }
    if !fits_arg::<T>(n) {
        return 0;
    }
    // `i16`, f16 and bf16 rows of 17 to 22 elements (see `columns::fits`) go by columns rather than
    // widened: widened, they fold two vectors of twice the lanes a row.
    if columns::fits::<T>(n) {
        // SAFETY: as below.
        return unsafe {
            by_dtype!(T {
                DType::U16 => columns::arg_in::<U16s, D, LAST, VALUES, T, I>(x, y, v, n),
                DType::I16 => columns::arg_in::<I16s, D, LAST, VALUES, T, I>(x, y, v, n),
                DType::F16 => columns::arg_in::<Halves<0x7c00>, D, LAST, VALUES, T, I>(x, y, v, n),
                DType::BF16 => columns::arg_in::<Halves<0x7f80>, D, LAST, VALUES, T, I>(x, y, v, n),
            } else 0)
        };
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::U8 | DType::Bool => {
                tagged::arg_in::<U8s, U16s, D, LAST, VALUES, T, I>(x, y, v, n)
            },
            DType::I8 => tagged::arg_in::<I8s, U16s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::U16 => tagged::arg_in::<U16s, U32s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::I16 => tagged::arg_in::<I16s, U32s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::F16 => tagged::arg_in::<Halves<0x7c00>, U32s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::BF16 => {
                tagged::arg_in::<Halves<0x7f80>, U32s, D, LAST, VALUES, T, I>(x, y, v, n)
            },
            DType::U32 => arg_in::<U32s, D, LAST, VALUES, T, I>(x, y, v, n),
            DType::I32 => arg_in::<I32s, D, LAST, VALUES, T, I>(x, y, v, n),
        } else 0)
    }
}

/// Hardmax of each contiguous row of `n` of `x` into `y` (1 at the first maximum or first
/// NaN, 0 elsewhere), tile by tile: the positions of [`arg_rows`], then each row written whole
/// from its position ([`one_hot`], rows of 8 to 64 bytes), or the tile's zeros in one fill and
/// its ones. The rows done (whole blocks; the rest are the caller's).
#[inline(always)]
pub(super) fn hardmax_rows<T: Element>(x: &[T], y: &mut [T], n: usize) -> usize {
    /// Rows a tile of positions holds: a tile of the kernel of rows under 8 bytes for f16 and
    /// bf16 rows (2 or 3 elements: 256 or 160 rows), several blocks (32 rows at most) else.
    const TILE: usize = 256;
    // Whole tiles of the kernel that takes the rows.
    let whole = if tiny::fits::<T>(n) {
        tiny::tile_rows(n * size_of::<T>())
    } else {
        32
    };
    if !(fits_arg::<T>(n) || tiny::fits::<T>(n)) || whole > TILE || !available() {
        return 0;
    }
    let rows = (x.len() / n).min(y.len() / n);
    let mut done = 0;
    let mut at = [0u32; TILE];
    while done < rows {
        let take = (rows - done).min(TILE / whole * whole);
        let (Some(x), Some(at)) = (x.get(done * n..), at.get_mut(..take)) else {
            break;
        };
        let k = arg_rows::<T, crate::Max, false, false, u32>(x, at, &mut [], n);
        let Some(out) = y.get_mut(done * n..(done + k) * n) else {
            break;
        };
        if (MIN_BYTES..=one_hot::MAX_BYTES).contains(&(n * size_of::<T>())) {
            // SAFETY: `available` found AVX2.
            unsafe { one_hot::one_hot(out, at.get(..k).unwrap_or_default(), n) };
        } else {
            super::fill(out, T::ZERO);
            for (row, &a) in out.chunks_exact_mut(n).zip(at.iter()) {
                if let Some(o) = row.get_mut(a as usize) {
                    *o = T::ONE;
                }
            }
        }
        done += k;
        if k < at.len() {
            break;
        }
    }
    done
}

#[cfg(test)]
mod tests;
