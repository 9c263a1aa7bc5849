//! Attribute reading and shape/type inference for each supported op.

use crate::dtype::DType;
use crate::ir::{Direction, Op, Tensor, Value};
use crate::onnx::{attribute_type, AttributeProto, NodeProto};
use crate::ops::Kind;

/// The attributes of a node, read and type-checked, not yet resolved against a shape.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    /// `axis`.
    pub axis: Option<i64>,
    /// `axes` (attribute form).
    pub axes: Option<Vec<i64>>,
    /// `keepdims`.
    pub keepdims: Option<i64>,
    /// `select_last_index`.
    pub select_last_index: Option<i64>,
    /// `noop_with_empty_axes`.
    pub noop_with_empty_axes: Option<i64>,
}

impl Attributes {
    /// Reads the attributes of a node, rejecting unknown, repeated and wrongly typed ones.
    pub fn parse(node: &NodeProto, kind: Kind, version: i64, label: &str) -> Result<Self, String> {
        let allowed = kind.attributes(version);
        let mut out = Attributes::default();
        let mut errors = Vec::new();
        let mut seen = Vec::new();
        for a in &node.attribute {
            if seen.contains(&a.name.as_str()) {
                errors.push(format!("attribute `{}` is given twice", a.name));
                continue;
            }
            seen.push(a.name.as_str());
            if !allowed.contains(&a.name.as_str()) {
                let list = if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let hint = if a.name == "axes" && version >= 18 {
                    " (from version 18, axes is the second input, not an attribute)"
                } else {
                    ""
                };
                let suggestion = crate::load::closest(&a.name, allowed.iter().copied())
                    .map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
                errors.push(format!(
                    "unknown attribute `{}`{hint}{suggestion}; this op version takes: {list}",
                    a.name
                ));
                continue;
            }
            let want = if a.name == "axes" {
                attribute_type::INTS
            } else {
                attribute_type::INT
            };
            if a.r#type != want && a.r#type != attribute_type::UNDEFINED {
                errors.push(format!(
                    "attribute `{}` has type {}, but it must be {}; {}",
                    a.name,
                    attribute_type::name(a.r#type),
                    attribute_type::name(want),
                    retype_hint(a, want)
                ));
                continue;
            }
            match a.name.as_str() {
                "axis" => out.axis = Some(a.i),
                "axes" => out.axes = Some(a.ints.clone()),
                "keepdims" => out.keepdims = Some(a.i),
                "select_last_index" => out.select_last_index = Some(a.i),
                "noop_with_empty_axes" => out.noop_with_empty_axes = Some(a.i),
                _ => {}
            }
        }
        for (name, value) in [
            ("keepdims", out.keepdims),
            ("select_last_index", out.select_last_index),
            ("noop_with_empty_axes", out.noop_with_empty_axes),
        ] {
            if let Some(v) = value.filter(|v| !matches!(v, 0 | 1)) {
                errors.push(format!("attribute `{name}` is {v}; it must be 0 or 1"));
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(format!("{label}: {}", errors.join("; ")))
        }
    }
}

/// How to write an attribute with the type it needs, after the value the model gives: "write it
/// as an integer, e.g. axis=1, not axis=1.0".
fn retype_hint(a: &AttributeProto, want: i32) -> String {
    let name = &a.name;
    // An integer close to what was written, for the example.
    let int = |f: f32| {
        if f.is_finite() && f.abs() < 1e9 {
            f.trunc() as i64
        } else {
            1
        }
    };
    let floats = |v: &[f32]| {
        v.iter()
            .map(|f| format!("{f:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if want == attribute_type::INTS {
        let (example, given) = match a.r#type {
            attribute_type::INT => (vec![a.i], Some(a.i.to_string())),
            attribute_type::FLOAT => (vec![int(a.f)], Some(format!("{:?}", a.f))),
            attribute_type::FLOATS if !a.floats.is_empty() => (
                a.floats.iter().map(|&f| int(f)).collect(),
                Some(format!("[{}]", floats(&a.floats))),
            ),
            _ => (vec![1], None),
        };
        let example = example
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let not = given.map_or(String::new(), |g| format!(", not {name}={g}"));
        return format!("write it as a list of integers, e.g. {name}=[{example}]{not}");
    }
    let (example, given) = match a.r#type {
        attribute_type::FLOAT => (int(a.f), Some(format!("{:?}", a.f))),
        attribute_type::INTS if !a.ints.is_empty() => {
            let ints = a
                .ints
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            (a.ints[0], Some(format!("[{ints}]")))
        }
        attribute_type::FLOATS if !a.floats.is_empty() => {
            (int(a.floats[0]), Some(format!("[{}]", floats(&a.floats))))
        }
        _ => (1, None),
    };
    let not = given.map_or(String::new(), |g| format!(", not {name}={g}"));
    format!("write it as an integer, e.g. {name}={example}{not}")
}

/// Makes an axis non-negative, checking its range for the op version.
fn normalize_axis(
    axis: i64,
    rank: usize,
    negative_ok: bool,
    what: &str,
    label: &str,
) -> Result<usize, String> {
    let r = rank as i64;
    if axis < 0 && !negative_ok {
        return Err(format!(
            "{label}: {what} {axis} is negative, which this op version does not allow (negative \
             axes arrive in opset 11); use {} instead, or import opset 11 or later",
            axis + r
        ));
    }
    let lo = if negative_ok { -r } else { 0 };
    if axis < lo || axis >= r {
        let range = if rank == 0 {
            "none: the input is a scalar (rank 0)".to_string()
        } else {
            format!("{lo} to {}", r - 1)
        };
        return Err(format!(
            "{label}: {what} {axis} is out of range for an input of rank {rank} (valid: {range})"
        ));
    }
    Ok(if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    })
}

