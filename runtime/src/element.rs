//! Element types and the comparison rules of the contract.

use half::{bf16, f16};

/// The element type of a tensor, as seen by code that knows nothing of a particular model.
///
/// Every generated module lists its tensors' types in `INPUT_DTYPES` and `OUTPUT_DTYPES`:
///
/// ```
/// # #[cfg(feature = "macros")] {
/// use onnx_aot::DType;
///
/// onnx_aot::model!(mod top1 = "models/top1.onnx");
///
/// assert_eq!(top1::INPUT_DTYPES, [DType::F32]);
/// assert_eq!(top1::OUTPUT_DTYPES, [DType::I64]);
/// assert_eq!(DType::I64.size(), 8);
/// assert_eq!(DType::F32.onnx_name(), "FLOAT");
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `f32` (ONNX `FLOAT`).
    F32,
    /// `f64` (ONNX `DOUBLE`).
    F64,
    /// [`struct@crate::f16`] (ONNX `FLOAT16`).
    F16,
    /// [`struct@crate::bf16`] (ONNX `BFLOAT16`).
    BF16,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `bool`, one byte 0 or 1 in `run_bytes`.
    Bool,
}

impl DType {
    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// The ONNX spelling, e.g. `"FLOAT"`.
    pub const fn onnx_name(self) -> &'static str {
        match self {
            DType::F32 => "FLOAT",
            DType::F64 => "DOUBLE",
            DType::F16 => "FLOAT16",
            DType::BF16 => "BFLOAT16",
            DType::I8 => "INT8",
            DType::I16 => "INT16",
            DType::I32 => "INT32",
            DType::I64 => "INT64",
            DType::U8 => "UINT8",
            DType::U16 => "UINT16",
            DType::U32 => "UINT32",
            DType::U64 => "UINT64",
            DType::Bool => "BOOL",
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An element type generated code can work with.
///
/// The comparisons follow the contract: `gt`/`lt` are strict and false whenever a NaN is
/// involved, and `-0.0` equals `+0.0`. `bool` orders `false < true`.
pub trait Element: Copy + PartialEq + core::fmt::Debug + sealed::Sealed + 'static {
    /// The matching [`DType`].
    const DTYPE: DType;
    /// Zero (`false` for bool).
    const ZERO: Self;
    /// One (`true` for bool).
    const ONE: Self;
    /// The identity of a max reduction: -inf, the type's minimum, or `false`.
    const LOWEST: Self;
    /// The identity of a min reduction: +inf, the type's maximum, or `true`.
    const HIGHEST: Self;
    /// Whether the value is NaN (always false for integers and bool).
    fn is_nan(self) -> bool;
    /// `self > other`, false if either is NaN.
    fn gt(self, other: Self) -> bool;
    /// `self < other`, false if either is NaN.
    fn lt(self, other: Self) -> bool;
    /// Reads one element from `DTYPE.size()` little-endian bytes; `None` if the bytes are not a
    /// valid element (a bool byte other than 0 or 1) or the slice has the wrong length.
    fn read_le(bytes: &[u8]) -> Option<Self>;
    /// Writes the element as little-endian bytes into `out` (`DTYPE.size()` bytes).
    fn write_le(self, out: &mut [u8]);
    /// The type running extremes are kept in by the lane kernels: `Self`, or for `i8` and
    /// `bool` a `u8` whose order is theirs (SSE2 has a vector max/min for `u8` only).
    #[doc(hidden)]
    type Key: Element;
    /// `self` as a [`Key`](Element::Key) (order kept; NaN stays NaN).
    #[doc(hidden)]
    fn key(self) -> Self::Key;
    /// The value of a key made by [`key`](Element::key).
    #[doc(hidden)]
    fn from_key(key: Self::Key) -> Self;
    /// For f16 and bf16: the bits of a slice (the same memory as `u16`); `None` for the other
    /// types. The 16-bit kernels read f16 and bf16 through these.
    #[doc(hidden)]
    #[inline(always)]
    fn half_bits(x: &[Self]) -> Option<&[u16]> {
        let _ = x;
        None
    }
    /// For f32: the slice itself; `None` for the other types. The `f32` row kernels of x86-64
    /// read through it.
    #[doc(hidden)]
    #[inline(always)]
    fn f32s(x: &[Self]) -> Option<&[f32]> {
        let _ = x;
        None
    }
    /// [`Element::f32s`] of a mutable slice.
    #[doc(hidden)]
    #[inline(always)]
    fn f32s_mut(x: &mut [Self]) -> Option<&mut [f32]> {
        let _ = x;
        None
    }
    /// For u8: the slice itself; `None` for the other types. The `u8` row kernel of x86-64
    /// reads through it.
    #[doc(hidden)]
    #[inline(always)]
    fn u8s(x: &[Self]) -> Option<&[u8]> {
        let _ = x;
        None
    }
    /// [`Element::half_bits`] of a mutable slice.
    #[doc(hidden)]
    #[inline(always)]
    fn half_bits_mut(x: &mut [Self]) -> Option<&mut [u16]> {
        let _ = x;
        None
    }
}

macro_rules! int_element {
    (@key $t:ty) => {
        type Key = $t;
        #[inline(always)]
        fn key(self) -> $t { self }
        #[inline(always)]
        fn from_key(key: $t) -> Self { key }
    };
    (@key $t:ty, $($extra:tt)*) => { $($extra)* };
    ($($t:ty => $d:ident $({ $($extra:tt)* })?),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            int_element!(@key $t $(, $($extra)*)?);
            const DTYPE: DType = DType::$d;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            #[inline(always)]
            fn is_nan(self) -> bool { false }
            #[inline(always)]
            fn gt(self, other: Self) -> bool { self > other }
            #[inline(always)]
            fn lt(self, other: Self) -> bool { self < other }
            #[inline]
            fn read_le(bytes: &[u8]) -> Option<Self> {
                Some(<$t>::from_le_bytes(bytes.try_into().ok()?))
            }
            #[inline]
            fn write_le(self, out: &mut [u8]) {
                for (o, b) in out.iter_mut().zip(self.to_le_bytes()) { *o = b; }
            }
        }
    )*};
}
int_element!(i16 => I16, i32 => I32, i64 => I64, u16 => U16, u32 => U32, u64 => U64);
int_element!(u8 => U8 {
    type Key = u8;
    #[inline(always)]
    fn key(self) -> u8 { self }
    #[inline(always)]
    fn from_key(key: u8) -> Self { key }
    #[inline(always)]
    fn u8s(x: &[Self]) -> Option<&[u8]> { Some(x) }
});
int_element!(i8 => I8 {
    // SSE2 has a byte max/min for u8 only: with the sign bit flipped, u8 order is i8 order, and
    // lanes of keys fold with one `pmaxub` per element (instead of a compare and a select).
    type Key = u8;
    #[inline(always)]
    fn key(self) -> u8 {
        (self as u8) ^ 0x80
    }
    #[inline(always)]
    fn from_key(key: u8) -> Self {
        (key ^ 0x80) as i8
    }
});

