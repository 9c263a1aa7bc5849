// `dim` instead of `dims`.
onnx_aot::model! {
    mod top1 = "ui/models/symbolic_batch.onnx" {
        dim: { batch = 4 },
    }
}

fn main() {}
