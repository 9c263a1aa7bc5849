//! The cast-fold models of `tests/cast_folds.rs`: a Cast followed by ArgMax or ArgMin, for
//! casts the generator folds into the read (exact widenings, roundings to a narrower float)
//! and casts it does not, over rows and over strided lanes. Each is generated at build time into
//! `OUT_DIR/cast_fold_modules.rs` with a case table in `OUT_DIR/cast_fold_cases.rs`.

use std::fmt::Write as _;
use std::path::Path;

use crate::builder::{dims, ModelBuilder, Node};
use onnx_aot_codegen::onnx::data_type as dt;
use onnx_aot_codegen::Options;

/// (from, to) element types of the Cast, by ONNX code and Rust name.
const PAIRS: &[(i32, &str, i32, &str)] = &[
    (dt::FLOAT, "F32", dt::FLOAT16, "F16"),
    (dt::FLOAT, "F32", dt::BFLOAT16, "BF16"),
    (dt::DOUBLE, "F64", dt::FLOAT, "F32"),
    (dt::FLOAT16, "F16", dt::FLOAT, "F32"),
    (dt::BFLOAT16, "BF16", dt::DOUBLE, "F64"),
    (dt::UINT8, "U8", dt::INT32, "I32"),
    (dt::INT16, "I16", dt::FLOAT, "F32"),
    (dt::INT8, "I8", dt::FLOAT16, "F16"),
    // Not folded: a wrap, a truncation and a rounding of integers.
    (dt::INT32, "I32", dt::UINT8, "U8"),
    (dt::FLOAT, "F32", dt::INT32, "I32"),
    (dt::INT32, "I32", dt::FLOAT, "F32"),
];

/// (shape, axis): contiguous rows of several lengths (short, long, with a tail) and lanes.
const LAYOUTS: &[(&[usize], i64)] = &[
    (&[6, 7], 1),
    (&[3, 300], -1),
    (&[2, 1100], 1),
    (&[9, 5], 0),
    (&[4, 3, 20], 1),
];

/// Targets of a Cast after the arg-reduction (`.to(torch.int32)`, `.to(torch.uint8)`).
const INDEX_TYPES: &[(i32, &str)] = &[
    (dt::INT32, "I32"),
    (dt::UINT8, "U8"),
    (dt::INT16, "I16"),
    (dt::FLOAT, "F32"),
];

pub fn generate(out_dir: &Path) {
    let mut modules = String::new();
    let mut table = String::from("static CAST_FOLD_CASES: &[CastFoldCase] = &[\n");
    let mut errors = Vec::new();
    let mut n = 0;
    cast_after(&mut modules, &mut table, &mut errors);
    around_other_folds(&mut modules, &mut errors);
    reductions(&mut modules, &mut table, &mut errors);
    for &(from, from_name, to, to_name) in PAIRS {
        for &(shape, axis) in LAYOUTS {
            for (op, last) in [("ArgMax", 0), ("ArgMin", 1), ("ArgMax", 1), ("ArgMin", 0)] {
                let module = format!("cast_fold_{n}");
                n += 1;
                let mut b = ModelBuilder::new();
                b.opset("", 13)
                    .input("x", from, &dims(shape))
                    .node(Node::new("Cast", &["x"], &["c"]).int("to", i64::from(to)))
                    .node(
                        Node::new(op, &["c"], &["y"])
                            .int("axis", axis)
                            .int("keepdims", 0)
                            .int("select_last_index", last),
                    );
                let mut out_shape = shape.to_vec();
                out_shape.remove(axis.rem_euclid(shape.len() as i64) as usize);
                b.output("y", dt::INT64, &dims(&out_shape));
                let options = Options::new(module.clone());
                match onnx_aot_codegen::generate_pretty(&b.build(), &options) {
                    Ok(code) => {
                        modules.push_str(&code);
                        modules.push('\n');
                        let _ = writeln!(
                            table,
                            "    CastFoldCase {{ from: DType::{from_name}, to: DType::{to_name}, \
                             after: false, shared: false, reduce: None, shape: &{shape:?}, axis: {axis}, max: {}, last: {}, \
                             scratch: {module}::SCRATCH_BYTES, run_bytes: {module}::run_bytes }},",
                            op == "ArgMax",
                            last == 1
                        );
                    }
                    Err(e) => errors.push(format!("{module}: {e}")),
                }
            }
        }
    }
    crate::tables::write(
        out_dir,
        "cast_fold",
        "static CAST_FOLD_CASES: &[CastFoldCase]",
        "cast-fold models",
        &modules,
        table,
        &errors,
    );
}

