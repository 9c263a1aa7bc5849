//! The stand-in module emitted when a model has errors: the interface the model declares (when
//! it can be read), so that code using the module yields no further errors than the model's own.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use std::collections::HashSet;

use crate::dtype::DType;
use crate::limits::{MAX_INTERFACE_TENSORS, MAX_RANK, MAX_TENSOR_BYTES};
use crate::load::{cut, decode};
use crate::names;
use crate::onnx::ValueInfoProto;
use crate::options::Options;
use crate::tokens::{derive_or_compare, elem_tokens as elem};

/// A declared tensor: name, element type, static shape.
struct Declared {
    name: String,
    dtype: DType,
    shape: Vec<usize>,
}

/// A declared tensor within the loader's limits ([`crate::limits`]): a rank of at most
/// [`MAX_RANK`] (each dimension is one level of nested arrays: a rank-3000 stand-in crashed
/// rustc) and fewer than [`MAX_TENSOR_BYTES`] bytes; `None` otherwise.
fn declared(vi: &ValueInfoProto, options: &Options) -> Option<Declared> {
    let tt = vi.r#type.as_ref()?.tensor_type.as_ref()?;
    let dtype = DType::from_onnx(tt.elem_type)?;
    let dims = &tt.shape.as_ref()?.dim;
    if dims.len() > MAX_RANK {
        return None;
    }
    let mut shape = Vec::new();
    for d in dims {
        let size = match (d.dim_value, d.dim_param.as_deref()) {
            (Some(v), _) => usize::try_from(v).ok()?,
            (None, Some(p)) => *options.dims.get(p)?,
            _ => return None,
        };
        shape.push(size);
    }
    if bytes(dtype, &shape)? >= MAX_TENSOR_BYTES {
        return None;
    }
    Some(Declared {
        name: vi.name.clone(),
        dtype,
        shape,
    })
}

/// The bytes of a tensor, `None` on overflow.
fn bytes(dtype: DType, shape: &[usize]) -> Option<u128> {
    shape
        .iter()
        .try_fold(dtype.size() as u128, |acc, &d| acc.checked_mul(d as u128))
}

/// Declared tensors that fit one struct together and are not too many, as the loader requires.
fn fits(list: &[Declared]) -> bool {
    if list.len() > MAX_INTERFACE_TENSORS {
        return false;
    }
    let total = list
        .iter()
        .try_fold(0u128, |acc, d| acc.checked_add(bytes(d.dtype, &d.shape)?));
    total.is_some_and(|t| t < MAX_TENSOR_BYTES)
}

/// The items of a stand-in module: the declared interface with entry points that compute
/// nothing, or only the entry points' names when the interface cannot be read. Never fails.
pub fn stub_items(bytes: &[u8], options: &Options) -> TokenStream {
    let rt = crate::tokens::private_path(&options.runtime_path);
    // With a graph cut, the interface of the cut graph (the uncut one if the cut fails).
    let model = decode(bytes, "")
        .ok()
        .map(|m| match cut::apply(m.clone(), options) {
            Ok(cut) => cut,
            Err(_) => m,
        });
    let interface = model.and_then(|m| {
        let g = m.graph?;
        let inits: HashSet<&str> = g.initializer.iter().map(|t| t.name.as_str()).collect();
        let inputs: Option<Vec<Declared>> = g
            .input
            .iter()
            .filter(|vi| !options.inputs.contains_key(&vi.name))
            .filter(|vi| !inits.contains(vi.name.as_str()) || options.free.contains(&vi.name))
            .map(|vi| declared(vi, options))
            .collect();
        let outputs: Option<Vec<Declared>> =
            g.output.iter().map(|vi| declared(vi, options)).collect();
        let (inputs, outputs) = (inputs?, outputs?);
        (fits(&inputs) && fits(&outputs)).then_some((inputs, outputs))
    });
    let entry_points = quote! {
        /// Stand-in: the model failed to compile.
        pub fn run(inputs: &Inputs) -> Outputs { Outputs::zeroed() }
        /// Stand-in: the model failed to compile.
        pub fn run_into(inputs: &Inputs, outputs: &mut Outputs) {}
        /// Stand-in: the model failed to compile.
        pub fn run_bytes(inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> ::core::result::Result<(), #rt::Error> {
            Ok(())
        }
    };
    let Some((inputs, outputs)) = interface else {
        return quote! {
            /// Stand-in: the model failed to compile.
            #[derive(Clone, Copy, Debug, Default, PartialEq)]
            pub struct Inputs {}
            /// Stand-in: the model failed to compile.
            #[derive(Clone, Copy, Debug, Default, PartialEq)]
            pub struct Outputs {}
            impl Inputs { /// Stand-in.
                pub const fn zeroed() -> Self { Inputs {} } }
            impl Outputs { /// Stand-in.
                pub const fn zeroed() -> Self { Outputs {} } }
            #[allow(unused_variables)]
            mod entry { use super::*; #entry_points }
            pub use entry::{run, run_bytes, run_into};
        };
    };
    let fields = |list: &[Declared]| {
        let names: Vec<&str> = list.iter().map(|d| d.name.as_str()).collect();
        let idents: Vec<_> = names::unique(&names)
            .iter()
            .map(|n| format_ident!("{}", n))
            .collect();
        let types: Vec<TokenStream> = list
            .iter()
            .map(|d| {
                let mut ty = elem(d.dtype, &rt);
                for &s in d.shape.iter().rev() {
                    ty = quote!([#ty; #s]);
                }
                ty
            })
            .collect();
        let zeros: Vec<TokenStream> = list
            .iter()
            .map(|d| {
                let e = elem(d.dtype, &rt);
                let mut z = quote!(<#e as #rt::Element>::ZERO);
                for &s in d.shape.iter().rev() {
                    z = quote!([#z; #s]);
                }
                z
            })
            .collect();
        (idents, types, zeros)
    };
    let (in_f, in_t, in_z) = fields(&inputs);
    let (out_f, out_t, out_z) = fields(&outputs);
    let (in_derive, in_eq) = derive_or_compare(quote!(Inputs), &in_f);
    let (out_derive, out_eq) = derive_or_compare(quote!(Outputs), &out_f);
    quote! {
        /// Stand-in with the model's declared inputs: the model failed to compile.
        #in_derive
        pub struct Inputs { #(pub #in_f: #in_t,)* }
        #in_eq
        /// Stand-in with the model's declared outputs: the model failed to compile.
        #out_derive
        pub struct Outputs { #(pub #out_f: #out_t,)* }
        #out_eq
        impl Inputs { /// Stand-in.
            pub const fn zeroed() -> Self { Inputs { #(#in_f: #in_z,)* } } }
        impl Outputs { /// Stand-in.
            pub const fn zeroed() -> Self { Outputs { #(#out_f: #out_z,)* } } }
        #[allow(unused_variables)]
        mod entry { use super::*; #entry_points }
        pub use entry::{run, run_bytes, run_into};
    }
}
