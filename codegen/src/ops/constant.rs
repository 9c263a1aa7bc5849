//! Constant (versions 1 to 25): a value known when the code is generated, from the node's one
//! value attribute (`value`, `value_float`, `value_floats`, `value_int`, `value_ints`). Its
//! output becomes a constant of the graph; strings and sparse tensors are refused.

use super::{Attr, AttrKind, Family, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::Tensor;
use crate::onnx::{self, attribute_type};
use crate::tensor::tensor_from_proto;

/// Constant.
pub struct ConstantFamily;

/// Constant.
pub static CONSTANT: ConstantFamily = ConstantFamily;

const fn attr(name: &'static str, kind: AttrKind) -> Attr {
    Attr { name, kind }
}

const VALUES: &[Attr] = &[
    attr("value", AttrKind::Tensor),
    attr("value_float", AttrKind::Float),
    attr("value_floats", AttrKind::Floats),
    attr("value_int", AttrKind::Int),
    attr("value_ints", AttrKind::Ints),
    attr("value_string", AttrKind::String),
    attr("value_strings", AttrKind::Strings),
    attr("sparse_value", AttrKind::SparseTensor),
];

impl Family for ConstantFamily {
    fn versions(&self) -> &'static [i64] {
        &[1, 9, 11, 12, 13, 19, 21, 23, 24, 25]
    }

    fn signature(&self, _version: i64) -> Signature {
        Signature {
            inputs: &[],
            attributes: VALUES,
        }
    }

    fn allows(&self, _version: i64, _dtype: DType) -> bool {
        true
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let set: Vec<_> = cx.attrs.iter().collect();
        match set.as_slice() {
            [a] => constant_value(a, cx.label).map(Resolved::Constant),
            _ => Err(format!(
                "{} must have exactly one value attribute (value, value_float, value_floats, \
                 value_int or value_ints); it has {}",
                cx.label,
                set.len()
            )),
        }
    }
}

/// The value of a `Constant` node's single attribute.
fn constant_value(a: &onnx::AttributeProto, node: &str) -> Result<Tensor, String> {
    let scalar = |dtype: DType, bytes: Vec<u8>, shape: Vec<usize>| Tensor {
        dtype,
        shape,
        bytes,
    };
    match a.name.as_str() {
        "value" => {
            let t =
                a.t.as_ref()
                    .ok_or_else(|| format!("{node}: attribute `value` holds no tensor"))?;
            tensor_from_proto(t, &format!("the value of {node}"))
        }
        "value_float" => Ok(scalar(DType::F32, a.f.to_le_bytes().to_vec(), vec![])),
        "value_int" => Ok(scalar(DType::I64, a.i.to_le_bytes().to_vec(), vec![])),
        "value_floats" => Ok(scalar(
            DType::F32,
            a.floats.iter().flat_map(|v| v.to_le_bytes()).collect(),
            vec![a.floats.len()],
        )),
        "value_ints" => Ok(scalar(
            DType::I64,
            a.ints.iter().flat_map(|v| v.to_le_bytes()).collect(),
            vec![a.ints.len()],
        )),
        other => Err(format!(
            "{node}: attribute `{other}` ({}) is not supported; onnx-aot supports Constant nodes \
             with value, value_float, value_floats, value_int or value_ints",
            attribute_type::name(a.r#type)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Attributes;

    fn resolve(attribute: Vec<onnx::AttributeProto>) -> Result<Tensor, String> {
        let node = onnx::NodeProto {
            attribute,
            ..Default::default()
        };
        let signature = CONSTANT.signature(13);
        let attrs = Attributes::parse(&node, &signature, "node 0")?;
        let cx = NodeCx {
            version: 13,
            label: "node 0",
            attrs: &attrs,
            data: None,
            constants: &[],
            input_dtypes: &[],
            output: 0,
        };
        match CONSTANT.resolve(&cx)? {
            Resolved::Constant(t) => Ok(t),
            other => Err(format!("not a constant: {other:?}")),
        }
    }

    fn attribute(name: &str, r#type: i32) -> onnx::AttributeProto {
        onnx::AttributeProto {
            name: name.to_string(),
            r#type,
            ..Default::default()
        }
    }

    #[test]
    fn constant_reads_each_numeric_value_attribute() {
        let mut ints = attribute("value_ints", attribute_type::INTS);
        ints.ints = vec![1, -2];
        let t = resolve(vec![ints]).unwrap();
        assert_eq!((t.dtype, t.shape.clone()), (DType::I64, vec![2]));
        assert_eq!(t.to_i64s(), Some(vec![1, -2]));
        let mut float = attribute("value_float", attribute_type::FLOAT);
        float.f = 2.5;
        let t = resolve(vec![float]).unwrap();
        assert_eq!((t.dtype, t.shape.len()), (DType::F32, 0));
        assert_eq!(t.bytes, 2.5f32.to_le_bytes());
    }

    #[test]
    fn constant_refuses_strings_a_mistyped_value_and_two_values() {
        let e = resolve(vec![attribute("value_string", attribute_type::STRING)]).unwrap_err();
        assert!(
            e.contains("`value_string` (STRING) is not supported"),
            "{e}"
        );
        let e = resolve(vec![attribute("value_float", attribute_type::INTS)]).unwrap_err();
        assert!(e.contains("has type INTS, but it must be FLOAT"), "{e}");
        let two = vec![
            attribute("value_int", attribute_type::INT),
            attribute("value_float", attribute_type::FLOAT),
        ];
        let e = resolve(two).unwrap_err();
        assert!(e.contains("exactly one value attribute"), "{e}");
        assert!(resolve(vec![]).unwrap_err().contains("it has 0"));
    }
}
