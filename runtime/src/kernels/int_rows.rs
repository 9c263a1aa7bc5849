//! Contiguous rows of bytes (`i8`, `u8`), where the per-row bookkeeping of the general row
//! kernel costs more than the row itself: one pass for the extreme (the reductions' fold: one
//! `pmaxub` per element, `i8` as keys), then a search for its first (last) occurrence by
//! equality, 64 bytes at a time. Integers have no NaN, and an element is the extreme exactly
//! when it equals it. (16-bit rows measured slower this way than by the general kernel.)

use super::shared::row_extreme;
use crate::{Direction, Element};

/// Whether [`arg_row_small`] takes rows of `T` (`i8` and `u8`; not with the `small-code`
/// feature).
#[inline(always)]
pub(super) const fn small_int<T: Element>() -> bool {
    !super::shared::is_float::<T>()
        && !matches!(T::DTYPE, crate::DType::Bool)
        && core::mem::size_of::<T::Key>() == 1
        && !cfg!(feature = "small-code")
}

/// The index of the first (the last, with `LAST`) extreme of a row of bytes (0 for an empty
/// row). Never inlined: inlined into a loop over rows of a known length, the row is
/// unrolled whole and its lanes spilled.
#[inline(never)]
pub(super) fn arg_row_small<T: Element, D: Direction, const LAST: bool>(x: &[T]) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Some(i) = T::u8s(x).and_then(super::rows_u8::arg_row::<D, LAST>) {
        // u8 rows of 64 bytes or more: in SSE2 vectors.
        return i;
    }
    arg_row_w::<T, D, LAST, 64>(x)
}

/// [`arg_row_small`] with chunks of `W` elements.
#[inline(always)]
fn arg_row_w<T: Element, D: Direction, const LAST: bool, const W: usize>(x: &[T]) -> usize {
    if x.is_empty() {
        return 0;
    }
    let (best, _) = row_extreme::<T, D>(x);
    // A count of the equal elements (a byte-wide sum of compares, which vectorizes the same in
    // either direction; an `or` of bools is merged with the search that follows it).
    let hit = |ch: &[T; W]| {
        ch.iter()
            .fold(0u8, |a, &v| a.wrapping_add(u8::from(v == best)))
            != 0
    };
    if LAST {
        let (rest, chunks) = x.as_rchunks::<W>();
        for (c, ch) in chunks.iter().enumerate().rev() {
            if hit(ch) {
                let i = ch.iter().rposition(|&v| v == best).unwrap_or(0);
                return rest.len() + c * W + i;
            }
        }
        rest.iter().rposition(|&v| v == best).unwrap_or(0)
    } else {
        let (chunks, rest) = x.as_chunks::<W>();
        for (c, ch) in chunks.iter().enumerate() {
            if hit(ch) {
                let i = ch.iter().position(|&v| v == best).unwrap_or(0);
                return c * W + i;
            }
        }
        chunks.len() * W + rest.iter().position(|&v| v == best).unwrap_or(0)
    }
}
