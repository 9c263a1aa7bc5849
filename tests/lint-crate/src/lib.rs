//! Generated code under the strictest lints a library may set: every module below, written by
//! the macro or by the Builder (`build.rs`) and included at the crate root, in `pub`,
//! `pub(crate)` and private modules, must pass `cargo clippy -- -D warnings -D clippy::pedantic`
//! with these attributes and the runtime's `ndarray` feature on (`tests/tests/lint_clean.rs`).
#![deny(warnings, missing_docs, unreachable_pub)]
#![forbid(unsafe_code)]

onnx_aot::model!(
    /// One `ArgMax`, public.
    pub mod macro_top1 = "../../examples/models/top1.onnx"
);
onnx_aot::model! {
    /// Two nodes with a bound axes input, visible in the crate.
    pub(crate) mod macro_head = "../../examples/models/head.onnx" {
        dims: { batch = 2 },
        inputs: { axes = [1] },
    }
}
onnx_aot::model!(
    /// A chain with scratch memory, private.
    mod macro_chain = "../data/models/big_chain.onnx"
);
onnx_aot::model!(
    /// Large constants read at run time.
    pub mod macro_constants = "models/constants.onnx"
);
onnx_aot::model!(
    /// Names that collide with generated ones, doc strings holding code.
    pub mod macro_names = "models/names.onnx"
);
onnx_aot::model!(
    /// bool and float16, a no-op reduction.
    mod macro_types = "models/types.onnx"
);

onnx_aot::model!(
    /// Casts folded into arg-reductions and reductions, `MaxPool` with its indices, a Transpose.
    pub(crate) mod macro_glue = "models/glue.onnx"
);

include!(concat!(env!("OUT_DIR"), "/built_top1.rs"));
include!(concat!(env!("OUT_DIR"), "/built_head.rs"));
include!(concat!(env!("OUT_DIR"), "/built_chain.rs"));
include!(concat!(env!("OUT_DIR"), "/built_exporter.rs"));
include!(concat!(env!("OUT_DIR"), "/built_constants.rs"));
include!(concat!(env!("OUT_DIR"), "/built_names.rs"));
include!(concat!(env!("OUT_DIR"), "/built_types.rs"));
include!(concat!(env!("OUT_DIR"), "/built_glue.rs"));
