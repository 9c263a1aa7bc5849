//! MaxPool's optional `Indices` output (versions 8 on) for a window covering the whole map:
//! for each (n, c), the flat index into the whole input of the map's first maximum (the first
//! NaN when the map holds one, where the pooled value is NaN too), `n * C * S + c * S + s` with
//! `s` the position in the map, row-major, or column-major with `storage_order=1`. Sibling
//! fusion lets it write the pooled values in the same pass.

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::reduce::ReduceOp;
use crate::ir::{Compute, Direction, NodeCode, Value};
use crate::tokens::{elem_tokens, lit_usize};

/// The `Indices` output of a whole-map MaxPool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolIndicesOp {
    /// `storage_order=1`: positions in the map counted column-major.
    pub column_major: bool,
}

impl PoolIndicesOp {
    /// The map's dimensions (every axis after N and C) and its size.
    fn map(input: &Value) -> (&[usize], usize) {
        let map = input.shape.get(2..).unwrap_or(&[]);
        (map, map.iter().product())
    }

    /// The statement turning the row-major position `s` in the map into the column-major one:
    /// each coordinate, `(s / row-major stride) % dim`, times its column-major stride.
    fn column_major(map: &[usize]) -> TokenStream {
        let terms = map.iter().enumerate().map(|(i, &d)| {
            let row_stride: usize = map[i + 1..].iter().product();
            let col_stride: usize = map[..i].iter().product();
            let d = lit_usize(d);
            let coord = if row_stride == 1 {
                quote!(s % #d)
            } else {
                let r = lit_usize(row_stride);
                quote!((s / #r) % #d)
            };
            if col_stride == 1 {
                coord
            } else {
                let c = lit_usize(col_stride);
                quote!((#coord) * #c)
            }
        });
        quote! {
            let s = #(#terms)+*;
        }
    }

    fn body(&self, input: &Value, values: bool, rt: &TokenStream) -> TokenStream {
        let (map, size) = Self::map(input);
        let t = elem_tokens(input.dtype, rt);
        let (k, node) = (quote!(#rt::kernels), quote!(#rt::node));
        let n = lit_usize(size);
        let remap = if self.column_major && map.len() > 1 {
            Self::column_major(map)
        } else {
            quote!()
        };
        let (pattern, iter, write) = if values {
            (
                quote!((row, ((x, y), v))),
                quote!(x.chunks_exact(#n).zip(y.iter_mut()).zip(also_0.iter_mut())),
                quote! {
                    if let Some(&e) = x.get(s) {
                        *v = e;
                    }
                },
            )
        } else {
            (
                quote!((row, (x, y))),
                quote!(x.chunks_exact(#n).zip(y.iter_mut())),
                quote!(),
            )
        };
        quote! {
            for #pattern in #iter.enumerate() {
                let s = #node::arg_row::<#t, #rt::Max, false>(x);
                #write
                #remap
                *y = #k::index::<i64>(row * #n + s);
            }
        }
    }
}

impl Compute for PoolIndicesOp {
    fn stem(&self) -> &'static str {
        "maxpool_indices"
    }

    fn resolved(&self, _input: &Value) -> Option<String> {
        Some(format!(
            "Indices over the whole map, storage_order {}",
            u8::from(self.column_major)
        ))
    }

    fn emit(&self, input: &Value, _output: &Value, rt: &TokenStream) -> NodeCode {
        let (map, _) = Self::map(input);
        NodeCode {
            body: self.body(input, false, rt),
            plan: format!("the first maximum of each map of {map:?}, as a flat index"),
        }
    }

    fn absorbs(&self, sibling: &dyn Compute, input: &Value) -> bool {
        // The pooled value is the element at the index (a NaN when the map holds one).
        let rank = input.shape.len();
        sibling.downcast_ref::<ReduceOp>().is_some_and(|r| {
            r.direction == Direction::Max
                && !r.noop
                && r.cast.is_none()
                && r.keepdims
                && r.axes == (2..rank).collect::<Vec<_>>()
                && input.numel() > 0
        })
    }

    fn emit_fused(
        &self,
        input: &Value,
        output: &Value,
        also: &[&Value],
        rt: &TokenStream,
    ) -> NodeCode {
        if also.len() != 1 {
            return self.emit(input, output, rt);
        }
        let (map, _) = Self::map(input);
        NodeCode {
            body: self.body(input, true, rt),
            plan: format!(
                "the first maximum of each map of {map:?}, as a flat index and its value (the \
                 fused MaxPool output)"
            ),
        }
    }
}

/// The resolved `Indices` node of a MaxPool whose window covers the map, and its shape;
/// `None` for an empty map (no index of a maximum over nothing).
pub fn indices(input: &Value, column_major: bool) -> Option<(Arc<dyn Compute>, Vec<usize>)> {
    let (_, size) = PoolIndicesOp::map(input);
    if size == 0 {
        return None;
    }
    let mut shape = input.shape.clone();
    shape.iter_mut().skip(2).for_each(|d| *d = 1);
    Some((Arc::new(PoolIndicesOp { column_major }), shape))
}
