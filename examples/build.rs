//! Generates the `built` example's module with the build-script API.

fn main() {
    let path = onnx_aot_codegen::Builder::new("models/head.onnx")
        .module_name("head_built")
        .dim("batch", 3)
        .input("axes", [1i64])
        .write()
        .unwrap_or_else(|e| panic!("{e}"));
    println!("cargo:rerun-if-changed=build.rs");
    let _ = path;
}
