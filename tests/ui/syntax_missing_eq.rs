// The `=` between the module name and the path is missing.
onnx_aot::model!(mod top1 "ui/models/top1.onnx");

fn main() {}
