// `start: [logit]`: the tensor is `logits`. The error points at the name in `start` and
// suggests the right one.
onnx_aot::model! {
    mod tail = "ui/../data/models/classifier_tail.onnx" {
        start: [logit: f32[2, 4]],
    }
}

fn main() {}
