//! ReduceMax and ReduceMin (versions 1, 11, 12, 13, 18, 20): the extreme over a set of axes,
//! NaN propagating. 11 allows negative axes, 12 adds int8/uint8, 13 bfloat16, 18 moves `axes`
//! to an optional second input known at build time and adds `noop_with_empty_axes`, 20 adds
//! bool. No axes means every axis; an empty reduced dimension gives the identity (-inf, the
//! type's minimum, false for Max).

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::attrs::{normalize_axes, reduced_shape};
use super::layout::{kept_order_preserved, merge, Run, FEW_LANES, SHORT_ROW};
use super::{Attr, AttrKind, Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::{Compute, Direction, NodeCode, Value};
use crate::tokens::{direction_tokens, elem_tokens, lit_usize};

/// ReduceMax or ReduceMin.
pub struct ReduceFamily {
    direction: Direction,
}

/// ReduceMax.
pub static REDUCE_MAX: ReduceFamily = ReduceFamily {
    direction: Direction::Max,
};

/// ReduceMin.
pub static REDUCE_MIN: ReduceFamily = ReduceFamily {
    direction: Direction::Min,
};

const AXES: Attr = Attr {
    name: "axes",
    kind: AttrKind::Ints,
};
const KEEPDIMS: Attr = Attr {
    name: "keepdims",
    kind: AttrKind::Flag,
};
const NOOP: Attr = Attr {
    name: "noop_with_empty_axes",
    kind: AttrKind::Flag,
};
const AXES_INPUT: Input = Input {
    name: "axes",
    optional: true,
    at_build_time: true,
};

impl Family for ReduceFamily {
    fn versions(&self) -> &'static [i64] {
        &[1, 11, 12, 13, 18, 20]
    }

    fn signature(&self, version: i64) -> Signature {
        if version >= 18 {
            Signature {
                inputs: &[Input::DATA, AXES_INPUT],
                attributes: &[KEEPDIMS, NOOP],
            }
        } else {
            Signature {
                inputs: &[Input::DATA],
                attributes: &[AXES, KEEPDIMS],
            }
        }
    }

    fn allows(&self, version: i64, dtype: DType) -> bool {
        use DType::*;
        match dtype {
            F32 | F64 | F16 | I32 | I64 | U32 | U64 => true,
            I8 | U8 => version >= 12,
            BF16 => version >= 13,
            Bool => version >= 20,
            I16 | U16 => false,
        }
    }

    fn type_note(&self, _version: i64, dtype: DType) -> &'static str {
        match dtype {
            DType::BF16 => " (BFLOAT16 arrives in opset 13)",
            DType::I8 | DType::U8 => " (INT8 and UINT8 arrive in opset 12)",
            DType::Bool => " (BOOL arrives in opset 20)",
            _ => "",
        }
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let (label, input) = (cx.label, super::data(cx)?);
        let shape = &input.shape;
        let listed: Option<Vec<i64>> = if cx.version >= 18 {
            match cx.constants.get(1).copied().flatten() {
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
            cx.attrs.ints("axes").map(<[i64]>::to_vec)
        };
        let keepdims = cx.attrs.flag("keepdims", true);
        let negative_ok = cx.version >= 11;
        let (axes, noop) = match listed.filter(|a| !a.is_empty()) {
            Some(a) => (normalize_axes(&a, shape.len(), negative_ok, label)?, false),
            None if cx.attrs.flag("noop_with_empty_axes", false) => (Vec::new(), true),
            None => ((0..shape.len()).collect(), false),
        };
        let out_shape = if noop {
            shape.clone()
        } else {
            reduced_shape(shape, &axes, keepdims)
        };
        let op = ReduceOp {
            direction: self.direction,
            axes,
            keepdims,
            noop,
            cast: None,
        };
        Ok(Resolved::Compute {
            op: Arc::new(op),
            dtype: input.dtype,
            shape: out_shape,
        })
    }
}

