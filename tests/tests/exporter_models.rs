//! Real exporter models (issue 15): heads and full models written unmodified by torch's
//! TorchScript and dynamo exporters and by skl2onnx (`tests/data/exporters`, made by its
//! `make.py`), compiled with the options in each `options.txt` (graph cuts for the full models)
//! by `build_node_glue.rs` at build time, run here through `run_bytes`, and compared exactly with
//! ONNX Runtime's outputs saved beside them. No Python runs here.

use std::path::Path;

use onnx_aot::{DType, Error};
use onnx_aot_tests::testdata::{compare_tensor, read_data_set};

/// The signature of a generated module's `run_bytes`.
type RunBytes = fn(&[&[u8]], &mut [&mut [u8]]) -> Result<(), Error>;

/// One exporter model, generated at build time.
struct ExporterCase {
    name: &'static str,
    input_names: &'static [&'static str],
    output_names: &'static [&'static str],
    output_dtypes: &'static [DType],
    output_shapes: &'static [&'static [usize]],
    output_bytes: &'static [usize],
    run_bytes: RunBytes,
}

onnx_aot_tests::generated_modules!("exporter_modules.rs");

include!(concat!(env!("OUT_DIR"), "/exporter_cases.rs"));

#[test]
fn exporter_models_agree_with_onnx_runtime() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/exporters");
    let on_disk = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("model.onnx").exists())
        .count();
    assert_eq!(EXPORTER_CASES.len(), on_disk, "every model is compiled");
    let mut wrong = Vec::new();
    for case in EXPORTER_CASES {
        let data = read_data_set(&dir.join(case.name).join("test_data_set_0")).unwrap();
        let inputs: Vec<&[u8]> = data.inputs.iter().map(|t| t.bytes.as_slice()).collect();
        assert_eq!(inputs.len(), case.input_names.len(), "{}", case.name);
        let mut outputs: Vec<Vec<u8>> = case.output_bytes.iter().map(|&n| vec![0; n]).collect();
        let mut refs: Vec<&mut [u8]> = outputs.iter_mut().map(Vec::as_mut_slice).collect();
        if let Err(e) = (case.run_bytes)(&inputs, &mut refs) {
            wrong.push(format!("{}: run_bytes: {e}", case.name));
            continue;
        }
        assert_eq!(data.outputs.len(), outputs.len(), "{}", case.name);
        for (k, expected) in data.outputs.iter().enumerate() {
            if let Err(e) = compare_tensor(
                expected,
                case.output_dtypes[k],
                case.output_shapes[k],
                &outputs[k],
            ) {
                wrong.push(format!("{} ({}): {e}", case.name, case.output_names[k]));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
