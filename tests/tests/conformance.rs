//! Conformance: every official ONNX backend node test of the max family (ArgMax, ArgMin,
//! Hardmax, ReduceMax, ReduceMin, and GlobalMaxPool; 62 cases in `tests/data/node`, see its PROVENANCE.md) compiled
//! through `onnx_aot::model!` and run through the generated `run_bytes`.
//!
//! Each case is one `model!` invocation (a module named like the case directory) and one `#[test]`
//! function of the same name (modules and functions live in different namespaces). The test reads
//! `test_data_set_0`, feeds the run-time inputs to `run_bytes` in graph order and compares every
//! output with `output_<k>.pb` exactly (floats: both NaN or `==`).
//!
//! The ReduceMax/ReduceMin opset 18 and 20 cases take `axes` as a second graph input whose value is
//! in `input_1.pb`. The generator needs axes at build time, so the invocation freezes it with
//! `inputs: { axes = [...] }`, values copied from that file; the test checks that the file holds
//! exactly the frozen values, and passes only `input_0` at run time.
//!
//! `every_case_directory_has_a_test` lists `tests/data/node` at run time and fails if a directory
//! has no test here (or a test no directory), so no case can be skipped silently.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use onnx_aot::{DType, Error};
use onnx_aot_tests::testdata::{compare_tensor, read_data_set, TestTensor};

/// The signature of a generated module's `run_bytes`.
type RunBytes = fn(&[&[u8]], &mut [&mut [u8]]) -> Result<(), Error>;

/// What the harness needs to know of a generated module.
struct Model {
    /// The case (and directory) name.
    name: &'static str,
    /// The model path given to the macro, relative to `CARGO_MANIFEST_DIR`.
    path: &'static str,
    /// The frozen `axes` values, or `None` when the model takes no `axes` input.
    frozen_axes: Option<&'static [i64]>,
    input_names: &'static [&'static str],
    input_shapes: &'static [&'static [usize]],
    input_dtypes: &'static [DType],
    input_bytes: &'static [usize],
    output_names: &'static [&'static str],
    output_shapes: &'static [&'static [usize]],
    output_dtypes: &'static [DType],
    output_bytes: &'static [usize],
    run_bytes: RunBytes,
}

fn case_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/node")
        .join(name)
}

