//! The layout ops that move elements, as strided views of their input: Transpose (1, 13, 21,
//! 23, 24, 25; `perm`, default reversed) and Slice on data (1 with attributes; 10, 11, 13 with
//! `starts`, `ends`, `axes`, `steps` inputs known at build time; negative indices, clamping and
//! negative steps as the specification). A max-family node reading a Transpose reads the
//! Transpose's input with its axes mapped instead, when that keeps its output's layout (see
//! [`crate::fuse`]); otherwise the view is copied once by the runtime's `strided_copy`. On
//! constants both fold while generating code.

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::{Attr, AttrKind, Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::{Compute, NodeCode, Source, Tensor, Value};
use crate::tokens::lit_usize;

/// Transpose or Slice.
pub struct StridedFamily {
    slice: bool,
}

/// Transpose.
pub static TRANSPOSE: StridedFamily = StridedFamily { slice: false };
/// Slice.
pub static SLICE: StridedFamily = StridedFamily { slice: true };

const PERM: &[Attr] = &[Attr {
    name: "perm",
    kind: AttrKind::Ints,
}];
const SLICE_ATTRS: &[Attr] = &[
    Attr {
        name: "starts",
        kind: AttrKind::Ints,
    },
    Attr {
        name: "ends",
        kind: AttrKind::Ints,
    },
    Attr {
        name: "axes",
        kind: AttrKind::Ints,
    },
];

const fn known(name: &'static str, optional: bool) -> Input {
    Input {
        name,
        optional,
        at_build_time: true,
    }
}

impl Family for StridedFamily {
    fn versions(&self) -> &'static [i64] {
        if self.slice {
            &[1, 10, 11, 13]
        } else {
            &[1, 13, 21, 23, 24, 25]
        }
    }

    fn signature(&self, version: i64) -> Signature {
        const DATA: &[Input] = &[Input::DATA];
        const SLICE_IN: &[Input] = &[
            Input::DATA,
            known("starts", false),
            known("ends", false),
            known("axes", true),
            known("steps", true),
        ];
        match (self.slice, version) {
            (false, _) => Signature {
                inputs: DATA,
                attributes: PERM,
            },
            (true, 1) => Signature {
                inputs: DATA,
                attributes: SLICE_ATTRS,
            },
            (true, _) => Signature {
                inputs: SLICE_IN,
                attributes: &[],
            },
        }
    }

    fn allows(&self, _version: i64, _dtype: DType) -> bool {
        true
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let input = super::data(cx)?;
        let view = if self.slice {
            slice_view(cx, &input.shape)?
        } else {
            transpose_view(cx, &input.shape)?
        };
        if let Source::Constant(t) = &input.source {
            return Ok(Resolved::Constant(view.gather(t)));
        }
        Ok(Resolved::Compute {
            dtype: input.dtype,
            shape: view.shape.clone(),
            op: Arc::new(StridedOp {
                view,
                slice: self.slice,
            }),
        })
    }
}

/// A strided view: the output's shape, and for each output dimension the stride in the input
/// (in elements, negative for a reversed slice), from `offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The output's shape.
    pub shape: Vec<usize>,
    /// The input stride of each output dimension.
    pub strides: Vec<isize>,
    /// The input element of the output's first.
    pub offset: usize,
    /// For a Transpose, its permutation (output axis `i` is input axis `perm[i]`).
    pub perm: Option<Vec<usize>>,
}

fn row_major_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![1isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1] as isize;
    }
    strides
}

fn transpose_view(cx: &NodeCx<'_>, shape: &[usize]) -> Result<View, String> {
    let rank = shape.len();
    let perm: Vec<usize> = match cx.attrs.ints("perm") {
        None => (0..rank).rev().collect(),
        Some(p) => {
            let mut seen = vec![false; rank];
            let mut out = Vec::with_capacity(rank);
            for &a in p {
                let ok = usize::try_from(a).ok().filter(|&a| a < rank && !seen[a]);
                let Some(a) = ok else {
                    return Err(format!(
                        "{}: perm {p:?} is not a permutation of 0..{rank} (the input's axes); \
                         list each axis once",
                        cx.label
                    ));
                };
                seen[a] = true;
                out.push(a);
            }
            if out.len() != rank {
                return Err(format!(
                    "{}: perm {p:?} has {} entries for an input of rank {rank}",
                    cx.label,
                    out.len()
                ));
            }
            out
        }
    };
    let strides = row_major_strides(shape);
    Ok(View {
        shape: perm.iter().map(|&a| shape[a]).collect(),
        strides: perm.iter().map(|&a| strides[a]).collect(),
        offset: 0,
        perm: Some(perm),
    })
}

