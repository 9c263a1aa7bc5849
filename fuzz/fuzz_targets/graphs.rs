//! Structure-aware fuzzing: a graph description drawn by `arbitrary` ([`onnx_aot_fuzz::spec`])
//! becomes a valid-looking ONNX model (opsets, typed inputs with fixed and symbolic dims,
//! initializers, nodes of the supported ops wired to earlier values, attributes in and out of
//! range, outputs with or without declared types) and options (bound dims, frozen or freed
//! inputs, graph cuts, chosen outputs), and goes through `onnx_aot_codegen::generate`.
//!
//! Properties ([`onnx_aot_fuzz::check`]): no panic, abort or timeout; `Err` carries non-empty
//! messages; the same input gives the same result twice; accepted models give tokens that
//! parse as a Rust file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnx_aot_fuzz::spec::GraphSpec;

fuzz_target!(|spec: GraphSpec| {
    let (bytes, options) = onnx_aot_fuzz::build(&spec);
    onnx_aot_fuzz::check(&bytes, &options);
});