/// Runs one case and panics with a precise message on any difference.
fn check(m: &Model) {
    assert_eq!(
        Path::new(m.path),
        Path::new("data/node").join(m.name).join("model.onnx"),
        "{}: the macro reads another case's model",
        m.name
    );
    let set_dir = case_dir(m.name).join("test_data_set_0");
    let data = read_data_set(&set_dir).unwrap_or_else(|e| panic!("{}: {e}", m.name));

    // Split the data set's inputs into the run-time ones (the module's inputs, in graph order)
    // and the frozen `axes`.
    let mut runtime: Vec<&TestTensor> = Vec::new();
    let mut frozen: Vec<&TestTensor> = Vec::new();
    for (k, t) in data.inputs.iter().enumerate() {
        if m.input_names.contains(&t.name.as_str()) {
            runtime.push(t);
        } else {
            assert_eq!(
                t.name, "axes",
                "{}: input_{k}.pb (`{}`) is neither a run-time input {:?} nor a frozen axes",
                m.name, t.name, m.input_names
            );
            frozen.push(t);
        }
    }
    match (m.frozen_axes, frozen.as_slice()) {
        (None, []) => {}
        (Some(axes), [t]) => assert_eq!(
            t.to_i64s().as_deref(),
            Some(axes),
            "{}: the frozen axes differ from the test data's `axes` input",
            m.name
        ),
        (f, t) => panic!(
            "{}: frozen axes {f:?}, but the data set has {} non-run-time inputs",
            m.name,
            t.len()
        ),
    }
    let runtime_names: Vec<&str> = runtime.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        runtime_names, m.input_names,
        "{}: run-time inputs of the data set vs the module",
        m.name
    );
    for (i, t) in runtime.iter().enumerate() {
        assert_eq!(
            (t.dtype, t.shape.as_slice(), t.bytes.len()),
            (m.input_dtypes[i], m.input_shapes[i], m.input_bytes[i]),
            "{}: input `{}`: (dtype, shape, bytes) of the data vs the module",
            m.name,
            t.name
        );
    }

    assert_eq!(
        data.outputs.len(),
        m.output_names.len(),
        "{}: number of outputs of the data set vs the module",
        m.name
    );
    // Fill the output buffers with a pattern that is no valid result, so that an element the
    // generated code never writes cannot pass by accident.
    let mut outputs: Vec<Vec<u8>> = m.output_bytes.iter().map(|&n| vec![0xA5; n]).collect();
    let inputs: Vec<&[u8]> = runtime.iter().map(|t| t.bytes.as_slice()).collect();
    {
        let mut slices: Vec<&mut [u8]> = outputs.iter_mut().map(|o| o.as_mut_slice()).collect();
        (m.run_bytes)(&inputs, &mut slices)
            .unwrap_or_else(|e| panic!("{}: run_bytes failed: {e:?}", m.name));
    }
    for (k, expected) in data.outputs.iter().enumerate() {
        if !expected.name.is_empty() {
            assert_eq!(
                expected.name, m.output_names[k],
                "{}: output_{k}.pb names another output",
                m.name
            );
        }
        if let Err(e) = compare_tensor(
            expected,
            m.output_dtypes[k],
            m.output_shapes[k],
            &outputs[k],
        ) {
            panic!("{}: {e}", m.name);
        }
    }
}

/// For each `NAME = "PATH" [, axes = [..]];`: the model module `NAME`, the test function `NAME`,
/// and an entry of `CASES`.
macro_rules! cases {
    ($($name:ident = $path:literal $(, axes = [$($axes:tt)*])?;)*) => {
        $(
            onnx_aot::model! { mod $name = $path $({ inputs: { axes = [$($axes)*] } })? }

            #[test]
            fn $name() {
                check(&Model {
                    name: stringify!($name),
                    path: $path,
                    frozen_axes: None $(.or(Some(&[$($axes)*])))?,
                    input_names: &$name::INPUT_NAMES,
                    input_shapes: &$name::INPUT_SHAPES,
                    input_dtypes: &$name::INPUT_DTYPES,
                    input_bytes: &$name::INPUT_BYTES,
                    output_names: &$name::OUTPUT_NAMES,
                    output_shapes: &$name::OUTPUT_SHAPES,
                    output_dtypes: &$name::OUTPUT_DTYPES,
                    output_bytes: &$name::OUTPUT_BYTES,
                    run_bytes: $name::run_bytes,
                });
            }
        )*

        /// Every case above, by name.
        const CASES: &[&str] = &[$(stringify!($name)),*];
    };
}

