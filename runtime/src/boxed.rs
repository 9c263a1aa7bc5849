//! Zeroed values on the heap without a copy on the stack, for the tensor structs of generated
//! modules (`Tensors::new_boxed`, with the `alloc` feature).

/// Types for which all-zero bytes are a valid value: the element types, arrays of them, and the
/// tensor structs generated modules declare through `__tensors!` (which checks every field).
///
/// # Safety
///
/// Every bit pattern of all zeros must be a valid value of the type.
#[doc(hidden)]
pub unsafe trait ZeroValid {}

// SAFETY: zero is 0, 0.0 or `false` for every element type.
unsafe impl<T: crate::Element> ZeroValid for T {}
// SAFETY: an array of zero-valid elements is zero-valid (arrays have no padding of their own).
unsafe impl<T: ZeroValid, const N: usize> ZeroValid for [T; N] {}

/// A struct of tensors whose fields are all [`ZeroValid`], declared as written, and marked
/// [`ZeroValid`]: generated code declares `Inputs`, `Outputs` and `Scratch` through it, so that
/// they can be made on the heap without `unsafe` in the generated code.
#[doc(hidden)]
#[macro_export]
macro_rules! __tensors {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $($(#[$field_meta])* $field_vis $field: $ty,)*
        }
        // SAFETY: the struct is declared right here with exactly these fields, and the bounds
        // (checked when the impl is compiled) make each field's type zero-valid; padding may hold
        // anything.
        unsafe impl $crate::__private::ZeroValid for $name
        where
            $($ty: $crate::__private::ZeroValid,)*
        {
        }
    };
}

/// A `T` with every byte zero, allocated on the heap and never placed on the stack.
#[cfg(feature = "alloc")]
#[must_use]
pub fn zeroed_box<T: ZeroValid>() -> alloc::boxed::Box<T> {
    use alloc::alloc::{alloc_zeroed, handle_alloc_error, Layout};
    let layout = Layout::new::<T>();
    if layout.size() == 0 {
        // SAFETY: a dangling, aligned pointer is a valid `Box` of a zero-sized type, and the
        // zero-sized `T` is zero-valid.
        return unsafe {
            alloc::boxed::Box::from_raw(core::ptr::NonNull::<T>::dangling().as_ptr())
        };
    }
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { alloc_zeroed(layout) }.cast::<T>();
    if p.is_null() {
        handle_alloc_error(layout);
    }
    // SAFETY: `p` is a fresh allocation of `T`'s layout from the global allocator, every byte
    // zero, which is a valid `T` (`ZeroValid`); the `Box` takes ownership of it.
    unsafe { alloc::boxed::Box::from_raw(p) }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;

    #[test]
    fn boxes_are_zero_and_large_ones_skip_the_stack() {
        let b = zeroed_box::<[[f32; 3]; 2]>();
        assert_eq!(*b, [[0.0; 3]; 2]);
        let flags = zeroed_box::<[bool; 5]>();
        assert_eq!(*flags, [false; 5]);
        // 64 MiB: far beyond a test thread's stack.
        let big = zeroed_box::<[[u64; 4096]; 2048]>();
        assert!(big.iter().all(|row| row.iter().all(|&v| v == 0)));
        let empty = zeroed_box::<[f64; 0]>();
        assert!(empty.is_empty());
    }
}
