//! The generated `run_bytes`: tensors as little-endian bytes in graph order, every length
//! checked before any output is touched.
//!
//! Its code stays linear in the number of tensors and flat, for rustc's sake: the slices are
//! reached through iterators after the counts are checked (one slice pattern of 10,000
//! bindings crashed rustc), the tensors of each element type share one buffer that each
//! tensor takes its part of (one `let` per tensor nested 10,000 scopes, and LLVM's debug info
//! overflowed its stack on 2,000), and every buffer is allocated fallibly with the first
//! allocation or decoding error returned at one exit (an `Err`, not an abort, when the heap is
//! exhausted; an exit per buffer made rustc much slower).

use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::Emitter;
use crate::dtype::DType;
use crate::ir::Value;
use crate::tokens::lit_usize;

/// The buffer of the inputs (or outputs) of one element type: `in_f32`.
fn buffer(side: &str, dtype: DType) -> Ident {
    format_ident!("{}_{}", side, dtype.variant_name().to_ascii_lowercase())
}

/// The total elements of each element type among `values`.
fn totals(values: &[&Value]) -> BTreeMap<DType, usize> {
    let mut totals = BTreeMap::new();
    for v in values {
        *totals.entry(v.dtype).or_insert(0) += v.numel();
    }
    totals
}

