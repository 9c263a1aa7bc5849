// A syntax error in the macro call, with code that uses the module.
onnx_aot::model!(mod top1 "ui/models/top1.onnx");

fn main() {
    let out = top1::run(&top1::Inputs {
        logits: [[0.0; 3]; 2],
    });
    let _: [i64; 2] = out.label;
}
