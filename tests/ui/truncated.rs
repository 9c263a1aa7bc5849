// A valid model cut in half, as an interrupted download leaves it.
onnx_aot::model!(mod top1 = "ui/models/truncated.onnx");

fn main() {}
