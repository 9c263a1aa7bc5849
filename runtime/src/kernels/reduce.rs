//! The lane reductions (ReduceMax, ReduceMin): rows folded into an accumulator lane by lane,
//! and contiguous rows folded into one value each.

use super::half_lanes::reduce_lanes_half;
use super::half_rows::{bits, fold_half, from_bits, inf_of, keyed};
use super::shared::{
    find_first, is_float, keys_of, nan_pairs, rekeyed, row_extreme, step, LANES, ROW_GROUP,
};
use crate::{DType, Direction, Element};

/// Accumulates every row of `x` (rows as long as `acc`, a partial last row ignored) into `acc`,
/// lane by lane, NaN-propagating: a NaN `acc[j]` stays, otherwise the first NaN of lane `j`
/// down the rows is the result.
///
/// ```
/// use onnx_aot::{kernels::reduce_lanes_rows, Max};
/// let mut acc = [f32::NEG_INFINITY; 2];
/// reduce_lanes_rows::<f32, Max>(&mut acc, &[1.0, 5.0, 3.0, f32::NAN, 2.0, 0.0]);
/// assert_eq!(acc[0], 3.0);
/// assert!(acc[1].is_nan());
/// ```
///
/// Rows are taken in groups of eight; each chunk of lanes (sixteen, or 64 bytes of them for
/// integers and bool) keeps its running extreme in registers through the group (so `acc` is
/// read and written once per group, not once per row), with one max/min per element and NaN
/// flagged on the side. If a NaN occurred, the lanes are fixed up exactly afterwards.
#[cfg_attr(not(feature = "small-code"), inline(always))]
#[cfg_attr(feature = "small-code", inline)]
pub fn reduce_lanes_rows<T: Element, D: Direction>(acc: &mut [T], x: &[T]) {
    lanes_rows::<T, D>(acc, x, false);
}

/// [`reduce_lanes_rows`] into lanes whose previous values are ignored: each lane of `acc`
/// becomes the extreme of its lane down the rows of `x` (the identity if `x` has no whole
/// row). The running extremes start from the identity in registers, so `acc` is only written.
#[cfg_attr(not(feature = "small-code"), inline(always))]
#[cfg_attr(feature = "small-code", inline)]
pub(crate) fn reduce_lanes_fresh<T: Element, D: Direction>(acc: &mut [T], x: &[T]) {
    lanes_rows::<T, D>(acc, x, true);
}

/// The strided reduction of 1-, 2- and 4-byte types in AVX2 over the blocks of `xs` elements
/// of `x` (rows of `ys` lanes) into the blocks' `ys` elements of `y`, fresh or folded into them
/// (`reduce_lanes_small_avx2`), where the CPU has it and the rows fit it: `false` (nothing
/// written) where it does not take them.
#[inline(always)]
#[cfg_attr(debug_assertions, allow(dead_code))]
pub(crate) fn reduce_blocks_small<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    fresh: bool,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return super::reduce_lanes_small_avx2::reduce_blocks::<T, D>(y, x, (xs, ys), fresh);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (y, x, xs, ys, fresh, core::marker::PhantomData::<D>);
        false
    }
}

/// [`reduce_lanes_fresh`] block after block: each block of `xs` elements of `x` (rows of `ys`
/// lanes) into its block of `ys` of `y`; blocks of no row give the identity.
#[inline(always)]
pub(crate) fn reduce_lane_blocks_fresh<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
) {
    if xs == 0 || ys == 0 {
        super::fill(y, D::identity::<T>());
        return;
    }
    if few_rows::<T>(xs, ys) {
        few_rows_fresh::<T, D>(y, x, (xs, ys));
        return;
    }
    for (x, y) in x.chunks_exact(xs).zip(y.chunks_exact_mut(ys)) {
        reduce_lanes_fresh::<T, D>(y, x);
    }
}

/// Rows per block up to which [`few_rows_fresh`] takes the blocks.
const FEW_ROWS: usize = 4;

