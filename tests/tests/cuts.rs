//! Graph cuts through the macro: a full classifier whose backbone (Gemm, an `ai.onnx.ml` op,
//! Relu) is not compiled, from the tensor where its max-family tail starts. The file gives
//! `logits` no type, so the call writes it.

onnx_aot::model! {
    mod tail = "data/models/classifier_tail.onnx" {
        start: ["logits": f32[2, 4]],
    }
}

onnx_aot::model! {
    /// Only the label, from a symbolic batch bound in `dims`.
    mod label_only = "data/models/classifier_tail.onnx" {
        dims: { n = 3 },
        start: [logits: f32[n, 4]],
        outputs: [label],
    }
}

/// The first index of the largest element (NaN wins), and that element.
fn plain_max(row: &[f32]) -> (f32, i64) {
    let mut best = 0;
    for (k, &v) in row.iter().enumerate() {
        if !row[best].is_nan() && (v.is_nan() || v > row[best]) {
            best = k;
        }
    }
    (row[best], best as i64)
}

#[test]
fn the_tail_runs_from_the_start_tensor() {
    // The interface is the cut graph's: `logits` in, the two tail outputs out.
    assert_eq!(tail::INPUT_NAMES, ["logits"]);
    assert_eq!(tail::OUTPUT_NAMES, ["score", "label"]);
    let logits = [[0.5, 3.0, -1.0, 3.0], [f32::NAN, 2.0, 9.0, 9.0]];
    let out = tail::run(&tail::Inputs { logits });
    for (b, row) in logits.iter().enumerate() {
        let (value, index) = plain_max(row);
        assert_eq!(out.label[b], index);
        assert!(out.score[b] == value || (value.is_nan() && out.score[b].is_nan()));
    }
}

#[test]
fn outputs_keep_only_the_named_tensors() {
    assert_eq!(label_only::INPUT_NAMES, ["logits"]);
    assert_eq!(label_only::OUTPUT_NAMES, ["label"]);
    let logits = [[1.0, 0.0, 0.0, 2.0], [-1.0, -1.0, -3.0, -2.0], [0.0; 4]];
    let out = label_only::run(&label_only::Inputs { logits });
    assert_eq!(out.label, [3, 0, 0]);
}
