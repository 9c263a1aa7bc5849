//! A tiny model builder for the generator's own tests.
#![allow(dead_code)]

use onnx_aot_codegen::onnx::*;
use prost::Message;

pub fn attr_int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        i: v,
        r#type: attribute_type::INT,
        ..Default::default()
    }
}

pub fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        ints: v.to_vec(),
        r#type: attribute_type::INTS,
        ..Default::default()
    }
}

pub fn node(
    op: &str,
    name: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: name.into(),
        op_type: op.into(),
        attribute: attrs,
        ..Default::default()
    }
}

/// A dim: a number, or a symbolic name when given as a string starting with a letter.
pub enum D {
    N(i64),
    P(&'static str),
    Unknown,
}

pub fn vi(name: &str, elem: i32, dims: &[D]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: elem,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| match d {
                            D::N(v) => Dimension {
                                dim_value: Some(*v),
                                dim_param: None,
                            },
                            D::P(p) => Dimension {
                                dim_value: None,
                                dim_param: Some(p.to_string()),
                            },
                            D::Unknown => Dimension {
                                dim_value: None,
                                dim_param: None,
                            },
                        })
                        .collect(),
                }),
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub fn n(dims: &[i64]) -> Vec<D> {
    dims.iter().map(|&d| D::N(d)).collect()
}

pub fn model(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
) -> ModelProto {
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: opset,
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: "g".into(),
            input: inputs,
            output: outputs,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A one-node model: input "x" of `dtype`/`shape`, output "y" with no declared shape.
pub fn single(
    opset: i64,
    op: &str,
    dtype: i32,
    shape: &[i64],
    attrs: Vec<AttributeProto>,
) -> ModelProto {
    model(
        opset,
        vec![node(op, "the_node", &["x"], &["y"], attrs)],
        vec![vi("x", dtype, &n(shape))],
        vec![output("y")],
    )
}

/// A graph output with no declared type.
pub fn output(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        ..Default::default()
    }
}

pub fn bytes(m: &ModelProto) -> Vec<u8> {
    m.encode_to_vec()
}

pub fn i64_tensor(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![values.len() as i64],
        data_type: data_type::INT64,
        int64_data: values.to_vec(),
        ..Default::default()
    }
}
