//! Nodes of a description: op names, the usual inputs of each op, attributes.

use onnx_aot_codegen::onnx::{attribute_type as at, AttributeProto};

use crate::spec::{self, AttrSpec, Op, Ref};
use crate::tensor;

pub fn op_name(op: Op) -> (&'static str, &'static str) {
    let name = match op {
        Op::ArgMax => "ArgMax",
        Op::ArgMin => "ArgMin",
        Op::ReduceMax => "ReduceMax",
        Op::ReduceMin => "ReduceMin",
        Op::Hardmax => "Hardmax",
        Op::AotHardmax => return ("onnx_aot", "Hardmax"),
        Op::Identity => "Identity",
        Op::Constant => "Constant",
        Op::Cast => "Cast",
        Op::CastLike => "CastLike",
        Op::Reshape => "Reshape",
        Op::Flatten => "Flatten",
        Op::Squeeze => "Squeeze",
        Op::Unsqueeze => "Unsqueeze",
        Op::Transpose => "Transpose",
        Op::Slice => "Slice",
        Op::GlobalMaxPool => "GlobalMaxPool",
        Op::MaxPool => "MaxPool",
        Op::Shape => "Shape",
        Op::Gather => "Gather",
        Op::Concat => "Concat",
        Op::ConstantOfShape => "ConstantOfShape",
        Op::Add => "Add",
        Op::Sub => "Sub",
        Op::Mul => "Mul",
        Op::Div => "Div",
        Op::Misspelled => "Argmax",
        Op::Foreign => return ("com.example", "Relu"),
    };
    ("", name)
}

/// The usual inputs of an op at an opset: data from the newest values, and for the versions
/// that take shapes, axes or bounds as inputs, constants made from the matching attribute
/// (which is then not also written as an attribute).
pub fn natural_inputs(op: Op, opset: i64, attrs: &mut Vec<&AttrSpec>) -> Vec<Ref> {
    // Attributes an op cannot do without, when the description has none.
    static VALUE: AttrSpec = AttrSpec::ValueInt(3);
    static TO: AttrSpec = AttrSpec::To(spec::Elem::F32);
    let has = |attrs: &[&AttrSpec], f: fn(&AttrSpec) -> bool| attrs.iter().any(|a| f(a));
    if op == Op::Constant
        && !has(attrs, |a| {
            matches!(
                a,
                AttrSpec::Value(_)
                    | AttrSpec::ValueFloat(_)
                    | AttrSpec::ValueFloats(_)
                    | AttrSpec::ValueInt(_)
                    | AttrSpec::ValueInts(_)
                    | AttrSpec::ValueString
            )
        })
    {
        attrs.push(&VALUE);
    }
    if op == Op::Cast && !has(attrs, |a| matches!(a, AttrSpec::To(_))) {
        attrs.push(&TO);
    }
    let mut take = |pick: fn(&AttrSpec) -> Option<&Vec<i8>>, default: &[i8]| match attrs
        .iter()
        .position(|a| pick(a).is_some())
    {
        Some(i) => Ref::Ints(pick(attrs.remove(i)).cloned().unwrap_or_default()),
        None => Ref::Ints(default.to_vec()),
    };
    let data = Ref::Value(0);
    match op {
        Op::Constant => vec![],
        Op::CastLike => vec![data, Ref::Value(1)],
        // Shape arithmetic runs at build time: the second operand a constant.
        Op::Concat | Op::Add | Op::Sub | Op::Mul | Op::Div => vec![data, Ref::Ints(vec![2])],
        Op::Reshape if opset >= 5 => {
            let shape = take(shape_of, &[-1]);
            vec![data, shape]
        }
        Op::ReduceMax | Op::ReduceMin if opset >= 18 => vec![data, take(axes_of, &[0])],
        Op::Squeeze | Op::Unsqueeze if opset >= 13 => vec![data, take(axes_of, &[0])],
        Op::Gather => vec![data, take(axes_of, &[0])],
        Op::ConstantOfShape => vec![take(shape_of, &[2, 3])],
        Op::Slice if opset >= 10 => {
            let starts = take(starts_of, &[0]);
            let ends = take(ends_of, &[127]);
            let axes = take(axes_of, &[0]);
            vec![data, starts, ends, axes]
        }
        _ => vec![data],
    }
}

fn axes_of(a: &AttrSpec) -> Option<&Vec<i8>> {
    match a {
        AttrSpec::Axes(v) => Some(v),
        _ => None,
    }
}

