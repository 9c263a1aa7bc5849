//! The generated `run_bytes`: tensors as little-endian bytes in graph order, every length
//! checked before any output is touched.
//!
//! Its code is linear in the number of tensors: the slices are taken one `let .. else` at a
//! time from iterators after the counts are checked (one slice pattern of 10,000 bindings
//! crashed rustc), and every temporary buffer is allocated fallibly (an `Err`, not an abort,
//! when the heap is exhausted).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::Emitter;
use crate::ir::Value;
use crate::tokens::lit_usize;

impl Emitter<'_> {
    /// `run_bytes`: the erased entry point over little-endian byte slices.
    pub(super) fn run_bytes(&self, inputs: &[&Value], outputs: &[&Value]) -> TokenStream {
        let rt = &self.rt;
        let n_in = lit_usize(inputs.len());
        let n_out = lit_usize(outputs.len());
        let in_vars: Vec<Ident> = (0..inputs.len())
            .map(|i| format_ident!("in_{}", i))
            .collect();
        let out_vars: Vec<Ident> = (0..outputs.len())
            .map(|i| format_ident!("out_{}", i))
            .collect();
        let mut checks = TokenStream::new();
        let mut decode = TokenStream::new();
        let mut encode = TokenStream::new();
        let mut alloc_out = TokenStream::new();
        for (i, v) in inputs.iter().enumerate() {
            let var = &in_vars[i];
            let idx = lit_usize(i);
            let name = &v.name;
            let bytes = lit_usize(v.numel() * v.dtype.size());
            let buf = format_ident!("in_buf_{}", i);
            let elem = self.elem(v.dtype);
            let n = lit_usize(v.numel());
            checks.extend(quote!(#rt::bytes::check_input(#var, #idx, #name, #bytes)?;));
            decode.extend(quote! {
                let mut #buf = #rt::bytes::Storage::<#elem, #n>::try_zeroed()?;
                #rt::bytes::decode(#var, #buf.as_mut_slice(), #idx, #name)?;
            });
        }
        for (i, v) in outputs.iter().enumerate() {
            let var = &out_vars[i];
            let idx = lit_usize(i);
            let name = &v.name;
            let bytes = lit_usize(v.numel() * v.dtype.size());
            let buf = format_ident!("out_buf_{}", i);
            let elem = self.elem(v.dtype);
            let n = lit_usize(v.numel());
            checks.extend(quote!(#rt::bytes::check_output(#var, #idx, #name, #bytes)?;));
            alloc_out
                .extend(quote!(let mut #buf = #rt::bytes::Storage::<#elem, #n>::try_zeroed()?;));
            encode.extend(quote!(#rt::bytes::encode(#buf.as_slice(), #var);));
        }
        let scratch = self.scratch_buffers();
        let scratch_names: Vec<&Ident> = scratch.iter().map(|b| &b.0).collect();
        let scratch_elems: Vec<&TokenStream> = scratch.iter().map(|b| &b.1).collect();
        let scratch_lens: Vec<&Literal> = scratch.iter().map(|b| &b.2).collect();
        let in_args = (0..inputs.len()).map(|i| {
            let b = format_ident!("in_buf_{}", i);
            quote!(#b.as_slice())
        });
        let out_args = (0..outputs.len()).map(|i| {
            let b = format_ident!("out_buf_{}", i);
            quote!(#b.as_mut_slice())
        });
        let take_inputs = if inputs.is_empty() {
            quote!()
        } else {
            quote! {
                let mut input_slices = inputs.iter().copied();
                #(let Some(#in_vars) = input_slices.next() else { return Err(input_count); };)*
            }
        };
        let take_outputs = if outputs.is_empty() {
            quote!()
        } else {
            quote! {
                let mut output_slices = outputs.iter_mut();
                #(let Some(#out_vars) = output_slices.next().map(|s| &mut **s) else {
                    return Err(output_count);
                };)*
            }
        };
        quote! {
            /// Runs the model on raw tensors: inputs and outputs in graph order, elements
            /// little-endian (bool as one byte 0 or 1, f16/bf16 as their bit patterns).
            ///
            /// Checks the number and byte length of every slice before touching any output.
            pub fn run_bytes(inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> ::core::result::Result<(), #rt::Error> {
                let input_count = #rt::Error::InputCount { expected: #n_in, found: inputs.len() };
                let output_count = #rt::Error::OutputCount { expected: #n_out, found: outputs.len() };
                if inputs.len() != #n_in {
                    return Err(input_count);
                }
                if outputs.len() != #n_out {
                    return Err(output_count);
                }
                #take_inputs
                #take_outputs
                #checks
                #decode
                #alloc_out
                #(let mut #scratch_names = #rt::bytes::Storage::<#scratch_elems, #scratch_lens>::try_zeroed()?;)*
                compute(#(#in_args,)* #(#out_args,)* #(#scratch_names.as_mut_slice(),)*);
                #encode
                Ok(())
            }
        }
    }
}