/// Whether [`few_rows_fresh`] takes blocks of `xs` elements in rows of `ys` lanes: two to
/// [`FEW_ROWS`] whole rows of sixteen lanes or more, of a type compared as itself (not f16 or
/// bf16, which go by their bits); never with `small-code` (firmware keeps the one lane pass).
#[inline(always)]
fn few_rows<T: Element>(xs: usize, ys: usize) -> bool {
    !cfg!(feature = "small-code")
        && !keyed::<T>()
        && ys >= LANES
        && xs.is_multiple_of(ys)
        && (2..=FEW_ROWS).contains(&(xs / ys))
}

/// [`reduce_lane_blocks_fresh`] for blocks of a few rows: sixteen lanes at a time, each
/// chunk's extreme kept in registers down the block's rows and written once (the last chunk of
/// a row that is not whole chunks overlaps the one before: writing a lane twice writes the same
/// value), NaN flagged on the side and fixed up afterwards. The lane-chunk passes of
/// [`lanes_rows`] pay their setup per block: over `[4096, 2, 64]` along axis 1 they took 1.5x
/// the time of a streaming read of the input.
#[inline(always)]
fn few_rows_fresh<T: Element, D: Direction>(y: &mut [T], x: &[T], (xs, ys): (usize, usize)) {
    match xs / ys {
        2 => few_rows_in::<T, D, 2>(y, x, ys),
        3 => few_rows_in::<T, D, 3>(y, x, ys),
        _ => few_rows_in::<T, D, FEW_ROWS>(y, x, ys),
    }
}

/// [`few_rows_fresh`] for blocks of `R` rows of `ys` lanes (sixteen or more).
#[inline(always)]
fn few_rows_in<T: Element, D: Direction, const R: usize>(y: &mut [T], x: &[T], ys: usize) {
    let mut nans = [0u32; LANES / 2];
    let last = ys - LANES;
    for (x, y) in x.chunks_exact(R * ys).zip(y.chunks_exact_mut(ys)) {
        let mut at = 0;
        loop {
            let at_now = at.min(last);
            let Some(first) = x.get(at_now..).and_then(|r| r.first_chunk::<LANES>()) else {
                break;
            };
            let mut lanes = keys_of(first);
            nan_pairs(&mut nans, first);
            for r in 1..R {
                let Some(v) = x
                    .get(r * ys + at_now..)
                    .and_then(|r| r.first_chunk::<LANES>())
                else {
                    break;
                };
                for (l, &v) in lanes.iter_mut().zip(v) {
                    *l = step::<T::Key, D>(*l, v.key());
                }
                nan_pairs(&mut nans, v);
            }
            if let Some(o) = y
                .get_mut(at_now..)
                .and_then(|o| o.first_chunk_mut::<LANES>())
            {
                for (o, &l) in o.iter_mut().zip(&lanes) {
                    *o = T::from_key(l);
                }
            }
            if at_now == last {
                break;
            }
            at += LANES;
        }
    }
    if nans.iter().fold(0, |a, &f| a | f) != 0 {
        // The order-only steps keep a NaN that comes first and never let a later one in: give
        // each lane its first NaN.
        for (x, y) in x.chunks_exact(R * ys).zip(y.chunks_exact_mut(ys)) {
            first_nans(y, x);
        }
    }
}

/// Each lane of `acc` that is not NaN takes the first NaN of its lane down the rows of `x`.
#[inline(always)]
fn first_nans<T: Element>(acc: &mut [T], x: &[T]) {
    for row in x.chunks_exact(acc.len()) {
        for (a, &v) in acc.iter_mut().zip(row) {
            if v.is_nan() && !a.is_nan() {
                *a = v;
            }
        }
    }
}

