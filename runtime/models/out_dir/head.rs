// What a build script's `Builder::new("models/head.onnx").module_name("head").dim("batch", 3)
// .input("axes", [1i64]).write()` puts in OUT_DIR/head.rs, for the README's doctest of
// `include!` (this crate has no build script): the same module, expanded by the macro.
onnx_aot::model! {
    pub mod head = "models/head.onnx" {
        dims: { batch = 3 },
        inputs: { axes = [1] },
    }
}
