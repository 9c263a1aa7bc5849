// A node of a custom domain onnx-aot does not know (imported by the model).
onnx_aot::model!(mod top1 = "ui/models/unknown_domain.onnx");

fn main() {
    let out = top1::run(&top1::Inputs { x: [[0.0; 3]; 2] });
    let _: [[i64; 1]; 2] = out.label;
}
