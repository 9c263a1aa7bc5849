// The path must be a string literal; a macro call is not expanded first.
onnx_aot::model!(mod top1 = concat!("ui/models/", "top1.onnx"));

fn main() {}
