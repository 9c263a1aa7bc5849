//! The ops that only change a tensor's shape: Reshape, Flatten, Squeeze and Unsqueeze. The
//! elements keep their row-major order, so the output is a view of the input: it computes
//! nothing when it can share the input's storage (an intermediate), copies into a graph output,
//! and folds into a new constant when the input is one (shape arithmetic).
//!
//! - Reshape 1 (`shape` attribute), 5, 13, 14 (`allowzero`), 19, 21, 23, 24, 25 (`shape` input,
//!   known at build time): `0` copies the input's dimension (unless `allowzero=1`), one `-1` is
//!   inferred.
//! - Flatten 1, 9, 11 (negative `axis`), 13, 21, 23, 24, 25: `[prod(d[..axis]), prod(d[axis..])]`.
//! - Squeeze 1, 11 (negative axes), 13 (`axes` input), 21, 23, 24, 25: the listed axes, which
//!   must have length 1, or every axis of length 1.
//! - Unsqueeze 1, 11, 13 (`axes` input), 21, 23, 24, 25: axes of length 1 inserted at the listed
//!   positions of the output.

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::attrs::{normalize_axes, normalize_axis};
use super::{Attr, AttrKind, Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::{Compute, NodeCode, Source, Tensor, Value};

/// Which shape op a family serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Reshape,
    Flatten,
    Squeeze,
    Unsqueeze,
}

/// Reshape, Flatten, Squeeze or Unsqueeze.
pub struct ShapeOnlyFamily(Kind);

/// Reshape.
pub static RESHAPE: ShapeOnlyFamily = ShapeOnlyFamily(Kind::Reshape);
/// Flatten.
pub static FLATTEN: ShapeOnlyFamily = ShapeOnlyFamily(Kind::Flatten);
/// Squeeze.
pub static SQUEEZE: ShapeOnlyFamily = ShapeOnlyFamily(Kind::Squeeze);
/// Unsqueeze.
pub static UNSQUEEZE: ShapeOnlyFamily = ShapeOnlyFamily(Kind::Unsqueeze);

const SHAPE_ATTR: Attr = Attr {
    name: "shape",
    kind: AttrKind::Ints,
};
const CONSUMED: Attr = Attr {
    name: "consumed_inputs",
    kind: AttrKind::Ints,
};
const ALLOWZERO: Attr = Attr {
    name: "allowzero",
    kind: AttrKind::Flag,
};
const AXIS: Attr = Attr {
    name: "axis",
    kind: AttrKind::Int,
};
const AXES: Attr = Attr {
    name: "axes",
    kind: AttrKind::Ints,
};

/// A second input known when the code is generated.
const fn build_time(name: &'static str, optional: bool) -> Input {
    Input {
        name,
        optional,
        at_build_time: true,
    }
}

impl Family for ShapeOnlyFamily {
    fn versions(&self) -> &'static [i64] {
        match self.0 {
            Kind::Reshape => &[1, 5, 13, 14, 19, 21, 23, 24, 25],
            Kind::Flatten => &[1, 9, 11, 13, 21, 23, 24, 25],
            Kind::Squeeze | Kind::Unsqueeze => &[1, 11, 13, 21, 23, 24, 25],
        }
    }

    fn signature(&self, version: i64) -> Signature {
        const DATA: &[Input] = &[Input::DATA];
        const SHAPE: &[Input] = &[Input::DATA, build_time("shape", false)];
        const AXES_OPT: &[Input] = &[Input::DATA, build_time("axes", true)];
        const AXES_REQ: &[Input] = &[Input::DATA, build_time("axes", false)];
        let (inputs, attributes): (&'static [Input], &'static [Attr]) = match (self.0, version) {
            (Kind::Reshape, 1) => (DATA, &[SHAPE_ATTR, CONSUMED]),
            (Kind::Reshape, v) if v >= 14 => (SHAPE, &[ALLOWZERO]),
            (Kind::Reshape, _) => (SHAPE, &[]),
            (Kind::Flatten, _) => (DATA, &[AXIS]),
            (Kind::Squeeze, v) if v < 13 => (DATA, &[AXES]),
            (Kind::Squeeze, _) => (AXES_OPT, &[]),
            (Kind::Unsqueeze, v) if v < 13 => (DATA, &[AXES]),
            (Kind::Unsqueeze, _) => (AXES_REQ, &[]),
        };
        Signature { inputs, attributes }
    }

    fn allows(&self, version: i64, dtype: DType) -> bool {
        // Reshape-1 and Flatten-1 take floating types only; later versions every type.
        match (self.0, version) {
            (Kind::Reshape | Kind::Flatten, 1) => {
                matches!(dtype, DType::F16 | DType::F32 | DType::F64)
            }
            _ => true,
        }
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let input = super::data(cx)?;
        let shape = match self.0 {
            Kind::Reshape => reshape(cx, input)?,
            Kind::Flatten => flatten(cx, input)?,
            Kind::Squeeze => squeeze(cx, input)?,
            Kind::Unsqueeze => unsqueeze(cx, input)?,
        };
        if let Source::Constant(t) = &input.source {
            // Shape arithmetic: the same elements under the new shape.
            return Ok(Resolved::Constant(Tensor { shape, ..t.clone() }));
        }
        Ok(Resolved::Compute {
            op: Arc::new(ShapeOnlyOp { op: self.0 }),
            dtype: input.dtype,
            shape,
        })
    }
}