/// The build-time INT64 (or INT32) values of a Slice input.
fn ints(cx: &NodeCx<'_>, k: usize, name: &str) -> Result<Option<Vec<i64>>, String> {
    if cx.version == 1 {
        return Ok(cx.attrs.ints(name).map(<[i64]>::to_vec));
    }
    match cx.constants.get(k).copied().flatten() {
        None => Ok(None),
        Some(t) if t.shape.len() == 1 => t.to_i64s().map(Some).ok_or_else(|| {
            format!(
                "{}: {name} must be INT32 or INT64; it is {}",
                cx.label, t.dtype
            )
        }),
        Some(t) => Err(format!(
            "{}: {name} must be 1-D; it has shape {:?}",
            cx.label, t.shape
        )),
    }
}

fn slice_view(cx: &NodeCx<'_>, shape: &[usize]) -> Result<View, String> {
    let label = cx.label;
    let rank = shape.len();
    let starts = ints(cx, 1, "starts")?.unwrap_or_default();
    let ends = ints(cx, 2, "ends")?.unwrap_or_default();
    let axes = ints(cx, 3, "axes")?.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = ints(cx, 4, "steps")?.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err(format!(
            "{label}: starts {starts:?}, ends {ends:?}, axes {axes:?} and steps {steps:?} must \
             have one entry each per sliced axis"
        ));
    }
    let strides = row_major_strides(shape);
    let mut view = View {
        shape: shape.to_vec(),
        strides: strides.clone(),
        offset: 0,
        perm: None,
    };
    let axes = super::attrs::normalize_axes(&axes, rank, cx.version >= 10, label)?;
    // `normalize_axes` sorts; keep each axis with its own start, end and step.
    let listed = ints(cx, 3, "axes")?.unwrap_or_else(|| (0..starts.len() as i64).collect());
    for (k, &raw) in listed.iter().enumerate() {
        let axis = if raw < 0 { raw + rank as i64 } else { raw } as usize;
        debug_assert!(axes.contains(&axis));
        let dim = shape[axis] as i64;
        let step = steps[k];
        if step == 0 {
            return Err(format!(
                "{label}: steps {steps:?} has a 0; steps cannot be zero"
            ));
        }
        let norm = |v: i64| if v < 0 { v + dim } else { v };
        let (start, end) = if step > 0 {
            (norm(starts[k]).clamp(0, dim), norm(ends[k]).clamp(0, dim))
        } else {
            (
                norm(starts[k]).clamp(0, dim - 1),
                norm(ends[k]).clamp(-1, dim - 1),
            )
        };
        let len = if step > 0 {
            (end - start).max(0).div_euclid(step) + i64::from((end - start).max(0) % step != 0)
        } else {
            (start - end).max(0).div_euclid(-step) + i64::from((start - end).max(0) % -step != 0)
        };
        view.shape[axis] = len as usize;
        view.strides[axis] = strides[axis] * step as isize;
        if len > 0 {
            view.offset += start as usize * strides[axis] as usize;
        }
    }
    Ok(view)
}

impl View {
    /// The (size, stride) pairs of the runtime's `strided_copy`, with length-1 dimensions
    /// dropped and neighbours that read consecutively merged.
    pub fn runs(&self) -> Vec<(usize, isize)> {
        let mut runs: Vec<(usize, isize)> = Vec::new();
        for (&size, &stride) in self.shape.iter().zip(&self.strides) {
            if size == 1 {
                continue;
            }
            match runs.last_mut() {
                Some(last) if last.1 == stride * size as isize => {
                    *last = (last.0 * size, stride);
                }
                _ => runs.push((size, stride)),
            }
        }
        runs
    }

    /// The view of a constant, as a new constant.
    fn gather(&self, t: &Tensor) -> Tensor {
        let size = t.dtype.size();
        let numel: usize = self.shape.iter().product();
        let mut bytes = Vec::with_capacity(numel * size);
        for i in 0..numel {
            let mut rest = i;
            let mut at = self.offset as isize;
            for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
                at += (rest % d) as isize * s;
                rest /= d;
            }
            let at = at as usize * size;
            bytes.extend_from_slice(&t.bytes[at..at + size]);
        }
        Tensor {
            dtype: t.dtype,
            shape: self.shape.clone(),
            bytes,
        }
    }
}