/// [`reduce_lanes_rows`], or with `fresh` [`reduce_lanes_fresh`].
#[inline(always)]
fn lanes_rows<T: Element, D: Direction>(acc: &mut [T], x: &[T], fresh: bool) {
    let n = acc.len();
    if n == 0 {
        return;
    }
    if keyed::<T>() {
        // f16 and bf16: in their own width, on the bits (which read the accumulator).
        if fresh {
            super::fill(acc, D::identity::<T>());
        }
        if let (Some(a), Some(b)) = (T::half_bits(x), T::half_bits_mut(acc)) {
            if reduce_lanes_half::<D>(b, a, inf_of::<T>()) {
                return;
            }
        }
    }
    let mut nans = [0u32; LANES / 2];
    let mut tail_nan = false;
    // Integers of 1, 2 and 8 bytes take chunks of 64 bytes of lanes (four SSE2 registers):
    // bytes and 16-bit lanes amortize the loop over more elements, and 64-bit lanes are kept
    // scalar (see `chunk_pass`). The lanes left over go by sixteen, then one by one.
    let width = const {
        if cfg!(feature = "small-code") || is_float::<T>() {
            0
        } else {
            core::mem::size_of::<T::Key>()
        }
    };
    // 64-bit lanes go through memory once per group: twice the rows per group.
    let group = if width == 8 { 2 * ROW_GROUP } else { ROW_GROUP };
    // Only the first group starts from the identity; the later ones fold into what it wrote.
    let mut fresh = fresh;
    if fresh && x.len() < n {
        // No whole row: the identity.
        super::fill(acc, D::identity::<T>());
        return;
    }
    for group in x.chunks(group * n) {
        let wide = match width {
            1 => chunk_pass::<T, D, 64>(acc, group, (0, fresh), &mut nans),
            2 => chunk_pass::<T, D, 32>(acc, group, (0, fresh), &mut nans),
            8 => chunk_pass::<T, D, 8>(acc, group, (0, fresh), &mut nans),
            _ => 0,
        };
        let rest = acc.get_mut(wide..).unwrap_or(&mut []);
        let by16 = wide + chunk_pass::<T, D, LANES>(rest, group, (wide, fresh), &mut nans);
        let tail = acc.get_mut(by16..).unwrap_or(&mut []);
        if fresh {
            super::fill(tail, D::identity::<T>());
            fresh = false;
        }
        if by16 < n && n >= overlap_width(width) {
            overlapping_tail::<T, D>(acc, group, width, &mut nans);
        } else {
            for row in group.chunks_exact(n) {
                let v = row.get(by16..).unwrap_or(&[]);
                for (a, &v) in tail.iter_mut().zip(v) {
                    *a = step::<T, D>(*a, v);
                    tail_nan |= v.is_nan();
                }
            }
        }
        if const { matches!(T::DTYPE, DType::Bool) } && width != 0 {
            // bool: once every lane holds the absorbing value, no row can change it.
            let sink = absorbing::<T, D>();
            if acc.iter().fold(0u8, |c, &a| c | u8::from(a != sink)) == 0 {
                return;
            }
        }
    }
    if tail_nan || nans.iter().fold(0, |a, &f| a | f) != 0 {
        // The order-only pass never lets a NaN in nor out: give each lane its first NaN.
        first_nans(acc, x);
    }
}

/// The chunk width [`overlapping_tail`] takes for lanes of `width` bytes (0: floats).
const fn overlap_width(width: usize) -> usize {
    if width == 8 {
        8
    } else {
        LANES
    }
}

/// The lanes [`lanes_rows`]' whole chunks left over, done as one more whole chunk that ends at
/// the rows' end and so overlaps lanes already done (folding a row into a lane twice changes
/// nothing: the extreme is idempotent and a NaN stays). Lane by lane instead, ReduceMax of f32
/// `[1000, 524]` over axis 0 (12 lanes left of each row) took 92 us against 57 this way (AMD EPYC
/// Zen 1, medians of seven interleaved runs). Inlined: over the 85 reduction cells of the
/// matrix, 0.96x of the time of the lane-by-lane tail (geometric mean of medians), and 0.995x
/// with this helper out of line.
#[inline(always)]
fn overlapping_tail<T: Element, D: Direction>(
    acc: &mut [T],
    group: &[T],
    width: usize,
    nans: &mut [u32; LANES / 2],
) {
    let start = acc.len() - overlap_width(width);
    let end = acc.get_mut(start..).unwrap_or(&mut []);
    if width == 8 {
        chunk_pass::<T, D, 8>(end, group, (start, false), nans);
    } else {
        chunk_pass::<T, D, LANES>(end, group, (start, false), nans);
    }
}