cases! {
    test_argmax_default_axis_example = "data/node/test_argmax_default_axis_example/model.onnx";
    test_argmax_default_axis_example_select_last_index = "data/node/test_argmax_default_axis_example_select_last_index/model.onnx";
    test_argmax_default_axis_random = "data/node/test_argmax_default_axis_random/model.onnx";
    test_argmax_default_axis_random_select_last_index = "data/node/test_argmax_default_axis_random_select_last_index/model.onnx";
    test_argmax_keepdims_example = "data/node/test_argmax_keepdims_example/model.onnx";
    test_argmax_keepdims_example_select_last_index = "data/node/test_argmax_keepdims_example_select_last_index/model.onnx";
    test_argmax_keepdims_random = "data/node/test_argmax_keepdims_random/model.onnx";
    test_argmax_keepdims_random_select_last_index = "data/node/test_argmax_keepdims_random_select_last_index/model.onnx";
    test_argmax_negative_axis_keepdims_example = "data/node/test_argmax_negative_axis_keepdims_example/model.onnx";
    test_argmax_negative_axis_keepdims_example_select_last_index = "data/node/test_argmax_negative_axis_keepdims_example_select_last_index/model.onnx";
    test_argmax_negative_axis_keepdims_random = "data/node/test_argmax_negative_axis_keepdims_random/model.onnx";
    test_argmax_negative_axis_keepdims_random_select_last_index = "data/node/test_argmax_negative_axis_keepdims_random_select_last_index/model.onnx";
    test_argmax_no_keepdims_example = "data/node/test_argmax_no_keepdims_example/model.onnx";
    test_argmax_no_keepdims_example_select_last_index = "data/node/test_argmax_no_keepdims_example_select_last_index/model.onnx";
    test_argmax_no_keepdims_random = "data/node/test_argmax_no_keepdims_random/model.onnx";
    test_argmax_no_keepdims_random_select_last_index = "data/node/test_argmax_no_keepdims_random_select_last_index/model.onnx";
    test_argmin_default_axis_example = "data/node/test_argmin_default_axis_example/model.onnx";
    test_argmin_default_axis_example_select_last_index = "data/node/test_argmin_default_axis_example_select_last_index/model.onnx";
    test_argmin_default_axis_random = "data/node/test_argmin_default_axis_random/model.onnx";
    test_argmin_default_axis_random_select_last_index = "data/node/test_argmin_default_axis_random_select_last_index/model.onnx";
    test_argmin_keepdims_example = "data/node/test_argmin_keepdims_example/model.onnx";
    test_argmin_keepdims_example_select_last_index = "data/node/test_argmin_keepdims_example_select_last_index/model.onnx";
    test_argmin_keepdims_random = "data/node/test_argmin_keepdims_random/model.onnx";
    test_argmin_keepdims_random_select_last_index = "data/node/test_argmin_keepdims_random_select_last_index/model.onnx";
    test_argmin_negative_axis_keepdims_example = "data/node/test_argmin_negative_axis_keepdims_example/model.onnx";
    test_argmin_negative_axis_keepdims_example_select_last_index = "data/node/test_argmin_negative_axis_keepdims_example_select_last_index/model.onnx";
    test_argmin_negative_axis_keepdims_random = "data/node/test_argmin_negative_axis_keepdims_random/model.onnx";
    test_argmin_negative_axis_keepdims_random_select_last_index = "data/node/test_argmin_negative_axis_keepdims_random_select_last_index/model.onnx";
    test_argmin_no_keepdims_example = "data/node/test_argmin_no_keepdims_example/model.onnx";
    test_argmin_no_keepdims_example_select_last_index = "data/node/test_argmin_no_keepdims_example_select_last_index/model.onnx";
    test_argmin_no_keepdims_random = "data/node/test_argmin_no_keepdims_random/model.onnx";
    test_argmin_no_keepdims_random_select_last_index = "data/node/test_argmin_no_keepdims_random_select_last_index/model.onnx";
    test_hardmax_axis_0 = "data/node/test_hardmax_axis_0/model.onnx";
    test_hardmax_axis_1 = "data/node/test_hardmax_axis_1/model.onnx";
    test_hardmax_axis_2 = "data/node/test_hardmax_axis_2/model.onnx";
    test_hardmax_default_axis = "data/node/test_hardmax_default_axis/model.onnx";
    test_hardmax_example = "data/node/test_hardmax_example/model.onnx";
    test_hardmax_negative_axis = "data/node/test_hardmax_negative_axis/model.onnx";
    test_hardmax_one_hot = "data/node/test_hardmax_one_hot/model.onnx";
    test_reduce_max_bool_inputs = "data/node/test_reduce_max_bool_inputs/model.onnx", axes = [1];
    test_reduce_max_default_axes_keepdim_example = "data/node/test_reduce_max_default_axes_keepdim_example/model.onnx";
    test_reduce_max_default_axes_keepdims_random = "data/node/test_reduce_max_default_axes_keepdims_random/model.onnx";
    test_reduce_max_do_not_keepdims_example = "data/node/test_reduce_max_do_not_keepdims_example/model.onnx", axes = [1];
    test_reduce_max_do_not_keepdims_random = "data/node/test_reduce_max_do_not_keepdims_random/model.onnx", axes = [1];
    test_reduce_max_empty_set = "data/node/test_reduce_max_empty_set/model.onnx", axes = [1];
    test_reduce_max_empty_set_bool = "data/node/test_reduce_max_empty_set_bool/model.onnx", axes = [1];
    test_reduce_max_keepdims_example = "data/node/test_reduce_max_keepdims_example/model.onnx", axes = [1];
    test_reduce_max_keepdims_random = "data/node/test_reduce_max_keepdims_random/model.onnx", axes = [1];
    test_reduce_max_negative_axes_keepdims_example = "data/node/test_reduce_max_negative_axes_keepdims_example/model.onnx", axes = [-2];
    test_reduce_max_negative_axes_keepdims_random = "data/node/test_reduce_max_negative_axes_keepdims_random/model.onnx", axes = [-2];
    test_reduce_min_bool_inputs = "data/node/test_reduce_min_bool_inputs/model.onnx", axes = [1];
    test_reduce_min_default_axes_keepdims_example = "data/node/test_reduce_min_default_axes_keepdims_example/model.onnx";
    test_reduce_min_default_axes_keepdims_random = "data/node/test_reduce_min_default_axes_keepdims_random/model.onnx";
    test_reduce_min_do_not_keepdims_example = "data/node/test_reduce_min_do_not_keepdims_example/model.onnx", axes = [1];
    test_reduce_min_do_not_keepdims_random = "data/node/test_reduce_min_do_not_keepdims_random/model.onnx", axes = [1];
    test_reduce_min_empty_set = "data/node/test_reduce_min_empty_set/model.onnx", axes = [1];
    test_reduce_min_keepdims_example = "data/node/test_reduce_min_keepdims_example/model.onnx", axes = [1];
    test_reduce_min_keepdims_random = "data/node/test_reduce_min_keepdims_random/model.onnx", axes = [1];
    test_reduce_min_negative_axes_keepdims_example = "data/node/test_reduce_min_negative_axes_keepdims_example/model.onnx", axes = [-2];
    test_reduce_min_negative_axes_keepdims_random = "data/node/test_reduce_min_negative_axes_keepdims_random/model.onnx", axes = [-2];
    test_globalmaxpool = "data/node/test_globalmaxpool/model.onnx";
    test_globalmaxpool_precomputed = "data/node/test_globalmaxpool_precomputed/model.onnx";
}

#[test]
fn every_case_directory_has_a_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/node");
    let mut dirs = BTreeSet::new();
    for entry in std::fs::read_dir(&root).expect("tests/data/node") {
        let entry = entry.expect("directory entry");
        if entry.file_type().expect("file type").is_dir() {
            dirs.insert(entry.file_name().to_string_lossy().into_owned());
        }
    }
    let tests: BTreeSet<String> = CASES.iter().map(|s| s.to_string()).collect();
    assert_eq!(CASES.len(), tests.len(), "a case is listed twice");
    let untested: Vec<&String> = dirs.difference(&tests).collect();
    let missing: Vec<&String> = tests.difference(&dirs).collect();
    assert!(
        untested.is_empty(),
        "case directories without a test: {untested:?}"
    );
    assert!(
        missing.is_empty(),
        "tests without a case directory: {missing:?}"
    );
    assert_eq!(
        dirs.len(),
        62,
        "the official node tests of the supported ops number 62 (60 of the max family, 2 of GlobalMaxPool)"
    );
}