macro_rules! float_element {
    ($($t:ty => $d:ident { $($own:item)* }),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            type Key = $t;
            #[inline(always)]
            fn key(self) -> $t { self }
            #[inline(always)]
            fn from_key(key: $t) -> Self { key }
            #[inline(always)]
            fn is_nan(self) -> bool { self != self }
            #[inline(always)]
            fn gt(self, other: Self) -> bool { self > other }
            #[inline(always)]
            fn lt(self, other: Self) -> bool { self < other }
            #[inline]
            fn read_le(bytes: &[u8]) -> Option<Self> {
                Some(<$t>::from_le_bytes(bytes.try_into().ok()?))
            }
            #[inline]
            fn write_le(self, out: &mut [u8]) {
                for (o, b) in out.iter_mut().zip(self.to_le_bytes()) { *o = b; }
            }
            $($own)*
        }
    )*};
}
float_element!(
    f32 => F32 {
        #[inline(always)]
        fn f32s(x: &[Self]) -> Option<&[f32]> { Some(x) }
        #[inline(always)]
        fn f32s_mut(x: &mut [Self]) -> Option<&mut [f32]> { Some(x) }
    },
    f64 => F64 {}
);

/// The order of a 16-bit float as an `i16`: the sign-magnitude bits turned into two's
/// complement, so that integer order is float order and `-0` and `+0` are both 0. Meaningless for
/// NaN, which callers test apart. Comparing keys keeps f16 and bf16 in their own width: no
/// conversion to `f32` per element, and loops of 16-bit integer compares vectorize.
#[inline(always)]
fn half_key(bits: u16) -> i16 {
    let sign = (bits as i16) >> 15; // all ones for a negative value
    let magnitude = (bits & 0x7fff) as i16;
    (magnitude ^ sign).wrapping_sub(sign)
}

