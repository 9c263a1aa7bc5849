//! Cast (1, 6, 9, 13, 19, 21, 23, 24, 25) and CastLike (15, 19, 21, 23, 24, 25): element type
//! conversion between every type of the contract and bool, by the rules of SEMANTICS.md ("Glue
//! ops"): integers wrap, floats truncate toward zero and saturate (NaN to 0), `x != 0` to bool,
//! narrower floats round to nearest even. Cast-1 names the target type by string (`"FLOAT"`),
//! later versions by `TensorProto.DataType` code; CastLike takes it from its second input.
//! bfloat16 arrives in 13 (Cast). A cast of a constant is folded while generating code (shape
//! arithmetic); otherwise it runs as the runtime's `cast` kernel. Strings, float8, int4 and the
//! other types outside the contract are an error naming the type.

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::{Attr, AttrKind, Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::{Compute, NodeCode, Source, Tensor, Value};
use crate::onnx::data_type;
use crate::tokens::elem_tokens;

/// Cast or CastLike.
pub struct CastFamily {
    like: bool,
}

/// Cast.
pub static CAST: CastFamily = CastFamily { like: false };
/// CastLike.
pub static CAST_LIKE: CastFamily = CastFamily { like: true };

const TO_STRING: Attr = Attr {
    name: "to",
    kind: AttrKind::String,
};
const TO: Attr = Attr {
    name: "to",
    kind: AttrKind::Int,
};
const SATURATE: Attr = Attr {
    name: "saturate",
    kind: AttrKind::Int,
};
const ROUND_MODE: Attr = Attr {
    name: "round_mode",
    kind: AttrKind::String,
};

impl Family for CastFamily {
    fn versions(&self) -> &'static [i64] {
        if self.like {
            &[15, 19, 21, 23, 24, 25]
        } else {
            &[1, 6, 9, 13, 19, 21, 23, 24, 25]
        }
    }

    fn signature(&self, version: i64) -> Signature {
        const DATA: &[Input] = &[Input::DATA];
        const LIKE: &[Input] = &[
            Input::DATA,
            Input {
                name: "target_type",
                optional: false,
                at_build_time: false,
            },
        ];
        let attributes: &'static [Attr] = match (self.like, version) {
            (false, 1) => &[TO_STRING],
            (false, v) if v < 19 => &[TO],
            (false, v) if v < 21 => &[TO, SATURATE],
            (false, _) => &[TO, SATURATE, ROUND_MODE],
            (true, v) if v < 21 => &[SATURATE],
            (true, _) => &[SATURATE, ROUND_MODE],
        };
        Signature {
            inputs: if self.like { LIKE } else { DATA },
            attributes,
        }
    }

    fn allows(&self, version: i64, dtype: DType) -> bool {
        dtype != DType::BF16 || version >= 13
    }

    fn type_note(&self, _version: i64, dtype: DType) -> &'static str {
        if dtype == DType::BF16 {
            " (BFLOAT16 arrives in opset 13)"
        } else {
            ""
        }
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let input = super::data(cx)?;
        let to = self.target(cx)?;
        if to == DType::BF16 && cx.version < 13 {
            return Err(format!(
                "{}: Cast-{} does not convert to BFLOAT16 (it arrives in opset 13); import \
                 opset 13 or later",
                cx.label, cx.version
            ));
        }
        if let Source::Constant(t) = &input.source {
            return Ok(Resolved::Constant(fold(t, to)));
        }
        Ok(Resolved::Compute {
            op: Arc::new(CastOp {
                from: input.dtype,
                to,
            }),
            dtype: to,
            shape: input.shape.clone(),
        })
    }
}

