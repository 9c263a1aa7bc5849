// `free` is for initializer-backed graph inputs; `logits` is a plain run-time input already.
onnx_aot::model! {
    mod top1 = "ui/models/top1.onnx" {
        free: [logits],
    }
}

fn main() {
    let out = top1::run(&top1::Inputs {
        logits: [[0.0; 3]; 2],
    });
    let _: [i64; 2] = out.label;
}
