//! Hardmax: a 1 at the first maximum, 0 elsewhere.
//!
//! - Default domain, versions 1 and 11 (`axis`, default 1): the input viewed as
//!   `[prod(d[..axis]), prod(d[axis..])]`, one 1 per row of that view.
//! - Default domain, version 13 (`axis`, default -1): one 1 along one axis; adds bfloat16.
//! - Domain `onnx_aot`, version 1 (`axes`, default `[-1]`): one 1 per position of the other
//!   dimensions, at the first maximum in row-major order over the reduced axes (DirectML's
//!   multi-axis Hardmax).

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::attrs::{normalize_axes, normalize_axis};
use super::layout::{block, merge, FEW_LANES, SHORT_ROW};
use super::{Attr, AttrKind, Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::{Compute, NodeCode, Value};
use crate::tokens::lit_usize;

/// Which Hardmax: the default domain's (one axis) or `onnx_aot`'s (several axes).
pub struct HardmaxFamily {
    several_axes: bool,
}

/// Hardmax of the default domain.
pub static HARDMAX: HardmaxFamily = HardmaxFamily {
    several_axes: false,
};

/// Hardmax of the `onnx_aot` domain, over a set of axes.
pub static AOT_HARDMAX: HardmaxFamily = HardmaxFamily { several_axes: true };

const AXIS: Attr = Attr {
    name: "axis",
    kind: AttrKind::Int,
};
const AXES: Attr = Attr {
    name: "axes",
    kind: AttrKind::Ints,
};

impl Family for HardmaxFamily {
    fn versions(&self) -> &'static [i64] {
        if self.several_axes {
            &[1]
        } else {
            &[1, 11, 13]
        }
    }

    fn signature(&self, _version: i64) -> Signature {
        Signature {
            inputs: &[Input::DATA],
            attributes: if self.several_axes { &[AXES] } else { &[AXIS] },
        }
    }

    fn allows(&self, version: i64, dtype: DType) -> bool {
        match dtype {
            DType::F32 | DType::F64 | DType::F16 => true,
            DType::BF16 => self.several_axes || version >= 13,
            _ => false,
        }
    }

    fn type_note(&self, _version: i64, dtype: DType) -> &'static str {
        match dtype {
            DType::BF16 if !self.several_axes => " (BFLOAT16 arrives in opset 13)",
            _ => "",
        }
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let (label, input) = (cx.label, super::data(cx)?);
        let rank = input.shape.len();
        let (axes, form) = if self.several_axes {
            let listed = cx.attrs.ints("axes").unwrap_or(&[-1]);
            if listed.is_empty() {
                return Err(format!(
                    "{label}: attribute `axes` is empty; name at least one axis (default [-1])"
                ));
            }
            (normalize_axes(listed, rank, true, label)?, Form::Axes)
        } else {
            let default = if cx.version >= 13 { -1 } else { 1 };
            let axis = cx.attrs.int("axis").unwrap_or(default);
            let axis = normalize_axis(axis, rank, cx.version >= 11, "axis", label)?;
            if cx.version >= 13 {
                (vec![axis], Form::OneAxis)
            } else {
                ((axis..rank).collect(), Form::Coerced2d)
            }
        };
        Ok(Resolved::Compute {
            op: Arc::new(HardmaxOp { axes, form }),
            dtype: input.dtype,
            shape: input.shape.clone(),
        })
    }
}

/// Which rule a resolved Hardmax follows (for its docs; the axes say what it computes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Versions 1 and 11: the input viewed as 2-D at `axis`.
    Coerced2d,
    /// Version 13: one axis.
    OneAxis,
    /// `onnx_aot` domain: a set of axes.
    Axes,
}

/// A resolved Hardmax.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HardmaxOp {
    /// The reduced axes, non-negative, sorted, distinct (1 and 11: `axis..rank`).
    pub axes: Vec<usize>,
    /// The rule it came from.
    pub form: Form,
}

