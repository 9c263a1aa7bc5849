//! Shape arithmetic, evaluated while generating code (SEMANTICS.md, "Glue ops"): exporters
//! compute target shapes from `Shape` with Gather, Concat, ConstantOfShape and the four
//! arithmetic ops; none of it runs at run time. Shape reads only its input's (static) shape;
//! every other op here needs every input known at build time (initializers, Constant nodes,
//! bound graph inputs, or other shape arithmetic), and an input computed at run time is an error
//! saying so.
//!
//! - Shape 1, 13, 15 (`start`, `end`), 19, 21, 23, 24, 25.
//! - Gather 1, 11, 13 (`axis`; negative indices count from the back).
//! - Concat 1, 4, 11, 13 (`axis`), up to [`CONCAT_INPUTS`] inputs.
//! - ConstantOfShape 9, 20, 21, 23, 24, 25 (`value`, a one-element tensor, default float 0).
//! - Add, Sub, Mul, Div 1, 6, 7, 13, 14 on INT64 (and INT32) tensors, with numpy broadcasting;
//!   Div truncates toward zero, and a division by zero is an error.

use super::{Attr, AttrKind, Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::Tensor;

/// Which op of shape arithmetic a family serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Shape,
    Gather,
    Concat,
    ConstantOfShape,
    Arith(Arith),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

/// One op of shape arithmetic.
pub struct ShapeMathFamily(Kind);

/// Shape.
pub static SHAPE: ShapeMathFamily = ShapeMathFamily(Kind::Shape);
/// Gather (on tensors known at build time).
pub static GATHER: ShapeMathFamily = ShapeMathFamily(Kind::Gather);
/// Concat (on tensors known at build time).
pub static CONCAT: ShapeMathFamily = ShapeMathFamily(Kind::Concat);
/// ConstantOfShape.
pub static CONSTANT_OF_SHAPE: ShapeMathFamily = ShapeMathFamily(Kind::ConstantOfShape);
/// Add (on tensors known at build time).
pub static ADD: ShapeMathFamily = ShapeMathFamily(Kind::Arith(Arith::Add));
/// Sub (on tensors known at build time).
pub static SUB: ShapeMathFamily = ShapeMathFamily(Kind::Arith(Arith::Sub));
/// Mul (on tensors known at build time).
pub static MUL: ShapeMathFamily = ShapeMathFamily(Kind::Arith(Arith::Mul));
/// Div (on tensors known at build time).
pub static DIV: ShapeMathFamily = ShapeMathFamily(Kind::Arith(Arith::Div));

/// The most inputs a Concat may have here.
pub const CONCAT_INPUTS: usize = 32;

const fn known(name: &'static str, optional: bool) -> Input {
    Input {
        name,
        optional,
        at_build_time: true,
    }
}

const fn attr(name: &'static str, kind: AttrKind) -> Attr {
    Attr { name, kind }
}

const START_END: &[Attr] = &[attr("start", AttrKind::Int), attr("end", AttrKind::Int)];
const AXIS: &[Attr] = &[attr("axis", AttrKind::Int)];
const VALUE: &[Attr] = &[attr("value", AttrKind::Tensor)];
const LEGACY: &[Attr] = &[
    attr("broadcast", AttrKind::Int),
    attr("axis", AttrKind::Int),
    attr("consumed_inputs", AttrKind::Ints),
];

/// Concat's inputs: one required, the rest optional (all known at build time).
static CONCAT_SIGNATURE: [Input; CONCAT_INPUTS] = {
    let mut inputs = [known("inputs", true); CONCAT_INPUTS];
    inputs[0] = known("inputs", false);
    inputs
};

impl Family for ShapeMathFamily {
    fn versions(&self) -> &'static [i64] {
        match self.0 {
            Kind::Shape => &[1, 13, 15, 19, 21, 23, 24, 25],
            Kind::Gather => &[1, 11, 13],
            Kind::Concat => &[1, 4, 11, 13],
            Kind::ConstantOfShape => &[9, 20, 21, 23, 24, 25],
            Kind::Arith(_) => &[1, 6, 7, 13, 14],
        }
    }

    fn signature(&self, version: i64) -> Signature {
        const DATA: &[Input] = &[Input::DATA];
        const TWO: &[Input] = &[known("A", false), known("B", false)];
        const GATHER_IN: &[Input] = &[known("data", false), known("indices", false)];
        const SHAPE_IN: &[Input] = &[known("input", false)];
        let (inputs, attributes): (&'static [Input], &'static [Attr]) = match self.0 {
            Kind::Shape if version >= 15 => (DATA, START_END),
            Kind::Shape => (DATA, &[]),
            Kind::Gather => (GATHER_IN, AXIS),
            Kind::Concat => (&CONCAT_SIGNATURE, AXIS),
            Kind::ConstantOfShape => (SHAPE_IN, VALUE),
            // Versions before 7 carry the legacy broadcast attributes.
            Kind::Arith(_) if version < 7 => (TWO, LEGACY),
            Kind::Arith(_) => (TWO, &[]),
        };
        Signature { inputs, attributes }
    }

    fn allows(&self, _version: i64, _dtype: DType) -> bool {
        true
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let known: Vec<&Tensor> = cx.constants.iter().flatten().copied().collect();
        let t = match self.0 {
            Kind::Shape => shape(cx)?,
            Kind::Gather => gather(cx, known[0], known[1])?,
            Kind::Concat => concat(cx, &known)?,
            Kind::ConstantOfShape => constant_of_shape(cx, known[0])?,
            Kind::Arith(op) => arith(cx, op, known[0], known[1])?,
        };
        Ok(Resolved::Constant(t))
    }
}

