// The axes input is int64; 1.5 is not an integer. The error points at the binding.
onnx_aot::model! {
    mod rowmax = "ui/models/axes_input.onnx" {
        inputs: { axes = [1.5] },
    }
}

fn main() {
    let out = rowmax::run(&rowmax::Inputs { x: [[0.0; 3]; 2] });
    let _: [f32; 2] = out.m;
}
