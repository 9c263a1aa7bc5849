// `crate = path` names the runtime once.
onnx_aot::model! {
    mod top1 = "ui/models/../../../examples/models/top1.onnx" {
        crate = onnx_aot,
        crate = onnx_aot,
    }
}

fn main() {}
