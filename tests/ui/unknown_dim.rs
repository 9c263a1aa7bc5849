// `dims` binds a name that no tensor uses (a typo of `batch`); the error points at it.
onnx_aot::model! {
    mod top1 = "ui/models/symbolic_batch.onnx" {
        dims: { batchsize = 4 },
    }
}

fn main() {
    let _ = top1::run(&top1::Inputs::zeroed());
}
