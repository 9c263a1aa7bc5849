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

/// [`decode`], recording its error in `failed` unless an error is there already (see
/// [`Storage::zeroed_or`]).
#[inline]
pub fn decode_or<T: Element>(
    src: &[u8],
    dst: &mut [T],
    index: usize,
    name: &'static str,
    failed: &mut Option<Error>,
) {
    if let Err(e) = decode(src, dst, index, name) {
        failed.get_or_insert(e);
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

/// The first `n` elements of `*rest`, which keeps the others: how `run_bytes` hands out the
/// parts of a buffer shared by the tensors of one element type. Fewer when `rest` is shorter
/// (never in generated code, whose buffers are the sum of their parts).
#[inline]
pub fn take<'a, T>(rest: &mut &'a [T], n: usize) -> &'a [T] {
    let all = core::mem::take(rest);
    let (part, others) = all.split_at(n.min(all.len()));
    *rest = others;
    part
}

/// [`take`] for mutable parts.
#[inline]
pub fn take_mut<'a, T>(rest: &mut &'a mut [T], n: usize) -> &'a mut [T] {
    let all = core::mem::take(rest);
    let at = n.min(all.len());
    let (part, others) = all.split_at_mut(at);
    *rest = others;
    part
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

    /// `N` zeros, or [`Error::Allocation`] when the heap cannot hold them (with `alloc`;
    /// without it the array is on the stack and this is [`Storage::zeroed`]). `run_bytes`
    /// allocates through this, so that an allocation failure is an `Err`, not an abort.
    #[inline]
    pub fn try_zeroed() -> Result<Self, Error> {
        #[cfg(feature = "alloc")]
        {
            let mut data = alloc::vec::Vec::new();
            if data.try_reserve_exact(N).is_err() {
                return Err(Error::Allocation {
                    bytes: N.saturating_mul(core::mem::size_of::<T>()),
                });
            }
            data.resize(N, T::ZERO);
            Ok(Storage { data })
        }
        #[cfg(not(feature = "alloc"))]
        Ok(Self::zeroed())
    }

    /// `N` zeros, or (with `alloc`, when the heap cannot hold them) no elements and the
    /// [`Error::Allocation`] recorded in `failed` unless an error is there already. `run_bytes`
    /// allocates every buffer this way and checks `failed` once, so that its code has one exit
    /// rather than one per buffer (rustc's cost grew fast with thousands of exits).
    #[inline]
    pub fn zeroed_or(failed: &mut Option<Error>) -> Self {
        #[cfg(feature = "alloc")]
        {
            match Self::try_zeroed() {
                Ok(storage) => storage,
                Err(e) => {
                    failed.get_or_insert(e);
                    Storage {
                        data: alloc::vec::Vec::new(),
                    }
                }
            }
        }
        #[cfg(not(feature = "alloc"))]
        {
            let _ = failed;
            Self::zeroed()
        }
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

/// `N` little-endian elements of a byte string, decoded while the program compiles: the large
/// constants of generated code are one byte-string literal each rather than one literal per
/// element, which rustc reads much faster. A wrong length is a compile-time error (generated
/// code always passes `N * size` bytes).
macro_rules! le_decoder {
    ($($name:ident: $t:ty, $size:literal, $from:expr;)*) => {$(
        #[doc(hidden)]
        pub const fn $name<const N: usize>(bytes: &[u8]) -> [$t; N] {
            let mut out = [$from([0u8; $size]); N];
            let mut i = 0;
            while i < N {
                let mut word = [0u8; $size];
                let mut k = 0;
                while k < $size {
                    word[k] = bytes[i * $size + k];
                    k += 1;
                }
                out[i] = $from(word);
                i += 1;
            }
            out
        }
    )*};
}

le_decoder! {
    le_f32: f32, 4, f32::from_le_bytes;
    le_f64: f64, 8, f64::from_le_bytes;
    le_i8: i8, 1, i8::from_le_bytes;
    le_i16: i16, 2, i16::from_le_bytes;
    le_i32: i32, 4, i32::from_le_bytes;
    le_i64: i64, 8, i64::from_le_bytes;
    le_u8: u8, 1, u8::from_le_bytes;
    le_u16: u16, 2, u16::from_le_bytes;
    le_u32: u32, 4, u32::from_le_bytes;
    le_u64: u64, 8, u64::from_le_bytes;
    le_f16: crate::f16, 2, crate::f16::from_le_bytes;
    le_bf16: crate::bf16, 2, crate::bf16::from_le_bytes;
    le_bool: bool, 1, bool_from_byte;
}

/// A bool from its byte (anything but 0 is true; generated constants hold 0 or 1).
const fn bool_from_byte(b: [u8; 1]) -> bool {
    b[0] != 0
}

#[cfg(test)]
mod le_tests {
    use super::*;

    const F: [f32; 2] = le_f32::<2>(b"\x00\x00\x80\x3f\x00\x00\x00\xc0");
    const H: [crate::f16; 1] = le_f16::<1>(b"\x00\x3c");
    const B: [bool; 3] = le_bool::<3>(b"\x01\x00\x01");

    #[test]
    fn byte_strings_decode_at_compile_time() {
        assert_eq!(F, [1.0, -2.0]);
        assert_eq!(H[0].to_f32(), 1.0);
        assert_eq!(B, [true, false, true]);
        assert_eq!(le_i64::<1>(&(-5i64).to_le_bytes()), [-5]);
    }
}
