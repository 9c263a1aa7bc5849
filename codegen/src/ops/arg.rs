//! ArgMax and ArgMin (versions 1, 11, 12, 13): the index of the extreme along one axis, as
//! int64. 11 allows negative axes, 12 adds `select_last_index`, 13 adds bfloat16. Ties go to the
//! first index (the last with `select_last_index=1`), and a NaN beats every number.

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::attrs::{normalize_axis, reduced_shape};
use super::layout::{kept_order_preserved, FEW_LANES, SHORT_ROW};
use super::reduce::ReduceOp;
use super::{Attr, AttrKind, Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::{Compute, Direction, NodeCode, Value};
use crate::tokens::{direction_tokens, elem_tokens, lit_usize};

/// ArgMax or ArgMin.
pub struct ArgFamily {
    direction: Direction,
}

/// ArgMax.
pub static ARG_MAX: ArgFamily = ArgFamily {
    direction: Direction::Max,
};

/// ArgMin.
pub static ARG_MIN: ArgFamily = ArgFamily {
    direction: Direction::Min,
};

const AXIS: Attr = Attr {
    name: "axis",
    kind: AttrKind::Int,
};
const KEEPDIMS: Attr = Attr {
    name: "keepdims",
    kind: AttrKind::Flag,
};
const SELECT_LAST_INDEX: Attr = Attr {
    name: "select_last_index",
    kind: AttrKind::Flag,
};

impl Family for ArgFamily {
    fn versions(&self) -> &'static [i64] {
        &[1, 11, 12, 13]
    }

    fn signature(&self, version: i64) -> Signature {
        Signature {
            inputs: &[Input::DATA],
            attributes: if version >= 12 {
                &[AXIS, KEEPDIMS, SELECT_LAST_INDEX]
            } else {
                &[AXIS, KEEPDIMS]
            },
        }
    }

    fn allows(&self, version: i64, dtype: DType) -> bool {
        use DType::*;
        match dtype {
            F32 | F64 | F16 | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 => true,
            BF16 => version >= 13,
            Bool => false,
        }
    }

    fn type_note(&self, _version: i64, dtype: DType) -> &'static str {
        match dtype {
            DType::BF16 => " (BFLOAT16 arrives in opset 13)",
            _ => "",
        }
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let (label, input) = (cx.label, super::data(cx)?);
        let shape = &input.shape;
        let rank = shape.len();
        if rank == 0 {
            return Err(format!(
                "{label}: input {:?} is a scalar (rank 0); {} needs an axis to reduce",
                input.name,
                match self.direction {
                    Direction::Max => "ArgMax",
                    Direction::Min => "ArgMin",
                }
            ));
        }
        let negative_ok = cx.version >= 11;
        let axis = cx.attrs.int("axis").unwrap_or(0);
        let axis = normalize_axis(axis, rank, negative_ok, "axis", label)?;
        if shape[axis] == 0 {
            let other = if rank > 1 {
                ", or reduce over another axis"
            } else {
                ""
            };
            return Err(format!(
                "{label}: axis {axis} of input {:?} (shape {shape:?}) has length 0; the index of \
                 an extreme over an empty axis is undefined: give axis {axis} a non-zero size in \
                 the model{other}",
                input.name
            ));
        }
        let keepdims = cx.attrs.flag("keepdims", true);
        let op = ArgOp {
            direction: self.direction,
            axis,
            keepdims,
            select_last_index: cx.attrs.flag("select_last_index", false),
            version: cx.version,
            rounded: None,
            index: DType::I64,
        };
        Ok(Resolved::Compute {
            op: Arc::new(op),
            dtype: DType::I64,
            shape: reduced_shape(shape, &[axis], keepdims),
        })
    }
}

