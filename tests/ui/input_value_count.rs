// The axes input has shape [1]; two values are given.
onnx_aot::model! {
    mod rowmax = "ui/models/axes_input.onnx" {
        inputs: { axes = [1, 0] },
    }
}

fn main() {
    let out = rowmax::run(&rowmax::Inputs { x: [[0.0; 3]; 2] });
    let _: [f32; 2] = out.m;
}
