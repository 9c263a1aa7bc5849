// Three independent mistakes in three nodes: all three are reported.
onnx_aot::model!(mod head = "ui/models/several_errors.onnx");

fn main() {
    let out = head::run(&head::Inputs { x: [[0.0; 3]; 2] });
    let _: ([i64; 2], [f32; 3], [[f32; 3]; 2]) = (out.label, out.m, out.onehot);
}