/// A resolved Transpose or Slice: a strided copy of its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StridedOp {
    /// The view it takes.
    pub view: View,
    slice: bool,
}

impl Compute for StridedOp {
    fn stem(&self) -> &'static str {
        if self.slice {
            "slice"
        } else {
            "transpose"
        }
    }

    fn resolved(&self, _input: &Value) -> Option<String> {
        Some(match &self.view.perm {
            Some(p) => format!("perm {p:?}"),
            None => format!(
                "offset {}, strides {:?}",
                self.view.offset, self.view.strides
            ),
        })
    }

    fn permutation(&self) -> Option<&[usize]> {
        self.view.perm.as_deref()
    }

    fn alias_offset(&self) -> Option<usize> {
        // One contiguous run (or nothing): a view of the input from `offset`.
        match self.view.runs().as_slice() {
            [] | [(_, 1)] if self.view.perm.is_none() => Some(self.view.offset),
            _ => None,
        }
    }

    fn emit(&self, _input: &Value, _output: &Value, rt: &TokenStream) -> NodeCode {
        let runs = self.view.runs();
        let pairs = runs.iter().map(|&(size, stride)| {
            let size = lit_usize(size);
            let stride = proc_macro2::Literal::isize_unsuffixed(stride);
            quote!((#size, #stride))
        });
        let offset = lit_usize(self.view.offset);
        NodeCode {
            body: quote!(#rt::node::strided_copy(x, y, #offset, &[#(#pairs),*]);),
            plan: format!(
                "strided copy from offset {} over (size, stride) {runs:?}",
                self.view.offset
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Attributes;

    fn view(family: &StridedFamily, version: i64, shape: &[usize], inputs: &[&[i64]]) -> View {
        let node = crate::onnx::NodeProto::default();
        let attrs = Attributes::parse(&node, &family.signature(version), "n").unwrap();
        let tensors: Vec<Tensor> = inputs
            .iter()
            .map(|v| Tensor {
                dtype: DType::I64,
                shape: vec![v.len()],
                bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            })
            .collect();
        let mut constants: Vec<Option<&Tensor>> = vec![None];
        constants.extend(tensors.iter().map(Some));
        let cx = NodeCx {
            version,
            label: "n",
            attrs: &attrs,
            data: None,
            constants: &constants,
            input_dtypes: &[],
            output: 0,
        };
        if family.slice {
            slice_view(&cx, shape).unwrap()
        } else {
            transpose_view(&cx, shape).unwrap()
        }
    }

    #[test]
    fn transpose_reverses_by_default_and_merges_runs() {
        let v = view(&TRANSPOSE, 13, &[2, 3, 4], &[]);
        assert_eq!(v.shape, [4, 3, 2]);
        assert_eq!(v.strides, [1, 4, 12]);
        assert_eq!(v.runs(), [(4, 1), (3, 4), (2, 12)]);
        let t = Tensor {
            dtype: DType::I64,
            shape: vec![2, 3],
            bytes: (0..6i64).flat_map(|x| x.to_le_bytes()).collect(),
        };
        let tv = view(&TRANSPOSE, 13, &[2, 3], &[]);
        assert_eq!(tv.gather(&t).to_i64s().unwrap(), [0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn slice_clamps_counts_from_the_back_and_steps_backwards() {
        // p[:, 4:, :] of [1, 84, 8400]: a contiguous tail.
        let v = view(&SLICE, 13, &[1, 84, 8400], &[&[4], &[i64::MAX], &[1]]);
        assert_eq!((v.shape.clone(), v.offset), (vec![1, 80, 8400], 4 * 8400));
        assert_eq!(v.runs(), [(80 * 8400, 1)]);
        // x[::-2] of 6 elements: 5, 3, 1.
        let v = view(&SLICE, 13, &[6], &[&[-1], &[i64::MIN], &[0], &[-2]]);
        assert_eq!(
            (v.shape.clone(), v.offset, v.strides.clone()),
            (vec![3], 5, vec![-2])
        );
        // Out of range starts give an empty slice.
        let v = view(&SLICE, 13, &[6], &[&[10], &[20]]);
        assert_eq!(v.shape, [0]);
    }
}
