//! # onnx-aot-codegen
//!
//! The code generator behind `onnx_aot::model!`: ONNX bytes in, a shape-specialized Rust module
//! out. It is a plain library so that the macro, build scripts, the CLI and tests share it.
//!
//! Its API is what build scripts and tools need:
//! - [`Builder`]: in `build.rs`, write a model's module to `OUT_DIR` (with
//!   `cargo:rerun-if-changed`) for `include!`;
//! - [`generate`] (tokens) and [`generate_pretty`] (formatted source) of a model's module, with
//!   [`Options`] (module name, bound dimensions, frozen and freed inputs, graph cuts);
//! - [`analyze`] and [`inspect`]: the checked graph and its summary, as the CLI prints it;
//! - the errors: [`Error`] and [`Errors`] (every error found, each saying what, where and how to
//!   fix it) and [`BuildError`].
//!
//! The generated code needs the runtime crate `onnx-aot` of exactly the same version. The
//! modules behind these (loader, IR, ops, emitter) are public only for the macro, the CLI and
//! the test suite: they are hidden from these docs and may change in any release (how they fit
//! together: `docs/CODEGEN.md` in the repository).
//!
//! ## Example
//!
//! ```
//! use onnx_aot_codegen::{analyze, generate_pretty, Options};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/top1.onnx");
//! let bytes = std::fs::read(path).unwrap();
//! let code = generate_pretty(&bytes, &Options::new("top1")).unwrap();
//! assert!(code.contains("pub fn run_bytes"));
//!
//! let graph = analyze(&bytes, &Options::default()).unwrap();
//! assert_eq!(graph.nodes[0].op_type, "ArgMax");
//!
//! // Errors say what, where and how to fix it.
//! let err = analyze(b"not a model", &Options::default()).unwrap_err();
//! assert!(err.to_string().contains("not a readable ONNX model"));
//! ```
#![deny(missing_docs)]

#[doc(hidden)]
pub mod builder;
#[doc(hidden)]
pub mod cache;
#[doc(hidden)]
pub mod chunks;
#[doc(hidden)]
pub mod dtype;
#[doc(hidden)]
pub mod emit;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod fuse;
pub mod inspect;
#[doc(hidden)]
pub mod ir;
#[doc(hidden)]
pub mod limits;
#[doc(hidden)]
pub mod load;
#[doc(hidden)]
pub mod memory;
#[doc(hidden)]
pub mod messages;
#[doc(hidden)]
pub mod model_file;
#[doc(hidden)]
pub mod names;
#[doc(hidden)]
pub mod onnx;
#[doc(hidden)]
pub mod ops;
#[doc(hidden)]
pub mod options;
#[doc(hidden)]
pub mod schedule;
#[doc(hidden)]
pub mod stub;
#[doc(hidden)]
pub mod tensor;
#[doc(hidden)]
pub mod tokens;

pub use builder::{BuildError, Builder};
pub use dtype::DType;
pub use error::{Blame, Error, Errors};
pub use ir::Graph;
pub use options::{parse_type, DimSpec, Options, Scalar, Start};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Reads and checks a model: the typed graph, or every error found.
pub fn analyze(bytes: &[u8], options: &Options) -> Result<ir::Graph, Errors> {
    load::load(bytes, options)
}

/// What the generator produces for a module: its doc lines and its items.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct Generated {
    /// Doc lines for the module (each becomes a `#[doc = ..]` attribute).
    pub docs: Vec<String>,
    /// The module's items, without the `mod` wrapper.
    pub items: TokenStream,
}

/// The module's docs and items, without the `mod` wrapper (what the macro wraps with the
/// user's visibility and attributes).
#[doc(hidden)]
pub fn generate_parts(bytes: &[u8], options: &Options) -> Result<Generated, Errors> {
    let graph = analyze(bytes, options)?;
    Ok(Generated {
        docs: emit::module_docs(&graph, options),
        items: emit::emit_items(&graph, options),
    })
}

/// The module's docs and items for an already analyzed graph.
#[doc(hidden)]
pub fn generate_from_graph(graph: &ir::Graph, options: &Options) -> Generated {
    Generated {
        docs: emit::module_docs(graph, options),
        items: emit::emit_items(graph, options),
    }
}

