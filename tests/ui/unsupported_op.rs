// Relu and Softmax are not compiled by onnx-aot: both nodes are listed in one message. The
// declared interface is still available, so the code below adds no errors.
onnx_aot::model!(mod classifier = "ui/models/unsupported_op.onnx");

fn main() {
    let out = classifier::run(&classifier::Inputs {
        x: [[0.5, 2.0, 1.0], [3.0, 0.0, 1.0]],
    });
    let label: [i64; 2] = out.label;
    println!("{label:?}");
}
