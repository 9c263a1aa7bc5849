//! Every op the generator registers is tested: by official ONNX node tests in `tests/data/node`
//! (whose models use the op), or by unit tests of its own in its family's module under
//! `codegen/src/ops/` (a `#[test]` function whose name starts with the op's snake-case name,
//! `onnx_aot_hardmax_...` for the custom domain). Registering an op without either fails here.

use std::collections::BTreeSet;
use std::path::Path;

use onnx_aot_codegen::load::decode;
use onnx_aot_codegen::messages::normalize_domain;
use onnx_aot_codegen::ops::registry::REGISTRY;

/// (domain, op type) of every node of every official node test model.
fn ops_in_node_tests() -> BTreeSet<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/node");
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir(&root).expect("tests/data/node") {
        let model = entry.expect("a directory entry").path().join("model.onnx");
        let Ok(bytes) = std::fs::read(&model) else {
            continue;
        };
        let proto = decode(&bytes, "node test").expect("official models decode");
        for node in proto.graph.iter().flat_map(|g| &g.node) {
            let domain = normalize_domain(&node.domain).to_string();
            found.insert((domain, node.op_type.clone()));
        }
    }
    found
}

/// The names of the `#[test]` functions in `codegen/src/ops/`.
fn unit_tests_of_ops() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/src/ops");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&root).expect("codegen/src/ops") {
        let text = std::fs::read_to_string(entry.expect("an entry").path()).expect("a source");
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.trim() != "#[test]" {
                continue;
            }
            let Some(signature) = lines.next() else { break };
            if let Some(rest) = signature.trim().strip_prefix("fn ") {
                names.push(rest.split('(').next().unwrap_or_default().to_string());
            }
        }
    }
    names
}

/// `ArgMax` -> `argmax`, `ReduceMax` -> `reducemax`; a custom domain is a prefix.
fn snake(domain: &str, op_type: &str) -> String {
    let op = op_type.to_lowercase();
    if domain.is_empty() {
        op
    } else {
        format!("{}_{op}", domain.replace('.', "_"))
    }
}

#[test]
fn every_registered_op_has_node_tests_or_unit_tests() {
    let official = ops_in_node_tests();
    let units = unit_tests_of_ops();
    assert!(!units.is_empty(), "no unit test found in codegen/src/ops");
    let mut untested = Vec::new();
    for r in REGISTRY {
        let key = (r.domain.to_string(), r.op_type.to_string());
        let name = snake(r.domain, r.op_type);
        let unit = units.iter().any(|t| t.starts_with(&name));
        if !official.contains(&key) && !unit {
            untested.push(format!(
                "{}::{} (no `fn {name}_..` test)",
                r.domain, r.op_type
            ));
        }
    }
    assert!(
        untested.is_empty(),
        "registered ops without official node tests or unit tests: {untested:?}"
    );
}

#[test]
fn the_max_family_is_covered_by_official_node_tests() {
    let official = ops_in_node_tests();
    for op in ["ArgMax", "ArgMin", "ReduceMax", "ReduceMin", "Hardmax"] {
        assert!(
            official.contains(&(String::new(), op.to_string())),
            "{op} has no official node test"
        );
    }
}