/// The whole chunks of `W` lanes of `acc` (lanes `off..` of each row of `group`, rows as long
/// as the full accumulator) folded down the rows: each chunk keeps its keys in registers
/// through the group, starting from `acc` or, when `fresh`, from the identity. NaN is flagged in
/// `nans`. Returns the lanes done (a multiple of `W`).
#[inline(always)]
fn chunk_pass<T: Element, D: Direction, const W: usize>(
    acc: &mut [T],
    group: &[T],
    (off, fresh): (usize, bool),
    nans: &mut [u32; LANES / 2],
) -> usize {
    let n = off + acc.len();
    let (chunks, _) = acc.as_chunks_mut::<W>();
    let identity = [D::identity::<T>().key(); W];
    for (c, a) in chunks.iter_mut().enumerate() {
        // A local copy, as keys (`Element::Key`): the lanes stay in registers through the
        // group.
        let mut lanes = if fresh { identity } else { keys_of(a) };
        for row in group.chunks_exact(n) {
            let Some(v) = row.get(off + c * W..).and_then(|r| r.first_chunk::<W>()) else {
                break;
            };
            for (l, &v) in lanes.iter_mut().zip(v) {
                *l = step::<T::Key, D>(*l, v.key());
            }
            let (subs, _) = v.as_chunks::<LANES>();
            for sub in subs {
                nan_pairs(nans, sub);
            }
        }
        if W == 8 {
            // 64-bit lanes: stored one by one through an opaque value. A whole-array store
            // lets the lanes be vectorized, and SSE2 compares 64-bit integers in about ten
            // instructions per pair; as eight scalar lanes each step is a `cmp` and a `cmov`.
            for (o, &l) in a.iter_mut().zip(&lanes) {
                *o = core::hint::black_box(T::from_key(l));
            }
        } else {
            for (o, &l) in a.iter_mut().zip(&lanes) {
                *o = T::from_key(l);
            }
        }
    }
    chunks.len() * W
}

/// Bytes of output a piece of [`afresh`] writes: well inside L1, so that the piece's fill is
/// still there when the fold reads it back.
const PIECE_BYTES: usize = 8 * 1024;

/// A reduction whose outputs are written, not folded into: `y` and `x` are cut into pieces
/// of whole blocks (`xs` elements of `x` to `ys` of `y`, about [`PIECE_BYTES`] of output a
/// piece), and each piece of `y` is filled with the identity just before `fold` folds its
/// piece of `x` into it. One fill of the whole output first would write it out of the caches
/// and read it back: for rows of two, half the input again.
#[inline(always)]
pub(crate) fn afresh<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    fold: impl FnMut(&mut [T], &[T]),
) {
    pieces::<T, D>(y, x, (xs, ys), 0, fold);
}

/// Bytes of input past its piece that [`afresh_rows`] lets a fold see: more than the vector
/// kernels of short rows read past their last whole tile (a vector past its last load).
const READ_SLACK: usize = 64;

/// [`afresh`] of contiguous rows of `n` (one output a row) by a fold that takes as many rows as
/// its `y` holds whatever `x` holds past them: each piece's `x` runs on to [`READ_SLACK`] bytes
/// past the piece, so that the vector kernels whose loads reach past their last rows (the
/// sliding window of rows of 2 to 7 bytes reads up to a vector past them) take the piece's
/// last tile too. Cut exactly, a piece's last tile went to the portable loop: `u8` rows of two
/// spent a third of their time on that sixteenth of their rows.
#[inline(always)]
pub(crate) fn afresh_rows<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    n: usize,
    fold: impl FnMut(&mut [T], &[T]),
) {
    pieces::<T, D>(
        y,
        x,
        (n, 1),
        READ_SLACK.div_ceil(size_of::<T>().max(1)),
        fold,
    );
}