impl CastFamily {
    /// The target type, checked against the contract.
    fn target(&self, cx: &NodeCx<'_>) -> Result<DType, String> {
        let outside = |name: &str| {
            format!(
                "{}: a cast to {name} is outside what onnx-aot compiles (strings, float8, int4 \
                 and complex types are not supported); it converts between FLOAT, DOUBLE, \
                 FLOAT16, BFLOAT16, INT8..INT64, UINT8..UINT64 and BOOL",
                cx.label
            )
        };
        if self.like {
            return cx
                .input_dtypes
                .get(1)
                .copied()
                .flatten()
                .ok_or_else(|| format!("{}: the type of target_type is unknown", cx.label));
        }
        if cx.version == 1 {
            let name = cx
                .attrs
                .get("to")
                .map(|a| String::from_utf8_lossy(&a.s).into_owned())
                .ok_or_else(|| format!("{}: Cast-1 needs its `to` attribute", cx.label))?;
            return DType::ALL
                .into_iter()
                .find(|t| t.onnx_name() == name)
                .ok_or_else(|| outside(&format!("{name:?}")));
        }
        let code = cx
            .attrs
            .int("to")
            .ok_or_else(|| format!("{}: Cast needs its `to` attribute", cx.label))?;
        let code = i32::try_from(code).map_err(|_| outside(&format!("type code {code}")))?;
        DType::from_onnx(code).ok_or_else(|| outside(data_type::name(code)))
    }
}

/// A constant converted while generating code (the same rules as the runtime's `cast`).
fn fold(t: &Tensor, to: DType) -> Tensor {
    let size = t.dtype.size();
    let bytes = t
        .bytes
        .chunks_exact(size)
        .flat_map(|c| write(to, read(t.dtype, c)))
        .collect();
    Tensor {
        dtype: to,
        shape: t.shape.clone(),
        bytes,
    }
}

/// A value on its way between types: exact integers, floats in f32 when they fit exactly
/// (f32, f16, bf16), else f64, and bools.
#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    F32(f32),
    F64(f64),
    Bool(bool),
}

fn read(dtype: DType, c: &[u8]) -> Num {
    let b = |n: usize| -> [u8; 8] {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&c[..n]);
        a
    };
    match dtype {
        DType::F32 => Num::F32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        DType::F64 => Num::F64(f64::from_le_bytes(b(8))),
        DType::F16 => Num::F32(half::f16::from_le_bytes([c[0], c[1]]).to_f32()),
        DType::BF16 => Num::F32(half::bf16::from_le_bytes([c[0], c[1]]).to_f32()),
        DType::I8 => Num::Int(i128::from(c[0] as i8)),
        DType::I16 => Num::Int(i128::from(i16::from_le_bytes([c[0], c[1]]))),
        DType::I32 => Num::Int(i128::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
        DType::I64 => Num::Int(i128::from(i64::from_le_bytes(b(8)))),
        DType::U8 => Num::Int(i128::from(c[0])),
        DType::U16 => Num::Int(i128::from(u16::from_le_bytes([c[0], c[1]]))),
        DType::U32 => Num::Int(i128::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
        DType::U64 => Num::Int(i128::from(u64::from_le_bytes(b(8)))),
        DType::Bool => Num::Bool(c[0] != 0),
    }
}

fn write(to: DType, n: Num) -> Vec<u8> {
    // Rust's `as` wraps integers and saturates floats (NaN to 0), as the contract says.
    macro_rules! int {
        ($t:ty) => {
            match n {
                Num::Int(i) => (i as $t).to_le_bytes().to_vec(),
                Num::F32(f) => (f as $t).to_le_bytes().to_vec(),
                Num::F64(f) => (f as $t).to_le_bytes().to_vec(),
                Num::Bool(b) => (b as $t).to_le_bytes().to_vec(),
            }
        };
    }
    let as_f64 = |n: Num| match n {
        Num::Int(i) => i as f64,
        Num::F32(f) => f64::from(f),
        Num::F64(f) => f,
        Num::Bool(b) => f64::from(u8::from(b)),
    };
    match to {
        DType::I8 => int!(i8),
        DType::I16 => int!(i16),
        DType::I32 => int!(i32),
        DType::I64 => int!(i64),
        DType::U8 => int!(u8),
        DType::U16 => int!(u16),
        DType::U32 => int!(u32),
        DType::U64 => int!(u64),
        DType::F32 => match n {
            Num::Int(i) => (i as f32).to_le_bytes().to_vec(),
            Num::F64(f) => (f as f32).to_le_bytes().to_vec(),
            other => (as_f64(other) as f32).to_le_bytes().to_vec(),
        },
        DType::F64 => as_f64(n).to_le_bytes().to_vec(),
        DType::F16 => match n {
            Num::F64(f) => half::f16::from_f64(f).to_le_bytes().to_vec(),
            Num::Int(i) => half::f16::from_f32(i as f32).to_le_bytes().to_vec(),
            other => half::f16::from_f32(as_f64(other) as f32)
                .to_le_bytes()
                .to_vec(),
        },
        DType::BF16 => match n {
            Num::F32(f) => half::bf16::from_f32(f).to_le_bytes().to_vec(),
            other => half::bf16::from_f64(as_f64(other)).to_le_bytes().to_vec(),
        },
        DType::Bool => vec![u8::from(match n {
            Num::Int(i) => i != 0,
            Num::F32(f) => f != 0.0,
            Num::F64(f) => f != 0.0,
            Num::Bool(b) => b,
        })],
    }
}

/// A resolved Cast or CastLike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastOp {
    /// The input's element type.
    pub from: DType,
    /// The output's element type.
    pub to: DType,
}

