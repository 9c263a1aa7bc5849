// The file gives `logits` no type or shape: the error says how to write one.
onnx_aot::model! {
    mod tail = "ui/../data/models/classifier_tail.onnx" {
        start: ["logits"],
    }
}

fn main() {}
