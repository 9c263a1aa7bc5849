// KNOWN GAP: the input has an unbound symbolic dimension, so the stub module cannot type its
// fields and falls back to empty `Inputs`/`Outputs`; using the fields then adds two errors
// (E0560, E0609) after the real one. When the stub keeps what it can of the interface, this
// .stderr should shrink to its first error.
onnx_aot::model!(mod top1 = "ui/models/symbolic_batch.onnx");

fn main() {
    let out = top1::run(&top1::Inputs { x: [[0.0; 3]; 4] });
    let _: [i64; 4] = out.label;
}
