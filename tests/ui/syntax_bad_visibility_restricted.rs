// `pub(crat)`: a misspelled restricted visibility.
onnx_aot::model!(pub(crat) mod top1 = "ui/models/top1.onnx");

fn main() {}
