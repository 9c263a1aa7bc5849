//! Writes Builder output for the same models the macro embeds in src/lib.rs: single- and
//! multi-node models, with constants, in `pub`, `pub(crate)` and private modules.

use onnx_aot_codegen::Builder;

fn main() {
    let out = |name: &str| {
        std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join(name)
    };
    let write = |b: Builder, name: &str| {
        b.out_file(out(name)).write().unwrap_or_else(|e| panic!("{e}"));
    };
    write(
        Builder::new("../../examples/models/top1.onnx").module_name("built_top1"),
        "built_top1.rs",
    );
    write(
        Builder::new("../../examples/models/head.onnx")
            .module_name("built_head")
            .dim("batch", 2)
            .input("axes", [1i64])
            .visibility("pub(crate)"),
        "built_head.rs",
    );
    write(
        Builder::new("../data/models/big_chain.onnx")
            .module_name("built_chain")
            .visibility(""),
        "built_chain.rs",
    );
    write(
        Builder::new("../data/models/exporter_pytorch.onnx")
            .module_name("built_exporter")
            .dim("batch_size", 2),
        "built_exporter.rs",
    );
    write(
        Builder::new("models/constants.onnx").module_name("built_constants"),
        "built_constants.rs",
    );
    write(
        Builder::new("models/names.onnx")
            .module_name("built_names")
            .visibility("pub(crate)"),
        "built_names.rs",
    );
    write(
        Builder::new("models/types.onnx")
            .module_name("built_types")
            .visibility(""),
        "built_types.rs",
    );
    write(
        Builder::new("models/glue.onnx").module_name("built_glue"),
        "built_glue.rs",
    );
    println!("cargo:rerun-if-changed=build.rs");
}