/// A resolved ReduceMax or ReduceMin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceOp {
    /// Max or Min.
    pub direction: Direction,
    /// The reduced axes, non-negative, sorted, distinct. Empty with `noop` means identity.
    pub axes: Vec<usize>,
    /// Keep reduced axes as size 1.
    pub keepdims: bool,
    /// `noop_with_empty_axes=1` with empty axes: the output is the input.
    pub noop: bool,
    /// When a Cast before or after the node was folded into it: the type the output is
    /// written in. The reduction runs in the input's own type into a tile on the stack, which
    /// is then converted (a monotone cast before a reduction commutes with it).
    pub cast: Option<DType>,
}

/// Output elements a reduction with a folded Cast keeps on the stack (up to 16 KiB).
const CAST_TILE: usize = 2048;

/// Whether a Cast from `from` to `to` keeps the order of values (never inverts two of them)
/// and turns NaN into NaN: then the extreme of the cast values is the cast extreme.
fn monotone(from: DType, to: DType) -> bool {
    from != DType::Bool && to != DType::Bool && (to.is_float() || from.widens_exactly_to(to))
}

/// How a reduction is computed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Plan {
    /// No axes with `noop_with_empty_axes`: a copy.
    Copy,
    /// The input is empty: the output is the reduction's identity.
    FillIdentity,
    /// Nested loops over the merged runs (outermost first), accumulating into the output.
    Runs(Vec<Run>),
}

impl ReduceOp {
    fn plan(&self, shape: &[usize]) -> Plan {
        if self.noop {
            Plan::Copy
        } else if shape.iter().product::<usize>() == 0 {
            Plan::FillIdentity
        } else {
            Plan::Runs(merge(shape, &self.axes))
        }
    }
}

impl Compute for ReduceOp {
    fn leading_kept_axes(&self, input: &Value) -> usize {
        // The axes before the first reduced one (none reduced: a copy, left alone).
        let _ = input;
        if self.noop {
            0
        } else {
            self.axes.first().copied().unwrap_or(0)
        }
    }

    fn reduced_leading_axes(&self, input: &Value) -> Option<usize> {
        let k = self.axes.len();
        let leading = self.axes.iter().enumerate().all(|(i, &a)| i == a);
        (!self.noop && self.cast.is_none() && k > 0 && leading && k < input.shape.len())
            .then_some(k)
    }

    fn emit_plane_part(&self, input: &Value, planes: usize, rt: &TokenStream) -> NodeCode {
        let t = elem_tokens(input.dtype, rt);
        let d = direction_tokens(self.direction, rt);
        let plane = lit_usize(input.numel() / planes.max(1));
        // Every plane's part read in one pass (NaN-propagating).
        NodeCode {
            body: quote! {
                #rt::node::reduce_parts::<#t, #d>(y, x, #plane, at);
            },
            plan: format!(
                "the extreme of the {planes} planes of `x` (along its first {}), element by \
                 element, over their elements `at..at + y.len()`",
                match self.axes.len() {
                    1 => "axis".to_string(),
                    k => format!("{k} axes"),
                }
            ),
        }
    }

    fn stem(&self) -> &'static str {
        match self.direction {
            Direction::Max => "reduce_max",
            Direction::Min => "reduce_min",
        }
    }

    fn resolved(&self, input: &Value) -> Option<String> {
        if self.noop {
            return Some("no axes with noop_with_empty_axes 1: a copy".to_string());
        }
        let which = if self.axes.len() == input.shape.len() && self.axes.len() > 1 {
            "all axes".to_string()
        } else {
            format!("axes {:?}", self.axes)
        };
        Some(format!("{which}, keepdims {}", u8::from(self.keepdims)))
    }

    fn over_cast(&self, from: DType, to: DType, cast: &Value) -> Option<Arc<dyn Compute>> {
        // An empty reduction gives the identity of the cast type, which is no cast of the
        // input type's identity: only tensors with elements.
        let out: usize = self.out_numel(&cast.shape);
        (self.cast.is_none()
            && !self.noop
            && cast.numel() > 0
            && out <= CAST_TILE
            && monotone(from, to))
        .then(|| {
            Arc::new(ReduceOp {
                cast: Some(to),
                ..self.clone()
            }) as Arc<dyn Compute>
        })
    }

    fn writes_cast(&self, to: DType, input: &Value) -> Option<Arc<dyn Compute>> {
        (self.cast.is_none() && self.out_numel(&input.shape) <= CAST_TILE).then(|| {
            Arc::new(ReduceOp {
                cast: Some(to),
                ..self.clone()
            }) as Arc<dyn Compute>
        })
    }

    fn over_permuted(&self, perm: &[usize], transposed: &Value) -> Option<Arc<dyn Compute>> {
        if self.noop || !kept_order_preserved(&transposed.shape, perm, &self.axes) {
            return None;
        }
        let mut axes: Vec<usize> = self.axes.iter().map(|&a| perm[a]).collect();
        axes.sort_unstable();
        Some(Arc::new(ReduceOp {
            axes,
            ..self.clone()
        }))
    }

    fn emit(&self, input: &Value, output: &Value, rt: &TokenStream) -> NodeCode {
        let code = self.emit_own(input, rt);
        let Some(to) = self.cast else {
            return code;
        };
        let t = elem_tokens(input.dtype, rt);
        let u = elem_tokens(to, rt);
        let n = lit_usize(output.numel());
        let body = code.body;
        NodeCode {
            body: quote! {
                let mut tile = [<#t as #rt::Element>::ZERO; #n];
                {
                    let y = &mut tile[..];
                    #body
                }
                #rt::node::cast::<#t, #u>(&tile, y);
            },
            plan: format!(
                "{} in {}, then written as {to} (a Cast folded into the node)",
                code.plan, input.dtype
            ),
        }
    }
}

