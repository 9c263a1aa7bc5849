// ArgMax over axis 2 of a rank-2 input.
onnx_aot::model!(mod top1 = "ui/models/axis_out_of_range.onnx");

fn main() {
    let out = top1::run(&top1::Inputs {
        x: [[0.5, 2.0, 1.0], [3.0, 0.0, 1.0]],
    });
    let label: [i64; 2] = out.label;
    println!("{label:?}");
}
