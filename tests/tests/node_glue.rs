//! The official ONNX node tests of the glue ops (issue 15): `tests/data/node_glue`, written by
//! `tests/data/node/regenerate.py` (see its `GLUE_COMMAND`). `EXPECTED.txt` says for each case
//! whether onnx-aot compiles it (`pass`: generated at build time by `build_node_glue.rs`, run
//! here through `run_bytes` on the case's first data set and compared with its outputs exactly)
//! or refuses it by the contract (`refuse TEXT`: the generator's error must contain TEXT: float8,
//! int4 and string casts, pooling windows other than the whole map, arithmetic on run-time data).
//! Inputs the generator needs at build time are frozen from the data set, as a user binds them.
//!
//! `NODE_GLUE_BLESS=1 cargo test -p onnx-aot-tests --test node_glue -- --nocapture` prints the
//! expectations the current generator meets, to review against the contract before committing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use onnx_aot::{DType, Error};
use onnx_aot_tests::testdata::{compare_tensor, read_data_set};

#[path = "../build_node_glue.rs"]
#[allow(dead_code)]
mod gen;

/// The signature of a generated module's `run_bytes`.
type RunBytes = fn(&[&[u8]], &mut [&mut [u8]]) -> Result<(), Error>;

/// One passing case, generated at build time.
struct GlueCase {
    name: &'static str,
    /// Positions (among the run-time graph inputs) frozen at build time.
    frozen: &'static [usize],
    input_names: &'static [&'static str],
    output_names: &'static [&'static str],
    output_dtypes: &'static [DType],
    output_shapes: &'static [&'static [usize]],
    output_bytes: &'static [usize],
    run_bytes: RunBytes,
}

onnx_aot_tests::generated_modules!("node_glue_modules.rs");

include!(concat!(env!("OUT_DIR"), "/node_glue_cases.rs"));

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/node_glue")
}

/// EXPECTED.txt as (case, expectation) pairs.
fn expectations() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir().join("EXPECTED.txt")).expect("EXPECTED.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, rest) = l.split_once(' ').unwrap_or((l, ""));
            (name.to_string(), rest.trim().to_string())
        })
        .collect()
}

/// Phrases that say why a case is refused, most specific first.
const REASONS: &[&str] = &[
    "outside what onnx-aot compiles",
    "window covering every spatial dimension",
    "which onnx-aot does not support",
    "only as shape arithmetic",
    "has element type",
    "does not support",
];

#[test]
fn every_case_has_an_expectation() {
    let dirs: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if std::env::var_os("NODE_GLUE_BLESS").is_some() {
        for name in &dirs {
            let line = match gen::generate_case(&dir(), name, "m") {
                Ok(_) => "pass".to_string(),
                Err(e) => {
                    let reason = REASONS.iter().find(|r| e.contains(*r)).copied();
                    format!(
                        "refuse {}",
                        reason.unwrap_or(e.lines().next().unwrap_or(""))
                    )
                }
            };
            println!("{name} {line}");
        }
        return;
    }
    let listed: BTreeSet<String> = expectations().into_iter().map(|(n, _)| n).collect();
    let unlisted: Vec<_> = dirs.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&dirs).collect();
    assert!(
        unlisted.is_empty(),
        "cases without an expectation: {unlisted:?}"
    );
    assert!(
        missing.is_empty(),
        "expectations without a case: {missing:?}"
    );
    let passing = expectations().iter().filter(|(_, e)| e == "pass").count();
    assert_eq!(GLUE_CASES.len(), passing, "every passing case is generated");
}

#[test]
fn refused_cases_are_refused_for_the_stated_reason() {
    let mut wrong = Vec::new();
    for (name, expect) in expectations() {
        let Some(reason) = expect.strip_prefix("refuse ") else {
            continue;
        };
        match gen::generate_case(&dir(), &name, "m") {
            Ok(_) => wrong.push(format!("{name}: compiles, but EXPECTED.txt says refused")),
            Err(e) if !e.contains(reason) => wrong.push(format!("{name}: {e}")),
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn passing_cases_match_the_official_outputs() {
    let mut wrong = Vec::new();
    for case in GLUE_CASES {
        let data = read_data_set(&dir().join(case.name).join("test_data_set_0")).unwrap();
        let inputs: Vec<&[u8]> = data
            .inputs
            .iter()
            .enumerate()
            .filter(|(k, _)| !case.frozen.contains(k))
            .map(|(_, t)| t.bytes.as_slice())
            .collect();
        assert_eq!(inputs.len(), case.input_names.len(), "{}", case.name);
        let mut outputs: Vec<Vec<u8>> = case.output_bytes.iter().map(|&n| vec![0; n]).collect();
        let mut refs: Vec<&mut [u8]> = outputs.iter_mut().map(Vec::as_mut_slice).collect();
        if let Err(e) = (case.run_bytes)(&inputs, &mut refs) {
            wrong.push(format!("{}: run_bytes: {e}", case.name));
            continue;
        }
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