/// Rows of a [`Plan::FewRows`] (fewer than this many).
const FEW_ROWS: usize = 8;

/// The longest rows of a [`Plan::FewRows`] (the f32 row kernels' longest).
const MID_ROW: usize = 128;

/// How a Hardmax is computed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Plan {
    /// The input has no elements.
    Nothing,
    /// Contiguous rows of length `r`.
    Rows { r: usize },
    /// A few contiguous rows (under [`FEW_ROWS`]) of `r`, from [`SHORT_ROW`] to [`MID_ROW`]: a
    /// tiny model, where the row kernels' setup is most of the work.
    FewRows { r: usize },
    /// Blocks of `r` rows of `inner` lanes.
    Lanes { r: usize, inner: usize },
    /// Reduced axes that are not contiguous: explicit (size, stride) runs.
    General {
        kept: Vec<(usize, usize)>,
        reduced: Vec<(usize, usize)>,
    },
}

impl HardmaxOp {
    fn plan(&self, shape: &[usize]) -> Plan {
        let total = shape.iter().product::<usize>();
        if total == 0 {
            return Plan::Nothing;
        }
        let runs = merge(shape, &self.axes);
        match block(&runs) {
            Some((r, 1)) if (SHORT_ROW..=MID_ROW).contains(&r) && total < FEW_ROWS * r => {
                Plan::FewRows { r }
            }
            Some((r, 1)) => Plan::Rows { r },
            Some((r, inner)) => Plan::Lanes { r, inner },
            None => {
                let mut kept = Vec::new();
                let mut reduced = Vec::new();
                let mut stride = 1;
                for run in runs.iter().rev() {
                    let entry = (run.size, stride);
                    if run.reduced {
                        reduced.insert(0, entry);
                    } else {
                        kept.insert(0, entry);
                    }
                    stride *= run.size;
                }
                Plan::General { kept, reduced }
            }
        }
    }
}

impl Compute for HardmaxOp {
    fn leading_kept_axes(&self, input: &Value) -> usize {
        let _ = input;
        self.axes.first().copied().unwrap_or(0)
    }

