//! The generated module's interface: the constants that describe its tensors, the `Inputs`,
//! `Outputs` and `Scratch` structs, and the entry points `run`, `run_into`,
//! `run_with_scratch` over the private `compute`.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::Emitter;
use crate::ir::Value;
use crate::names::{code, doc_line};
use crate::tokens::{derive_or_compare, lit_usize};

impl Emitter<'_> {
    /// `INPUT_NAMES`, `INPUT_SHAPES`, ... `OUTPUT_BYTES`.
    pub(super) fn interface_constants(&self, inputs: &[&Value], outputs: &[&Value]) -> TokenStream {
        let vis = &self.vis;
        let rt = &self.rt;
        let meta = |values: &[&Value]| {
            let names: Vec<String> = values.iter().map(|v| v.name.clone()).collect();
            let shapes: Vec<_> = values
                .iter()
                .map(|v| {
                    let dims = v.shape.iter().map(|&d| lit_usize(d));
                    quote!(&[#(#dims),*])
                })
                .collect();
            let dtypes: Vec<_> = values
                .iter()
                .map(|v| {
                    let variant = format_ident!("{}", v.dtype.variant_name());
                    quote!(#rt::DType::#variant)
                })
                .collect();
            let bytes: Vec<_> = values
                .iter()
                .map(|v| lit_usize(v.numel() * v.dtype.size()))
                .collect();
            (names, shapes, dtypes, bytes)
        };
        let (in_names, in_shapes, in_dtypes, in_bytes) = meta(inputs);
        let (out_names, out_shapes, out_dtypes, out_bytes) = meta(outputs);
        let n_in = lit_usize(inputs.len());
        let n_out = lit_usize(outputs.len());
        quote! {
            /// The names of the run-time inputs, in graph order (the order of `run_bytes`).
            #vis const INPUT_NAMES: [&str; #n_in] = [#(#in_names),*];
            /// The shapes of the run-time inputs.
            #vis const INPUT_SHAPES: [&[usize]; #n_in] = [#(#in_shapes),*];
            /// The element types of the run-time inputs.
            #vis const INPUT_DTYPES: [#rt::DType; #n_in] = [#(#in_dtypes),*];
            /// The byte sizes of the run-time inputs in `run_bytes`.
            #vis const INPUT_BYTES: [usize; #n_in] = [#(#in_bytes),*];
            /// The names of the outputs, in graph order.
            #vis const OUTPUT_NAMES: [&str; #n_out] = [#(#out_names),*];
            /// The shapes of the outputs.
            #vis const OUTPUT_SHAPES: [&[usize]; #n_out] = [#(#out_shapes),*];
            /// The element types of the outputs.
            #vis const OUTPUT_DTYPES: [#rt::DType; #n_out] = [#(#out_dtypes),*];
            /// The byte sizes of the outputs in `run_bytes`.
            #vis const OUTPUT_BYTES: [usize; #n_out] = [#(#out_bytes),*];
        }
    }

    /// The `Inputs` and `Outputs` structs, with `zeroed` and `Default`.
    pub(super) fn tensor_structs(&self, inputs: &[&Value], outputs: &[&Value]) -> TokenStream {
        let vis = &self.vis;
        let field_doc = |kind: &str, v: &Value| {
            doc_line(&format!(
                " ONNX {kind} {}: {} {:?}.",
                code(&v.name),
                v.dtype,
                v.shape
            ))
        };
        let in_fields = &self.input_fields;
        let out_fields = &self.output_fields;
        let in_types: Vec<_> = inputs.iter().map(|v| self.nested_type(v)).collect();
        let out_types: Vec<_> = outputs.iter().map(|v| self.nested_type(v)).collect();
        let in_docs: Vec<_> = inputs.iter().map(|v| field_doc("input", v)).collect();
        let out_docs: Vec<_> = outputs.iter().map(|v| field_doc("output", v)).collect();
        let in_zero: Vec<_> = inputs.iter().map(|v| self.zero_of(v)).collect();
        let out_zero: Vec<_> = outputs.iter().map(|v| self.zero_of(v)).collect();
        let rt = &self.rt;
        let boxed = |what: &str| {
            let doc = format!(" {what} with every element zero on the heap, never on the stack");
            quote! {
                #rt::__if_alloc! {
                    #[doc = #doc]
                    /// (the runtime's `alloc` feature): for tensors too large for a stack.
                    #[must_use]
                    #vis fn new_boxed() -> #rt::Box<Self> {
                        #rt::zeroed_box()
                    }
                }
            }
        };
        let (in_boxed, out_boxed) = (boxed("Inputs"), boxed("Outputs"));
        let bytes = |values: &[&Value]| values.iter().map(|v| v.numel() * v.dtype.size()).sum();
        let (in_large, out_large) = (large_value(bytes(inputs)), large_value(bytes(outputs)));
        let (in_derive, in_eq) = derive_or_compare(quote!(Inputs), in_fields);
        let (out_derive, out_eq) = derive_or_compare(quote!(Outputs), out_fields);
        let (in_named, out_named) = (
            field_named_like(in_fields, "inputs"),
            field_named_like(out_fields, "outputs"),
        );
        quote! {
            #rt::__tensors! {
                /// The model's run-time inputs, one field per graph input, as nested arrays.
                #in_derive
                #in_named
                #vis struct Inputs {
                    #(#[doc = #in_docs] #vis #in_fields: #in_types,)*
                }
            }

            impl Inputs {
                /// Inputs with every element zero (`false` for bool).
                #[must_use]
                #in_large
                #vis const fn zeroed() -> Self {
                    Inputs { #(#in_fields: #in_zero,)* }
                }

                #in_boxed
            }

            impl ::core::default::Default for Inputs {
                fn default() -> Self {
                    Self::zeroed()
                }
            }

            impl #rt::Tensors for Inputs {
                fn zeroed() -> Self {
                    Self::zeroed()
                }
            }

            #in_eq

            #rt::__tensors! {
                /// The model's outputs, one field per graph output, as nested arrays.
                #out_derive
                #out_named
                #vis struct Outputs {
                    #(#[doc = #out_docs] #vis #out_fields: #out_types,)*
                }
            }

            impl Outputs {
                /// Outputs with every element zero (`false` for bool).
                #[must_use]
                #out_large
                #vis const fn zeroed() -> Self {
                    Outputs { #(#out_fields: #out_zero,)* }
                }

                #out_boxed
            }

            impl ::core::default::Default for Outputs {
                fn default() -> Self {
                    Self::zeroed()
                }
            }

            impl #rt::Tensors for Outputs {
                fn zeroed() -> Self {
                    Self::zeroed()
                }
            }

            #out_eq
        }
    }

    /// `run`, `run_into`, `run_with_scratch`, `SCRATCH_BYTES`, `Scratch` and `compute` (whose
    /// body is `body`).
    pub(super) fn entry_points(
        &self,
        inputs: &[&Value],
        outputs: &[&Value],
        body: TokenStream,
    ) -> TokenStream {
        let vis = &self.vis;
        let rt = &self.rt;
        let in_fields = &self.input_fields;
        let out_fields = &self.output_fields;
        let in_params: Vec<Ident> = in_fields
            .iter()
            .map(|f| format_ident!("in_{}", f))
            .collect();
        let out_params: Vec<Ident> = out_fields
            .iter()
            .map(|f| format_ident!("out_{}", f))
            .collect();
        let in_elems: Vec<_> = inputs.iter().map(|v| self.elem(v.dtype)).collect();
        let out_elems: Vec<_> = outputs.iter().map(|v| self.elem(v.dtype)).collect();
        let in_views: Vec<_> = in_fields
            .iter()
            .zip(inputs)
            .map(|(f, v)| self.flat_field(quote!(inputs.#f), v, false))
            .collect();
        let out_views: Vec<_> = out_fields
            .iter()
            .zip(outputs)
            .map(|(f, v)| self.flat_field(quote!(outputs.#f), v, true))
            .collect();
        let scratch = self.scratch_buffers();
        let scratch_names: Vec<&Ident> = scratch.iter().map(|b| &b.0).collect();
        let scratch_elems: Vec<&TokenStream> = scratch.iter().map(|b| &b.1).collect();
        let scratch_lens: Vec<&Literal> = scratch.iter().map(|b| &b.2).collect();
        let scratch_bytes = lit_usize(self.memory.bytes());
        let scratch_large = large_value(self.memory.bytes());
        let scratch_docs = self.scratch_docs();
        // A model without intermediates has an empty `Scratch`, one whose inputs are all
        // constants an empty `Inputs`: mark the parameters as used.
        let no_scratch = if scratch.is_empty() {
            quote!(let _ = scratch;)
        } else {
            quote!()
        };
        let no_inputs = if inputs.is_empty() {
            quote!(let _ = inputs;)
        } else {
            quote!()
        };
        quote! {
            /// Runs the model and returns its outputs.
            #[must_use]
            #vis fn run(inputs: &Inputs) -> Outputs {
                let mut outputs = Outputs::zeroed();
                run_into(inputs, &mut outputs);
                outputs
            }

            /// Runs the model, writing every output into `outputs`. Its scratch memory
            /// ([`SCRATCH_BYTES`]) is on the heap with the runtime's `alloc` feature and on the
            /// stack without it; [`run_with_scratch`] lets the caller place it.
            #vis fn run_into(inputs: &Inputs, outputs: &mut Outputs) {
                #no_inputs
                #(let mut #scratch_names = #rt::bytes::Storage::<#scratch_elems, #scratch_lens>::zeroed();)*
                compute(#(#in_views,)* #(#out_views,)* #(#scratch_names.as_mut_slice(),)*);
            }

            /// Runs the model with caller-provided scratch memory (e.g. in a `static`), so that
            /// no tensor-sized temporary is placed on the stack or the heap.
            #vis fn run_with_scratch(inputs: &Inputs, scratch: &mut Scratch, outputs: &mut Outputs) {
                #no_scratch
                #no_inputs
                compute(#(#in_views,)* #(#out_views,)* #(scratch.#scratch_names.as_mut_slice(),)*);
            }

            /// Bytes of scratch memory the intermediates need: values whose lifetimes do not
            /// overlap share space.
            #vis const SCRATCH_BYTES: usize = #scratch_bytes;

            #rt::__tensors! {
                /// Scratch memory of the intermediate values, one buffer per element type.
                ///
                #(#[doc = #scratch_docs])*
                #[derive(Clone, Debug, PartialEq)]
                #vis struct Scratch {
                    #(#scratch_names: [#scratch_elems; #scratch_lens],)*
                }
            }

            impl Scratch {
                /// Zeroed scratch memory (a `const fn`, so it can initialize a `static`).
                #[must_use]
                #scratch_large
                #vis const fn zeroed() -> Self {
                    Scratch { #(#scratch_names: [<#scratch_elems as #rt::Element>::ZERO; #scratch_lens],)* }
                }

                #rt::__if_alloc! {
                    /// Zeroed scratch memory on the heap, never built on the stack (the runtime's
                    /// `alloc` feature).
                    #[must_use]
                    #vis fn new_boxed() -> #rt::Box<Self> {
                        #rt::zeroed_box()
                    }
                }
            }

            impl #rt::Tensors for Scratch {
                fn zeroed() -> Self {
                    Self::zeroed()
                }
            }

            #rt::__if_alloc! {
                /// Runs the model into outputs on the heap (the runtime's `alloc` feature): no
                /// tensor is placed on the stack, whatever its size.
                #[must_use]
                #vis fn run_boxed(inputs: &Inputs) -> #rt::Box<Outputs> {
                    let mut outputs = Outputs::new_boxed();
                    run_into(inputs, &mut outputs);
                    outputs
                }
            }

            /// The model over flat tensors: run-time inputs, then outputs, in graph order, then
            /// the scratch buffers.
            #[cfg_attr(debug_assertions, inline(always))]
            #[allow(
                unused_variables,
                clippy::too_many_arguments,
                clippy::too_many_lines,
                clippy::inline_always
            )]
            fn compute(
                #(#in_params: &[#in_elems],)*
                #(#out_params: &mut [#out_elems],)*
                #(#scratch_names: &mut [#scratch_elems],)*
            ) {
                #body
            }
        }
    }
}

