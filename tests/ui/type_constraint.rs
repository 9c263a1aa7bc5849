// Hardmax on int32, outside the op's type constraint.
onnx_aot::model!(mod onehot = "ui/models/type_constraint.onnx");

fn main() {
    let out = onehot::run(&onehot::Inputs { x: [[0; 3]; 2] });
    let _: [[i32; 3]; 2] = out.y;
}
