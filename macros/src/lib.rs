//! The `model!` procedural macro of onnx-aot. Use it through the `onnx_aot` crate, which
//! re-exports it: `onnx_aot::model!(pub mod top1 = "models/top1.onnx");`.
//!
//! This crate only parses the macro's arguments, reads the file and turns the generator's
//! errors into spanned `compile_error!`s; all the work happens in `onnx-aot-codegen`.
#![deny(missing_docs)]

mod args;

use std::path::PathBuf;

use onnx_aot_codegen::options::Frontend;
use onnx_aot_codegen::{Blame, Options};
use proc_macro2::{Span, TokenStream};
use quote::quote;

use args::ModelArgs;

/// Compiles an ONNX model into a module.
///
/// ```ignore
/// onnx_aot::model!(pub mod top1 = "models/top1.onnx");
/// onnx_aot::model! {
///     /// Doc comments pass through.
///     pub mod head = "models/head.onnx" {
///         dims: { batch = 4 },       // bind symbolic dimensions
///         inputs: { axes = [1] },    // freeze a graph input to a constant
///     }
/// }
/// ```
///
/// The path is relative to `CARGO_MANIFEST_DIR`. The module holds `Inputs`, `Outputs`, `run`,
/// `run_into`, `run_bytes` and constants describing the tensors.
#[proc_macro]
pub fn model(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let args = match syn::parse::<ModelArgs>(input) {
        Ok(a) => a,
        Err(e) => return e.to_compile_error().into(),
    };
    expand(&args).into()
}

fn expand(args: &ModelArgs) -> TokenStream {
    let attrs = &args.attrs;
    let vis = &args.vis;
    let name = &args.name;
    let runtime_path = args.krate.as_ref().map_or_else(
        || "::onnx_aot".to_string(),
        |p| quote::ToTokens::to_token_stream(p).to_string(),
    );
    let stub = |errors: TokenStream| {
        // The stand-in reaches the runtime under the name the caller gave it.
        let options = Options {
            runtime_path: runtime_path.clone(),
            ..Options::default()
        };
        let items = onnx_aot_codegen::stub::stub_items(&[], &options);
        quote! {
            #errors
            #(#attrs)*
            #vis mod #name {
                #items
            }
        }
    };
    let relative = args.path.value();
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        let e = syn::Error::new(
            args.path.span(),
            "CARGO_MANIFEST_DIR is not set; onnx_aot::model! resolves model paths relative to the \
             crate's manifest directory, so it must be expanded by cargo",
        );
        return stub(e.to_compile_error());
    };
    let path = PathBuf::from(dir).join(&relative);
    let shown = path.display().to_string();
    let bytes = match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => Err(format!(
            "`{relative}` is a directory ({shown}), not an .onnx file; name the model file itself"
        )),
        // Only a regular file, bounded in size: never a pipe or a device.
        Ok(_) => onnx_aot_codegen::model_file::read_model_file(&path)
            .map_err(|e| format!("model file `{relative}`: {e}")),
        Err(e) => Err(format!(
            "cannot read model file `{relative}` ({shown}): {e}; the path is relative to \
             CARGO_MANIFEST_DIR, the directory of this crate's Cargo.toml"
        )),
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(message) => return stub(syn::Error::new(args.path.span(), message).to_compile_error()),
    };
    let options = Options {
        module_name: name.to_string(),
        dims: args
            .dims
            .iter()
            .map(|d| (d.name.clone(), d.value))
            .collect(),
        inputs: args
            .inputs
            .iter()
            .map(|i| (i.name.clone(), i.values.clone()))
            .collect(),
        free: args.free.iter().map(|(n, _)| n.clone()).collect(),
        runtime_path: runtime_path.clone(),
        source_name: format!("model file `{relative}`"),
        frontend: Frontend::Macro { path: relative },
        start: args.start.iter().map(|(s, _)| s.clone()).collect(),
        outputs: args
            .outputs
            .as_ref()
            .map(|o| o.iter().map(|(n, _)| n.clone()).collect()),
        // `dims` and `inputs` given twice are refused while parsing; `free` here.
        repeated: args
            .free
            .iter()
            .enumerate()
            .filter(|(i, (n, _))| args.free[..*i].iter().any(|(m, _)| m == n))
            .map(|(_, (n, _))| onnx_aot_codegen::options::Repeated::Free(n.clone()))
            .collect(),
        // The macro writes the module itself, with the visibility of the call.
        visibility: quote::ToTokens::to_token_stream(&args.vis).to_string(),
    };
    let analyzed = onnx_aot_codegen::cache::Cache::global().analyze(&path, &bytes, &options);
    match analyzed.map(|graph| onnx_aot_codegen::generate_from_graph(&graph, &options)) {
        Ok(onnx_aot_codegen::Generated { docs, items }) => quote! {
            #(#attrs)*
            #[doc = ""]
            #(#[doc = #docs])*
            #vis mod #name {
                #items
                const _: &[u8] = include_bytes!(#shown);
            }
        },
        Err(errors) => {
            let mut out = TokenStream::new();
            for e in errors {
                let span = span_of(args, &e.blame);
                out.extend(syn::Error::new(span, e.message).to_compile_error());
            }
            let items = onnx_aot_codegen::stub::stub_items(&bytes, &options);
            quote! {
                #out
                #(#attrs)*
                #vis mod #name {
                    const _: &[u8] = include_bytes!(#shown);
                    #items
                }
            }
        }
    }
}

fn span_of(args: &ModelArgs, blame: &Blame) -> Span {
    match blame {
        Blame::Model => args.path.span(),
        Blame::Dim(n) => args
            .dims
            .iter()
            .find(|d| &d.name == n)
            .map_or(args.path.span(), |d| d.span),
        Blame::Input(n) => args
            .inputs
            .iter()
            .find(|i| &i.name == n)
            .map_or(args.path.span(), |i| i.span),
        Blame::Free(n) => args
            .free
            .iter()
            .find(|(name, _)| name == n)
            .map_or(args.path.span(), |(_, span)| *span),
        Blame::Start(n) => args
            .start
            .iter()
            .find(|(s, _)| &s.name == n)
            .map_or(args.path.span(), |(_, span)| *span),
        Blame::Output(n) => args
            .outputs
            .iter()
            .flatten()
            .find(|(name, _)| name == n)
            .map_or(args.path.span(), |(_, span)| *span),
    }
}