/// A resolved ArgMax or ArgMin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgOp {
    /// Max or Min.
    pub direction: Direction,
    /// The axis, non-negative.
    pub axis: usize,
    /// Keep the reduced axis as size 1.
    pub keepdims: bool,
    /// On ties (and among NaNs), pick the last index instead of the first.
    pub select_last_index: bool,
    /// The op version (from 12 the docs show `select_last_index`).
    pub version: i64,
    /// When a Cast to a narrower float type was folded into the read: that type. The input
    /// keeps its own type and is compared as rounded to this one (`kernels::arg_row_rounded`).
    pub rounded: Option<DType>,
    /// The type the indices are written in: INT64, or the target of a Cast that followed the
    /// node and was folded into its writes (`.to(torch.int32)`).
    pub index: DType,
}

/// How an arg-reduction is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// The output has no elements.
    Nothing,
    /// The axis is innermost: contiguous rows of length `r`.
    Rows { r: usize },
    /// Blocks of `r` rows of `inner` lanes (the product of the dims after the axis).
    Lanes { r: usize, inner: usize },
}

impl ArgOp {
    /// The reduction of the same direction, for plans of fused nodes.
    fn reduction_name(&self) -> &'static str {
        match self.direction {
            Direction::Max => "ReduceMax",
            Direction::Min => "ReduceMin",
        }
    }

    fn plan(&self, shape: &[usize]) -> Plan {
        if shape.iter().product::<usize>() == 0 {
            return Plan::Nothing;
        }
        let r = shape[self.axis];
        let inner: usize = shape[self.axis + 1..].iter().product();
        if inner == 1 {
            Plan::Rows { r }
        } else {
            Plan::Lanes { r, inner }
        }
    }
}

impl Compute for ArgOp {
    fn leading_kept_axes(&self, input: &Value) -> usize {
        let _ = input;
        self.axis
    }

