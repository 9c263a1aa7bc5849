//! Element type conversion (ONNX Cast and CastLike), by the rules of SEMANTICS.md:
//! integer to integer wraps (two's complement); float to integer truncates toward zero and
//! saturates, NaN giving 0; any number to bool is `x != 0` (NaN is true), bool to number 0 or 1;
//! a float to a narrower float rounds to nearest, ties to even, overflow giving ±inf.

use crate::{bf16, f16, Element};

/// A value on its way from one element type to another: an integer exactly, a float in the
/// narrowest IEEE type that holds it exactly, or a bool.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// Any integer type.
    Int(i128),
    /// f32, f16 and bf16 (exact in f32).
    F32(f32),
    /// f64.
    F64(f64),
    /// bool.
    Bool(bool),
}

/// An element type Cast converts from and to.
pub trait CastElement: Element {
    /// The value, exactly.
    #[doc(hidden)]
    fn to_num(self) -> Num;
    /// The value of this type that `n` converts to.
    #[doc(hidden)]
    fn from_num(n: Num) -> Self;
}

macro_rules! int_cast {
    ($($t:ty)*) => {$(
        impl CastElement for $t {
            #[inline(always)]
            fn to_num(self) -> Num {
                Num::Int(self as i128)
            }
            #[inline(always)]
            fn from_num(n: Num) -> Self {
                // `as` wraps integers and saturates floats (NaN to 0), as the contract says.
                match n {
                    Num::Int(i) => i as $t,
                    Num::F32(f) => f as $t,
                    Num::F64(f) => f as $t,
                    Num::Bool(b) => b as $t,
                }
            }
        }
    )*};
}
int_cast!(i8 i16 i32 i64 u8 u16 u32 u64);

impl CastElement for f32 {
    #[inline(always)]
    fn to_num(self) -> Num {
        Num::F32(self)
    }
    #[inline(always)]
    fn from_num(n: Num) -> Self {
        match n {
            Num::Int(i) => i as f32,
            Num::F32(f) => f,
            Num::F64(f) => f as f32,
            Num::Bool(b) => f32::from(u8::from(b)),
        }
    }
}

impl CastElement for f64 {
    #[inline(always)]
    fn to_num(self) -> Num {
        Num::F64(self)
    }
    #[inline(always)]
    fn from_num(n: Num) -> Self {
        match n {
            Num::Int(i) => i as f64,
            Num::F32(f) => f64::from(f),
            Num::F64(f) => f,
            Num::Bool(b) => f64::from(u8::from(b)),
        }
    }
}

impl CastElement for f16 {
    #[inline(always)]
    fn to_num(self) -> Num {
        Num::F32(self.to_f32())
    }
    #[inline(always)]
    fn from_num(n: Num) -> Self {
        match n {
            // Integers beyond 2^24 round in f32 first, but those are beyond f16's range
            // (65504) either way: the result is the same infinity.
            Num::Int(i) => f16::from_f32(i as f32),
            Num::F32(f) => f16::from_f32(f),
            Num::F64(f) => f16::from_f64(f),
            Num::Bool(b) => f16::from_f32(f32::from(u8::from(b))),
        }
    }
}

impl CastElement for bf16 {
    #[inline(always)]
    fn to_num(self) -> Num {
        Num::F32(self.to_f32())
    }
    #[inline(always)]
    fn from_num(n: Num) -> Self {
        match n {
            Num::Int(i) => bf16::from_f64(i as f64),
            Num::F32(f) => bf16::from_f32(f),
            Num::F64(f) => bf16::from_f64(f),
            Num::Bool(b) => bf16::from_f32(f32::from(u8::from(b))),
        }
    }
}

impl CastElement for bool {
    #[inline(always)]
    fn to_num(self) -> Num {
        Num::Bool(self)
    }
    #[inline(always)]
    fn from_num(n: Num) -> Self {
        match n {
            Num::Int(i) => i != 0,
            // NaN != 0 is true: NaN casts to true.
            Num::F32(f) => f != 0.0,
            Num::F64(f) => f != 0.0,
            Num::Bool(b) => b,
        }
    }
}

/// Converts every element of `x` into the matching element of `y` (up to the shorter length).
///
/// ```
/// use onnx_aot::kernels::cast;
/// let mut y = [0u8; 4];
/// cast(&[-1i64, 256, 7, 300], &mut y); // integers wrap
/// assert_eq!(y, [255, 0, 7, 44]);
/// let mut z = [0i32; 3];
/// cast(&[2.9f32, -2.9, f32::NAN], &mut z); // floats truncate, NaN gives 0
/// assert_eq!(z, [2, -2, 0]);
/// ```
#[inline]
pub fn cast<T: CastElement, U: CastElement>(x: &[T], y: &mut [U]) {
    for (o, &v) in y.iter_mut().zip(x) {
        *o = U::from_num(v.to_num());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cast<T: CastElement, U: CastElement>(v: T) -> U {
        U::from_num(v.to_num())
    }

    #[test]
    fn integers_wrap_floats_truncate_and_saturate() {
        assert_eq!(cast::<i64, i32>(0x1_0000_0005), 5);
        assert_eq!(cast::<i32, u8>(-1), 255);
        assert_eq!(cast::<f32, i32>(-2.9), -2);
        assert_eq!(cast::<f32, u8>(300.0), 255);
        assert_eq!(cast::<f32, i8>(-1e9), -128);
        assert_eq!(cast::<f64, i64>(f64::NAN), 0);
        assert_eq!(cast::<f16, i32>(f16::from_f32(-7.5)), -7);
    }

    #[test]
    fn bools_are_zero_or_not() {
        assert!(cast::<f32, bool>(f32::NAN));
        assert!(!cast::<f32, bool>(-0.0));
        assert!(cast::<i8, bool>(-3));
        assert_eq!(cast::<bool, f32>(true), 1.0);
        assert_eq!(cast::<bool, i64>(false), 0);
    }

    #[test]
    fn narrower_floats_round_to_nearest_even() {
        // 1 + 2^-11 is halfway between two f16 values: ties to even (1.0).
        assert_eq!(
            cast::<f32, f16>(1.0 + f32::powi(2.0, -11)).to_bits(),
            0x3c00
        );
        assert_eq!(cast::<f32, f16>(1e6), f16::INFINITY);
        assert_eq!(cast::<f64, f32>(0.1), 0.1f32);
        assert_eq!(
            cast::<f32, bf16>(1.0 + f32::powi(2.0, -8)).to_bits(),
            0x3f80
        );
        assert_eq!(cast::<i64, f16>(70000), f16::INFINITY);
        assert_eq!(cast::<u8, bf16>(255), bf16::from_f32(255.0));
        assert!(cast::<f64, f16>(f64::NAN).is_nan());
    }
}