fn i64_tensor(shape: Vec<usize>, values: &[i64]) -> Tensor {
    Tensor {
        dtype: DType::I64,
        shape,
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

fn shape(cx: &NodeCx<'_>) -> Result<Tensor, String> {
    let input = super::data(cx)?;
    let rank = input.shape.len() as i64;
    // From 15, `start` and `end` slice the shape (negative from the back, clamped).
    let clamp = |v: i64| (if v < 0 { v + rank } else { v }).clamp(0, rank) as usize;
    let start = clamp(cx.attrs.int("start").unwrap_or(0));
    let end = clamp(cx.attrs.int("end").unwrap_or(rank));
    let dims: Vec<i64> = input.shape[start..end.max(start)]
        .iter()
        .map(|&d| d as i64)
        .collect();
    Ok(i64_tensor(vec![dims.len()], &dims))
}

/// The elements of a tensor as byte chunks.
fn elements(t: &Tensor) -> std::slice::ChunksExact<'_, u8> {
    t.bytes.chunks_exact(t.dtype.size())
}

fn gather(cx: &NodeCx<'_>, data: &Tensor, indices: &Tensor) -> Result<Tensor, String> {
    let label = cx.label;
    let rank = data.shape.len();
    let axis =
        super::attrs::normalize_axis(cx.attrs.int("axis").unwrap_or(0), rank, true, "axis", label)?;
    let idx = indices.to_i64s().ok_or_else(|| {
        format!(
            "{label}: the indices must be INT32 or INT64; they are {}",
            indices.dtype
        )
    })?;
    let n = data.shape[axis] as i64;
    let outer: usize = data.shape[..axis].iter().product();
    let inner: usize = data.shape[axis + 1..].iter().product();
    let size = data.dtype.size();
    let mut bytes = Vec::with_capacity(outer * idx.len() * inner * size);
    for o in 0..outer {
        for &i in &idx {
            let j = if i < 0 { i + n } else { i };
            if !(0..n).contains(&j) {
                return Err(format!(
                    "{label}: index {i} is out of range for axis {axis} of length {n}"
                ));
            }
            let start = ((o * n as usize + j as usize) * inner) * size;
            bytes.extend_from_slice(&data.bytes[start..start + inner * size]);
        }
    }
    let mut shape = data.shape[..axis].to_vec();
    shape.extend(&indices.shape);
    shape.extend(&data.shape[axis + 1..]);
    Ok(Tensor {
        dtype: data.dtype,
        shape,
        bytes,
    })
}

fn concat(cx: &NodeCx<'_>, parts: &[&Tensor]) -> Result<Tensor, String> {
    let label = cx.label;
    let first = parts[0];
    let rank = first.shape.len();
    let Some(axis) = cx.attrs.int("axis").or((cx.version == 1).then_some(1)) else {
        return Err(format!("{label}: Concat needs its `axis` attribute"));
    };
    let axis = super::attrs::normalize_axis(axis, rank, cx.version >= 11, "axis", label)?;
    for p in parts {
        let same = p.dtype == first.dtype
            && p.shape.len() == rank
            && (0..rank).all(|i| i == axis || p.shape[i] == first.shape[i]);
        if !same {
            return Err(format!(
                "{label}: the inputs must have one type and the same shape off axis {axis}; \
                 {} {:?} and {} {:?} differ",
                first.dtype, first.shape, p.dtype, p.shape
            ));
        }
    }
    let outer: usize = first.shape[..axis].iter().product();
    let size = first.dtype.size();
    let mut bytes = Vec::new();
    for o in 0..outer {
        for p in parts {
            let chunk = p.shape[axis..].iter().product::<usize>() * size;
            bytes.extend_from_slice(&p.bytes[o * chunk..(o + 1) * chunk]);
        }
    }
    let mut shape = first.shape.clone();
    shape[axis] = parts.iter().map(|p| p.shape[axis]).sum();
    Ok(Tensor {
        dtype: first.dtype,
        shape,
        bytes,
    })
}

fn constant_of_shape(cx: &NodeCx<'_>, shape_t: &Tensor) -> Result<Tensor, String> {
    let label = cx.label;
    let dims = shape_t
        .to_i64s()
        .filter(|_| shape_t.dtype == DType::I64)
        .ok_or_else(|| format!("{label}: the shape input must be INT64"))?;
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        return Err(format!(
            "{label}: shape {dims:?} has the negative dimension {d}"
        ));
    }
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    crate::limits::check_folded(label, "ConstantOfShape's output", &shape, 8)?;
    let numel = crate::tensor::checked_numel(&shape)
        .filter(|&n| n as u128 * 8 <= crate::limits::MAX_TENSOR_BYTES)
        .ok_or_else(|| format!("{label}: shape {dims:?} is too large"))?;
    let value = match cx.attrs.get("value").and_then(|a| a.t.as_ref()) {
        Some(t) => crate::tensor::tensor_from_proto(t, "the value attribute")
            .map_err(|e| format!("{label}: {e}"))?,
        None => Tensor {
            dtype: DType::F32,
            shape: vec![1],
            bytes: 0f32.to_le_bytes().to_vec(),
        },
    };
    if value.bytes.len() != value.dtype.size() {
        return Err(format!(
            "{label}: the value attribute must hold one element; it has shape {:?}",
            value.shape
        ));
    }
    Ok(Tensor {
        dtype: value.dtype,
        bytes: value.bytes.repeat(numel),
        shape,
    })
}

