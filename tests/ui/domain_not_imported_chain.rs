// The multi-axis Hardmax of the onnx_aot domain without importing that domain, followed by a node
// reading its output: one error, about the import, none about the reader.
onnx_aot::model!(mod onehot = "ui/models/domain_not_imported_chain.onnx");

fn main() {
    let out = onehot::run(&onehot::Inputs { x: [[0.0; 3]; 2] });
    let _: [i64; 2] = out.label;
}
