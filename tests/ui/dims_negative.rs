// `dims: { batch = -1 }`: sizes are non-negative; the message says what to write.
onnx_aot::model! {
    mod head = "ui/models/axes_initializer.onnx" {
        dims: { batch = -1 },
    }
}

fn main() {}