/// The whole generated module, `pub mod NAME { .. }`, as tokens.
///
/// ```
/// use onnx_aot_codegen::{generate, Options};
///
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/top1.onnx")).unwrap();
/// let tokens = generate(&bytes, &Options::new("top1")).unwrap();
/// assert!(tokens.to_string().starts_with("# [doc ="));
/// assert!(tokens.to_string().contains("pub mod top1"));
/// ```
pub fn generate(bytes: &[u8], options: &Options) -> Result<TokenStream, Errors> {
    let Generated { docs, items } = generate_parts(bytes, options)?;
    let name = format_ident!("{}", names::sanitize(&options.module_name));
    let vis: syn::Visibility = syn::parse_str(&options.visibility).map_err(|_| {
        Errors::from(Error::model(format!(
            "the module's visibility {:?} is not a Rust visibility; give `pub`, `pub(crate)`, \
             `pub(super)` or an empty string for a private module",
            options.visibility
        )))
    })?;
    Ok(quote! {
        #(#[doc = #docs])*
        #vis mod #name {
            #items
        }
    })
}

/// The generated module formatted with prettyplease, for build scripts and snapshot tests.
///
/// ```
/// use onnx_aot_codegen::{generate_pretty, Options};
///
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/top1.onnx")).unwrap();
/// let code = generate_pretty(&bytes, &Options::new("top1")).unwrap();
/// assert!(code.contains("pub mod top1 {\n"));
/// assert!(code.contains("pub struct Inputs {"));
/// ```
pub fn generate_pretty(bytes: &[u8], options: &Options) -> Result<String, Errors> {
    let tokens = generate(bytes, options)?;
    pretty(tokens)
}

/// Formats tokens of items as a Rust file.
pub fn pretty(tokens: TokenStream) -> Result<String, Errors> {
    let internal = |e: syn::Error| {
        Errors::from(Error::model(format!(
            "internal error: generated code does not parse: {e}"
        )))
    };
    let mut file: syn::File = syn::parse2(tokens).map_err(internal)?;
    // prettyplease leaves macro bodies as raw tokens: format the bodies of the runtime's macros
    // (`__if_ndarray!`, `__if_alloc!`, `__tensors!`, in the module and in its impl blocks) as
    // files of their own and splice them back in place of markers.
    let mut bodies = Vec::new();
    for item in &mut file.items {
        let syn::Item::Mod(m) = item else { continue };
        let Some((_, items)) = m.content.as_mut() else {
            continue;
        };
        for inner in items.iter_mut() {
            match inner {
                syn::Item::Macro(mac) => {
                    if let Some(marker) = take_body(&mac.mac, &mut bodies).map_err(internal)? {
                        *inner = syn::parse_quote!(const #marker: () = (););
                    }
                }
                syn::Item::Impl(imp) => {
                    for it in &mut imp.items {
                        let syn::ImplItem::Macro(mac) = it else {
                            continue;
                        };
                        if let Some(marker) = take_body(&mac.mac, &mut bodies).map_err(internal)? {
                            *it = syn::parse_quote!(const #marker: () = (););
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut text = prettyplease::unparse(&file);
    for (i, (path, body)) in bodies.iter().enumerate() {
        let marker = format!("const __ONNX_AOT_MACRO_{i}: () = ();");
        let Some(line) = text
            .lines()
            .find(|l| l.trim() == marker)
            .map(str::to_string)
        else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        let mut block = format!("{indent}{path}! {{\n");
        for l in body.lines() {
            if l.is_empty() {
                block.push('\n');
            } else {
                block.push_str(&format!("{indent}    {l}\n"));
            }
        }
        block.push_str(&format!("{indent}}}"));
        text = text.replacen(&line, &block, 1);
    }
    Ok(text)
}

/// When `mac` is one of the runtime's item macros, its path and formatted body pushed on
/// `bodies`, and the marker to put in its place.
fn take_body(
    mac: &syn::Macro,
    bodies: &mut Vec<(String, String)>,
) -> Result<Option<proc_macro2::Ident>, syn::Error> {
    let known = mac.path.segments.last().is_some_and(|s| {
        ["__if_ndarray", "__if_alloc", "__tensors"].contains(&&*s.ident.to_string())
    });
    if !known {
        return Ok(None);
    }
    let body: syn::File = syn::parse2(mac.tokens.clone())?;
    let path = mac
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>();
    let lead = if mac.path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    bodies.push((
        format!("{lead}{}", path.join("::")),
        prettyplease::unparse(&body),
    ));
    Ok(Some(format_ident!("__ONNX_AOT_MACRO_{}", bodies.len() - 1)))
}
