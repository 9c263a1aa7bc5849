// The model imports an opset newer than onnx-aot knows.
onnx_aot::model!(mod top1 = "ui/models/unsupported_opset.onnx");

fn main() {
    let out = top1::run(&top1::Inputs { x: [[0.0; 3]; 2] });
    let _: [i64; 2] = out.label;
}
