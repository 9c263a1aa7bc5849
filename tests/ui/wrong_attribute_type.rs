// ArgMax's `axis` was written as a float.
onnx_aot::model!(mod top1 = "ui/models/wrong_attribute_type.onnx");

fn main() {
    let out = top1::run(&top1::Inputs { x: [[0.0; 3]; 2] });
    let _: [i64; 2] = out.label;
}