    fn stem(&self) -> &'static str {
        match self.direction {
            Direction::Max => "argmax",
            Direction::Min => "argmin",
        }
    }

    fn resolved(&self, _input: &Value) -> Option<String> {
        let mut r = format!("axis {}, keepdims {}", self.axis, u8::from(self.keepdims));
        if self.version >= 12 {
            r += &format!(", select_last_index {}", u8::from(self.select_last_index));
        }
        if let Some(to) = self.rounded {
            r += &format!("; the input compared as cast to {to} (the Cast folded into the read)");
        }
        if self.index != DType::I64 {
            r += &format!(
                "; indices written as {} (the Cast folded into the writes)",
                self.index
            );
        }
        Some(r)
    }

    fn absorbs(&self, sibling: &dyn Compute, input: &Value) -> bool {
        // ReduceMax over the same axis is the element at ArgMax's index (a NaN when the row
        // holds one, since the index then points at a NaN); likewise ReduceMin and ArgMin.
        let Some(reduce) = sibling.downcast_ref::<ReduceOp>() else {
            return false;
        };
        if self.rounded.is_some() || self.index != DType::I64 {
            // Its index points at an element that rounds to the extreme, not at the extreme;
            // or its indices are written in another type than the gather reads.
            return false;
        }
        let wide = |axes: &[usize]| -> Vec<usize> {
            axes.iter()
                .copied()
                .filter(|&a| input.shape.get(a).is_some_and(|&d| d != 1))
                .collect()
        };
        reduce.direction == self.direction
            && reduce.cast.is_none()
            && !reduce.noop
            && input.numel() > 0
            && wide(&reduce.axes) == wide(&[self.axis])
    }

    fn emit_fused(
        &self,
        input: &Value,
        output: &Value,
        also: &[&Value],
        rt: &TokenStream,
    ) -> NodeCode {
        let code = self.emit(input, output, rt);
        if also.len() != 1 || code.body.is_empty() {
            return code;
        }
        let (k, node) = (quote!(#rt::kernels), quote!(#rt::node));
        if let Plan::Lanes { r, inner } = self.plan(&input.shape) {
            if inner >= FEW_LANES {
                // The lane kernel keeps each lane's extreme: it writes it as it goes.
                let t = elem_tokens(input.dtype, rt);
                let d = direction_tokens(self.direction, rt);
                let last = self.select_last_index;
                let rows = lit_usize(r);
                let size = lit_usize(input.dtype.size());
                let lanes = lit_usize(inner);
                return NodeCode {
                    body: quote! {
                        #node::arg_blocks_values::<#t, #d, #last, { #k::arg_tile(#lanes, #size) }>(
                            x, y, also_0, #rows, #lanes,
                        );
                    },
                    plan: format!(
                        "{}, writing each lane's extreme too (the fused {})",
                        code.plan,
                        self.reduction_name()
                    ),
                };
            }
        }
        let r = input.shape[self.axis];
        let inner: usize = input.shape[self.axis + 1..].iter().product();
        // Tiles of whole blocks of about 16 KiB, so that the values are read back from L1.
        let block = r * inner;
        let blocks = (16 * 1024 / (block * input.dtype.size()).max(1)).max(1);
        let (tx, ty) = (lit_usize(blocks * block), lit_usize(blocks * inner));
        let (r_lit, inner_lit) = (lit_usize(r), lit_usize(inner));
        let body = code.body;
        let tiles = quote! {
            for ((x, y), also_0) in x.chunks(#tx).zip(y.chunks_mut(#ty)).zip(also_0.chunks_mut(#ty)) {
                #body
                #node::arg_values(x, y, also_0, #r_lit, #inner_lit);
            }
        };
        let plan = format!(
            "{}, in tiles of {blocks} block(s); the extreme values read at the indices (the \
             fused {})",
            code.plan,
            self.reduction_name()
        );
        let narrow =
            matches!(self.plan(&input.shape), Plan::Lanes { inner, .. } if inner < FEW_LANES);
        if narrow && self.rounded.is_none() && self.index == DType::I64 {
            // Blocks of a few lanes: a runtime kernel may write both in one pass (AVX-512); the
            // tiles where none does.
            let t = elem_tokens(input.dtype, rt);
            let d = direction_tokens(self.direction, rt);
            let last = self.select_last_index;
            return NodeCode {
                body: quote! {
                    if !#node::arg_blocks_values_narrow::<#t, #d, #last>(x, y, also_0, #r_lit, #inner_lit) {
                        #tiles
                    }
                },
                plan: format!(
                    "{plan}, or both in one pass where a runtime kernel takes the blocks"
                ),
            };
        }
        let rows = matches!(self.plan(&input.shape), Plan::Rows { .. });
        if rows && self.rounded.is_none() && self.index == DType::I64 {
            // Contiguous rows: a runtime kernel may write both in one pass (f32 rows of a few
            // to a hundred elements on x86-64); the tiles where none does.
            let t = elem_tokens(input.dtype, rt);
            let d = direction_tokens(self.direction, rt);
            let last = self.select_last_index;
            return NodeCode {
                body: quote! {
                    if !#node::arg_rows_values::<#t, #d, #last>(x, y, also_0, #r_lit) {
                        #tiles
                    }
                },
                plan: format!("{plan}, or both in one pass where a runtime kernel takes the rows"),
            };
        }
        NodeCode { body: tiles, plan }
    }

    fn over_permuted(&self, perm: &[usize], transposed: &Value) -> Option<Arc<dyn Compute>> {
        // A rounding read is a per-row search: over the Transpose's input the axis may no
        // longer be a row.
        if !kept_order_preserved(&transposed.shape, perm, &[self.axis]) {
            return None;
        }
        let op = ArgOp {
            axis: *perm.get(self.axis)?,
            ..self.clone()
        };
        let mut source = vec![0; perm.len()];
        for (i, &p) in perm.iter().enumerate() {
            *source.get_mut(p)? = *transposed.shape.get(i)?;
        }
        let rows = matches!(op.plan(&source), Plan::Rows { .. });
        (self.rounded.is_none() || rows).then(|| Arc::new(op) as Arc<dyn Compute>)
    }

    fn over_cast(&self, from: DType, to: DType, cast: &Value) -> Option<Arc<dyn Compute>> {
        if self.rounded.is_some() {
            return None;
        }
        if from.widens_exactly_to(to) {
            // Every value kept, and the order: the same positions win.
            return Some(Arc::new(self.clone()));
        }
        // A rounding cast: rows only (the threshold search is per row).
        let rows = matches!(self.plan(&cast.shape), Plan::Rows { .. });
        (rows && from.narrows_float_to(to)).then(|| {
            Arc::new(ArgOp {
                rounded: Some(to),
                ..self.clone()
            }) as Arc<dyn Compute>
        })
    }

    fn over_one_hot_source(&self, axis: usize) -> Option<Arc<dyn Compute>> {
        // Over a one-hot along `axis`, ArgMax finds its single 1: the first maximum (or first
        // NaN) of the one-hot's input, whatever `select_last_index` says.
        // A Cast between the one-hot and this node (folded as a rounding read) keeps the 1
        // where it is: the source is read as it is.
        (self.direction == Direction::Max && self.axis == axis).then(|| {
            Arc::new(ArgOp {
                select_last_index: false,
                rounded: None,
                ..self.clone()
            }) as Arc<dyn Compute>
        })
    }

    fn writes_cast(&self, to: DType, input: &Value) -> Option<Arc<dyn Compute>> {
        let inner: usize = input.shape.get(self.axis + 1..)?.iter().product();
        let fits = matches!(self.plan(&input.shape), Plan::Rows { .. }) || inner <= INDEX_TILE;
        let target =
            to.is_signed_int() || to.is_unsigned_int() || matches!(to, DType::F32 | DType::F64);
        (self.index == DType::I64 && fits && target).then(|| {
            Arc::new(ArgOp {
                index: to,
                ..self.clone()
            }) as Arc<dyn Compute>
        })
    }

    fn emit(&self, input: &Value, output: &Value, rt: &TokenStream) -> NodeCode {
        if self.index == DType::I64 {
            return self.emit_i64(input, output, rt);
        }
        let ity = elem_tokens(self.index, rt);
        let to = self.index;
        if let (Plan::Rows { r }, None) = (self.plan(&input.shape), self.rounded) {
            if r >= SHORT_ROW {
                let (node, n) = (quote!(#rt::node), lit_usize(r));
                let t = elem_tokens(input.dtype, rt);
                let d = direction_tokens(self.direction, rt);
                let last = self.select_last_index;
                return NodeCode {
                    body: quote!(#node::arg_rows::<#t, #d, #last, #ity>(x, y, #n);),
                    plan: format!(
                        "arg-reduction over contiguous rows of {r}, the indices written as {to} \
                         (the Cast folded into the writes)"
                    ),
                };
            }
        }
        // Tiles of whole blocks: the indices of a tile on the stack, then converted.
        let code = self.emit_i64(input, output, rt);
        let r = input.shape[self.axis];
        let inner: usize = input.shape[self.axis + 1..].iter().product();
        let blocks = (INDEX_TILE / inner.max(1)).max(1);
        let (tx, ty) = (lit_usize(blocks * r * inner), lit_usize(blocks * inner));
        let body = code.body;
        let node = quote!(#rt::node);
        NodeCode {
            body: quote! {
                let mut tile = [0i64; #ty];
                for (x, out) in x.chunks(#tx).zip(y.chunks_mut(#ty)) {
                    let y = &mut tile[..out.len()];
                    #body
                    #node::cast_indices::<#ity>(y, out);
                }
            },
            plan: format!(
                "{}, in tiles of {blocks} block(s) whose indices are written as {to} (the Cast \
                 folded into the writes)",
                code.plan
            ),
        }
    }
}

/// Indices a tile of an arg-reduction whose output is cast keeps on the stack (16 KiB).
const INDEX_TILE: usize = 2048;

impl ArgOp {
    /// The body writing INT64 indices into `y`.
    fn emit_i64(&self, input: &Value, _output: &Value, rt: &TokenStream) -> NodeCode {
        let (k, node) = (quote!(#rt::kernels), quote!(#rt::node));
        let t = elem_tokens(input.dtype, rt);
        let d = direction_tokens(self.direction, rt);
        let last = self.select_last_index;
        match self.plan(&input.shape) {
            Plan::Nothing => NodeCode {
                body: quote!(),
                plan: "nothing to compute (empty output)".to_string(),
            },
            Plan::Rows { r } if self.rounded.is_some() => {
                let n = lit_usize(r);
                let to = self.rounded.unwrap_or(input.dtype);
                let u = elem_tokens(to, rt);
                NodeCode {
                    body: quote!(#node::arg_rows_rounded::<#t, #u, #d, #last>(x, y, #n);),
                    plan: format!(
                        "arg-reduction over contiguous rows of {r} as rounded to {to}: the \
                         extreme found in {}, then the first element that rounds to it",
                        input.dtype
                    ),
                }
            }
            Plan::Rows { r } if r < SHORT_ROW => {
                let n = lit_usize(r);
                NodeCode {
                    body: quote!(#node::arg_rows_short::<#t, #d, #last, #n>(x, y);),
                    plan: format!("arg-reduction over contiguous short rows of {r}, unrolled"),
                }
            }
            Plan::Rows { r } => {
                let n = lit_usize(r);
                NodeCode {
                    body: quote!(#node::arg_rows::<#t, #d, #last, i64>(x, y, #n);),
                    plan: format!("arg-reduction over contiguous rows of {r}"),
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
                        #node::arg_blocks_narrow::<#t, #d, #last, #lanes, #period, #tile>(x, y, #rows);
                    },
                    plan: format!(
                        "arg-reduction over {r} rows of {inner} lanes, several rows at a time"
                    ),
                }
            }
            Plan::Lanes { r, inner } => {
                let rows = lit_usize(r);
                let size = lit_usize(input.dtype.size());
                let lanes = lit_usize(inner);
                NodeCode {
                    body: quote! {
                        #node::arg_blocks::<#t, #d, #last, { #k::arg_tile(#lanes, #size) }>(x, y, #rows, #lanes);
                    },
                    plan: format!("arg-reduction over {r} rows of {inner} lanes"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(axis: usize) -> ArgOp {
        ArgOp {
            direction: Direction::Max,
            axis,
            keepdims: true,
            select_last_index: false,
            version: 13,
            rounded: None,
            index: DType::I64,
        }
    }

    #[test]
    fn plans_rows_when_the_axis_is_innermost_and_lanes_otherwise() {
        assert_eq!(op(1).plan(&[4, 10]), Plan::Rows { r: 10 });
        assert_eq!(op(1).plan(&[4, 10, 1]), Plan::Rows { r: 10 });
        assert_eq!(op(0).plan(&[4, 10]), Plan::Lanes { r: 4, inner: 10 });
        assert_eq!(op(1).plan(&[2, 3, 4, 5]), Plan::Lanes { r: 3, inner: 20 });
        assert_eq!(op(1).plan(&[0, 3]), Plan::Nothing);
    }

    #[test]
    fn versions_and_types() {
        assert_eq!(ARG_MAX.version_at(10), Some(1));
        assert_eq!(ARG_MIN.version_at(12), Some(12));
        assert_eq!(ARG_MIN.version_at(0), None);
        assert!(!ARG_MAX.allows(12, DType::BF16) && ARG_MAX.allows(13, DType::BF16));
        assert!(!ARG_MAX.allows(13, DType::Bool));
        assert_eq!(ARG_MAX.signature(11).attributes.len(), 2);
        assert_eq!(ARG_MAX.signature(12).attributes.len(), 3);
    }
}
