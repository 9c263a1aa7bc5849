//! The generated `run_bytes`: tensors as little-endian bytes in graph order, every length
//! checked before any output is touched.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::Emitter;
use crate::ir::Value;
use crate::tokens::lit_usize;

impl Emitter<'_> {
    /// `run_bytes`: the erased entry point over little-endian byte slices.
    pub(super) fn run_bytes(&self, inputs: &[&Value], outputs: &[&Value]) -> TokenStream {
        let vis = &self.vis;
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
                let mut #buf = #rt::bytes::Storage::<#elem, #n>::zeroed();
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
            alloc_out.extend(quote!(let mut #buf = #rt::bytes::Storage::<#elem, #n>::zeroed();));
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
            #vis fn run_bytes(inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> ::core::result::Result<(), #rt::Error> {
                let found_inputs = inputs.len();
                let found_outputs = outputs.len();
                let &[#(#in_vars),*] = inputs else {
                    return Err(#rt::Error::InputCount { expected: #n_in, found: found_inputs });
                };
                let [#(#out_vars),*] = outputs else {
                    return Err(#rt::Error::OutputCount { expected: #n_out, found: found_outputs });
                };
                #checks
                #decode
                #alloc_out
                #(let mut #scratch_names = #rt::bytes::Storage::<#scratch_elems, #scratch_lens>::zeroed();)*
                compute(#(#in_args,)* #(#out_args,)* #(#scratch_names.as_mut_slice(),)*);
                #encode
                Ok(())
            }
        }
    }
}
