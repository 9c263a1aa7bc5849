// Two symbolic dimensions, one bound: the message's example keeps the binding given and adds the
// missing one, in the macro's block form.
onnx_aot::model! {
    mod top1 = "ui/models/two_dims.onnx" {
        dims: { classes = 3 },
    }
}

fn main() {}
