//! # onnx-aot-codegen
//!
//! The code generator behind `onnx_aot::model!`: ONNX bytes in, a shape-specialized Rust module
//! out. It is a plain library so that the macro, build scripts, the CLI and tests share it.
//!
//! ## Stages
//!
//! Data flows one way; each stage is a short driver, and everything about one op lives in its
//! family's module under [`ops`]:
//!
//! ```text
//!  bytes ──decode──▶ onnx::ModelProto ──load──▶ ir::Graph ──plan──▶ memory::MemoryPlan ──emit──▶ tokens
//!        load::decode   (prost structs)   │   (typed, shaped,  │  (scratch slots,      emit::emit_items
//!                                         │    ordered nodes)  │   Identity aliases)   + one fn per node
//!                                         ▼                    ▼
//!                           ops::Family::resolve       ir::Compute::emit
//!                           (per op: attributes,        (per op: loop plan
//!                            type rules, inference)      and emitted call)
//! ```
//!
//! - **decode** ([`load::decode`]): the protobuf into the message structs of [`onnx`].
//! - **load** ([`load`]): opsets, initializers, the user's bindings, which registered op each
//!   node is ([`ops::registry`]), node order; each node is **inferred** by its op family
//!   ([`ops::Family::resolve`]: attributes, type constraints, output shape), giving the typed
//!   [`ir::Graph`] whose nodes hold an [`ir::Compute`].
//! - **plan**: the scratch memory of intermediates ([`memory`]); each node's loop nest is
//!   planned by its op ([`ir::Compute::emit`]).
//! - **emit** ([`emit`]): the module's interface, entry points, constants and one function per
//!   node, whose body the node's op emits.
//!
//! Messages come from one place ([`messages`]) so that each says what, where and how to fix it
//! in the user's own front end; size limits from another ([`limits`]).
//!
//! ## Adding an op
//!
//! 1. Write `src/ops/NAME.rs` (see [`ops::arg`] for a whole example):
//!    - a family type and one `static` per op it serves, implementing [`ops::Family`]:
//!      `versions` (the `since_version`s), `signature` (inputs and attributes per version:
//!      attribute types, flags and unknown names are then checked for you), `allows` (the type
//!      constraint per version, with `type_note` for types a later version adds) and `resolve`
//!      (defaults, axis checks, the output type and shape; errors start with `cx.label` and say
//!      how to fix the model);
//!    - a resolved-op type (`Clone, Debug, PartialEq`) implementing [`ir::Compute`]: `stem`
//!      (the node function's name), `resolved` (the attributes for its doc), `emit` (the loop
//!      plan and the body over `x` and `y`, calling kernels of the runtime), and `is_alias` if
//!      the output may share the input's storage. A value computed at build time resolves to
//!      [`ops::Resolved::Constant`] instead.
//! 2. Declare the module in `src/ops/mod.rs` and register each op with one line in
//!    [`ops::registry::REGISTRY`]: `op("", "NAME", &NAME::FAMILY)`.
//! 3. Test it: unit tests in the module (its plans, versions and types), named after the op
//!    (`fn NAME_...`), and the official ONNX node tests of the op under `tests/data/node` (the
//!    conformance test runs every case there). The suite's `registry` test fails while a
//!    registered op has neither.
//! 4. If it needs a new kernel, add it to the runtime under `runtime/src/kernels/`, with tests
//!    against a plain reference.
//!
//! ## Example
//!
//! ```
//! use onnx_aot_codegen::{analyze, generate_pretty, Options};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/models/top1.onnx");
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

pub mod builder;
pub mod cache;
pub mod dtype;
pub mod emit;
pub mod error;
pub mod fuse;
pub mod inspect;
pub mod ir;
pub mod limits;
pub mod load;
pub mod memory;
pub mod messages;
pub mod model_file;
pub mod names;
pub mod onnx;
pub mod ops;
pub mod options;
pub mod schedule;
pub mod stub;
pub mod tensor;
pub mod tokens;

pub use builder::{BuildError, Builder};
pub use dtype::DType;
pub use error::{Blame, Error, Errors};
pub use options::{parse_type, DimSpec, Options, Scalar, Start};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Reads and checks a model: the typed graph, or every error found.
pub fn analyze(bytes: &[u8], options: &Options) -> Result<ir::Graph, Errors> {
    load::load(bytes, options)
}

/// What the generator produces for a module: its doc lines and its items.
#[derive(Clone, Debug)]
pub struct Generated {
    /// Doc lines for the module (each becomes a `#[doc = ..]` attribute).
    pub docs: Vec<String>,
    /// The module's items, without the `mod` wrapper.
    pub items: TokenStream,
}

/// The module's docs and items, without the `mod` wrapper (what the macro wraps with the
/// user's visibility and attributes).
pub fn generate_parts(bytes: &[u8], options: &Options) -> Result<Generated, Errors> {
    let graph = analyze(bytes, options)?;
    Ok(Generated {
        docs: emit::module_docs(&graph, options),
        items: emit::emit_items(&graph, options),
    })
}

/// The module's docs and items for an already analyzed graph.
pub fn generate_from_graph(graph: &ir::Graph, options: &Options) -> Generated {
    Generated {
        docs: emit::module_docs(graph, options),
        items: emit::emit_items(graph, options),
    }
}

/// The whole generated module, `pub mod NAME { .. }`, as tokens.
pub fn generate(bytes: &[u8], options: &Options) -> Result<TokenStream, Errors> {
    let Generated { docs, items } = generate_parts(bytes, options)?;
    let name = format_ident!("{}", names::sanitize(&options.module_name));
    Ok(quote! {
        #(#[doc = #docs])*
        pub mod #name {
            #items
        }
    })
}

/// The generated module formatted with prettyplease, for build scripts and snapshot tests.
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
    // prettyplease leaves macro bodies as raw tokens: format the `__if_ndarray!` body as a file
    // of its own and splice it back in place of a marker.
    let mut bodies = Vec::new();
    for item in &mut file.items {
        let syn::Item::Mod(m) = item else { continue };
        let Some((_, items)) = m.content.as_mut() else {
            continue;
        };
        for inner in items.iter_mut() {
            let syn::Item::Macro(mac) = inner else {
                continue;
            };
            let is_nd = mac
                .mac
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "__if_ndarray");
            if !is_nd {
                continue;
            }
            let body: syn::File = syn::parse2(mac.mac.tokens.clone()).map_err(internal)?;
            let path = mac
                .mac
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>();
            let lead = if mac.mac.path.leading_colon.is_some() {
                "::"
            } else {
                ""
            };
            bodies.push((
                format!("{lead}{}", path.join("::")),
                prettyplease::unparse(&body),
            ));
            let marker = format_ident!("__ONNX_AOT_MACRO_{}", bodies.len() - 1);
            *inner = syn::parse_quote!(const #marker: () = (););
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
