//! Flat views of the nested arrays in generated `Inputs`/`Outputs` structs.
//!
//! Generated code used `as_slice().as_flattened()` once per rank: in a user's debug build each
//! is an unoptimized call with the standard library's debug-only checks, which made up about a
//! third of a small model's debug call. [`flat`] and [`flat_mut`] are one pointer cast, inlined
//! even at `opt-level = 0`, with the element count checked when the call is compiled.

use core::mem::size_of;

/// Types that are `E` itself or arrays (of arrays, ...) of `E`: a whole number of `E`s, laid
/// out one after another with nothing in between.
///
/// # Safety
///
/// Implemented only for `E` and for arrays of implementors, whose layout is that of
/// consecutive `E`s with `E`'s alignment.
#[doc(hidden)]
pub unsafe trait Nested<E> {}

// SAFETY: an element is one `E`.
unsafe impl<E: crate::Element> Nested<E> for E {}
// SAFETY: an array is its items back to back (no padding of its own), each a run of `E`s.
unsafe impl<E, A: Nested<E>, const N: usize> Nested<E> for [A; N] {}

/// `a` as the array of its `N` elements: a compile error unless `A` holds exactly `N` of `E`.
/// (Plain `as` casts: unlike the pointer methods they are no calls in a debug build.)
#[doc(hidden)]
#[inline(always)]
#[must_use]
pub fn flat<E, A: Nested<E>, const N: usize>(a: &A) -> &[E; N] {
    const {
        assert!(
            size_of::<A>() == N * size_of::<E>(),
            "element count of a flat view"
        )
    };
    // SAFETY: `A: Nested<E>` is laid out as consecutive `E`s with `E`'s alignment, and it is
    // exactly `N` of them (checked above), so it is a valid `[E; N]` for the borrow's lifetime.
    unsafe { &*(a as *const A as *const [E; N]) }
}

/// [`flat`] for writing.
#[doc(hidden)]
#[inline(always)]
#[must_use]
pub fn flat_mut<E, A: Nested<E>, const N: usize>(a: &mut A) -> &mut [E; N] {
    const {
        assert!(
            size_of::<A>() == N * size_of::<E>(),
            "element count of a flat view"
        )
    };
    // SAFETY: as in `flat`; the unique borrow of `a` becomes the unique borrow of the view.
    unsafe { &mut *(a as *mut A as *mut [E; N]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_follow_row_major_order_and_write_through() {
        let mut a = [[[1.0f32, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]];
        assert_eq!(
            flat::<f32, _, 8>(&a),
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        );
        flat_mut::<f32, _, 8>(&mut a)[5] = -1.0;
        assert_eq!(a[1][0][1], -1.0);
        let scalar = 7i64;
        assert_eq!(flat::<i64, _, 1>(&scalar), &[7]);
        let empty: [[u8; 0]; 3] = [[]; 3];
        assert!(flat::<u8, _, 0>(&empty).is_empty());
        let flags = [[true, false, true]];
        assert_eq!(flat::<bool, _, 3>(&flags), &[true, false, true]);
    }
}