/// The `INT64` values of a build-time input (`shape`, `axes`), checked to be 1-D.
fn int64_input(cx: &NodeCx<'_>, k: usize, what: &str) -> Result<Option<Vec<i64>>, String> {
    let Some(t) = cx.constants.get(k).copied().flatten() else {
        return Ok(None);
    };
    if t.dtype != DType::I64 || t.shape.len() != 1 {
        return Err(format!(
            "{}: the {what} input must be a 1-D INT64 tensor; it is {} of shape {:?}",
            cx.label, t.dtype, t.shape
        ));
    }
    Ok(t.to_i64s())
}

fn reshape(cx: &NodeCx<'_>, input: &Value) -> Result<Vec<usize>, String> {
    let label = cx.label;
    let target = if cx.version == 1 {
        cx.attrs.ints("shape").map(<[i64]>::to_vec)
    } else {
        int64_input(cx, 1, "shape")?
    };
    let Some(target) = target else {
        return Err(format!(
            "{label}: Reshape-{} needs a target shape (the `shape` {})",
            cx.version,
            if cx.version == 1 {
                "attribute"
            } else {
                "input"
            }
        ));
    };
    let allowzero = cx.version >= 14 && cx.attrs.flag("allowzero", false);
    let numel: usize = input.shape.iter().product();
    let mut out = Vec::with_capacity(target.len());
    let mut inferred = None;
    for (i, &d) in target.iter().enumerate() {
        match d {
            -1 if inferred.is_some() => {
                return Err(format!(
                    "{label}: shape {target:?} has more than one -1; only one dimension can be \
                     inferred"
                ))
            }
            -1 => {
                inferred = Some(i);
                out.push(1);
            }
            0 if !allowzero => match input.shape.get(i) {
                Some(&same) => out.push(same),
                None => {
                    return Err(format!(
                        "{label}: shape {target:?} has 0 at position {i} (copy the input's \
                         dimension), but the input {:?} has rank {}",
                        input.shape,
                        input.shape.len()
                    ))
                }
            },
            d if d >= 0 => out.push(d as usize),
            d => {
                return Err(format!(
                    "{label}: shape {target:?} has {d}; dimensions are sizes, 0 (copy) or one -1"
                ))
            }
        }
    }
    if allowzero && inferred.is_some() && out.contains(&0) {
        return Err(format!(
            "{label}: shape {target:?} has both 0 (with allowzero=1) and -1; the spec forbids it"
        ));
    }
    let known: usize = out.iter().product();
    if let Some(i) = inferred {
        if known == 0 || !numel.is_multiple_of(known) {
            return Err(format!(
                "{label}: the input {:?} ({numel} elements) cannot be reshaped to {target:?}",
                input.shape
            ));
        }
        out[i] = numel / known;
    } else if known != numel {
        return Err(format!(
            "{label}: the input {:?} has {numel} elements, the shape {target:?} asks for {known}; \
             the counts must match",
            input.shape
        ));
    }
    Ok(out)
}

