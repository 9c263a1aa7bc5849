//! The official node tests of the glue ops (`data/node_glue/`, issue 15), generated at build
//! time for `tests/node_glue.rs`. `data/node_glue/EXPECTED.txt` says for each case `pass` or
//! `refuse <what the error says>`; for every `pass` case this writes the module the generator
//! makes of it into `OUT_DIR/node_glue_modules.rs` and a row of the case table into
//! `OUT_DIR/node_glue_cases.rs`. Inputs the generator needs at build time (a Reshape's shape, a
//! Slice's starts, every input of shape arithmetic) are frozen from the case's first data set,
//! as a user binds them with `inputs:`: first none, then every input but the first, then all.

use onnx_aot_codegen::onnx::TensorProto;
use onnx_aot_codegen::{Options, Scalar};
use prost::Message;
use std::fmt::Write as _;
use std::path::Path;

/// The cases expected to compile, from EXPECTED.txt.
fn passing(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("EXPECTED.txt")).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next()?;
            (words.next() == Some("pass")).then(|| name.to_string())
        })
        .collect()
}

/// The elements of a test-data tensor as the scalars of an `inputs:` binding.
pub fn scalars(t: &TensorProto) -> Option<Vec<Scalar>> {
    let t = onnx_aot_codegen::tensor::tensor_from_proto(t, "test data").ok()?;
    use onnx_aot_codegen::DType::*;
    let size = t.dtype.size();
    t.bytes
        .chunks_exact(size)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            Some(match t.dtype {
                F32 => Scalar::Float(f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
                F64 => Scalar::Float(f64::from_le_bytes(b)),
                F16 => Scalar::Float(half::f16::from_le_bytes([c[0], c[1]]).to_f64()),
                BF16 => Scalar::Float(half::bf16::from_le_bytes([c[0], c[1]]).to_f64()),
                I8 => Scalar::Int(i128::from(c[0] as i8)),
                I16 => Scalar::Int(i128::from(i16::from_le_bytes([c[0], c[1]]))),
                I32 => Scalar::Int(i128::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
                I64 => Scalar::Int(i128::from(i64::from_le_bytes(b))),
                U8 => Scalar::Int(i128::from(c[0])),
                U16 => Scalar::Int(i128::from(u16::from_le_bytes([c[0], c[1]]))),
                U32 => Scalar::Int(i128::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
                U64 => Scalar::Int(i128::from(u64::from_le_bytes(b))),
                Bool => Scalar::Bool(c[0] != 0),
            })
        })
        .collect()
}

/// Generates a case: the options that worked (with the frozen input positions) and the code,
/// or the last error.
pub fn generate_case(dir: &Path, name: &str, module: &str) -> Result<(Vec<usize>, String), String> {
    let model = std::fs::read(dir.join(name).join("model.onnx")).map_err(|e| e.to_string())?;
    let proto =
        onnx_aot_codegen::onnx::ModelProto::decode(&model[..]).map_err(|e| e.to_string())?;
    let graph = proto.graph.unwrap_or_default();
    let inits: Vec<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
    let runtime: Vec<&str> = graph
        .input
        .iter()
        .map(|v| v.name.as_str())
        .filter(|n| !inits.contains(n))
        .collect();
    let set = dir.join(name).join("test_data_set_0");
    let mut last = String::new();
    let value = |k: usize| -> Option<Vec<Scalar>> {
        let bytes = std::fs::read(set.join(format!("input_{k}.pb"))).ok()?;
        scalars(&TensorProto::decode(&bytes[..]).ok()?)
    };
    'attempt: for first_frozen in [runtime.len(), 1, 0] {
        let mut options = Options::new(module);
        let frozen: Vec<usize> = (first_frozen..runtime.len()).collect();
        for &k in &frozen {
            // Test data of a type outside the contract cannot be frozen: the generator's own
            // error (from the attempt before) stands.
            let Some(values) = value(k) else {
                break 'attempt;
            };
            options = options.input(runtime[k], values);
        }
        match onnx_aot_codegen::generate_pretty(&model, &options) {
            Ok(code) => return Ok((frozen, code)),
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}

/// Writes the modules and the table of the passing cases.
pub fn generate(out_dir: &Path) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/node_glue");
    println!("cargo:rerun-if-changed=data/node_glue/EXPECTED.txt");
    println!("cargo:rerun-if-changed=build_node_glue.rs");
    let mut modules = String::new();
    let mut table = String::from("static GLUE_CASES: &[GlueCase] = &[\n");
    let mut errors = Vec::new();
    for name in passing(&dir) {
        let module = format!("glue_{}", name.trim_start_matches("test_").to_lowercase());
        match generate_case(&dir, &name, &module) {
            Ok((frozen, code)) => {
                modules.push_str(&code);
                modules.push('\n');
                let _ = writeln!(
                    table,
                    "    GlueCase {{ name: {name:?}, frozen: &{frozen:?}, input_names: &\
                     {module}::INPUT_NAMES, output_names: &{module}::OUTPUT_NAMES, \
                     output_dtypes: &{module}::OUTPUT_DTYPES, output_shapes: \
                     &{module}::OUTPUT_SHAPES, output_bytes: &{module}::OUTPUT_BYTES, \
                     run_bytes: {module}::run_bytes }},"
                );
            }
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
    table.push_str("];\n");
    if !errors.is_empty() {
        table = format!(
            "compile_error!({:?});\nstatic GLUE_CASES: &[GlueCase] = &[];\n",
            format!(
                "cases EXPECTED.txt lists as pass failed to generate:\n{}",
                errors.join("\n")
            )
        );
    }
    std::fs::write(out_dir.join("node_glue_modules.rs"), modules).expect("write modules");
    std::fs::write(out_dir.join("node_glue_cases.rs"), table).expect("write table");
}

/// The options of an exporter case, from its `options.txt` (`dims NAME=SIZE`,
/// `start NAME[:TYPE[DIMS]]`, `output NAME`).
pub fn exporter_options(dir: &Path, module: &str) -> Result<Options, String> {
    let text = std::fs::read_to_string(dir.join("options.txt")).map_err(|e| e.to_string())?;
    let mut options = Options::new(module);
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (key, value) = line.split_once(' ').ok_or(format!("bad line {line:?}"))?;
        match key {
            "dims" => {
                let (n, v) = value.split_once('=').ok_or(format!("bad dims {value:?}"))?;
                options = options.dim(n, v.parse::<usize>().map_err(|e| e.to_string())?);
            }
            "start" => options.start.push(onnx_aot_codegen::Start::parse(value)?),
            "output" => options = options.output(value),
            _ => return Err(format!("unknown option line {line:?}")),
        }
    }
    Ok(options)
}

/// Writes the modules and the table of the exporter models (`data/exporters/`).
pub fn exporters(out_dir: &Path) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/exporters");
    println!("cargo:rerun-if-changed=data/exporters");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().join("model.onnx").exists())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut modules = String::new();
    let mut table = String::from("static EXPORTER_CASES: &[ExporterCase] = &[\n");
    let mut errors = Vec::new();
    for name in names {
        let module = format!("exp_{}", name.to_lowercase());
        let case = dir.join(&name);
        let result = exporter_options(&case, &module).and_then(|options| {
            let model = std::fs::read(case.join("model.onnx")).map_err(|e| e.to_string())?;
            onnx_aot_codegen::generate_pretty(&model, &options).map_err(|e| e.to_string())
        });
        match result {
            Ok(code) => {
                modules.push_str(&code);
                modules.push('\n');
                let _ = writeln!(
                    table,
                    "    ExporterCase {{ name: {name:?}, input_names: &{module}::INPUT_NAMES, \
                     output_names: &{module}::OUTPUT_NAMES, output_dtypes: \
                     &{module}::OUTPUT_DTYPES, output_shapes: &{module}::OUTPUT_SHAPES, \
                     output_bytes: &{module}::OUTPUT_BYTES, run_bytes: {module}::run_bytes }},"
                );
            }
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
    table.push_str("];\n");
    if !errors.is_empty() {
        table = format!(
            "compile_error!({:?});\nstatic EXPORTER_CASES: &[ExporterCase] = &[];\n",
            format!("exporter models failed to generate:\n{}", errors.join("\n"))
        );
    }
    std::fs::write(out_dir.join("exporter_modules.rs"), modules).expect("write modules");
    std::fs::write(out_dir.join("exporter_cases.rs"), table).expect("write table");
}