impl ReduceOp {
    /// Elements of the output over an input of `shape`.
    fn out_numel(&self, shape: &[usize]) -> usize {
        if self.noop {
            return shape.iter().product();
        }
        reduced_shape(shape, &self.axes, self.keepdims)
            .iter()
            .product()
    }

    /// The body in the input's own type, over `x` and `y`.
    fn emit_own(&self, input: &Value, rt: &TokenStream) -> NodeCode {
        let k = quote!(#rt::node);
        let t = elem_tokens(input.dtype, rt);
        let d = direction_tokens(self.direction, rt);
        match self.plan(&input.shape) {
            Plan::Copy => NodeCode {
                body: quote!(#k::copy(y, x);),
                plan: "copy".to_string(),
            },
            Plan::FillIdentity => NodeCode {
                body: quote!(#k::fill(y, <#d as #rt::Direction>::identity::<#t>());),
                plan: "empty input: fill with the reduction's identity".to_string(),
            },
            Plan::Runs(runs) => {
                let (inner, fresh) = nest(&runs, rt, &t, &d);
                let words: Vec<String> = runs
                    .iter()
                    .map(|r| format!("{}{}", if r.reduced { "reduce " } else { "keep " }, r.size))
                    .collect();
                let plan = format!("reduction over merged runs [{}]", words.join(", "));
                if fresh {
                    NodeCode { body: inner, plan }
                } else {
                    NodeCode {
                        body: quote! {
                            #k::fill(y, <#d as #rt::Direction>::identity::<#t>());
                            #inner
                        },
                        plan: format!("{plan}, folded into the output a reduced block at a time"),
                    }
                }
            }
        }
    }
}

/// The loop nest of a reduction: outer loops over runs, then the innermost kernel, which also
/// takes the blocks of the kept run just outside it (when there is one) so that generated code
/// loops only over deeper nests. Also whether one call of the kernel covers every reduced run
/// (then it writes the output, a `reduce_*` shim; otherwise the nest loops over a reduced run
/// and folds into an output filled with the identity first, a `fold_*` shim).
fn nest(runs: &[Run], rt: &TokenStream, t: &TokenStream, d: &TokenStream) -> (TokenStream, bool) {
    let (k, node) = (quote!(#rt::kernels), quote!(#rt::node));
    let elems = |rs: &[Run]| rs.iter().map(|r| r.size).product::<usize>();
    let kept = |rs: &[Run]| {
        rs.iter()
            .filter(|r| !r.reduced)
            .map(|r| r.size)
            .product::<usize>()
    };
    // The innermost kernel takes the last kept run with the reduced run before it (all its rows
    // in one call, which keeps lanes in registers across rows), or the last reduced run
    // together with the kept run before it. `inner` is how many runs it covers.
    let inner = match runs {
        [.., a, b, c] if a.reduced && !b.reduced && c.reduced => 3,
        [.., before, last] if !last.reduced && before.reduced => 2,
        [] | [.., Run { reduced: false, .. }] => 1,
        [.., before, _] if !before.reduced => 2,
        [..] => 1,
    };
    let (outer, covered) = runs.split_at(runs.len() - inner.min(runs.len()));
    // The kept run just outside (before a kernel over lanes or planes) is its blocks.
    let outer = match outer {
        [rest @ .., Run { reduced: false, .. }] => rest,
        _ => outer,
    };
    let xs = lit_usize(elems(covered));
    let ys = lit_usize(kept(covered));
    let fresh = outer.iter().all(|r| !r.reduced);
    let shim = |name: &str| {
        let verb = if fresh { "reduce" } else { "fold" };
        proc_macro2::Ident::new(&format!("{verb}_{name}"), proc_macro2::Span::call_site())
    };
    let innermost = match covered {
        [a, _, c] => {
            let (planes, n, f) = (lit_usize(a.size), lit_usize(c.size), shim("planes"));
            quote!(#node::#f::<#t, #d, #n>(y, x, #planes, #xs, #ys);)
        }
        [_, last] if !last.reduced && last.size < FEW_LANES => {
            let (c, f) = (lit_usize(last.size), shim("lanes_narrow"));
            quote!(#node::#f::<#t, #d, #c, { #k::narrow_period(#c) }>(y, x, #xs);)
        }
        // Lanes: the kept run last (alone, or after a reduced one).
        c if c.last().is_none_or(|r| !r.reduced) => {
            let f = shim("lanes");
            quote!(#node::#f::<#t, #d>(y, x, #xs, #ys);)
        }
        [_, last] if last.size < SHORT_ROW => {
            let (n, f) = (lit_usize(last.size), shim("rows_short"));
            quote!(#node::#f::<#t, #d, #n>(y, x);)
        }
        // Rows: the reduced run last (the lanes arm above took an empty `covered`).
        c => {
            let (n, f) = (lit_usize(c.last().map_or(1, |r| r.size)), shim("rows"));
            quote!(#node::#f::<#t, #d>(y, x, #n);)
        }
    };
    let mut code = innermost;
    for (i, run) in outer.iter().enumerate().rev() {
        let rest = &runs[i + 1..];
        let xs = lit_usize(elems(rest));
        if run.reduced {
            code = quote! {
                for x in x.chunks_exact(#xs) {
                    #code
                }
            };
        } else {
            let ys = lit_usize(kept(rest));
            code = quote! {
                for (x, y) in x.chunks_exact(#xs).zip(y.chunks_exact_mut(#ys)) {
                    #code
                }
            };
        }
    }
    (code, fresh)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(axes: Vec<usize>, noop: bool) -> ReduceOp {
        ReduceOp {
            direction: Direction::Max,
            axes,
            keepdims: true,
            noop,
            cast: None,
        }
    }

    #[test]
    fn plans_copy_fill_or_runs() {
        assert_eq!(op(vec![], true).plan(&[2, 3]), Plan::Copy);
        assert_eq!(op(vec![1], false).plan(&[2, 0]), Plan::FillIdentity);
        assert_eq!(
            op(vec![1], false).plan(&[2, 3, 4]),
            Plan::Runs(vec![
                Run {
                    size: 2,
                    reduced: false
                },
                Run {
                    size: 3,
                    reduced: true
                },
                Run {
                    size: 4,
                    reduced: false
                }
            ])
        );
    }

    #[test]
    fn versions_and_types() {
        assert_eq!(REDUCE_MAX.version_at(19), Some(18));
        assert_eq!(REDUCE_MIN.version_at(28), Some(20));
        assert!(!REDUCE_MAX.allows(11, DType::U8) && REDUCE_MAX.allows(12, DType::U8));
        assert!(!REDUCE_MAX.allows(18, DType::Bool) && REDUCE_MAX.allows(20, DType::Bool));
        assert!(!REDUCE_MAX.allows(20, DType::I16));
        assert_eq!(REDUCE_MAX.signature(18).arity(), (1, 2));
        assert_eq!(REDUCE_MAX.signature(13).arity(), (1, 1));
    }
}