fn flatten(cx: &NodeCx<'_>, input: &Value) -> Result<Vec<usize>, String> {
    let rank = input.shape.len();
    let axis = cx.attrs.int("axis").unwrap_or(1);
    // `axis` may equal the rank (everything in the first dimension).
    let a = if axis == rank as i64 {
        rank
    } else {
        normalize_axis(axis, rank, cx.version >= 11, "axis", cx.label)?
    };
    let outer: usize = input.shape[..a].iter().product();
    let inner: usize = input.shape[a..].iter().product();
    Ok(vec![outer, inner])
}

/// The axes of Squeeze or Unsqueeze, from the attribute or the input by version.
fn listed_axes(cx: &NodeCx<'_>) -> Result<Option<Vec<i64>>, String> {
    if cx.version >= 13 {
        int64_input(cx, 1, "axes")
    } else {
        Ok(cx.attrs.ints("axes").map(<[i64]>::to_vec))
    }
}

fn squeeze(cx: &NodeCx<'_>, input: &Value) -> Result<Vec<usize>, String> {
    let shape = &input.shape;
    let axes = match listed_axes(cx)? {
        Some(a) if !a.is_empty() => normalize_axes(&a, shape.len(), cx.version >= 11, cx.label)?,
        _ => (0..shape.len()).filter(|&i| shape[i] == 1).collect(),
    };
    if let Some(&bad) = axes.iter().find(|&&a| shape[a] != 1) {
        return Err(format!(
            "{}: axis {bad} of the input {shape:?} has length {}; Squeeze removes axes of \
             length 1 only",
            cx.label, shape[bad]
        ));
    }
    Ok(shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !axes.contains(i))
        .map(|(_, &d)| d)
        .collect())
}

fn unsqueeze(cx: &NodeCx<'_>, input: &Value) -> Result<Vec<usize>, String> {
    let Some(listed) = listed_axes(cx)? else {
        return Err(format!(
            "{}: Unsqueeze needs the axes to insert (the `axes` {})",
            cx.label,
            if cx.version >= 13 {
                "input"
            } else {
                "attribute"
            }
        ));
    };
    let rank = input.shape.len() + listed.len();
    let axes = normalize_axes(&listed, rank, cx.version >= 11, cx.label)?;
    let mut dims = input.shape.iter();
    Ok((0..rank)
        .map(|i| {
            if axes.contains(&i) {
                1
            } else {
                dims.next().copied().unwrap_or(1)
            }
        })
        .collect())
}

/// A resolved Reshape, Flatten, Squeeze or Unsqueeze: the same elements under another shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeOnlyOp {
    op: Kind,
}

