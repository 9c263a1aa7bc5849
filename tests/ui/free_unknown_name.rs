// `free: [axis]`: the initializer-backed input is named `axes`. The error points at the name in
// `free` and suggests the right one.
onnx_aot::model! {
    mod rowmax = "ui/models/axes_initializer.onnx" {
        free: [axis],
    }
}

fn main() {
    let out = rowmax::run(&rowmax::Inputs { x: [[0.0; 3]; 2] });
    let _: [f32; 2] = out.m;
}
