//! The generated `run_ndarray` and its `OutputArrays`, kept by the runtime only when its
//! `ndarray` feature is on.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::Emitter;
use crate::ir::Value;
use crate::names::{code, doc_line};
use crate::tokens::lit_usize;

impl Emitter<'_> {
    /// `run_ndarray` and its output struct, kept only when the runtime's `ndarray` feature is on.
    pub(super) fn run_ndarray(&self, inputs: &[&Value], outputs: &[&Value]) -> TokenStream {
        let vis = &self.vis;
        let rt = &self.rt;
        let nd = quote!(#rt::ndarray);
        let in_f = &self.input_fields;
        let out_f = &self.output_fields;
        let generics: Vec<Ident> = (0..inputs.len()).map(|i| format_ident!("D{}", i)).collect();
        let in_elems: Vec<_> = inputs.iter().map(|v| self.elem(v.dtype)).collect();
        let out_elems: Vec<_> = outputs.iter().map(|v| self.elem(v.dtype)).collect();
        let in_idx: Vec<Literal> = (0..inputs.len()).map(lit_usize).collect();
        let out_idx: Vec<Literal> = (0..outputs.len()).map(lit_usize).collect();
        let out_n: Vec<Literal> = outputs.iter().map(|v| lit_usize(v.numel())).collect();
        // The parameters are the input fields (user-facing names); every local is bound only
        // after all of them are read, and `compute` is called by path, so no model name can
        // shadow or be shadowed by a generated one.
        let in_k: Vec<syn::Index> = (0..inputs.len()).map(syn::Index::from).collect();
        let out_k: Vec<syn::Index> = (0..outputs.len()).map(syn::Index::from).collect();
        let docs: Vec<String> = outputs
            .iter()
            .map(|v| {
                doc_line(&format!(
                    " ONNX output {}: {} {:?}.",
                    code(&v.name),
                    v.dtype,
                    v.shape
                ))
            })
            .collect();
        let scratch = self.scratch_buffers();
        let scratch_k: Vec<syn::Index> = (0..scratch.len()).map(syn::Index::from).collect();
        let scratch_elems: Vec<&TokenStream> = scratch.iter().map(|b| &b.1).collect();
        let scratch_lens: Vec<&Literal> = scratch.iter().map(|b| &b.2).collect();
        let bind_inputs = if inputs.is_empty() {
            quote!()
        } else {
            quote!(let inputs = (#(#rt::nd::Contiguous::new(#in_f, #in_idx, self::INPUT_NAMES[#in_idx], self::INPUT_SHAPES[#in_idx])?,)*);)
        };
        let bind_scratch = if scratch.is_empty() {
            quote!()
        } else {
            quote!(let mut scratch = (#(#rt::nd::buffer::<#scratch_elems>(#scratch_lens),)*);)
        };
        quote! {
            #rt::__if_ndarray! {
                /// The outputs of [`run_ndarray`], as owned arrays.
                #[derive(Clone, Debug, PartialEq)]
                #vis struct OutputArrays {
                    #(#[doc = #docs] #vis #out_f: #nd::ArrayD<#out_elems>,)*
                }

                /// Runs the model on ndarray views of any dimensionality and layout (feature
                /// `ndarray` of the runtime): shapes are checked at run time, non-contiguous
                /// views are copied into row-major order, and the outputs are owned arrays.
                ///
                /// # Errors
                ///
                /// An input whose shape is not the model's.
                #[allow(clippy::too_many_arguments, clippy::too_many_lines)]
                #vis fn run_ndarray<#(#generics: #nd::Dimension),*>(
                    #(#in_f: #nd::ArrayView<'_, #in_elems, #generics>,)*
                ) -> ::core::result::Result<OutputArrays, #rt::nd::NdError> {
                    #bind_inputs
                    let mut outputs = (#(#rt::nd::buffer::<#out_elems>(#out_n),)*);
                    #bind_scratch
                    self::compute(#(inputs.#in_k.as_slice(),)* #(outputs.#out_k.as_mut_slice(),)* #(scratch.#scratch_k.as_mut_slice(),)*);
                    Ok(self::OutputArrays {
                        #(#out_f: #rt::nd::into_array(outputs.#out_k, self::OUTPUT_SHAPES[#out_idx])?,)*
                    })
                }
            }
        }
    }
}