macro_rules! half_element {
    ($($t:ident => $d:ident, $inf:expr),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            const ZERO: Self = $t::ZERO;
            const ONE: Self = $t::ONE;
            const LOWEST: Self = $t::NEG_INFINITY;
            const HIGHEST: Self = $t::INFINITY;
            type Key = $t;
            #[inline(always)]
            fn key(self) -> $t { self }
            #[inline(always)]
            fn from_key(key: $t) -> Self { key }
            #[inline(always)]
            fn is_nan(self) -> bool { (self.to_bits() & 0x7fff) > $inf }
            #[inline(always)]
            fn gt(self, other: Self) -> bool {
                // Non-short-circuit `&`: branch-free, so that lanes vectorize.
                !self.is_nan() & !other.is_nan()
                    & (half_key(self.to_bits()) > half_key(other.to_bits()))
            }
            #[inline(always)]
            fn lt(self, other: Self) -> bool {
                !self.is_nan() & !other.is_nan()
                    & (half_key(self.to_bits()) < half_key(other.to_bits()))
            }
            #[inline]
            fn read_le(bytes: &[u8]) -> Option<Self> {
                Some($t::from_le_bytes(bytes.try_into().ok()?))
            }
            #[inline]
            fn write_le(self, out: &mut [u8]) {
                for (o, b) in out.iter_mut().zip(self.to_le_bytes()) { *o = b; }
            }
            #[inline(always)]
            fn half_bits(x: &[Self]) -> Option<&[u16]> {
                Some(half::slice::HalfFloatSliceExt::reinterpret_cast(x))
            }
            #[inline(always)]
            fn half_bits_mut(x: &mut [Self]) -> Option<&mut [u16]> {
                Some(half::slice::HalfFloatSliceExt::reinterpret_cast_mut(x))
            }
        }
    )*};
}
// The bits of +infinity: a larger magnitude is a NaN.
half_element!(f16 => F16, 0x7c00, bf16 => BF16, 0x7f80);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const ZERO: Self = false;
    const ONE: Self = true;
    const LOWEST: Self = false;
    const HIGHEST: Self = true;
    // Bytes 0 and 1: `pmaxub`/`pminub` fold them.
    type Key = u8;
    #[inline(always)]
    fn key(self) -> u8 {
        u8::from(self)
    }
    #[inline(always)]
    fn from_key(key: u8) -> Self {
        key != 0
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        false
    }
    #[inline(always)]
    #[allow(clippy::bool_comparison)]
    fn gt(self, other: Self) -> bool {
        self & !other
    }
    #[inline(always)]
    fn lt(self, other: Self) -> bool {
        !self & other
    }
    #[inline]
    fn read_le(bytes: &[u8]) -> Option<Self> {
        match bytes {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
    #[inline]
    fn write_le(self, out: &mut [u8]) {
        if let Some(o) = out.first_mut() {
            *o = u8::from(self);
        }
    }
}

/// Which extreme a reduction looks for.
pub trait Direction: 'static {
    /// Whether `a` is strictly more extreme than `b` (false if either is NaN).
    fn better<T: Element>(a: T, b: T) -> bool;
    /// The identity of the reduction (what an empty reduction returns).
    fn identity<T: Element>() -> T;
    /// Whether this is the minimum (for the debug builds' run-time dispatch).
    #[doc(hidden)]
    const IS_MIN: bool;
}

/// The maximum: ArgMax, ReduceMax, Hardmax.
#[derive(Clone, Copy, Debug)]
pub struct Max;

/// The minimum: ArgMin, ReduceMin.
#[derive(Clone, Copy, Debug)]
pub struct Min;

impl Direction for Max {
    const IS_MIN: bool = false;
    #[inline(always)]
    fn better<T: Element>(a: T, b: T) -> bool {
        a.gt(b)
    }
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::LOWEST
    }
}

impl Direction for Min {
    const IS_MIN: bool = true;
    #[inline(always)]
    fn better<T: Element>(a: T, b: T) -> bool {
        a.lt(b)
    }
    #[inline(always)]
    fn identity<T: Element>() -> T {
        T::HIGHEST
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bit pattern against a spread of others: the integer-key comparisons of f16 and
    /// bf16 agree with the comparisons of their exact `f32` values (NaN never compares, and
    /// `-0 == +0`).
    fn halves_compare_as_their_f32_values<T: Element>(
        from_bits: fn(u16) -> T,
        to_f32: fn(T) -> f32,
    ) {
        let others: [u16; 16] = [
            0x0000, 0x8000, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7c01,
            0xfe00, 0x7f80, 0xff80, 0x7fc0, 0x1234,
        ];
        for a in 0..=u16::MAX {
            let x = from_bits(a);
            assert_eq!(x.is_nan(), to_f32(x).is_nan(), "{a:#06x}");
            for &b in others
                .iter()
                .chain([a, a ^ 0x8000, a.wrapping_add(1)].iter())
            {
                let y = from_bits(b);
                assert_eq!(x.gt(y), to_f32(x) > to_f32(y), "{a:#06x} > {b:#06x}");
                assert_eq!(x.lt(y), to_f32(x) < to_f32(y), "{a:#06x} < {b:#06x}");
            }
        }
    }

    #[test]
    fn f16_compares_as_its_value() {
        halves_compare_as_their_f32_values(f16::from_bits, f16::to_f32);
    }

    #[test]
    fn bf16_compares_as_its_value() {
        halves_compare_as_their_f32_values(bf16::from_bits, bf16::to_f32);
    }
}