/// Normalizes a list of axes, rejecting repeats; the result is sorted.
fn normalize_axes(
    axes: &[i64],
    rank: usize,
    negative_ok: bool,
    label: &str,
) -> Result<Vec<usize>, String> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(a, rank, negative_ok, "axis", label)?;
        if out.contains(&n) {
            return Err(format!(
                "{label}: axes {axes:?} name axis {n} more than once; list each axis once"
            ));
        }
        out.push(n);
    }
    out.sort_unstable();
    Ok(out)
}

fn reduced_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
    let mut out = Vec::with_capacity(shape.len());
    for (i, &d) in shape.iter().enumerate() {
        if axes.contains(&i) {
            if keepdims {
                out.push(1);
            }
        } else {
            out.push(d);
        }
    }
    out
}

/// Resolves a node's op against its input and computes the output's type and shape.
pub fn infer(
    kind: Kind,
    version: i64,
    attrs: &Attributes,
    axes_input: Option<&Tensor>,
    input: &Value,
    label: &str,
) -> Result<(Op, DType, Vec<usize>), String> {
    if !kind.allows(version, input.dtype) {
        let hint = match (kind, input.dtype) {
            (Kind::ArgMax | Kind::ArgMin | Kind::Hardmax, DType::BF16)
            | (Kind::ReduceMax | Kind::ReduceMin, DType::BF16) => " (BFLOAT16 arrives in opset 13)",
            (Kind::ReduceMax | Kind::ReduceMin, DType::I8 | DType::U8) => {
                " (INT8 and UINT8 arrive in opset 12)"
            }
            (Kind::ReduceMax | Kind::ReduceMin, DType::Bool) => " (BOOL arrives in opset 20)",
            _ => "",
        };
        return Err(format!(
            "{label}: input {:?} has element type {}, which this op version does not accept{hint}; \
             it accepts {}",
            input.name,
            input.dtype,
            kind.allowed_list(version)
        ));
    }
    let shape = &input.shape;
    let rank = shape.len();
    let neg = kind.negative_axes(version);
    let keepdims = attrs.keepdims.unwrap_or(1) == 1;
    let direction = match kind {
        Kind::ArgMin | Kind::ReduceMin => Direction::Min,
        _ => Direction::Max,
    };
    match kind {
        Kind::ArgMax | Kind::ArgMin => {
            if rank == 0 {
                return Err(format!(
                    "{label}: input {:?} is a scalar (rank 0); {} needs an axis to reduce",
                    input.name,
                    if direction == Direction::Max {
                        "ArgMax"
                    } else {
                        "ArgMin"
                    }
                ));
            }
            let axis = normalize_axis(attrs.axis.unwrap_or(0), rank, neg, "axis", label)?;
            if shape[axis] == 0 {
                let other = if rank > 1 {
                    ", or reduce over another axis"
                } else {
                    ""
                };
                return Err(format!(
                    "{label}: axis {axis} of input {:?} (shape {shape:?}) has length 0; the index \
                     of an extreme over an empty axis is undefined: give axis {axis} a non-zero \
                     size in the model{other}",
                    input.name
                ));
            }
            let op = Op::Arg {
                direction,
                axis,
                keepdims,
                select_last_index: attrs.select_last_index.unwrap_or(0) == 1,
            };
            Ok((op, DType::I64, reduced_shape(shape, &[axis], keepdims)))
        }
        Kind::ReduceMax | Kind::ReduceMin => {
            let noop_flag = attrs.noop_with_empty_axes.unwrap_or(0) == 1;
            let listed: Option<Vec<i64>> = if version >= 18 {
                match axes_input {
                    None => None,
                    Some(t) => {
                        if t.dtype != DType::I64 || t.shape.len() > 1 {
                            return Err(format!(
                                "{label}: the axes input must be a 1-D INT64 tensor; it is {} of \
                                 shape {:?}",
                                t.dtype, t.shape
                            ));
                        }
                        t.to_i64s()
                    }
                }
            } else {
                attrs.axes.clone()
            };
            let listed = listed.filter(|a| !a.is_empty());
            let (axes, noop) = match listed {
                Some(a) => (normalize_axes(&a, rank, neg, label)?, false),
                None if noop_flag => (Vec::new(), true),
                None => ((0..rank).collect(), false),
            };
            let out_shape = if noop {
                shape.clone()
            } else {
                reduced_shape(shape, &axes, keepdims)
            };
            Ok((
                Op::Reduce {
                    direction,
                    axes,
                    keepdims,
                    noop,
                },
                input.dtype,
                out_shape,
            ))
        }
        Kind::Hardmax => {
            let default = if version >= 13 { -1 } else { 1 };
            let axis = normalize_axis(attrs.axis.unwrap_or(default), rank, neg, "axis", label)?;
            let axes = if version >= 13 {
                vec![axis]
            } else {
                (axis..rank).collect()
            };
            Ok((Op::Hardmax { axes }, input.dtype, shape.clone()))
        }
        Kind::AotHardmax => {
            let listed = attrs.axes.clone().unwrap_or_else(|| vec![-1]);
            if listed.is_empty() {
                return Err(format!(
                    "{label}: attribute `axes` is empty; name at least one axis (default [-1])"
                ));
            }
            let axes = normalize_axes(&listed, rank, true, label)?;
            Ok((Op::Hardmax { axes }, input.dtype, shape.clone()))
        }
        Kind::Identity => Ok((Op::Identity, input.dtype, shape.clone())),
        Kind::Constant => Err(format!(
            "{label}: internal error: Constant reached inference"
        )),
    }
}
