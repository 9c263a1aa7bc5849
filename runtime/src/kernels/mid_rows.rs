//! Contiguous arg-reduction over rows of a few chunks (more than sixteen elements, at most
//! [`MID`]): [`arg_row_mid`], for Hardmax rows and the AVX2 builds of the arg-reduction shims.

#[cfg(doc)]
use super::arg_row::arg_row_clearing;
use super::shared::{lanes_extreme_inline, nan_pairs, take_chunk, LANES};
use crate::{Direction, Element};

/// Rows up to this long may take `arg_row_mid`: read whole twice (both times from L1) instead of
/// keeping each block's lanes, whose setup and bookkeeping cost more than a row this short.
pub const MID: usize = 128;

/// [`arg_row_clearing`] for rows of more than one chunk and at most [`MID`] elements.
///
/// The first pass takes the row's chunks of sixteen into lanes, starting from its last sixteen
/// elements (which may overlap the chunks: a max/min does not mind an element twice), with NaN
/// flagged. Without a NaN, the lanes give the extreme, and the second pass looks for the first
/// chunk that holds it (one vector test per chunk), then for it within that chunk: from the first
/// chunk on (the last sixteen elements at the end), or with `LAST` from the last sixteen elements
/// back (their last hit is the row's last, and the chunks they overlap hold no hit then). With a NaN, the first (last)
/// NaN. With `CLEAR`, zeros are written over `y` (as long as `x`) in the first pass. `None` for a
/// row of fewer than sixteen elements (the callers never pass one).
#[inline(always)]
pub(super) fn arg_row_mid<T: Element, D: Direction, const LAST: bool, const CLEAR: bool>(
    x: &[T],
    y: &mut [T],
) -> Option<usize> {
    let end = x.last_chunk::<LANES>()?;
    let (chunks, _) = x.as_chunks::<LANES>();
    let mut run = *end;
    let mut nans = [0u32; LANES / 2];
    nan_pairs(&mut nans, end);
    if CLEAR {
        // See `part_extreme`: zeros the optimizer cannot see, stored between the loads.
        let zero = core::hint::black_box(T::ZERO);
        let (outs, _) = y.as_chunks_mut::<LANES>();
        for (ch, o) in chunks.iter().zip(outs) {
            take_chunk::<T, D>(&mut run, ch, &mut nans);
            *o = [zero; LANES];
        }
        if let Some(o) = y.last_chunk_mut::<LANES>() {
            *o = [zero; LANES];
        }
    } else {
        for ch in chunks {
            take_chunk::<T, D>(&mut run, ch, &mut nans);
        }
    }
    if nans.iter().fold(0, |a, &n| a | n) != 0 {
        let found = if LAST {
            x.iter().rposition(|v| v.is_nan())
        } else {
            x.iter().position(|v| v.is_nan())
        };
        return Some(found.unwrap_or(0));
    }
    // The lanes' extreme by halving, inline (no call per row: the AVX2 twins of the shims inline
    // this whole path).
    let best = lanes_extreme_inline::<T, D>(&run);
    let hit = |v: T| !D::better(best, v);
    // Which chunks hold the extreme, as bits (each chunk's compares OR-ed together: one vector
    // test), with no early exit, whose branch would mispredict once per row; then the first
    // (last) such chunk, and the element found by a plain search in it only. The last sixteen
    // elements are one more chunk, last (they may overlap the whole chunks before).
    let holds = |ch: &[T; LANES]| ch.iter().fold(false, |a, &v| a | hit(v));
    let mut flags = 0u64;
    for (c, ch) in chunks.iter().enumerate() {
        flags |= u64::from(holds(ch)) << c;
    }
    flags |= u64::from(holds(end)) << chunks.len();
    if flags == 0 {
        return Some(0);
    }
    let c = if LAST {
        super::shared::highest_bit(flags)
    } else {
        flags.trailing_zeros() as usize
    };
    let (at, ch) = match chunks.get(c) {
        Some(ch) => (c * LANES, ch),
        None => (x.len() - LANES, end),
    };
    let k = if LAST {
        ch.iter().rposition(|&v| hit(v))
    } else {
        ch.iter().position(|&v| hit(v))
    };
    Some(at + k.unwrap_or(0))
}