/// [`afresh`], each piece's `x` running on `slack` elements past it (where `x` has them).
#[inline(always)]
fn pieces<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    slack: usize,
    mut fold: impl FnMut(&mut [T], &[T]),
) {
    if xs == 0 || ys == 0 {
        // Empty rows: every output is the identity.
        super::fill(y, D::identity::<T>());
        return;
    }
    if y.len() <= const { PIECE_BYTES / size_of::<T>() } {
        // One piece (every small tensor): without the divisions that size the pieces.
        super::fill(y, D::identity::<T>());
        fold(y, x);
        return;
    }
    let blocks = (PIECE_BYTES / core::mem::size_of::<T>().max(1) / ys).max(1);
    let (xp, yp) = (blocks.saturating_mul(xs), blocks.saturating_mul(ys));
    for (k, y) in y.chunks_mut(yp).enumerate() {
        let start = k.saturating_mul(xp);
        let end = start.saturating_add(xp).saturating_add(slack).min(x.len());
        let Some(x) = x.get(start..end) else {
            return;
        };
        super::fill(y, D::identity::<T>());
        fold(y, x);
    }
}

/// [`super::reduce_rows_short`] into outputs whose previous values are ignored: each element of
/// `y` becomes its row's extreme. Rows of 2 to 15 `f32`s and of 4 to 31 `i64`/`f64` go through
/// the AVX2 kernels written directly; the rest piece by piece ([`afresh`]).
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn reduce_rows_short_fresh<T: Element, D: Direction, const R: usize>(
    y: &mut [T],
    x: &[T],
) {
    // Rows of two to four: many rows a window (`thin512::packed`), the last few below.
    let packed = super::thin_blocks::reduce_packed::<T, D>(y, x, R, 1);
    let (Some(y), Some(x)) = (y.get_mut(packed..), x.get(packed * R..)) else {
        return;
    };
    if super::avx2_entry::reduce_short_fresh_f32::<T, D, R>(y, x)
        || super::avx2_entry::reduce_rows_wide::<T, D, R, true>(y, x)
        || reduce_rows_512::<T, D>(y, x, R, true)
    {
        return;
    }
    let done = if R == 2 {
        super::reduce_pairs_fresh_f32::<T, D>(y, x)
    } else {
        0
    };
    let (Some(y), Some(x)) = (y.get_mut(done..), x.get(done * R..)) else {
        return;
    };
    afresh_rows::<T, D>(y, x, R, |y, x| super::reduce_rows_short::<T, D, R>(y, x));
}

/// ```
/// use onnx_aot::{kernels::fold, Max, Min};
/// assert!(fold::<f32, Max>(f32::NEG_INFINITY, &[1.0, f32::NAN, 5.0]).is_nan());
/// assert_eq!(fold::<u8, Min>(u8::MAX, &[7, 3, 9]), 3);
/// assert_eq!(fold::<f32, Max>(f32::NEG_INFINITY, &[]), f32::NEG_INFINITY); // empty: identity
/// ```
///
/// Folds a contiguous row into `acc` (NaN-propagating: a NaN `acc` stays, otherwise the first
/// NaN of the row is the result), with sixteen lanes of one max/min per element and NaN flagged
/// on the side, so that the loop vectorizes.
#[inline]
pub fn fold<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    fold_inlined::<T, D>(acc, row)
}

