// A node of the onnx_aot domain in a model that does not import that domain.
onnx_aot::model!(mod onehot = "ui/models/domain_not_imported.onnx");

fn main() {
    let out = onehot::run(&onehot::Inputs { x: [[0.0; 3]; 2] });
    let _: [[f32; 3]; 2] = out.y;
}