impl Emitter<'_> {
    /// `let mut in_f32 = Storage::<f32, N>::zeroed_or(&mut failed);` for each element type,
    /// and `let mut in_f32_rest = in_f32.as_mut_slice();` (or `as_slice`) for each.
    fn buffers(&self, side: &str, values: &[&Value], mutable: bool) -> (TokenStream, TokenStream) {
        let rt = &self.rt;
        let mut alloc = TokenStream::new();
        let mut rests = TokenStream::new();
        for (dtype, n) in totals(values) {
            let (buf, elem, n) = (buffer(side, dtype), self.elem(dtype), lit_usize(n));
            let rest = format_ident!("{}_rest", buf);
            alloc.extend(
                quote!(let mut #buf = #rt::bytes::Storage::<#elem, #n>::zeroed_or(&mut failed);),
            );
            rests.extend(if mutable {
                quote!(let mut #rest = #buf.as_mut_slice();)
            } else {
                quote!(let mut #rest = #buf.as_slice();)
            });
        }
        (alloc, rests)
    }

    /// `run_bytes`: the erased entry point over little-endian byte slices.
    pub(super) fn run_bytes(&self, inputs: &[&Value], outputs: &[&Value]) -> TokenStream {
        let vis = &self.vis;
        let rt = &self.rt;
        let (n_in, n_out) = (lit_usize(inputs.len()), lit_usize(outputs.len()));
        let mut checks = TokenStream::new();
        let mut decode = TokenStream::new();
        let mut in_args = Vec::new();
        for (i, v) in inputs.iter().enumerate() {
            let (idx, name) = (lit_usize(i), &v.name);
            let bytes = lit_usize(v.numel() * v.dtype.size());
            let n = lit_usize(v.numel());
            let rest = format_ident!("{}_rest", buffer("in", v.dtype));
            checks.extend(quote! {
                #rt::bytes::check_input(checked_inputs.next().copied().unwrap_or_default(), #idx, #name, #bytes)?;
            });
            decode.extend(quote! {
                #rt::bytes::decode_or(
                    input_slices.next().copied().unwrap_or_default(),
                    #rt::bytes::take_mut(&mut #rest, #n),
                    #idx,
                    #name,
                    &mut failed,
                );
            });
            in_args.push(quote!(#rt::bytes::take(&mut #rest, #n)));
        }
        let mut encode = TokenStream::new();
        let mut out_args = Vec::new();
        for (i, v) in outputs.iter().enumerate() {
            let (idx, name) = (lit_usize(i), &v.name);
            let bytes = lit_usize(v.numel() * v.dtype.size());
            let n = lit_usize(v.numel());
            let rest = format_ident!("{}_rest", buffer("out", v.dtype));
            checks.extend(quote! {
                #rt::bytes::check_output(checked_outputs.next().map(|s| &**s).unwrap_or_default(), #idx, #name, #bytes)?;
            });
            encode.extend(quote! {
                #rt::bytes::encode(
                    #rt::bytes::take(&mut #rest, #n),
                    output_slices.next().map(|s| &mut **s).unwrap_or_default(),
                );
            });
            out_args.push(quote!(#rt::bytes::take_mut(&mut #rest, #n)));
        }
        let (in_alloc, in_rests_mut) = self.buffers("in", inputs, true);
        let (_, in_rests) = self.buffers("in", inputs, false);
        let (out_alloc, out_rests_mut) = self.buffers("out", outputs, true);
        let (_, out_rests) = self.buffers("out", outputs, false);
        let scratch = self.scratch_buffers();
        let scratch_names: Vec<&Ident> = scratch.iter().map(|b| &b.0).collect();
        let scratch_elems: Vec<&TokenStream> = scratch.iter().map(|b| &b.1).collect();
        let scratch_lens: Vec<&Literal> = scratch.iter().map(|b| &b.2).collect();
        let iter_in = |name: Ident| {
            if inputs.is_empty() {
                quote!()
            } else {
                quote!(let mut #name = inputs.iter();)
            }
        };
        let (checked_inputs, input_slices) = (
            iter_in(format_ident!("checked_inputs")),
            iter_in(format_ident!("input_slices")),
        );
        let (checked_outputs, output_slices) = if outputs.is_empty() {
            (quote!(), quote!())
        } else {
            (
                quote!(let mut checked_outputs = outputs.iter();),
                quote!(let mut output_slices = outputs.iter_mut();),
            )
        };
        // `len() != 0` is clippy's `len_zero`.
        let in_wrong = if inputs.is_empty() {
            quote!(!inputs.is_empty())
        } else {
            quote!(inputs.len() != #n_in)
        };
        let out_wrong = if outputs.is_empty() {
            quote!(!outputs.is_empty())
        } else {
            quote!(outputs.len() != #n_out)
        };
        quote! {
            /// Runs the model on raw tensors: inputs and outputs in graph order, elements
            /// little-endian (bool as one byte 0 or 1, f16/bf16 as their bit patterns).
            ///
            /// Checks the number and byte length of every slice before touching any output.
            ///
            /// # Errors
            ///
            /// A wrong number of input or output slices, a slice of the wrong byte length, or a
            /// bool byte other than 0 or 1 (nothing is written then); with the runtime's `alloc`
            /// feature, memory for the tensors that cannot be allocated.
            // Its length and its buffers (one per element type) follow the model's tensors.
            #[allow(clippy::too_many_lines, clippy::similar_names)]
            #vis fn run_bytes(inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> ::core::result::Result<(), #rt::Error> {
                if #in_wrong {
                    return Err(#rt::Error::InputCount { expected: #n_in, found: inputs.len() });
                }
                if #out_wrong {
                    return Err(#rt::Error::OutputCount { expected: #n_out, found: outputs.len() });
                }
                #checked_inputs
                #checked_outputs
                #checks
                let mut failed: ::core::option::Option<#rt::Error> = ::core::option::Option::None;
                #in_alloc
                #out_alloc
                #(let mut #scratch_names = #rt::bytes::Storage::<#scratch_elems, #scratch_lens>::zeroed_or(&mut failed);)*
                {
                    #input_slices
                    #in_rests_mut
                    #decode
                }
                if let ::core::option::Option::Some(e) = failed {
                    return Err(e);
                }
                {
                    #in_rests
                    #out_rests_mut
                    compute(#(#in_args,)* #(#out_args,)* #(#scratch_names.as_mut_slice(),)*);
                }
                #output_slices
                #out_rests
                #encode
                Ok(())
            }
        }
    }
}
