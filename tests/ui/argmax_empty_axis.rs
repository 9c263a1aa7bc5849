// ArgMax over an axis of length 0 has no answer.
onnx_aot::model!(mod top1 = "ui/models/argmax_empty_axis.onnx");

fn main() {
    let out = top1::run(&top1::Inputs { x: [[]; 2] });
    let _: [i64; 2] = out.label;
}
