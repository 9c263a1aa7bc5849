// Two nodes write the same value `y`.
onnx_aot::model!(mod minmax = "ui/models/produced_twice.onnx");

fn main() {
    let out = minmax::run(&minmax::Inputs { x: [[0.0; 3]; 2] });
    let _: [f32; 2] = out.y;
}
