//! Models as exporters write them: `ai.onnx` spelled out, several opset imports, path-like and
//! colliding names, keywords, symbolic batch dims, value_info, Identity, Constant axes, doc
//! strings and metadata, and IR-3 initializers listed as graph inputs.

onnx_aot::model! {
    /// A PyTorch-style export with a symbolic batch.
    pub mod pytorch = "data/models/exporter_pytorch.onnx" {
        dims: { batch_size = 2 },
    }
}

onnx_aot::model!(mod legacy = "data/models/legacy_names.onnx");

onnx_aot::model! {
    mod legacy_freed = "data/models/legacy_names.onnx" {
        free: [weights],
    }
}

#[test]
fn pytorch_style_export_runs_with_the_batch_bound() {
    let input_1 = [
        [
            [1.0, 5.0, 2.0, 2.0],
            [0.0, 0.0, 0.0, 0.0],
            [9.0, 1.0, 1.0, 1.0],
        ],
        [
            [f32::NAN, 3.0, 3.0, 3.0],
            [4.0, -1.0, 4.0, 2.0],
            [0.0, 0.0, 0.0, 0.0],
        ],
    ];
    let out = pytorch::run(&pytorch::Inputs { input_1 });
    // ReduceMax over the last axis: [5, 0, 9] and [NaN, 4, 0].
    assert_eq!(out.output, [2, 0], "ArgMax: the max, or the first NaN");
    assert_eq!(out.onehot_out, [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]);
    assert_eq!(pytorch::INPUT_NAMES, ["input.1"]);
    assert_eq!(pytorch::OUTPUT_NAMES, ["output", "onehot.out"]);
    assert_eq!(pytorch::INPUT_SHAPES, [&[2usize, 3, 4][..]]);
}

#[test]
fn legacy_names_are_sanitized_deterministically() {
    let out = legacy::run(&legacy::Inputs {
        x_y: [[5, -2, 7], [i32::MIN, 0, i32::MAX]],
        x_y_2: [3, 8],
    });
    assert_eq!(out.type_, [-2, i32::MIN]);
    assert_eq!(out.type__2, [8]);
    assert_eq!(out.t_0, 1, "ArgMax of the initializer [0.5, 2.0, -1.0]");
    // The initializer listed as an input is a constant: not among the run-time inputs.
    assert_eq!(legacy::INPUT_NAMES, ["x.y", "x_y"]);
    assert_eq!(legacy::OUTPUT_NAMES, ["type", "Type", "0"]);
}

#[test]
fn a_freed_initializer_becomes_a_run_time_input() {
    assert_eq!(legacy_freed::INPUT_NAMES, ["x.y", "x_y", "weights"]);
    let out = legacy_freed::run(&legacy_freed::Inputs {
        x_y: [[0; 3]; 2],
        x_y_2: [0, 0],
        weights: [-1.0, 0.0, 3.0],
    });
    assert_eq!(out.t_0, 2);
}
