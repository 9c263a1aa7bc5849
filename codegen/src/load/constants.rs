//! The model's constants: initializers, and graph inputs the user freezes to values.

use super::Loader;
use crate::dtype::DType;
use crate::error::{Blame, Error};
use crate::ir::{Source, Tensor, Value};
use crate::onnx;
use crate::options::Scalar;
use crate::tensor::tensor_from_proto;

impl Loader<'_> {
    /// Reads every initializer into a constant value.
    pub(super) fn initializers(&mut self, graph: &onnx::GraphProto) {
        if !graph.sparse_initializer.is_empty() {
            self.errors.model(
                "the graph has sparse initializers, which onnx-aot does not support; store them \
                 as dense initializers",
            );
        }
        for (i, init) in graph.initializer.iter().enumerate() {
            let what = format!("initializer {i} {:?}", init.name);
            if init.name.is_empty() {
                self.errors
                    .model(format!("{what} has no name; every initializer needs one"));
                continue;
            }
            if self.by_name.contains_key(&init.name) {
                self.errors.model(format!(
                    "{what} is defined twice; initializer names must be unique"
                ));
                continue;
            }
            match tensor_from_proto(init, &what) {
                Ok(t) => {
                    self.add_value(Value {
                        name: init.name.clone(),
                        dtype: t.dtype,
                        shape: t.shape.clone(),
                        source: Source::Constant(t),
                    });
                }
                Err(e) => self.errors.model(e),
            }
        }
    }
}

/// Converts the user's literals for a frozen graph input to a constant tensor.
/// `option` is how the user spells the binding (`` `inputs` ``), for messages.
pub(super) fn freeze(
    name: &str,
    dtype: DType,
    shape: &[usize],
    values: &[Scalar],
    option: &str,
) -> Result<Tensor, Error> {
    let blame = Blame::Input(name.to_string());
    let numel: usize = shape.iter().product();
    if values.len() != numel {
        let given = match values.len() {
            1 => "1 value".to_string(),
            n => format!("{n} values"),
        };
        let fix = match numel {
            0 => "give an empty list, `[]`".to_string(),
            1 => "give exactly 1 value".to_string(),
            n => format!("give exactly {n} values, in row-major order"),
        };
        return Err(Error::with_blame(
            format!(
                "{option} gives {given} for graph input {name:?}, whose shape {shape:?} holds \
                 {numel}; {fix}"
            ),
            blame,
        ));
    }
    let mut bytes = Vec::with_capacity(numel * dtype.size());
    for (i, v) in values.iter().enumerate() {
        let bad = |why: &str| {
            Error::with_blame(
                format!("{option}: value {i} for graph input {name:?} ({dtype}) {why}"),
                blame.clone(),
            )
        };
        match (dtype, *v) {
            (DType::Bool, Scalar::Bool(b)) => bytes.push(u8::from(b)),
            (DType::Bool, _) => return Err(bad("must be `true` or `false`")),
            (_, Scalar::Bool(_)) => return Err(bad("must be a number, not a boolean")),
            (DType::F32, Scalar::Int(x)) => bytes.extend((x as f32).to_le_bytes()),
            (DType::F32, Scalar::Float(x)) => bytes.extend((x as f32).to_le_bytes()),
            (DType::F64, Scalar::Int(x)) => bytes.extend((x as f64).to_le_bytes()),
            (DType::F64, Scalar::Float(x)) => bytes.extend(x.to_le_bytes()),
            (DType::F16 | DType::BF16, s) => {
                let x = match s {
                    Scalar::Int(x) => x as f64,
                    Scalar::Float(x) => x,
                    Scalar::Bool(_) => 0.0,
                };
                let bits = if dtype == DType::F16 {
                    half::f16::from_f64(x).to_bits()
                } else {
                    half::bf16::from_f64(x).to_bits()
                };
                bytes.extend(bits.to_le_bytes());
            }
            (_, Scalar::Float(x)) => {
                let example = if x.is_finite() { x.trunc() as i128 } else { 0 };
                return Err(bad(&format!(
                    "must be an integer, but it is {x:?}; write an integer, e.g. {example}"
                )));
            }
            (_, Scalar::Int(x)) => {
                let ok = match dtype {
                    DType::I8 => i8::try_from(x).is_ok(),
                    DType::I16 => i16::try_from(x).is_ok(),
                    DType::I32 => i32::try_from(x).is_ok(),
                    DType::I64 => i64::try_from(x).is_ok(),
                    DType::U8 => u8::try_from(x).is_ok(),
                    DType::U16 => u16::try_from(x).is_ok(),
                    DType::U32 => u32::try_from(x).is_ok(),
                    _ => u64::try_from(x).is_ok(),
                };
                if !ok {
                    return Err(bad(&format!("{x} is out of range")));
                }
                let le = x.to_le_bytes();
                bytes.extend_from_slice(&le[..dtype.size()]);
            }
        }
    }
    Ok(Tensor {
        dtype,
        shape: shape.to_vec(),
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frozen_halves_round_to_nearest_even() {
        let bits = |dtype, x: f64| {
            let t = freeze("x", dtype, &[1], &[Scalar::Float(x)], "`inputs`").unwrap();
            u16::from_le_bytes([t.bytes[0], t.bytes[1]])
        };
        assert_eq!(bits(DType::F16, 1.0), 0x3c00);
        assert_eq!(bits(DType::F16, 65520.0), 0x7c00); // rounds up to infinity
        assert_eq!(bits(DType::F16, -1e-8), 0x8000); // underflows to -0
        assert_eq!(bits(DType::BF16, 1.0), 0x3f80);
        // Ties go to the even neighbour, either way.
        assert_eq!(bits(DType::F16, 1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(bits(DType::F16, 1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(
            bits(DType::F16, 1.0 + 2f64.powi(-11) + 2f64.powi(-20)),
            0x3c01
        );
        assert_eq!(bits(DType::BF16, 1.0 + 2f64.powi(-8)), 0x3f80);
        assert_eq!(bits(DType::BF16, 1.0 + 3.0 * 2f64.powi(-8)), 0x3f82);
        assert!(half::f16::from_bits(bits(DType::F16, f64::NAN)).is_nan());
    }
}
