//! Helpers of the generated `run_bytes`: length checks and little-endian conversion.

use crate::{Element, Error};

/// Checks an input slice's length; `expected` is in bytes.
#[inline]
pub fn check_input(
    bytes: &[u8],
    index: usize,
    name: &'static str,
    expected: usize,
) -> Result<(), Error> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(Error::InputLength {
            index,
            name,
            expected,
            found: bytes.len(),
        })
    }
}

/// Checks an output slice's length; `expected` is in bytes.
#[inline]
pub fn check_output(
    bytes: &[u8],
    index: usize,
    name: &'static str,
    expected: usize,
) -> Result<(), Error> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(Error::OutputLength {
            index,
            name,
            expected,
            found: bytes.len(),
        })
    }
}

/// Decodes little-endian elements into `dst` (lengths already checked).
#[inline]
pub fn decode<T: Element>(
    src: &[u8],
    dst: &mut [T],
    index: usize,
    name: &'static str,
) -> Result<(), Error> {
    let size = T::DTYPE.size();
    for (i, (d, s)) in dst.iter_mut().zip(src.chunks_exact(size)).enumerate() {
        match T::read_le(s) {
            Some(v) => *d = v,
            None => {
                return Err(Error::InvalidBool {
                    index,
                    name,
                    offset: i * size,
                })
            }
        }
    }
    Ok(())
}

/// Encodes elements as little-endian bytes into `dst` (lengths already checked).
#[inline]
pub fn encode<T: Element>(src: &[T], dst: &mut [u8]) {
    for (s, d) in src.iter().zip(dst.chunks_exact_mut(T::DTYPE.size())) {
        s.write_le(d);
    }
}

/// Flat storage of `N` elements for `run_bytes`: on the heap with the `alloc` feature (so large
/// models do not overflow small stacks), a plain array on the stack without it.
pub struct Storage<T, const N: usize> {
    #[cfg(feature = "alloc")]
    data: alloc::vec::Vec<T>,
    #[cfg(not(feature = "alloc"))]
    data: [T; N],
}

impl<T: Element, const N: usize> Storage<T, N> {
    /// `N` zeros.
    #[inline]
    pub fn zeroed() -> Self {
        #[cfg(feature = "alloc")]
        let data = alloc::vec![T::ZERO; N];
        #[cfg(not(feature = "alloc"))]
        let data = [T::ZERO; N];
        Storage { data }
    }

    /// The elements.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        &self.data[..]
    }

    /// The elements, mutably.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data[..]
    }
}