fn shape_of(a: &AttrSpec) -> Option<&Vec<i8>> {
    match a {
        AttrSpec::Shape(v) => Some(v),
        _ => None,
    }
}

fn starts_of(a: &AttrSpec) -> Option<&Vec<i8>> {
    match a {
        AttrSpec::Starts(v) => Some(v),
        _ => None,
    }
}

fn ends_of(a: &AttrSpec) -> Option<&Vec<i8>> {
    match a {
        AttrSpec::Ends(v) => Some(v),
        _ => None,
    }
}

fn ints_attr(name: &str, v: &[i8]) -> AttributeProto {
    AttributeProto {
        name: name.to_string(),
        ints: v.iter().take(8).map(|&x| tensor::wide(x)).collect(),
        r#type: at::INTS,
        ..AttributeProto::default()
    }
}

fn int_attr(name: &str, v: i8) -> AttributeProto {
    AttributeProto {
        name: name.to_string(),
        i: tensor::wide(v),
        r#type: at::INT,
        ..AttributeProto::default()
    }
}

/// Flags (`keepdims`, ...) are mostly 0 or 1, sometimes anything.
fn flag_attr(name: &str, v: i8) -> AttributeProto {
    int_attr(name, if (-100..100).contains(&v) { v & 1 } else { v })
}

pub fn attribute(a: &AttrSpec) -> AttributeProto {
    match a {
        AttrSpec::Axis(v) => int_attr("axis", v % 8),
        AttrSpec::Axes(v) => ints_attr("axes", v),
        AttrSpec::Keepdims(v) => flag_attr("keepdims", *v),
        AttrSpec::SelectLastIndex(v) => flag_attr("select_last_index", *v),
        AttrSpec::NoopWithEmptyAxes(v) => flag_attr("noop_with_empty_axes", *v),
        AttrSpec::Perm(v) => ints_attr("perm", v),
        AttrSpec::To(e) => AttributeProto {
            name: "to".to_string(),
            i: i64::from(tensor::elem_code(*e)),
            r#type: at::INT,
            ..AttributeProto::default()
        },
        AttrSpec::Saturate(v) => flag_attr("saturate", *v),
        AttrSpec::Allowzero(v) => flag_attr("allowzero", *v),
        AttrSpec::Shape(v) => ints_attr("shape", v),
        AttrSpec::Starts(v) => ints_attr("starts", v),
        AttrSpec::Ends(v) => ints_attr("ends", v),
        AttrSpec::KernelShape(v) => ints_attr("kernel_shape", v),
        AttrSpec::Strides(v) => ints_attr("strides", v),
        AttrSpec::Pads(v) => ints_attr("pads", v),
        AttrSpec::Dilations(v) => ints_attr("dilations", v),
        AttrSpec::AutoPad(k) => AttributeProto {
            name: "auto_pad".to_string(),
            s: ["NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", "same"][usize::from(*k) % 5].into(),
            r#type: at::STRING,
            ..AttributeProto::default()
        },
        AttrSpec::CeilMode(v) => flag_attr("ceil_mode", *v),
        AttrSpec::StorageOrder(v) => flag_attr("storage_order", *v),
        AttrSpec::Value(t) => AttributeProto {
            name: "value".to_string(),
            t: Some(tensor::tensor("", t)),
            r#type: at::TENSOR,
            ..AttributeProto::default()
        },
        AttrSpec::ValueFloat(v) => AttributeProto {
            name: "value_float".to_string(),
            f: tensor::float(*v) as f32,
            r#type: at::FLOAT,
            ..AttributeProto::default()
        },
        AttrSpec::ValueFloats(v) => AttributeProto {
            name: "value_floats".to_string(),
            floats: v.iter().take(8).map(|&x| tensor::float(x) as f32).collect(),
            r#type: at::FLOATS,
            ..AttributeProto::default()
        },
        AttrSpec::ValueInt(v) => int_attr("value_int", *v),
        AttrSpec::ValueInts(v) => ints_attr("value_ints", v),
        AttrSpec::ValueString => AttributeProto {
            name: "value_string".to_string(),
            s: b"text".to_vec(),
            r#type: at::STRING,
            ..AttributeProto::default()
        },
        AttrSpec::Mistyped(name, ty) => {
            let names = ["axis", "keepdims", "perm", "to", "value", "zzz", "axes"];
            AttributeProto {
                name: names[usize::from(*name) % names.len()].to_string(),
                i: 1,
                f: 1.5,
                ints: vec![0],
                r#type: i32::from(*ty % 16),
                ..AttributeProto::default()
            }
        }
    }
}