impl Compute for CastOp {
    fn stem(&self) -> &'static str {
        "cast"
    }

    fn resolved(&self, _input: &Value) -> Option<String> {
        Some(format!("to {}", self.to))
    }

    fn emit(&self, _input: &Value, _output: &Value, rt: &TokenStream) -> NodeCode {
        let (from, to) = (elem_tokens(self.from, rt), elem_tokens(self.to, rt));
        NodeCode {
            body: quote!(#rt::node::cast::<#from, #to>(x, y);),
            plan: format!("element by element, {} to {}", self.from, self.to),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(dtype: DType, bytes: Vec<u8>) -> Tensor {
        Tensor {
            dtype,
            shape: vec![bytes.len() / dtype.size()],
            bytes,
        }
    }

    #[test]
    fn cast_folds_constants_by_the_contract() {
        let i64s = tensor(
            DType::I64,
            [-1i64, 300, 7]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        );
        assert_eq!(fold(&i64s, DType::U8).bytes, [255, 44, 7]);
        assert_eq!(fold(&i64s, DType::Bool).bytes, [1, 1, 1]);
        let f32s = tensor(
            DType::F32,
            [2.9f32, -2.9, f32::NAN, 1e10]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        );
        let ints: Vec<i32> = fold(&f32s, DType::I32)
            .bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(ints, [2, -2, 0, i32::MAX]);
        let halves = fold(&f32s, DType::F16);
        assert_eq!(&halves.bytes[6..], &half::f16::INFINITY.to_le_bytes());
    }

    #[test]
    fn castlike_takes_the_type_of_its_second_input() {
        let x = Value {
            name: "x".into(),
            dtype: DType::I64,
            shape: vec![2],
            source: Source::Input(0),
        };
        let node = crate::onnx::NodeProto::default();
        let attrs = crate::ops::Attributes::parse(&node, &CAST_LIKE.signature(15), "n").unwrap();
        let cx = NodeCx {
            version: 15,
            label: "n",
            attrs: &attrs,
            data: Some(&x),
            constants: &[None, None],
            input_dtypes: &[Some(DType::I64), Some(DType::U8)],
            output: 0,
        };
        let Ok(Resolved::Compute { op, dtype, .. }) = CAST_LIKE.resolve(&cx) else {
            panic!("resolves to a computation");
        };
        assert_eq!(dtype, DType::U8);
        assert_eq!(op.stem(), "cast");
    }

    #[test]
    fn cast_versions_and_types() {
        assert_eq!(CAST.version_at(18), Some(13));
        assert_eq!(CAST_LIKE.version_at(14), None);
        assert!(!CAST.allows(9, DType::BF16) && CAST.allows(13, DType::BF16));
        assert_eq!(CAST.signature(1).attributes, &[TO_STRING]);
        assert_eq!(CAST_LIKE.signature(15).arity(), (2, 2));
    }
}
