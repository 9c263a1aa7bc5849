//! What the generator knows of each operator: its versions, attributes and type constraints.

use crate::dtype::DType;

/// The custom domain of onnx-aot's own ops (multi-axis Hardmax).
pub const AOT_DOMAIN: &str = "onnx_aot";

/// The newest default-domain opset this generator knows (ONNX 1.23).
pub const MAX_DEFAULT_OPSET: i64 = 28;

/// The newest opset of [`AOT_DOMAIN`].
pub const MAX_AOT_OPSET: i64 = 1;

/// The ops the generator compiles, by (domain, op type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `ArgMax`.
    ArgMax,
    /// `ArgMin`.
    ArgMin,
    /// `ReduceMax`.
    ReduceMax,
    /// `ReduceMin`.
    ReduceMin,
    /// `Hardmax` of the default domain.
    Hardmax,
    /// `Hardmax` of the `onnx_aot` domain (multi-axis).
    AotHardmax,
    /// `Identity`.
    Identity,
    /// `Constant`.
    Constant,
}

impl Kind {
    /// The op for a domain (normalized: `""` is the default) and op type.
    pub fn lookup(domain: &str, op_type: &str) -> Option<Kind> {
        Some(match (domain, op_type) {
            ("", "ArgMax") => Kind::ArgMax,
            ("", "ArgMin") => Kind::ArgMin,
            ("", "ReduceMax") => Kind::ReduceMax,
            ("", "ReduceMin") => Kind::ReduceMin,
            ("", "Hardmax") => Kind::Hardmax,
            ("", "Identity") => Kind::Identity,
            ("", "Constant") => Kind::Constant,
            (AOT_DOMAIN, "Hardmax") => Kind::AotHardmax,
            _ => return None,
        })
    }

    /// The `since_version`s of the op, ascending.
    pub fn versions(self) -> &'static [i64] {
        match self {
            Kind::ArgMax | Kind::ArgMin => &[1, 11, 12, 13],
            Kind::ReduceMax | Kind::ReduceMin => &[1, 11, 12, 13, 18, 20],
            Kind::Hardmax => &[1, 11, 13],
            Kind::AotHardmax => &[1],
            Kind::Identity => &[1, 13, 14, 16, 19, 21, 23, 24, 25],
            Kind::Constant => &[1, 9, 11, 12, 13, 19, 21, 23, 24, 25],
        }
    }

    /// The version that applies under an opset import: the highest `since_version` <= opset.
    pub fn resolve(self, opset: i64) -> Option<i64> {
        self.versions()
            .iter()
            .copied()
            .filter(|&v| v <= opset)
            .max()
    }

    /// The element types the op's input may have at a version.
    pub fn allows(self, version: i64, dtype: DType) -> bool {
        use DType::*;
        match self {
            Kind::ArgMax | Kind::ArgMin => match dtype {
                F32 | F64 | F16 | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 => true,
                BF16 => version >= 13,
                Bool => false,
            },
            Kind::ReduceMax | Kind::ReduceMin => match dtype {
                F32 | F64 | F16 | I32 | I64 | U32 | U64 => true,
                I8 | U8 => version >= 12,
                BF16 => version >= 13,
                Bool => version >= 20,
                I16 | U16 => false,
            },
            Kind::Hardmax => match dtype {
                F32 | F64 | F16 => true,
                BF16 => version >= 13,
                _ => false,
            },
            Kind::AotHardmax => matches!(dtype, F32 | F64 | F16 | BF16),
            Kind::Identity | Kind::Constant => true,
        }
    }

    /// The allowed input types at a version, spelled for a message.
    pub fn allowed_list(self, version: i64) -> String {
        DType::ALL
            .iter()
            .filter(|&&t| self.allows(version, t))
            .map(|t| t.onnx_name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The attributes the op takes at a version.
    pub fn attributes(self, version: i64) -> &'static [&'static str] {
        match self {
            Kind::ArgMax | Kind::ArgMin if version >= 12 => {
                &["axis", "keepdims", "select_last_index"]
            }
            Kind::ArgMax | Kind::ArgMin => &["axis", "keepdims"],
            Kind::ReduceMax | Kind::ReduceMin if version >= 18 => {
                &["keepdims", "noop_with_empty_axes"]
            }
            Kind::ReduceMax | Kind::ReduceMin => &["axes", "keepdims"],
            Kind::Hardmax => &["axis"],
            Kind::AotHardmax => &["axes"],
            Kind::Identity => &[],
            Kind::Constant => &[
                "value",
                "value_float",
                "value_floats",
                "value_int",
                "value_ints",
                "value_string",
                "value_strings",
                "sparse_value",
            ],
        }
    }

    /// How many inputs the op takes at a version (minimum, maximum).
    pub fn arity(self, version: i64) -> (usize, usize) {
        match self {
            Kind::ReduceMax | Kind::ReduceMin if version >= 18 => (1, 2),
            Kind::Constant => (0, 0),
            _ => (1, 1),
        }
    }

    /// Whether negative axes are allowed at a version.
    pub fn negative_axes(self, version: i64) -> bool {
        match self {
            Kind::AotHardmax => true,
            _ => version >= 11,
        }
    }
}
