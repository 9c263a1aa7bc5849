// The model declares its output as [3]; ArgMax over axis 1 of [2, 3] gives [2].
onnx_aot::model!(mod top1 = "ui/models/output_shape_mismatch.onnx");

fn main() {
    let out = top1::run(&top1::Inputs { x: [[0.0; 3]; 2] });
    let _: [i64; 3] = out.label;
}
