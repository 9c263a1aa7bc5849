// The model is fine; the caller passes rows of 4 where the model takes rows of 3, and reads the
// output with the wrong length.
onnx_aot::model!(mod top1 = "ui/models/top1.onnx");

fn main() {
    let out = top1::run(&top1::Inputs {
        logits: [[0.1, 2.5, 0.3, 0.7], [1.0, 0.0, 0.0, 0.0]],
    });
    let label: [i64; 3] = out.label;
    println!("{label:?}");
}
