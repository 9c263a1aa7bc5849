//! Snapshots of the generated code, formatted by `onnx_aot_codegen::generate_pretty`: one model
//! per op and version family, a multi-node graph, every element type family, keepdims both ways,
//! and the error text of a failing model. Review them as generated code a user will read.
//!
//! Each expansion is kept twice: as an insta snapshot (`tests/snapshots/`, reviewed with
//! `cargo insta review`) and as a plain Rust file in `tests/expansions/NAME.rs`, which
//! `tests/expansions_compile.rs` compiles with `#![deny(warnings)]` and runs. This test fails when
//! either copy differs from what the generator produces now. After a deliberate change:
//!
//! ```text
//! INSTA_UPDATE=always UPDATE_EXPANSIONS=1 cargo test -p onnx-aot-tests --test snapshots
//! ```
//!
//! then review the diff of both folders.

use std::path::PathBuf;

use onnx_aot_codegen::onnx::{
    attribute_type, data_type::*, AttributeProto, Dimension, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TensorTypeProto, TypeProto, ValueInfoProto,
};
use onnx_aot_codegen::{generate_pretty, Options, Scalar};
use prost::Message;

// ---------------------------------------------------------------------------------------------
// A tiny model builder.

/// An attribute: `("axis", A::I(1))`.
enum A {
    I(i64),
    Is(&'static [i64]),
}

fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str], attrs: &[(&str, A)]) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: name.into(),
        op_type: op.into(),
        attribute: attrs
            .iter()
            .map(|(n, a)| match a {
                A::I(i) => AttributeProto {
                    name: n.to_string(),
                    i: *i,
                    r#type: attribute_type::INT,
                    ..Default::default()
                },
                A::Is(v) => AttributeProto {
                    name: n.to_string(),
                    ints: v.to_vec(),
                    r#type: attribute_type::INTS,
                    ..Default::default()
                },
            })
            .collect(),
        ..Default::default()
    }
}

