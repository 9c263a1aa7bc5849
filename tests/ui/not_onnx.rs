// A text file with an .onnx name.
onnx_aot::model!(pub mod top1 = "ui/models/not_onnx.onnx");

fn main() {
    let _ = top1::run(&top1::Inputs::zeroed());
}