/// The broadcast shape of two shapes (numpy rules), if they broadcast.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let at = |s: &[usize], i: usize| (i + s.len()).checked_sub(rank).map_or(1, |k| s[k]);
    (0..rank)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// The flat index into a tensor of `shape` of the element that broadcasts to `i` of `out`.
fn source_index(mut i: usize, out: &[usize], shape: &[usize]) -> usize {
    let mut idx = 0;
    let mut stride = 1;
    for (k, &d) in out.iter().enumerate().rev() {
        let pos = i % d;
        i /= d;
        if let Some(s) = (k + shape.len()).checked_sub(out.len()).map(|j| shape[j]) {
            if s != 1 {
                idx += pos * stride;
            }
            stride *= s;
        }
    }
    idx
}

fn arith(cx: &NodeCx<'_>, op: Arith, a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    let label = cx.label;
    if a.dtype != b.dtype || !matches!(a.dtype, DType::I64 | DType::I32) {
        return Err(format!(
            "{label}: onnx-aot evaluates this op only as shape arithmetic, on INT64 or INT32 \
             tensors known at build time; its inputs are {} and {}",
            a.dtype, b.dtype
        ));
    }
    let shape = broadcast(&a.shape, &b.shape).ok_or_else(|| {
        format!(
            "{label}: shapes {:?} and {:?} do not broadcast",
            a.shape, b.shape
        )
    })?;
    crate::limits::check_folded(label, "the result", &shape, a.dtype.size())?;
    let (x, y) = (
        a.to_i64s().unwrap_or_default(),
        b.to_i64s().unwrap_or_default(),
    );
    let numel: usize = shape.iter().product();
    let mut out = Vec::with_capacity(numel);
    for i in 0..numel {
        let (p, q) = (
            x[source_index(i, &shape, &a.shape)],
            y[source_index(i, &shape, &b.shape)],
        );
        out.push(match op {
            Arith::Add => p.wrapping_add(q),
            Arith::Sub => p.wrapping_sub(q),
            Arith::Mul => p.wrapping_mul(q),
            Arith::Div if q == 0 => {
                return Err(format!(
                    "{label}: a division by zero ({p} / 0) at build time"
                ))
            }
            Arith::Div => p.wrapping_div(q),
        });
    }
    let t = i64_tensor(shape, &out);
    Ok(if a.dtype == DType::I32 {
        Tensor {
            dtype: DType::I32,
            bytes: elements(&t)
                .flat_map(|c| [c[0], c[1], c[2], c[3]])
                .collect(),
            ..t
        }
    } else {
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Source, Value};
    use crate::ops::Attributes;

    fn ints(shape: &[usize], v: &[i64]) -> Tensor {
        i64_tensor(shape.to_vec(), v)
    }

    fn eval(
        family: &ShapeMathFamily,
        version: i64,
        data: Option<&Value>,
        inputs: &[&Tensor],
        attrs: Vec<crate::onnx::AttributeProto>,
    ) -> Result<Tensor, String> {
        let node = crate::onnx::NodeProto {
            attribute: attrs,
            ..Default::default()
        };
        let attrs = Attributes::parse(&node, &family.signature(version), "node").unwrap();
        let constants: Vec<Option<&Tensor>> = inputs.iter().map(|t| Some(*t)).collect();
        let cx = NodeCx {
            version,
            label: "node",
            attrs: &attrs,
            data,
            constants: &constants,
            input_dtypes: &[],
            output: 0,
        };
        match family.resolve(&cx)? {
            Resolved::Constant(t) => Ok(t),
            Resolved::Compute { .. } => unreachable!(),
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
    fn shape_reads_the_static_shape_sliced_from_15() {
        let x = Value {
            name: "x".into(),
            dtype: DType::F32,
            shape: vec![2, 3, 4],
            source: Source::Input(0),
        };
        let t = eval(&SHAPE, 13, Some(&x), &[], vec![]).unwrap();
        assert_eq!(t.to_i64s().unwrap(), [2, 3, 4]);
        let t = eval(&SHAPE, 15, Some(&x), &[], vec![int("start", -2)]).unwrap();
        assert_eq!(t.to_i64s().unwrap(), [3, 4]);
    }

    #[test]
    fn gather_picks_along_an_axis() {
        let s = ints(&[3], &[2, 3, 4]);
        let g = eval(&GATHER, 13, None, &[&s, &ints(&[], &[-1])], vec![]).unwrap();
        assert_eq!((g.shape.clone(), g.to_i64s().unwrap()), (vec![], vec![4]));
        let g = eval(&GATHER, 13, None, &[&s, &ints(&[2], &[0, 2])], vec![]).unwrap();
        assert_eq!(g.to_i64s().unwrap(), [2, 4]);
        assert!(eval(&GATHER, 13, None, &[&s, &ints(&[], &[3])], vec![])
            .unwrap_err()
            .contains("out of range"));
    }

    #[test]
    fn concat_joins_along_its_axis() {
        let parts = [&ints(&[1], &[6]), &ints(&[1], &[-1])];
        let c = eval(&CONCAT, 13, None, &parts, vec![int("axis", 0)]).unwrap();
        assert_eq!(c.to_i64s().unwrap(), [6, -1]);
        let m = [&ints(&[2, 1], &[1, 2]), &ints(&[2, 2], &[3, 4, 5, 6])];
        let c = eval(&CONCAT, 13, None, &m, vec![int("axis", -1)]).unwrap();
        assert_eq!(
            (c.shape.clone(), c.to_i64s().unwrap()),
            (vec![2, 3], vec![1, 3, 4, 2, 5, 6])
        );
    }

    #[test]
    fn mul_scales_shape_tensors() {
        let s = ints(&[3], &[2, 3, 4]);
        let m = eval(&MUL, 14, None, &[&s, &ints(&[], &[2])], vec![]).unwrap();
        assert_eq!(m.to_i64s().unwrap(), [4, 6, 8]);
    }

    #[test]
    fn div_truncates_toward_zero() {
        let s = ints(&[3], &[2, 3, 4]);
        let d = eval(
            &DIV,
            14,
            None,
            &[&ints(&[2], &[7, -7]), &ints(&[1], &[2])],
            vec![],
        )
        .unwrap();
        assert_eq!(d.to_i64s().unwrap(), [3, -3]);
        assert!(eval(&DIV, 14, None, &[&s, &ints(&[], &[0])], vec![])
            .unwrap_err()
            .contains("division by zero"));
        let f = Tensor {
            dtype: DType::F32,
            shape: vec![1],
            bytes: vec![0; 4],
        };
        assert!(eval(&MUL, 14, None, &[&f, &f], vec![])
            .unwrap_err()
            .contains("INT64"));
    }

    #[test]
    fn constantofshape_fills_the_shape_with_its_value() {
        let t = eval(&CONSTANT_OF_SHAPE, 9, None, &[&ints(&[2], &[2, 3])], vec![]).unwrap();
        assert_eq!(
            (t.dtype, t.shape.clone(), t.bytes.len()),
            (DType::F32, vec![2, 3], 24)
        );
        assert!(t.bytes.iter().all(|&b| b == 0));
    }

    #[test]
    fn add_broadcasts_like_numpy() {
        let a = ints(&[2, 1], &[10, 20]);
        let b = ints(&[3], &[1, 2, 3]);
        let t = eval(&ADD, 14, None, &[&a, &b], vec![]).unwrap();
        assert_eq!(t.shape, [2, 3]);
        assert_eq!(t.to_i64s().unwrap(), [11, 12, 13, 21, 22, 23]);
        assert!(broadcast(&[2, 3], &[4]).is_none());
    }

    #[test]
    fn sub_broadcasts_like_numpy() {
        let a = ints(&[2, 1], &[10, 20]);
        let b = ints(&[3], &[1, 2, 3]);
        let t = eval(&SUB, 14, None, &[&a, &b], vec![]).unwrap();
        assert_eq!(t.to_i64s().unwrap(), [9, 8, 7, 19, 18, 17]);
        assert!(broadcast(&[2, 3], &[4]).is_none());
    }
}
