// The path names the folder of the models, not a model.
onnx_aot::model!(mod top1 = "ui/models");

fn main() {}
