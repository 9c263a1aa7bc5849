//! Element types the generator supports, with their Rust spellings.

use crate::onnx::data_type;

/// An element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// IEEE single precision (`FLOAT`).
    F32,
    /// IEEE double precision (`DOUBLE`).
    F64,
    /// IEEE half precision (`FLOAT16`).
    F16,
    /// bfloat16 (`BFLOAT16`).
    BF16,
    /// `INT8`.
    I8,
    /// `INT16`.
    I16,
    /// `INT32`.
    I32,
    /// `INT64`.
    I64,
    /// `UINT8`.
    U8,
    /// `UINT16`.
    U16,
    /// `UINT32`.
    U32,
    /// `UINT64`.
    U64,
    /// `BOOL`.
    Bool,
}

impl DType {
    /// Every supported type, in a fixed order.
    pub const ALL: [DType; 13] = [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::Bool,
    ];

    /// The type for an ONNX `TensorProto.DataType` code, if supported.
    pub fn from_onnx(code: i32) -> Option<DType> {
        Some(match code {
            data_type::FLOAT => DType::F32,
            data_type::DOUBLE => DType::F64,
            data_type::FLOAT16 => DType::F16,
            data_type::BFLOAT16 => DType::BF16,
            data_type::INT8 => DType::I8,
            data_type::INT16 => DType::I16,
            data_type::INT32 => DType::I32,
            data_type::INT64 => DType::I64,
            data_type::UINT8 => DType::U8,
            data_type::UINT16 => DType::U16,
            data_type::UINT32 => DType::U32,
            data_type::UINT64 => DType::U64,
            data_type::BOOL => DType::Bool,
            _ => return None,
        })
    }

    /// The ONNX `TensorProto.DataType` code.
    pub fn onnx_code(self) -> i32 {
        match self {
            DType::F32 => data_type::FLOAT,
            DType::F64 => data_type::DOUBLE,
            DType::F16 => data_type::FLOAT16,
            DType::BF16 => data_type::BFLOAT16,
            DType::I8 => data_type::INT8,
            DType::I16 => data_type::INT16,
            DType::I32 => data_type::INT32,
            DType::I64 => data_type::INT64,
            DType::U8 => data_type::UINT8,
            DType::U16 => data_type::UINT16,
            DType::U32 => data_type::UINT32,
            DType::U64 => data_type::UINT64,
            DType::Bool => data_type::BOOL,
        }
    }

    /// The Rust spelling the user writes in a type (`f32`, `bf16`, `bool`).
    pub fn rust_name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::Bool => "bool",
        }
    }

    /// The type for its Rust spelling (`f32`) or its ONNX one (`FLOAT`), if supported.
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL
            .into_iter()
            .find(|t| t.rust_name() == name || t.onnx_name() == name)
    }

    /// The ONNX spelling, e.g. `"FLOAT"`.
    pub fn onnx_name(self) -> &'static str {
        data_type::name(self.onnx_code())
    }

    /// The name of the matching `onnx_aot::DType` variant.
    pub fn variant_name(self) -> &'static str {
        match self {
            DType::F32 => "F32",
            DType::F64 => "F64",
            DType::F16 => "F16",
            DType::BF16 => "BF16",
            DType::I8 => "I8",
            DType::I16 => "I16",
            DType::I32 => "I32",
            DType::I64 => "I64",
            DType::U8 => "U8",
            DType::U16 => "U16",
            DType::U32 => "U32",
            DType::U64 => "U64",
            DType::Bool => "Bool",
        }
    }

    /// Bytes per element in memory and in `run_bytes`.
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// Whether the type is a floating-point type (has NaN and infinities).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64 | DType::F16 | DType::BF16)
    }

    /// Whether the type is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// Whether the type is an unsigned integer type.
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// Whether a Cast from `self` to `to` keeps every value exactly and their order (a
    /// widening: f16 to f32, i8 to i32, u8 to f16, ...): a max-family node over the cast then
    /// picks the same positions over the uncast values. Bool and casts that round, wrap or
    /// truncate are not.
    pub fn widens_exactly_to(self, to: DType) -> bool {
        use DType::*;
        // Bits of integer magnitude each type holds exactly (floats: significand bits).
        let exact_bits = |t: DType| match t {
            F16 => 11,
            BF16 => 8,
            F32 => 24,
            F64 => 53,
            _ => 8 * t.size() - usize::from(t.is_signed_int()),
        };
        match (self, to) {
            (Bool, _) | (_, Bool) => false,
            (a, b) if a == b => true,
            (F16 | BF16, F32 | F64) | (F32, F64) => true,
            // Other casts of floats round or truncate.
            (a, _) if a.is_float() => false,
            (a, b) if b.is_float() => exact_bits(a) <= exact_bits(b),
            // Integers: every value of `a` is a value of `b`.
            (a, b) if a.is_signed_int() => b.is_signed_int() && b.size() >= a.size(),
            (a, b) => b.size() > a.size(),
        }
    }

    /// Whether a Cast from `self` to `to` rounds floats to a narrower float type by a rule
    /// the runtime can invert per row (`kernels::Narrowing`): f32 to f16 or bf16, f64 to f32.
    pub fn narrows_float_to(self, to: DType) -> bool {
        matches!(
            (self, to),
            (DType::F32, DType::F16) | (DType::F32, DType::BF16) | (DType::F64, DType::F32)
        )
    }
}

impl core::fmt::Display for DType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.onnx_name())
    }
}

#[cfg(test)]
mod tests {
    use super::DType::{self, *};

    /// Checked value by value against the types' ranges: a cast widens exactly when every value
    /// of the source comes through unchanged (sampled at the extremes and around them).
    #[test]
    fn exact_widenings_keep_every_value() {
        let ints = [I8, I16, I32, I64, U8, U16, U32, U64];
        let range = |t: DType| -> (i128, i128) {
            let bits = 8 * t.size() as u32;
            if t.is_signed_int() {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            }
        };
        // Largest integer below which every integer is exact in a float type.
        let float_exact = |t: DType| -> i128 {
            match t {
                F16 => 1 << 11,
                BF16 => 1 << 8,
                F32 => 1 << 24,
                _ => 1 << 53,
            }
        };
        for a in ints {
            for b in DType::ALL {
                let (lo, hi) = range(a);
                let fits = match b {
                    Bool => false,
                    F16 | BF16 | F32 | F64 => lo.abs().max(hi) <= float_exact(b),
                    _ => {
                        let (blo, bhi) = range(b);
                        blo <= lo && hi <= bhi
                    }
                };
                assert_eq!(a.widens_exactly_to(b), fits, "{a} -> {b}");
            }
        }
        for (a, b) in [(F16, F32), (BF16, F64), (F32, F64), (F16, F16)] {
            assert!(a.widens_exactly_to(b), "{a} -> {b}");
        }
        for (a, b) in [
            (F32, F16),
            (F64, F32),
            (F16, BF16),
            (BF16, F16),
            (F32, I64),
            (Bool, U8),
        ] {
            assert!(!a.widens_exactly_to(b), "{a} -> {b}");
        }
        assert!(F32.narrows_float_to(F16) && F64.narrows_float_to(F32));
        assert!(!F64.narrows_float_to(F16) && !F16.narrows_float_to(F32));
    }
}