/// ArgMax or ArgMin over f32 followed by a Cast of the indices; with the indices also a graph
/// output in every other model (the Cast is then not folded).
fn cast_after(modules: &mut String, table: &mut String, errors: &mut Vec<String>) {
    let mut n = 0;
    for &(to, to_name) in INDEX_TYPES {
        for &(shape, axis) in LAYOUTS.iter().chain(&[(&[2usize, 3000, 5][..], 1i64)]) {
            for (op, last) in [("ArgMax", 0), ("ArgMin", 1)] {
                let module = format!("cast_after_{n}");
                let shared = n % 2 == 1;
                n += 1;
                let mut out_shape = shape.to_vec();
                out_shape.remove(axis.rem_euclid(shape.len() as i64) as usize);
                let mut b = ModelBuilder::new();
                b.opset("", 13)
                    .input("x", dt::FLOAT, &dims(shape))
                    .node(
                        Node::new(op, &["x"], &["i"])
                            .int("axis", axis)
                            .int("keepdims", 0)
                            .int("select_last_index", last),
                    )
                    .node(Node::new("Cast", &["i"], &["y"]).int("to", i64::from(to)))
                    .output("y", to, &dims(&out_shape));
                if shared {
                    b.output("i", dt::INT64, &dims(&out_shape));
                }
                match onnx_aot_codegen::generate_pretty(&b.build(), &Options::new(module.clone())) {
                    Ok(code) => {
                        modules.push_str(&code);
                        modules.push('\n');
                        let _ = writeln!(
                            table,
                            "    CastFoldCase {{ from: DType::F32, to: DType::{to_name}, \
                             after: true, shared: {shared}, reduce: None, shape: &{shape:?}, \
                             axis: {axis}, \
                             max: {}, last: {}, scratch: {module}::SCRATCH_BYTES, \
                             run_bytes: {module}::run_bytes }},",
                            op == "ArgMax",
                            last == 1
                        );
                    }
                    Err(e) => errors.push(format!("{module}: {e}")),
                }
            }
        }
    }
}

/// (shape, axes) of the reductions: rows, lanes, two axes apart, everything.
const REDUCTIONS: &[(&[usize], &[i64])] = &[
    (&[6, 7], &[1]),
    (&[9, 5], &[0]),
    (&[4, 3, 20], &[0, 2]),
    (&[3, 300], &[0, 1]),
];

/// ReduceMax or ReduceMin with a Cast before it (`reduce: Some(false)`) or after it
/// (`Some(true)`), for every pair of `PAIRS`.
fn reductions(modules: &mut String, table: &mut String, errors: &mut Vec<String>) {
    let mut n = 0;
    for &(from, from_name, to, to_name) in PAIRS {
        for &(shape, axes) in REDUCTIONS {
            for (op, after) in [
                ("ReduceMax", false),
                ("ReduceMin", true),
                ("ReduceMax", true),
                ("ReduceMin", false),
            ] {
                if after && from == dt::INT16 {
                    // ReduceMax/ReduceMin take no INT16.
                    continue;
                }
                let module = format!("cast_reduce_{n}");
                n += 1;
                let out_shape: Vec<usize> = (0..shape.len())
                    .filter(|a| !axes.contains(&(*a as i64)))
                    .map(|a| shape[a])
                    .collect();
                let reduce = |input: &str, output: &str| {
                    Node::new(op, &[input], &[output])
                        .ints("axes", axes)
                        .int("keepdims", 0)
                };
                let mut b = ModelBuilder::new();
                b.opset("", 13).input("x", from, &dims(shape));
                if after {
                    b.node(reduce("x", "r"))
                        .node(Node::new("Cast", &["r"], &["y"]).int("to", i64::from(to)));
                } else {
                    b.node(Node::new("Cast", &["x"], &["c"]).int("to", i64::from(to)))
                        .node(reduce("c", "y"));
                }
                b.output("y", to, &dims(&out_shape));
                match onnx_aot_codegen::generate_pretty(&b.build(), &Options::new(module.clone())) {
                    Ok(code) => {
                        modules.push_str(&code);
                        modules.push('\n');
                        let _ = writeln!(
                            table,
                            "    CastFoldCase {{ from: DType::{from_name}, to: DType::{to_name}, \
                             after: {after}, shared: false, reduce: Some(&{axes:?}), \
                             shape: &{shape:?}, axis: 0, max: {}, last: false, \
                             scratch: {module}::SCRATCH_BYTES, run_bytes: {module}::run_bytes }},",
                            op == "ReduceMax"
                        );
                    }
                    Err(e) => errors.push(format!("{module}: {e}")),
                }
            }
        }
    }
}

/// A rounding Cast next to the other rewrites: Transpose(1, 0) before it (the ArgMax rows of the
/// transposed tensor are lanes of the input: the rounding read must not follow the fold), and a
/// Hardmax before it (the one-hot shortcut reads the Hardmax's input as it is).
fn around_other_folds(modules: &mut String, errors: &mut Vec<String>) {
    let mut t = ModelBuilder::new();
    t.opset("", 13)
        .input("x", dt::FLOAT, &dims(&[3, 40]))
        .node(Node::new("Transpose", &["x"], &["t"]).ints("perm", &[1, 0]))
        .node(Node::new("Cast", &["t"], &["c"]).int("to", i64::from(dt::FLOAT16)))
        .node(
            Node::new("ArgMax", &["c"], &["y"])
                .int("axis", 1)
                .int("keepdims", 0),
        )
        .output("y", dt::INT64, &dims(&[40]));
    let mut h = ModelBuilder::new();
    h.opset("", 13)
        .input("x", dt::FLOAT, &dims(&[6, 300]))
        .node(Node::new("Hardmax", &["x"], &["h"]).int("axis", 1))
        .node(Node::new("Cast", &["h"], &["c"]).int("to", i64::from(dt::FLOAT16)))
        .node(
            Node::new("ArgMax", &["c"], &["y"])
                .int("axis", 1)
                .int("keepdims", 0),
        )
        .output("y", dt::INT64, &dims(&[6]));
    for (b, name) in [(t, "cast_fold_transposed"), (h, "cast_fold_after_hardmax")] {
        match onnx_aot_codegen::generate_pretty(&b.build(), &Options::new(name)) {
            Ok(code) => {
                modules.push_str(&code);
                modules.push('\n');
            }
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
}
