// `public` is not a Rust visibility.
onnx_aot::model!(public mod top1 = "ui/models/top1.onnx");

fn main() {}