/// [`fold`], always inlined: for the loops over long rows whose length the caller knows when
/// compiling (left out of line, the f16 planes of `[250,10,400]` over axes 0 and 2 ran 1.7x
/// slower).
#[inline(always)]
pub(crate) fn fold_inlined<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    if keyed::<T>() {
        // f16 and bf16: in their own width, on the bits.
        if let Some(b) = T::half_bits(row) {
            return from_bits(fold_half::<D>(bits(acc), b, inf_of::<T>()), acc);
        }
    }
    if acc.is_nan() {
        return acc;
    }
    if const { matches!(T::DTYPE, DType::Bool) && !cfg!(feature = "small-code") } {
        // bool: the result is the absorbing value (true for a max) as soon as one element is,
        // found 64 at a time (a byte-wide count per chunk); otherwise every element is the
        // identity, and so is the result.
        let sink = absorbing::<T, D>();
        if acc == sink {
            return acc;
        }
        let (chunks, rest) = row.as_chunks::<64>();
        let count = |ch: &[T]| {
            ch.iter()
                .fold(0u8, |a, &v| a.wrapping_add(u8::from(v == sink)))
        };
        let hit = chunks.iter().any(|ch| count(ch) != 0) || count(rest) != 0;
        return if hit { sink } else { acc };
    }
    // i64 and f64 in AVX2 where the CPU has it.
    let (m, nan) = super::avx2_entry::row_extreme_wide::<T, D>(row)
        .unwrap_or_else(|| row_extreme::<T, D>(row));
    if nan {
        return find_first(row, |v: T| v.is_nan())
            .and_then(|i| row.get(i).copied())
            .unwrap_or(acc);
    }
    if row.is_empty() {
        acc
    } else {
        step::<T, D>(acc, m)
    }
}

/// For each element of `y`, folds the matching row of `n` elements of `x` into it.
#[inline]
pub fn reduce_rows<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize) {
    if n == 0 || super::reduce_rows_f32::<T, D>(y, x, n) || reduce_rows_512::<T, D>(y, x, n, false)
    {
        return;
    }
    // Integers of 1 to 4 bytes, bool, f16 and bf16: whole blocks of rows in AVX2, one row per
    // lane (`short_rows`).
    let done = super::reduce_rows_narrow::<T, D>(y, x, n);
    let (Some(y), Some(x)) = (y.get_mut(done..), x.get(done * n..)) else {
        return;
    };
    if const { (rekeyed::<T>() || !is_float::<T>()) && !cfg!(feature = "small-code") } {
        // Integers and bool: the fold out of line. Inlined into generated code, where the row
        // length and the row count are constants, it was vectorized across the rows instead
        // (one gathered element per row and lane: i8 several times slower) or unrolled into
        // one scalar compare per element (u8 rows of 80 35x of a streaming read).
        for (o, row) in y.iter_mut().zip(x.chunks_exact(n)) {
            *o = fold_bytes::<T, D>(*o, row);
        }
        return;
    }
    for (o, row) in y.iter_mut().zip(x.chunks_exact(n)) {
        *o = fold_inlined::<T, D>(*o, row);
    }
}

/// Each element of `y` the extreme of `D` of its contiguous row of `c` of `x` (or with `fresh`
/// false of its row and itself) by the AVX-512 kernel of rows folded across vectors
/// (`thin512::byte_rows`: 1- and 2-byte elements, rows of 5 to 32; VBMI) or that of long rows
/// (`thin512::long_rows`) where the CPU has it and it is the faster kernel for these rows: `true`,
/// else `false` (nothing written), and always with `small-code` or off x86-64.
#[cfg_attr(
    any(feature = "small-code", not(target_arch = "x86_64")),
    allow(clippy::extra_unused_type_parameters)
)]
#[inline(always)]
pub(crate) fn reduce_rows_512<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    c: usize,
    fresh: bool,
) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return (super::thin512::byte_rows_prefers::<T>(c, false)
        && super::thin512::reduce_byte_rows::<T, D>(y, x, c, fresh))
        || (super::thin512::long_reduce_prefers::<T>(c)
            && super::thin512::reduce_long_rows::<T, D>(y, x, c, fresh));
    #[allow(unreachable_code)]
    {
        let _ = (y, x, c, fresh);
        false
    }
}

/// The value no element can beat in direction `D` (the type's maximum for a max): for bool,
/// `true` ends a ReduceMax and `false` a ReduceMin.
#[inline(always)]
fn absorbing<T: Element, D: Direction>() -> T {
    if D::better(T::HIGHEST, T::LOWEST) {
        T::HIGHEST
    } else {
        T::LOWEST
    }
}

/// [`fold`], never inlined (see [`reduce_rows`]).
#[inline(never)]
fn fold_bytes<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    fold::<T, D>(acc, row)
}

#[cfg(test)]
mod tests;
