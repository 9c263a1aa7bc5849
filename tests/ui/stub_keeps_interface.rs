// The stub module has the interface the model declares, so a genuine mistake of the caller (rows
// of 4 for an input of rows of 3) is still reported, next to the model's own error.
onnx_aot::model!(mod top1 = "ui/models/axis_out_of_range.onnx");

fn main() {
    let out = top1::run(&top1::Inputs { x: [[0.0; 4]; 2] });
    let _: [i64; 2] = out.label;
}