    fn stem(&self) -> &'static str {
        "hardmax"
    }

    fn resolved(&self, input: &Value) -> Option<String> {
        let first = self.axes.first().copied().unwrap_or(0);
        Some(match self.form {
            Form::Coerced2d => {
                let rows: usize = input.shape[..first].iter().product();
                let cols: usize = input.shape[first..].iter().product();
                format!("axis {first} (the input viewed as [{rows}, {cols}])")
            }
            Form::OneAxis => format!("axis {first}"),
            Form::Axes => format!("axes {:?}", self.axes),
        })
    }

    fn one_hot_axis(&self, input: &Value) -> Option<usize> {
        // One 1 per position of the other axes: along one axis when every other reduced axis
        // has length 1.
        let wide: Vec<usize> = self
            .axes
            .iter()
            .copied()
            .filter(|&a| input.shape.get(a).is_some_and(|&d| d != 1))
            .collect();
        match wide.as_slice() {
            [axis] => Some(*axis),
            _ => None,
        }
    }

    fn emit(&self, input: &Value, _output: &Value, rt: &TokenStream) -> NodeCode {
        let (k, node) = (quote!(#rt::kernels), quote!(#rt::node));
        match self.plan(&input.shape) {
            Plan::Nothing => NodeCode {
                body: quote!(),
                plan: "nothing to compute (empty output)".to_string(),
            },
            Plan::Rows { r } if r < SHORT_ROW => {
                let n = lit_usize(r);
                NodeCode {
                    body: quote!(#node::hardmax_rows_short::<_, #n>(x, y);),
                    plan: format!("hardmax over contiguous short rows of {r}, unrolled"),
                }
            }
            Plan::FewRows { r } => {
                let n = lit_usize(r);
                NodeCode {
                    body: quote!(#node::hardmax_rows_few::<_, #n>(x, y);),
                    plan: format!("hardmax over a few contiguous rows of {r}"),
                }
            }
            Plan::Rows { r } => {
                let n = lit_usize(r);
                NodeCode {
                    body: quote!(#node::hardmax_rows(x, y, #n);),
                    plan: format!("hardmax over contiguous rows of {r}"),
                }
            }
            Plan::Lanes { r, inner } if inner < FEW_LANES => {
                let rows = lit_usize(r);
                let size = lit_usize(input.dtype.size());
                let lanes = lit_usize(inner);
                let period = quote!({ #k::narrow_period(#lanes) });
                let tile = quote!({ #k::arg_tile(#k::narrow_period(#lanes), #size) });
                NodeCode {
                    body: quote! {
                        #node::hardmax_blocks_narrow::<_, #lanes, #period, #tile>(x, y, #rows);
                    },
                    plan: format!("hardmax over {r} rows of {inner} lanes, several rows at a time"),
                }
            }
            Plan::Lanes { r, inner } => {
                let (rows, lanes) = (lit_usize(r), lit_usize(inner));
                NodeCode {
                    body: quote!(#node::hardmax_blocks(x, y, #rows, #lanes);),
                    plan: format!("hardmax over {r} rows of {inner} lanes"),
                }
            }
            Plan::General { kept, reduced } => {
                let pairs = |v: &[(usize, usize)]| {
                    let items = v.iter().map(|&(s, st)| {
                        let (s, st) = (lit_usize(s), lit_usize(st));
                        quote!((#s, #st))
                    });
                    quote!(&[#(#items),*])
                };
                let (k_runs, r_runs) = (pairs(&kept), pairs(&reduced));
                NodeCode {
                    body: quote!(#node::hardmax_general(x, y, #k_runs, #r_runs);),
                    plan: format!(
                        "hardmax over strided axes, kept {kept:?}, reduced {reduced:?} (size, \
                         stride)"
                    ),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hm(axes: Vec<usize>) -> HardmaxOp {
        HardmaxOp {
            axes,
            form: Form::Axes,
        }
    }

    #[test]
    fn plans_rows_lanes_or_general() {
        assert_eq!(hm(vec![2]).plan(&[2, 3, 4]), Plan::Rows { r: 4 });
        assert_eq!(hm(vec![1]).plan(&[2, 3, 4]), Plan::Lanes { r: 3, inner: 4 });
        assert_eq!(hm(vec![1, 2]).plan(&[2, 3, 4]), Plan::Rows { r: 12 });
        // A tiny model's few rows of 32 to 128; more rows, or longer or shorter ones, as rows.
        assert_eq!(hm(vec![1]).plan(&[7, 40]), Plan::FewRows { r: 40 });
        assert_eq!(hm(vec![1]).plan(&[1, 128]), Plan::FewRows { r: 128 });
        assert_eq!(hm(vec![1]).plan(&[8, 40]), Plan::Rows { r: 40 });
        assert_eq!(hm(vec![1]).plan(&[2, 129]), Plan::Rows { r: 129 });
        assert_eq!(hm(vec![1]).plan(&[2, 31]), Plan::Rows { r: 31 });
        assert_eq!(
            hm(vec![0, 2]).plan(&[2, 3, 4]),
            Plan::General {
                kept: vec![(3, 4)],
                reduced: vec![(2, 12), (4, 1)]
            }
        );
        assert_eq!(hm(vec![1]).plan(&[2, 0, 4]), Plan::Nothing);
    }

    #[test]
    fn onnx_aot_hardmax_takes_every_float_type_and_one_version() {
        assert_eq!(AOT_HARDMAX.versions(), &[1]);
        assert!(AOT_HARDMAX.allows(1, DType::BF16));
        assert!(!HARDMAX.allows(11, DType::BF16) && HARDMAX.allows(13, DType::BF16));
        assert!(!AOT_HARDMAX.allows(1, DType::I32));
        assert_eq!(AOT_HARDMAX.signature(1).attributes, &[AXES]);
    }
}
