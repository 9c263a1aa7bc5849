//! The constants of generated code: each constant the model reads at run time as a `const`
//! array, of literals when small and decoded from one byte string when large.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Emitter, Place};
use crate::dtype::DType;
use crate::ir::{Source, Tensor};
use crate::names::{code, doc_line};
use crate::tokens::{float_lit, int_lit, lit_usize};

/// Constants with more elements than this are one byte string each (decoded at compile time by
/// the runtime's `bytes::le_*`); smaller ones stay readable literals.
const BLOB_ELEMENTS: usize = 64;

impl Emitter<'_> {
    /// The constants read at run time, one `const` array each.
    pub(super) fn constants(&self) -> TokenStream {
        let mut out = TokenStream::new();
        let used = self.used();
        for (id, value) in self.graph.values.iter().enumerate() {
            let (Some(Place::Const(name)), Source::Constant(t)) = (&self.places[id], &value.source)
            else {
                continue;
            };
            if !used[id] {
                continue;
            }
            let elem = self.elem(value.dtype);
            let n = lit_usize(value.numel());
            let doc = doc_line(&format!(
                " Constant {}: {} {:?}.",
                code(&value.name),
                value.dtype,
                value.shape
            ));
            if value.numel() > BLOB_ELEMENTS {
                // One byte-string literal, decoded at compile time: rustc reads it in a blink,
                // where millions of literals took it minutes and gigabytes.
                let rt = &self.rt;
                let decode =
                    quote::format_ident!("le_{}", value.dtype.variant_name().to_ascii_lowercase());
                let bytes = Literal::byte_string(&t.bytes);
                out.extend(quote! {
                    #[doc = #doc]
                    #[allow(long_running_const_eval)]
                    const #name: [#elem; #n] = #rt::bytes::#decode::<#n>(#bytes);
                });
                continue;
            }
            let elems = self.literals(t);
            out.extend(quote! {
                #[doc = #doc]
                const #name: [#elem; #n] = [#(#elems),*];
            });
        }
        out
    }

    /// Whether each value is read at run time (by a node's data input or as an output), in one
    /// pass (a search per constant was quadratic for thousands of constants).
    fn used(&self) -> Vec<bool> {
        let mut used = vec![false; self.graph.values.len()];
        for n in &self.graph.nodes {
            used[n.input] = true;
        }
        for o in &self.graph.outputs {
            used[o.value] = true;
        }
        used
    }

    /// The elements of a constant as literals.
    fn literals(&self, t: &Tensor) -> Vec<TokenStream> {
        let rt = &self.rt;
        let size = t.dtype.size();
        t.bytes
            .chunks_exact(size)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..size].copy_from_slice(c);
                let bits = u64::from_le_bytes(b);
                match t.dtype {
                    DType::F32 => float_lit(f32::from_bits(bits as u32) as f64, bits, "f32"),
                    DType::F64 => float_lit(f64::from_bits(bits), bits, "f64"),
                    DType::F16 => {
                        let l = Literal::u16_unsuffixed(bits as u16);
                        quote!(#rt::f16::from_bits(#l))
                    }
                    DType::BF16 => {
                        let l = Literal::u16_unsuffixed(bits as u16);
                        quote!(#rt::bf16::from_bits(#l))
                    }
                    DType::Bool => {
                        if bits != 0 {
                            quote!(true)
                        } else {
                            quote!(false)
                        }
                    }
                    DType::I8 => int_lit(bits as u8 as i8 as i128, "i8"),
                    DType::I16 => int_lit(bits as u16 as i16 as i128, "i16"),
                    DType::I32 => int_lit(bits as u32 as i32 as i128, "i32"),
                    DType::I64 => int_lit(bits as i64 as i128, "i64"),
                    DType::U8 => int_lit(bits as u8 as i128, "u8"),
                    DType::U16 => int_lit(bits as u16 as i128, "u16"),
                    DType::U32 => int_lit(bits as u32 as i128, "u32"),
                    DType::U64 => int_lit(bits as i128, "u64"),
                }
            })
            .collect()
    }
}