impl Emitter<'_> {
    /// The unit struct `Model` and its implementation of the runtime's `Model` trait, for code
    /// generic over models.
    pub(super) fn model_impl(&self) -> TokenStream {
        let vis = &self.vis;
        let rt = &self.rt;
        quote! {
            /// The model as a type, for code generic over models: implements the runtime's
            /// `Model` trait with this module's items.
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            #vis struct Model;

            impl #rt::Model for Model {
                type Inputs = Inputs;
                type Outputs = Outputs;
                type Scratch = Scratch;
                const INPUT_NAMES: &'static [&'static str] = &INPUT_NAMES;
                const INPUT_SHAPES: &'static [&'static [usize]] = &INPUT_SHAPES;
                const INPUT_DTYPES: &'static [#rt::DType] = &INPUT_DTYPES;
                const INPUT_BYTES: &'static [usize] = &INPUT_BYTES;
                const OUTPUT_NAMES: &'static [&'static str] = &OUTPUT_NAMES;
                const OUTPUT_SHAPES: &'static [&'static [usize]] = &OUTPUT_SHAPES;
                const OUTPUT_DTYPES: &'static [#rt::DType] = &OUTPUT_DTYPES;
                const OUTPUT_BYTES: &'static [usize] = &OUTPUT_BYTES;
                const SCRATCH_BYTES: usize = SCRATCH_BYTES;

                fn run_into(inputs: &Inputs, outputs: &mut Outputs) {
                    run_into(inputs, outputs);
                }

                fn run_with_scratch(inputs: &Inputs, scratch: &mut Scratch, outputs: &mut Outputs) {
                    run_with_scratch(inputs, scratch, outputs);
                }

                fn run_bytes(
                    inputs: &[&[u8]],
                    outputs: &mut [&mut [u8]],
                ) -> ::core::result::Result<(), #rt::Error> {
                    run_bytes(inputs, outputs)
                }
            }
        }
    }
}

/// The lint allowance of a `const fn zeroed` whose value is larger than clippy's stack-array
/// threshold: a `const fn` for statics, with `new_boxed` as the way onto the heap.
fn large_value(bytes: usize) -> TokenStream {
    if bytes > 16 * 1024 {
        quote!(#[allow(clippy::large_stack_arrays)])
    } else {
        quote!()
    }
}

/// The lint allowance of a tensor struct with a field named after the struct (an ONNX output
/// named `outputs`), which the model chose, not the generator.
fn field_named_like(fields: &[Ident], stem: &str) -> TokenStream {
    let like = fields.iter().any(|f| {
        let f = f.to_string();
        f.starts_with(stem) || f.ends_with(stem)
    });
    if like {
        quote!(#[allow(clippy::struct_field_names)])
    } else {
        quote!()
    }
}