impl Compute for ShapeOnlyOp {
    fn stem(&self) -> &'static str {
        match self.op {
            Kind::Reshape => "reshape",
            Kind::Flatten => "flatten",
            Kind::Squeeze => "squeeze",
            Kind::Unsqueeze => "unsqueeze",
        }
    }

    fn resolved(&self, _input: &Value) -> Option<String> {
        None
    }

    fn alias_offset(&self) -> Option<usize> {
        Some(0)
    }

    fn emit(&self, _input: &Value, _output: &Value, rt: &TokenStream) -> NodeCode {
        NodeCode {
            body: quote!(#rt::node::copy(y, x);),
            plan: "copy (the same elements in the same order under the output's shape)".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Attributes;

    fn value(shape: &[usize]) -> Value {
        Value {
            name: "x".into(),
            dtype: DType::F32,
            shape: shape.to_vec(),
            source: Source::Input(0),
        }
    }

    fn i64s(v: &[i64]) -> Tensor {
        Tensor {
            dtype: DType::I64,
            shape: vec![v.len()],
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// Resolves `family` at `version` over `shape` with a second input and attributes.
    fn shape_of(
        family: &ShapeOnlyFamily,
        version: i64,
        shape: &[usize],
        second: Option<&[i64]>,
        attrs: Vec<crate::onnx::AttributeProto>,
    ) -> Result<Vec<usize>, String> {
        let node = crate::onnx::NodeProto {
            attribute: attrs,
            ..Default::default()
        };
        let signature = family.signature(version);
        let attrs = Attributes::parse(&node, &signature, "node").unwrap();
        let x = value(shape);
        let t = second.map(i64s);
        let constants = [None, t.as_ref()];
        let cx = NodeCx {
            version,
            label: "node",
            attrs: &attrs,
            data: Some(&x),
            constants: &constants,
            input_dtypes: &[],
            output: 0,
        };
        match family.resolve(&cx)? {
            Resolved::Compute { shape, .. } => Ok(shape),
            Resolved::Constant(_) => unreachable!("the input is not a constant"),
        }
    }

    fn ints(name: &str, v: &[i64]) -> crate::onnx::AttributeProto {
        crate::onnx::AttributeProto {
            name: name.into(),
            ints: v.to_vec(),
            r#type: crate::onnx::attribute_type::INTS,
            ..Default::default()
        }
    }

    fn int(name: &str, v: i64) -> crate::onnx::AttributeProto {
        crate::onnx::AttributeProto {
            name: name.into(),
            i: v,
            r#type: crate::onnx::attribute_type::INT,
            ..Default::default()
        }
    }

    #[test]
    fn reshape_copies_zeros_and_infers_one_dimension() {
        let r = |v, s: &[usize], t: &[i64], a| shape_of(&RESHAPE, v, s, Some(t), a);
        assert_eq!(r(13, &[2, 3, 4], &[-1], vec![]).unwrap(), [24]);
        assert_eq!(r(13, &[2, 3, 4], &[0, -1], vec![]).unwrap(), [2, 12]);
        assert_eq!(
            r(14, &[2, 0, 4], &[0, 4], vec![int("allowzero", 1)]).unwrap(),
            [0, 4]
        );
        assert!(r(13, &[2, 3], &[4, -1], vec![])
            .unwrap_err()
            .contains("cannot be reshaped"));
        assert!(r(13, &[2, 3], &[-1, -1], vec![])
            .unwrap_err()
            .contains("more than one -1"));
        assert!(r(13, &[2, 3], &[5], vec![])
            .unwrap_err()
            .contains("counts must match"));
        assert_eq!(
            shape_of(&RESHAPE, 1, &[6], None, vec![ints("shape", &[3, 2])]).unwrap(),
            [3, 2]
        );
    }

    #[test]
    fn flatten_follows_its_versions() {
        assert_eq!(
            shape_of(&FLATTEN, 13, &[2, 3, 4], None, vec![]).unwrap(),
            [2, 12]
        );
        assert_eq!(
            shape_of(&FLATTEN, 13, &[2, 3, 4], None, vec![int("axis", -1)]).unwrap(),
            [6, 4]
        );
        assert_eq!(
            shape_of(&FLATTEN, 13, &[2, 3], None, vec![int("axis", 2)]).unwrap(),
            [6, 1]
        );
        assert!(shape_of(&FLATTEN, 9, &[2, 3], None, vec![int("axis", -1)]).is_err());
    }

    #[test]
    fn squeeze_removes_axes_of_length_one() {
        assert_eq!(
            shape_of(&SQUEEZE, 13, &[1, 3, 1], None, vec![]).unwrap(),
            [3]
        );
        assert_eq!(
            shape_of(&SQUEEZE, 13, &[1, 3, 1], Some(&[-1]), vec![]).unwrap(),
            [1, 3]
        );
        assert!(
            shape_of(&SQUEEZE, 11, &[1, 3], None, vec![ints("axes", &[1])])
                .unwrap_err()
                .contains("length 3")
        );
    }

    #[test]
    fn unsqueeze_inserts_axes_of_length_one() {
        assert_eq!(
            shape_of(&UNSQUEEZE, 13, &[3, 4], Some(&[0, -1]), vec![]).unwrap(),
            [1, 3, 4, 1]
        );
        assert_eq!(
            shape_of(&UNSQUEEZE, 11, &[3], None, vec![ints("axes", &[1])]).unwrap(),
            [3, 1]
        );
        assert!(shape_of(&UNSQUEEZE, 13, &[3], None, vec![]).is_err());
    }
}
