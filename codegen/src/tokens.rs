//! Small pieces of generated code shared by the emitter and the op families: element types,
//! and literals of sizes, floats and integers.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::dtype::DType;
use crate::ir::Direction;

/// The Rust element type of a dtype (`f32`, `RT::f16`, `bool`, ...).
pub fn elem_tokens(dtype: DType, rt: &TokenStream) -> TokenStream {
    match dtype {
        DType::F32 => quote!(f32),
        DType::F64 => quote!(f64),
        DType::F16 => quote!(#rt::f16),
        DType::BF16 => quote!(#rt::bf16),
        DType::I8 => quote!(i8),
        DType::I16 => quote!(i16),
        DType::I32 => quote!(i32),
        DType::I64 => quote!(i64),
        DType::U8 => quote!(u8),
        DType::U16 => quote!(u16),
        DType::U32 => quote!(u32),
        DType::U64 => quote!(u64),
        DType::Bool => quote!(bool),
    }
}

/// An unsuffixed `usize` literal (`16`), for sizes and offsets.
pub fn lit_usize(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

/// A float literal with its suffix (`1.5f32`, `-0.0f64`); NaN by its bits, infinities by name.
pub fn float_lit(v: f64, bits: u64, suffix: &str) -> TokenStream {
    let ty = format_ident!("{}", suffix);
    if v.is_nan() {
        let l = if suffix == "f32" {
            Literal::u32_suffixed(bits as u32)
        } else {
            Literal::u64_suffixed(bits)
        };
        return quote!(#ty::from_bits(#l));
    }
    if v.is_infinite() {
        return if v > 0.0 {
            quote!(#ty::INFINITY)
        } else {
            quote!(#ty::NEG_INFINITY)
        };
    }
    let text = if suffix == "f32" {
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    };
    let negative = text.starts_with('-');
    let body = text.trim_start_matches('-');
    let lit: Literal = format!("{body}{suffix}")
        .parse()
        .unwrap_or_else(|_| Literal::f64_suffixed(v.abs()));
    if negative {
        quote!(-#lit)
    } else {
        quote!(#lit)
    }
}

/// An integer literal with its suffix (`-3i8`).
pub fn int_lit(v: i128, suffix: &str) -> TokenStream {
    let lit: Literal = format!("{}{suffix}", v.unsigned_abs())
        .parse()
        .unwrap_or_else(|_| Literal::i128_unsuffixed(0));
    if v < 0 {
        quote!(-#lit)
    } else {
        quote!(#lit)
    }
}

/// The runtime's marker type of a direction: `RT::Max` or `RT::Min`.
pub fn direction_tokens(direction: Direction, rt: &TokenStream) -> TokenStream {
    match direction {
        Direction::Max => quote!(#rt::Max),
        Direction::Min => quote!(#rt::Min),
    }
}

/// Structs with more fields than this compare field by field in statements rather than by
/// `derive(PartialEq)`, whose single `&&` chain over 10,000 fields overflowed rustc's stack.
pub const DERIVE_FIELDS: usize = 64;

/// The derives of an `Inputs` or `Outputs` struct, and its `PartialEq` impl when not derived.
pub fn derive_or_compare(name: TokenStream, fields: &[Ident]) -> (TokenStream, TokenStream) {
    if fields.len() <= DERIVE_FIELDS {
        return (quote!(#[derive(Clone, Copy, Debug, PartialEq)]), quote!());
    }
    let eq = quote! {
        impl ::core::cmp::PartialEq for #name {
            fn eq(&self, other: &Self) -> bool {
                #(if self.#fields != other.#fields { return false; })*
                true
            }
        }
    };
    (quote!(#[derive(Clone, Copy, Debug)]), eq)
}