/// A tensor declaration with a static shape.
fn tensor(name: &str, elem: i32, shape: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: elem,
                shape: Some(TensorShapeProto {
                    dim: shape
                        .iter()
                        .map(|&d| Dimension {
                            dim_value: Some(d),
                            dim_param: None,
                        })
                        .collect(),
                }),
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// An int64 initializer of shape `[len]`.
fn axes_initializer(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![values.len() as i64],
        data_type: INT64,
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

/// A model with the default domain at `opset` (plus `onnx_aot` 1 when a node uses it).
fn model(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
) -> Vec<u8> {
    let mut opset_import = vec![OperatorSetIdProto {
        domain: String::new(),
        version: opset,
    }];
    if nodes.iter().any(|n| n.domain == "onnx_aot") {
        opset_import.push(OperatorSetIdProto {
            domain: "onnx_aot".into(),
            version: 1,
        });
    }
    ModelProto {
        ir_version: 8,
        opset_import,
        graph: Some(GraphProto {
            node: nodes,
            name: "g".into(),
            input: inputs,
            output: outputs,
            initializer: initializers,
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

/// A one-node model: `x` (elem, shape) -> `op` -> `y` (out_elem, out_shape).
#[allow(clippy::too_many_arguments)]
fn single(
    opset: i64,
    op: &str,
    elem: i32,
    shape: &[i64],
    out_elem: i32,
    out_shape: &[i64],
    attrs: &[(&str, A)],
) -> Vec<u8> {
    model(
        opset,
        vec![node(op, "n", &["x"], &["y"], attrs)],
        vec![tensor("x", elem, shape)],
        vec![tensor("y", out_elem, out_shape)],
        vec![],
    )
}

/// A model file of this crate's test data.
fn file(relative: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------------
// The cases.

/// Every snapshotted model: name (of the snapshot, the expansion file and the module), model
/// bytes, options.
fn hostile_text_model() -> Vec<u8> {
    let bytes = model(
        13,
        vec![node(
            "ArgMax",
            "a`b|c",
            &["x\u{202e}y"],
            &["<b>out</b>"],
            &[("axis", A::I(1)), ("keepdims", A::I(0))],
        )],
        vec![tensor("x\u{202e}y", FLOAT, &[2, 3])],
        vec![tensor("<b>out</b>", INT64, &[2])],
        vec![],
    );
    let mut m = ModelProto::decode(&bytes[..]).unwrap();
    m.doc_string = "Usage:\n\n    let y = model.run(x); // indented: a code block in markdown\n\n\
                    ```\nstd::process::abort();\n```\n<script>alert(1)</script> https://example.com"
        .to_string();
    m.producer_name = "`evil` | <i>x</i>".to_string();
    m.metadata_props
        .push(onnx_aot_codegen::onnx::StringStringEntryProto {
            key: "note`".to_string(),
            value: "two\nlines".to_string(),
        });
    m.encode_to_vec()
}

fn cases() -> Vec<(&'static str, Vec<u8>, Options)> {
    use A::*;
    let opts = |name: &str| Options::new(name).source_name(format!("{name}.onnx"));
    vec![
        // ArgMax-1: defaults (axis 0, keepdims 1), f32.
        (
            "argmax_1",
            single(1, "ArgMax", FLOAT, &[3, 4], INT64, &[1, 4], &[]),
            opts("argmax_1"),
        ),
        // ArgMax-11: negative axis, keepdims 0.
        (
            "argmax_11",
            single(
                11,
                "ArgMax",
                FLOAT,
                &[3, 4],
                INT64,
                &[3],
                &[("axis", I(-1)), ("keepdims", I(0))],
            ),
            opts("argmax_11"),
        ),
        // ArgMax-12: select_last_index on a middle axis, f64.
        (
            "argmax_12",
            single(
                12,
                "ArgMax",
                DOUBLE,
                &[2, 3, 4],
                INT64,
                &[2, 1, 4],
                &[("axis", I(1)), ("select_last_index", I(1))],
            ),
            opts("argmax_12"),
        ),
        // ArgMax-13 on bfloat16 (new in 13), last axis, keepdims 0.
        (
            "argmax_13_bf16",
            single(
                13,
                "ArgMax",
                BFLOAT16,
                &[2, 5],
                INT64,
                &[2],
                &[("axis", I(1)), ("keepdims", I(0))],
            ),
            opts("argmax_13_bf16"),
        ),
        // ArgMin-13 on int16 over the leading axis.
        (
            "argmin_13_i16",
            single(
                13,
                "ArgMin",
                INT16,
                &[4, 3],
                INT64,
                &[1, 3],
                &[("axis", I(0))],
            ),
            opts("argmin_13_i16"),
        ),
        // ReduceMax-1: no axes, so every dimension; keepdims 1.
        (
            "reducemax_1",
            single(1, "ReduceMax", FLOAT, &[2, 3], FLOAT, &[1, 1], &[]),
            opts("reducemax_1"),
        ),
        // ReduceMax-13: two non-adjacent axes, keepdims 0, int8 (from 12).
        (
            "reducemax_13_i8",
            single(
                13,
                "ReduceMax",
                INT8,
                &[2, 3, 4],
                INT8,
                &[3],
                &[("axes", Is(&[0, 2])), ("keepdims", I(0))],
            ),
            opts("reducemax_13_i8"),
        ),
        // ReduceMax-18: axes from an initializer, float16.
        (
            "reducemax_18_axes_initializer",
            model(
                18,
                vec![node(
                    "ReduceMax",
                    "n",
                    &["x", "axes"],
                    &["y"],
                    &[("keepdims", I(0))],
                )],
                vec![tensor("x", FLOAT16, &[2, 3, 4])],
                vec![tensor("y", FLOAT16, &[2, 4])],
                vec![axes_initializer("axes", &[-2])],
            ),
            opts("reducemax_18_axes_initializer"),
        ),
        // ReduceMax-18: axes from a graph input bound in the options (an official node test).
        (
            "reducemax_18_bound_axes",
            file("data/node/test_reduce_max_keepdims_example/model.onnx"),
            opts("reducemax_18_bound_axes").input("axes", vec![Scalar::Int(1)]),
        ),
        // ReduceMax-18 with no axes and noop_with_empty_axes: the output is the input.
        (
            "reducemax_18_noop",
            single(
                18,
                "ReduceMax",
                FLOAT,
                &[2, 3],
                FLOAT,
                &[2, 3],
                &[("noop_with_empty_axes", I(1))],
            ),
            opts("reducemax_18_noop"),
        ),
        // ReduceMax-20 on bool.
        (
            "reducemax_20_bool",
            model(
                20,
                vec![node("ReduceMax", "n", &["x", "axes"], &["y"], &[])],
                vec![tensor("x", BOOL, &[3, 4])],
                vec![tensor("y", BOOL, &[3, 1])],
                vec![axes_initializer("axes", &[1])],
            ),
            opts("reducemax_20_bool"),
        ),
        // ReduceMin-13 on uint8 over the leading axis, keepdims 1.
        (
            "reducemin_13_u8",
            single(
                13,
                "ReduceMin",
                UINT8,
                &[4, 6],
                UINT8,
                &[1, 6],
                &[("axes", Is(&[0]))],
            ),
            opts("reducemin_13_u8"),
        ),
        // ReduceMin-13 on uint64, every axis, keepdims 0: a scalar output.
        (
            "reducemin_13_u64",
            single(
                13,
                "ReduceMin",
                UINT64,
                &[2, 3],
                UINT64,
                &[],
                &[("keepdims", I(0))],
            ),
            opts("reducemin_13_u64"),
        ),
        // ReduceMin-13 over axes 0, 2 and 4 of five: the one nest whose kernel runs once per
        // index of an outer reduced axis, so it folds into an output filled first.
        (
            "reducemin_13_alternating",
            single(
                13,
                "ReduceMin",
                FLOAT,
                &[2, 3, 4, 5, 6],
                FLOAT,
                &[3, 5],
                &[("axes", Is(&[0, 2, 4])), ("keepdims", I(0))],
            ),
            opts("reducemin_13_alternating"),
        ),
        // ReduceMax-13 on int64, default axes (all) and keepdims.
        (
            "reducemax_13_i64",
            single(13, "ReduceMax", INT64, &[5], INT64, &[1], &[]),
            opts("reducemax_13_i64"),
        ),
        // Hardmax-1: default axis 1 on rank 3, so the input is viewed as [2, 12].
        (
            "hardmax_1",
            single(1, "Hardmax", FLOAT, &[2, 3, 4], FLOAT, &[2, 3, 4], &[]),
            opts("hardmax_1"),
        ),
        // Hardmax-11: axis 2 on rank 3, so [6, 4]; float16.
        (
            "hardmax_11_f16",
            single(
                11,
                "Hardmax",
                FLOAT16,
                &[2, 3, 4],
                FLOAT16,
                &[2, 3, 4],
                &[("axis", I(2))],
            ),
            opts("hardmax_11_f16"),
        ),
        // Hardmax-13 on a middle axis (no 2-D coercion), f64.
        (
            "hardmax_13_middle_axis",
            single(
                13,
                "Hardmax",
                DOUBLE,
                &[2, 3, 4],
                DOUBLE,
                &[2, 3, 4],
                &[("axis", I(1))],
            ),
            opts("hardmax_13_middle_axis"),
        ),
        // onnx_aot::Hardmax over the non-contiguous axes 0 and 2.
        (
            "onnx_aot_hardmax",
            model(
                13,
                vec![NodeProto {
                    domain: "onnx_aot".into(),
                    ..node("Hardmax", "n", &["x"], &["y"], &[("axes", Is(&[0, 2]))])
                }],
                vec![tensor("x", FLOAT, &[2, 3, 4])],
                vec![tensor("y", FLOAT, &[2, 3, 4])],
                vec![],
            ),
            opts("onnx_aot_hardmax"),
        ),
        // A chain with intermediates: ReduceMax over features, ReduceMin over time, ArgMax, and a
        // Hardmax reading the first intermediate.
        (
            "multi_node",
            model(
                13,
                vec![
                    node(
                        "ReduceMax",
                        "features",
                        &["x"],
                        &["f"],
                        &[("axes", Is(&[2])), ("keepdims", I(0))],
                    ),
                    node(
                        "ReduceMin",
                        "time",
                        &["f"],
                        &["t"],
                        &[("axes", Is(&[1])), ("keepdims", I(0))],
                    ),
                    node(
                        "ArgMax",
                        "top",
                        &["t"],
                        &["label"],
                        &[("axis", I(0)), ("keepdims", I(0))],
                    ),
                    node("Hardmax", "onehot", &["f"], &["mask"], &[("axis", I(-1))]),
                ],
                vec![tensor("x", FLOAT, &[4, 3, 5])],
                vec![tensor("label", INT64, &[]), tensor("mask", FLOAT, &[4, 3])],
                vec![],
            ),
            opts("multi_node"),
        ),
        // ReduceMax over rows of two, then ArgMax over the maxima along the middle axis: the
        // maxima (65 KiB whole) run in chunks of 128 positions of axis 0, 16 KiB of scratch,
        // one loop calling both node functions per chunk; 521 is prime, so the last 9
        // positions are a shorter chunk through the `_rest` functions.
        (
            "chain_chunked",
            model(
                13,
                vec![
                    node(
                        "ReduceMax",
                        "pool",
                        &["x"],
                        &["pooled"],
                        &[("axes", Is(&[2]))],
                    ),
                    node("ArgMax", "pick", &["pooled"], &["y"], &[("axis", I(1))]),
                ],
                vec![tensor("x", FLOAT, &[521, 32, 2])],
                vec![tensor("y", INT64, &[521, 1, 1])],
                vec![],
            ),
            opts("chain_chunked"),
        ),
        // ReduceMax over axis 0 of two planes, then ArgMax of the maxima along the last axis:
        // the maxima (64 KiB whole) run in chunks of 128 positions of axis 1, each the extreme
        // of the two planes' parts, read in place (the node function takes `at`).
        (
            "chain_planes",
            model(
                13,
                vec![
                    node(
                        "ReduceMax",
                        "merge",
                        &["x"],
                        &["merged"],
                        &[("axes", Is(&[0]))],
                    ),
                    node("ArgMax", "pick", &["merged"], &["y"], &[("axis", I(2))]),
                ],
                vec![tensor("x", FLOAT, &[2, 512, 32])],
                vec![tensor("y", INT64, &[1, 512, 1])],
                vec![],
            ),
            opts("chain_planes"),
        ),
        // torch.max(x, dim=1): ReduceMax and ArgMax of one tensor over one axis, fused into one
        // node that writes both outputs (the lane kernel writes the values; the next case reads
        // them back at the indices).
        (
            "siblings_torch_max",
            model(
                13,
                vec![
                    node(
                        "ReduceMax",
                        "values",
                        &["x"],
                        &["v"],
                        &[("axes", Is(&[1])), ("keepdims", I(0))],
                    ),
                    node(
                        "ArgMax",
                        "indices",
                        &["x"],
                        &["i"],
                        &[("axis", I(1)), ("keepdims", I(0))],
                    ),
                ],
                vec![tensor("x", FLOAT, &[2, 6, 17])],
                vec![tensor("v", FLOAT, &[2, 17]), tensor("i", INT64, &[2, 17])],
                vec![],
            ),
            opts("siblings_torch_max"),
        ),
        // torch.max(x, dim=-1) over contiguous rows: one pass where a runtime kernel takes the
        // rows (f32 rows on x86-64), else the indices and then the values at them, by tiles.
        (
            "siblings_rows",
            model(
                13,
                vec![
                    node(
                        "ArgMax",
                        "indices",
                        &["x"],
                        &["i"],
                        &[("axis", I(-1)), ("keepdims", I(0))],
                    ),
                    node(
                        "ReduceMax",
                        "values",
                        &["x"],
                        &["v"],
                        &[("axes", Is(&[1])), ("keepdims", I(0))],
                    ),
                ],
                vec![tensor("x", FLOAT, &[9, 20])],
                vec![tensor("v", FLOAT, &[9]), tensor("i", INT64, &[9])],
                vec![],
            ),
            opts("siblings_rows"),
        ),
        // Fused siblings whose input and outputs are intermediates (three views of the scratch
        // buffers in one call), and W8's ReduceMax -> Hardmax -> ArgMax, where the ArgMax reads
        // the ReduceMax's output and the Hardmax is dropped.
        (
            "siblings_in_scratch",
            model(
                13,
                vec![
                    node(
                        "ReduceMin",
                        "time",
                        &["x"],
                        &["m"],
                        &[("axes", Is(&[3])), ("keepdims", I(0))],
                    ),
                    node(
                        "ReduceMax",
                        "best",
                        &["m"],
                        &["v"],
                        &[("axes", Is(&[1])), ("keepdims", I(0))],
                    ),
                    node(
                        "ArgMax",
                        "which",
                        &["m"],
                        &["i"],
                        &[("axis", I(1)), ("keepdims", I(0))],
                    ),
                    node("Hardmax", "onehot", &["v"], &["h"], &[("axis", I(-1))]),
                    node("ArgMax", "pick", &["h"], &["top"], &[("axis", I(-1))]),
                    node("ArgMax", "latest", &["i"], &["late"], &[("axis", I(0))]),
                ],
                vec![tensor("x", FLOAT, &[2, 5, 4, 3])],
                vec![
                    tensor("top", INT64, &[2, 1]),
                    tensor("late", INT64, &[1, 4]),
                ],
                vec![],
            ),
            opts("siblings_in_scratch"),
        ),
        // Glue that only reshapes: `x.argmax()` with no dim (Reshape to [-1], then ArgMax), and
        // a Squeeze after a ReduceMax with keepdims, an Unsqueeze before a Hardmax. The shape
        // ops compute nothing: their outputs share their inputs' storage.
        (
            "glue_reshape",
            model(
                13,
                vec![
                    node("Reshape", "flat", &["x", "minus_one"], &["f"], &[]),
                    node("ArgMax", "top", &["f"], &["top"], &[("keepdims", I(0))]),
                    node("ReduceMax", "pool", &["x"], &["p"], &[("axes", Is(&[2]))]),
                    node("Squeeze", "drop", &["p", "last"], &["s"], &[]),
                    node("Unsqueeze", "add", &["s", "first"], &["u"], &[]),
                    node("Hardmax", "onehot", &["u"], &["mask"], &[("axis", I(-1))]),
                ],
                vec![tensor("x", FLOAT, &[2, 3, 4])],
                vec![tensor("top", INT64, &[]), tensor("mask", FLOAT, &[1, 2, 3])],
                vec![
                    axes_initializer("minus_one", &[-1]),
                    axes_initializer("last", &[2]),
                    axes_initializer("first", &[0]),
                ],
            ),
            opts("glue_reshape"),
        ),
        // Shape arithmetic as exporters write it, all evaluated while generating code: the batch
        // size from Shape and Gather, Unsqueeze, Concat with -1, Mul, then a Reshape to
        // [batch, -1], an ArgMax over the rest and a Cast of the index to INT32.
        (
            "glue_shape_math",
            model(
                13,
                vec![
                    node("Shape", "shape", &["x"], &["s"], &[]),
                    node("Gather", "batch", &["s", "zero"], &["b"], &[("axis", I(0))]),
                    node("Unsqueeze", "b1", &["b", "first"], &["b1"], &[]),
                    node("Mul", "same", &["b1", "one"], &["b2"], &[]),
                    node(
                        "Concat",
                        "target",
                        &["b2", "minus_one"],
                        &["t"],
                        &[("axis", I(0))],
                    ),
                    node("Reshape", "flat", &["x", "t"], &["f"], &[]),
                    node(
                        "ArgMax",
                        "top",
                        &["f"],
                        &["i"],
                        &[("axis", I(1)), ("keepdims", I(0))],
                    ),
                    node("Cast", "narrow", &["i"], &["label"], &[("to", I(6))]),
                ],
                vec![tensor("x", FLOAT, &[2, 3, 4])],
                vec![tensor("label", 6, &[2])],
                vec![
                    TensorProto {
                        dims: vec![],
                        ..axes_initializer("zero", &[0])
                    },
                    axes_initializer("first", &[0]),
                    axes_initializer("one", &[1]),
                    axes_initializer("minus_one", &[-1]),
                ],
            ),
            opts("glue_shape_math"),
        ),
        // A detector head as torch exports it: class scores p[:, 4:, :] (Slice), permute(0, 2, 1)
        // (Transpose), then max and argmax over the classes; the Transpose folds into both
        // (their axes map onto the sliced scores), which then fuse. Beside it, a global max
        // pool written as a MaxPool whose window covers the map.
        (
            "glue_detector_head",
            model(
                13,
                vec![
                    node("Slice", "scores", &["p", "four", "end", "one"], &["s"], &[]),
                    node(
                        "Transpose",
                        "permute",
                        &["s"],
                        &["t"],
                        &[("perm", Is(&[0, 2, 1]))],
                    ),
                    node(
                        "ReduceMax",
                        "conf",
                        &["t"],
                        &["conf"],
                        &[("axes", Is(&[2])), ("keepdims", I(0))],
                    ),
                    node(
                        "ArgMax",
                        "cls",
                        &["t"],
                        &["cls"],
                        &[("axis", I(-1)), ("keepdims", I(0))],
                    ),
                    node(
                        "MaxPool",
                        "pool",
                        &["m"],
                        &["pooled"],
                        &[("kernel_shape", Is(&[3, 5]))],
                    ),
                ],
                vec![
                    tensor("p", FLOAT, &[1, 9, 6]),
                    tensor("m", FLOAT, &[1, 2, 3, 5]),
                ],
                vec![
                    tensor("conf", FLOAT, &[1, 6]),
                    tensor("cls", INT64, &[1, 6]),
                    tensor("pooled", FLOAT, &[1, 2, 1, 1]),
                ],
                vec![
                    axes_initializer("four", &[4]),
                    axes_initializer("end", &[i64::MAX]),
                    axes_initializer("one", &[1]),
                ],
            ),
            opts("glue_detector_head"),
        ),
        // A constant read at run time, large enough to be one byte string decoded at compile
        // time (more than 64 elements), beside a small one kept as literals.
        (
            "constant_blob",
            model(
                13,
                vec![
                    node("ArgMax", "big", &["w"], &["i"], &[("axis", A::I(1))]),
                    node(
                        "ReduceMax",
                        "small",
                        &["b"],
                        &["m"],
                        &[("keepdims", A::I(0))],
                    ),
                ],
                vec![],
                vec![tensor("i", INT64, &[3, 1]), tensor("m", FLOAT, &[])],
                vec![
                    TensorProto {
                        name: "w".into(),
                        dims: vec![3, 40],
                        data_type: FLOAT,
                        float_data: (0..120).map(|k| ((k * 37) % 101) as f32 - 50.0).collect(),
                        ..Default::default()
                    },
                    TensorProto {
                        name: "b".into(),
                        dims: vec![4],
                        data_type: FLOAT,
                        float_data: vec![1.5, -2.0, 7.25, 0.0],
                        ..Default::default()
                    },
                ],
            ),
            opts("constant_blob"),
        ),
        // Hostile model text: a doc string with a code fence (a doctest if it reached rustdoc as
        // markdown), an indented usage note, HTML and a URL; metadata with a newline; names with
        // backticks, pipes and a bidi control character. The expansion compiles under
        // deny(warnings) (rustc refuses bidi characters in comments) and the text stays inert.
        ("hostile_text", hostile_text_model(), opts("hostile_text")),
        // A model as PyTorch's exporter writes it (Constant, Identity, symbolic batch, names that
        // are paths), batch bound to 2.
        (
            "exporter_pytorch",
            file("data/models/exporter_pytorch.onnx"),
            Options::new("exporter_pytorch")
                .source_name("data/models/exporter_pytorch.onnx")
                .dim("batch_size", 2),
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// The checks.

fn expansions_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expansions")
}

fn updating_expansions() -> bool {
    std::env::var_os("UPDATE_EXPANSIONS").is_some_and(|v| v == "1")
}

/// Checks (or with `UPDATE_EXPANSIONS=1`, writes) `tests/expansions/NAME.rs`.
fn check_expansion(name: &str, code: &str) {
    let path = expansions_dir().join(format!("{name}.rs"));
    if updating_expansions() {
        std::fs::create_dir_all(expansions_dir()).unwrap();
        std::fs::write(&path, code).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == code,
        "tests/expansions/{name}.rs is not the generator's current output for this model. If the \
         change is intended, refresh it with `UPDATE_EXPANSIONS=1 cargo test -p onnx-aot-tests \
         --test snapshots`, review the diff, and make sure it is included by \
         tests/expansions_compile.rs"
    );
}

fn check(name: &str) {
    let (_, bytes, options) = cases()
        .into_iter()
        .find(|(n, _, _)| *n == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    let code = generate_pretty(&bytes, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    check_expansion(name, &code);
    insta::assert_snapshot!(name, code);
}

macro_rules! snapshot_tests {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check(stringify!($name)); })*
        /// The names given to the macro: every case has a test.
        const TESTED: &[&str] = &[$(stringify!($name)),*];
    };
}

snapshot_tests!(
    argmax_1,
    argmax_11,
    argmax_12,
    argmax_13_bf16,
    argmin_13_i16,
    reducemax_1,
    reducemax_13_i8,
    reducemax_13_i64,
    reducemax_18_axes_initializer,
    reducemax_18_bound_axes,
    reducemax_18_noop,
    reducemax_20_bool,
    reducemin_13_u8,
    reducemin_13_u64,
    reducemin_13_alternating,
    hardmax_1,
    hardmax_11_f16,
    hardmax_13_middle_axis,
    onnx_aot_hardmax,
    multi_node,
    chain_chunked,
    chain_planes,
    siblings_torch_max,
    siblings_rows,
    siblings_in_scratch,
    glue_reshape,
    glue_shape_math,
    glue_detector_head,
    hostile_text,
    constant_blob,
    exporter_pytorch,
);

/// Every case has a test, an expansion file, and a place in expansions_compile.rs; no expansion
/// file is left over from a removed case.
#[test]
fn expansions_are_complete() {
    let names: Vec<&str> = cases().iter().map(|(n, _, _)| *n).collect();
    let mut untested: Vec<&&str> = names.iter().filter(|n| !TESTED.contains(n)).collect();
    untested.sort();
    assert!(
        untested.is_empty(),
        "cases without a test in snapshot_tests!: {untested:?}"
    );
    if updating_expansions() {
        return;
    }
    let compile_test = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/expansions_compile.rs"),
    )
    .unwrap();
    for name in &names {
        assert!(
            compile_test.contains(&format!("expansion!({name})")),
            "tests/expansions_compile.rs does not compile tests/expansions/{name}.rs; add \
             `expansion!({name})` to it"
        );
    }
    for entry in std::fs::read_dir(expansions_dir()).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        let stem = file.strip_suffix(".rs").unwrap_or(&file);
        assert!(
            names.contains(&stem),
            "tests/expansions/{file} belongs to no case of tests/snapshots.rs; delete it"
        );
    }
}

/// The error text of a model with several mistakes, as the macro, the CLI and build scripts
/// show it: every error, in order, each with its node and how to fix it.
#[test]
fn error_text() {
    use A::*;
    let bytes = model(
        13,
        vec![
            node("Relu", "relu", &["x"], &["r"], &[]),
            node(
                "ArgMax",
                "top",
                &["x"],
                &["label"],
                &[("axis", I(2)), ("keepdims", I(0))],
            ),
            node(
                "ReduceMax",
                "rowmax",
                &["x"],
                &["m"],
                &[("axes", Is(&[1, -1]))],
            ),
            node("Hardmax", "onehot", &["x"], &["mask"], &[("axis", I(1))]),
        ],
        vec![tensor("x", INT32, &[2, 3])],
        vec![
            tensor("r", INT32, &[2, 3]),
            tensor("label", INT64, &[2]),
            tensor("m", INT32, &[2, 1]),
            tensor("mask", INT32, &[2, 3]),
        ],
        vec![],
    );
    let errors = generate_pretty(&bytes, &Options::new("broken").source_name("broken.onnx"))
        .expect_err("the model is broken");
    insta::assert_snapshot!("error_text", errors.to_string());
}
