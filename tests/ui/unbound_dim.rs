// The input has a symbolic batch dimension, and the macro call gives it no size.
onnx_aot::model!(mod top1 = "ui/models/symbolic_batch.onnx");

fn main() {
    let _ = top1::run(&top1::Inputs::zeroed());
}
