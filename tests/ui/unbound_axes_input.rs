// ReduceMax-18 takes its axes from a graph input that the macro call does not bind.
onnx_aot::model!(mod rowmax = "ui/models/axes_input.onnx");

fn main() {
    let out = rowmax::run(&rowmax::Inputs {
        x: [[0.0; 3]; 2],
        axes: [1],
    });
    let _: [f32; 2] = out.m;
}
