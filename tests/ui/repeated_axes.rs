// ReduceMax with axes [1, -1] on a rank-2 input: the same axis twice.
onnx_aot::model!(mod rowmax = "ui/models/repeated_axes.onnx");

fn main() {
    let out = rowmax::run(&rowmax::Inputs { x: [[0.0; 3]; 2] });
    let _: [f32; 2] = out.m;
}
