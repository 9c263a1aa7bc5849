//! Compile-side cost: generated code grows with the number of nodes, never with the number of
//! elements. Run with `--nocapture` to see expansion times and sizes (reported in the README).

mod common;
use common::*;
use onnx_aot_codegen::onnx::data_type::*;
use onnx_aot_codegen::{generate, generate_pretty, Options};
use std::time::Instant;

/// A chain of `n` nodes over an input of `shape` (ReduceMax keepdims, Hardmax, ArgMax, ...).
fn chain(count: usize, shape: &[i64]) -> Vec<u8> {
    let mut nodes = Vec::new();
    let mut prev = "x".to_string();
    for i in 0..count {
        let out = format!("v{i}");
        let node = match i % 3 {
            0 => node("Hardmax", &format!("n{i}"), &[&prev], &[&out], vec![]),
            1 => node(
                "ReduceMax",
                &format!("n{i}"),
                &[&prev],
                &[&out],
                vec![attr_ints("axes", &[0])],
            ),
            _ => node("Identity", &format!("n{i}"), &[&prev], &[&out], vec![]),
        };
        nodes.push(node);
        prev = out;
    }
    bytes(&model(
        13,
        nodes,
        vec![vi("x", FLOAT, &n(shape))],
        vec![output(&prev)],
    ))
}

fn w4() -> Vec<u8> {
    let mut m = model(
        18,
        vec![node(
            "ReduceMax",
            "w4",
            &["x", "axes"],
            &["y"],
            vec![attr_int("keepdims", 0)],
        )],
        vec![vi("x", FLOAT, &n(&[1024, 1024]))],
        vec![output("y")],
    );
    m.graph
        .as_mut()
        .unwrap()
        .initializer
        .push(i64_tensor("axes", &[0]));
    bytes(&m)
}

fn measure(label: &str, model: &[u8]) -> usize {
    let options = Options::new("m");
    let start = Instant::now();
    let runs = 20;
    for _ in 0..runs {
        generate(model, &options).unwrap();
    }
    let per = start.elapsed() / runs;
    let size = generate_pretty(model, &options).unwrap().len();
    println!("{label}: expansion {per:?} per model, generated code {size} bytes (formatted)");
    size
}

#[test]
fn code_grows_with_nodes_not_elements() {
    let small = measure("50-node chain over [40, 40]", &chain(50, &[40, 40]));
    let large = measure("50-node chain over [1024, 1024]", &chain(50, &[1024, 1024]));
    // Only digits of the constants differ (both shapes take the same kernels: rows and lanes
    // of at least 32).
    assert!(large.abs_diff(small) < small / 20, "{small} vs {large}");
    let half = measure("25-node chain over [40, 40]", &chain(25, &[40, 40]));
    assert!(
        small > half + half / 2,
        "50 nodes ({small}) should cost about twice 25 ({half})"
    );
    let w4 = measure("W4 ReduceMax-18 [1024, 1024] axes [0]", &w4());
    assert!(w4 < 16_000, "one node stays small: {w4}");
}
