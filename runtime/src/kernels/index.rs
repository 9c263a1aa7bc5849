//! Indices as the type a node writes them in.

/// A type arg-reduction indices are written in: INT64, or the target of a Cast folded into the
/// node (`.to(torch.int32)`), with the Cast's rule (integers wrap, floats round).
pub trait Index: Copy {
    /// The index `i` (less than `isize::MAX`, as every index of a slice is) in this type.
    fn from_index(i: usize) -> Self;

    /// `y` as INT64 indices, if this is `i64` (kernels that store indices in vectors take it).
    #[doc(hidden)]
    #[inline(always)]
    fn as_int64(y: &mut [Self]) -> Option<&mut [i64]> {
        let _ = y;
        None
    }
}

macro_rules! index {
    ($($t:ty)*) => {$(
        impl Index for $t {
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap, clippy::cast_precision_loss, clippy::cast_sign_loss)]
            fn from_index(i: usize) -> Self {
                // Through i64, the index's ONNX type: the same wrap as a Cast of the INT64 index.
                (i as i64) as $t
            }
        }
    )*};
}
index!(i8 i16 i32 u8 u16 u32 u64 f32 f64);

impl Index for i64 {
    #[inline(always)]
    fn from_index(i: usize) -> Self {
        #[allow(clippy::cast_possible_wrap)]
        let i = i as i64;
        i
    }

    #[inline(always)]
    fn as_int64(y: &mut [Self]) -> Option<&mut [i64]> {
        Some(y)
    }
}

/// The index `i` as `I` (see [`Index`]).
///
/// ```
/// use onnx_aot::kernels::index;
/// assert_eq!(index::<i64>(7), 7);
/// assert_eq!(index::<u8>(300), 44); // wraps, as a Cast to UINT8 of the INT64 index does
/// ```
#[inline(always)]
#[must_use]
pub fn index<I: Index>(i: usize) -> I {
    I::from_index(i)
}

/// An INT64 index as `I`, with the Cast's rule (see [`Index`]).
#[inline(always)]
#[must_use]
pub fn cast_index<I: Index>(i: i64) -> I {
    // Indices are never negative: the usize round trip is exact.
    #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)]
    I::from_index(i as usize)
}
