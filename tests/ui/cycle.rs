// Two Identity nodes read each other's output.
onnx_aot::model!(mod looped = "ui/models/cycle.onnx");

fn main() {
    let out = looped::run(&looped::Inputs { x: [[0.0; 3]; 2] });
    let _: [f32; 2] = out.y;
}
