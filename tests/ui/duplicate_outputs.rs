// The graph lists its output `label` twice.
onnx_aot::model!(mod top1 = "ui/models/duplicate_outputs.onnx");

fn main() {}
