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
}

impl core::fmt::Display for DType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.onnx_name())
    }
}
