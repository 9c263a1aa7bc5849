//! Every compile-time error of the contract: each yields an `Err` whose message says what,
//! where and how to fix it. None may panic.

mod common;
use common::*;
use onnx_aot_codegen::onnx::data_type::*;
use onnx_aot_codegen::options::Frontend;
use onnx_aot_codegen::{analyze, Blame, Errors, Options, Scalar};

fn errors_of(m: &onnx_aot_codegen::onnx::ModelProto, options: &Options) -> Errors {
    match analyze(&bytes(m), options) {
        Ok(g) => panic!(
            "expected an error, got a graph with {} nodes",
            g.nodes.len()
        ),
        Err(e) => e,
    }
}

fn message(m: &onnx_aot_codegen::onnx::ModelProto) -> String {
    errors_of(m, &Options::default()).to_string()
}

fn assert_has(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "message lacks {p:?}:\n{text}");
    }
}

#[test]
fn empty_garbage_and_truncated_files() {
    let e = analyze(&[], &Options::default()).unwrap_err().to_string();
    assert_has(&e, &["empty", "not an ONNX model"]);
    let e = analyze(b"hello, I am not a model\n", &Options::default())
        .unwrap_err()
        .to_string();
    assert_has(&e, &["not a readable ONNX model"]);
    let good = bytes(&single(13, "ArgMax", FLOAT, &[2, 3], vec![]));
    for cut in [1, good.len() / 2, good.len() - 1] {
        let e = analyze(&good[..cut], &Options::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("ONNX"), "cut {cut}: {e}");
    }
    // Valid protobuf without a graph.
    let e = analyze(&[0x08, 0x07], &Options::default())
        .unwrap_err()
        .to_string();
    assert_has(&e, &["no ONNX graph"]);
}

#[test]
fn unsupported_ops_are_listed_together() {
    let m = model(
        13,
        vec![
            node("Relu", "r", &["x"], &["a"], vec![]),
            node("Softmax", "s", &["a"], &["y"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2]))],
        vec![output("y")],
    );
    let e = message(&m);
    assert_has(
        &e,
        &[
            "node 0 \"r\": Relu",
            "node 1 \"s\": Softmax",
            "does not support",
        ],
    );
}

#[test]
fn unknown_domain_and_opsets() {
    let mut m = single(13, "ArgMax", FLOAT, &[2], vec![]);
    m.graph.as_mut().unwrap().node[0].domain = "com.example".into();
    assert_has(&message(&m), &["domain \"com.example\"", "does not import"]);

    let m = single(29, "ArgMax", FLOAT, &[2], vec![]);
    assert_has(&message(&m), &["opset 29", "1 to 28"]);

    let mut m = single(13, "ArgMax", FLOAT, &[2], vec![]);
    m.opset_import
        .push(onnx_aot_codegen::onnx::OperatorSetIdProto {
            domain: "onnx_aot".into(),
            version: 2,
        });
    assert_has(&message(&m), &["opset 2", "\"onnx_aot\""]);
}

#[test]
fn attribute_errors() {
    let mut bad = attr_int("axis", 0);
    bad.r#type = onnx_aot_codegen::onnx::attribute_type::FLOATS;
    let e = message(&single(13, "ArgMax", FLOAT, &[2], vec![bad]));
    assert_has(
        &e,
        &[
            "\"the_node\"",
            "ArgMax-13",
            "`axis`",
            "FLOATS",
            "must be INT",
        ],
    );

    let e = message(&single(
        13,
        "ArgMax",
        FLOAT,
        &[2],
        vec![attr_int("keepdim", 0)],
    ));
    assert_has(&e, &["unknown attribute `keepdim`", "`keepdims`"]);

    let e = message(&single(
        13,
        "ArgMax",
        FLOAT,
        &[2],
        vec![attr_int("keepdims", 2)],
    ));
    assert_has(&e, &["`keepdims` is 2", "0 or 1"]);

    // select_last_index arrives in 12.
    let e = message(&single(
        11,
        "ArgMax",
        FLOAT,
        &[2],
        vec![attr_int("select_last_index", 1)],
    ));
    assert_has(&e, &["ArgMax-11", "select_last_index"]);

    // From 18, axes is an input.
    let e = message(&single(
        18,
        "ReduceMax",
        FLOAT,
        &[2],
        vec![attr_ints("axes", &[0])],
    ));
    assert_has(&e, &["ReduceMax-18", "second input"]);
}

#[test]
fn axis_range_and_repeats() {
    let e = message(&single(
        13,
        "ArgMax",
        FLOAT,
        &[2, 3],
        vec![attr_int("axis", 2)],
    ));
    assert_has(&e, &["axis 2 is out of range", "rank 2", "-2 to 1"]);
    let e = message(&single(
        13,
        "ArgMin",
        FLOAT,
        &[2, 3],
        vec![attr_int("axis", -3)],
    ));
    assert_has(&e, &["axis -3 is out of range"]);
    let e = message(&single(
        13,
        "ReduceMax",
        FLOAT,
        &[2, 3, 4],
        vec![attr_ints("axes", &[1, -2])],
    ));
    assert_has(&e, &["more than once"]);
    let e = message(&single(
        1,
        "ArgMax",
        FLOAT,
        &[2, 3],
        vec![attr_int("axis", -1)],
    ));
    assert_has(&e, &["ArgMax-1", "negative", "opset 11", "use 1"]);
    let e = message(&single(
        1,
        "Hardmax",
        FLOAT,
        &[2, 3],
        vec![attr_int("axis", -1)],
    ));
    assert_has(&e, &["Hardmax-1", "negative"]);
    let e = message(&single(13, "Hardmax", FLOAT, &[], vec![]));
    assert_has(&e, &["rank 0"]);
}

#[test]
fn arg_reductions_need_a_nonempty_axis() {
    let e = message(&single(
        13,
        "ArgMax",
        FLOAT,
        &[2, 0, 3],
        vec![attr_int("axis", 1)],
    ));
    assert_has(&e, &["axis 1", "length 0", "undefined"]);
    let e = message(&single(13, "ArgMin", FLOAT, &[], vec![]));
    assert_has(&e, &["scalar (rank 0)", "ArgMin needs an axis"]);
    // A zero-length kept dimension is fine.
    assert!(analyze(
        &bytes(&single(
            13,
            "ArgMax",
            FLOAT,
            &[0, 3],
            vec![attr_int("axis", 1)]
        )),
        &Options::default()
    )
    .is_ok());
}

#[test]
fn type_constraints_per_version() {
    let cases: &[(i64, &str, i32, &str)] = &[
        (11, "ReduceMax", INT8, "INT8 and UINT8 arrive in opset 12"),
        (11, "ReduceMin", UINT8, "INT8 and UINT8 arrive in opset 12"),
        (18, "ReduceMax", BOOL, "BOOL arrives in opset 20"),
        (12, "ReduceMax", BFLOAT16, "BFLOAT16 arrives in opset 13"),
        (20, "ReduceMax", INT16, "accepts"),
        (12, "ArgMax", BFLOAT16, "BFLOAT16 arrives in opset 13"),
        (13, "ArgMax", BOOL, "accepts"),
        (
            13,
            "Hardmax",
            INT32,
            "accepts FLOAT, DOUBLE, FLOAT16, BFLOAT16",
        ),
        (11, "Hardmax", BFLOAT16, "BFLOAT16 arrives in opset 13"),
    ];
    for &(opset, op, dtype, hint) in cases {
        let e = message(&single(opset, op, dtype, &[2, 2], vec![]));
        assert_has(&e, &["\"the_node\"", "\"x\"", "does not accept", hint]);
    }
    // And the same types are accepted where the contract allows them.
    for &(opset, op, dtype) in &[
        (12, "ReduceMax", INT8),
        (20, "ReduceMin", BOOL),
        (13, "ArgMax", BFLOAT16),
        (1, "ArgMax", UINT16),
    ] {
        assert!(
            analyze(
                &bytes(&single(opset, op, dtype, &[2, 2], vec![])),
                &Options::default()
            )
            .is_ok(),
            "{op}-{opset} {dtype}"
        );
    }
}

#[test]
fn symbolic_dims_must_be_bound() {
    let m = model(
        13,
        vec![node("ArgMax", "a", &["x"], &["y"], vec![])],
        vec![vi("x", FLOAT, &[D::P("batch"), D::P("classes")])],
        vec![output("y")],
    );
    let e = message(&m);
    assert_has(
        &e,
        &[
            "\"batch\" (used by graph input \"x\")",
            "\"classes\"",
            "give each a size with `Options::dim`: `.dim(\"batch\", 1).dim(\"classes\", 1)`",
        ],
    );
    let g = analyze(
        &bytes(&m),
        &Options::default().dim("batch", 2).dim("classes", 5),
    )
    .unwrap();
    assert_eq!(g.values[g.nodes[0].output].shape, [1, 5]);

    let errs = errors_of(
        &m,
        &Options::default()
            .dim("batch", 2)
            .dim("classes", 5)
            .dim("batsh", 3),
    );
    let e = errs
        .iter()
        .find(|e| e.blame == Blame::Dim("batsh".into()))
        .expect("blamed on the binding");
    assert_has(&e.message, &["\"batsh\"", "\"batch\""]);

    let m = model(
        13,
        vec![node("ArgMax", "a", &["x"], &["y"], vec![])],
        vec![vi("x", FLOAT, &[D::Unknown])],
        vec![output("y")],
    );
    assert_has(
        &message(&m),
        &[
            "\"x[0]\"",
            "neither a size nor a name",
            "TENSOR[AXIS]",
            ".dim(\"x[0]\", 1)",
        ],
    );
    // Bound by that name, it compiles.
    let g = analyze(&bytes(&m), &Options::default().dim("x[0]", 4)).unwrap();
    assert_eq!(g.values[g.inputs[0]].shape, [4]);
}

#[test]
fn input_bindings() {
    let m = model(
        18,
        vec![node("ReduceMax", "r", &["x", "axes"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2, 3])), vi("axes", INT64, &n(&[1]))],
        vec![output("y")],
    );
    let e = message(&m);
    assert_has(
        &e,
        &[
            "ReduceMax-18",
            "graph input \"axes\"",
            "`.input(\"axes\", vec![Scalar::Int(1)])`",
        ],
    );

    let g = analyze(
        &bytes(&m),
        &Options::default().input("axes", vec![Scalar::Int(-1)]),
    )
    .unwrap();
    assert_eq!(
        g.inputs.len(),
        1,
        "the frozen input leaves the run-time inputs"
    );
    assert_eq!(g.values[g.nodes[0].output].shape, [2, 1]);

    let errs = errors_of(
        &m,
        &Options::default()
            .input("axes", vec![Scalar::Int(1)])
            .input("axis", vec![Scalar::Int(0)]),
    );
    let e = errs
        .iter()
        .find(|e| e.blame == Blame::Input("axis".into()))
        .expect("blamed on the binding");
    assert_has(&e.message, &["no graph input of that name", "\"axes\""]);

    let errs = errors_of(
        &m,
        &Options::default().input("axes", vec![Scalar::Int(1), Scalar::Int(0)]),
    );
    assert_has(&errs.to_string(), &["2 values", "holds 1"]);
    let errs = errors_of(
        &m,
        &Options::default().input("axes", vec![Scalar::Float(1.5)]),
    );
    assert_has(&errs.to_string(), &["must be an integer"]);
}

#[test]
fn declared_shapes_and_types_must_agree() {
    let m = model(
        13,
        vec![node(
            "ArgMax",
            "a",
            &["x"],
            &["y"],
            vec![attr_int("axis", 1)],
        )],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![vi("y", INT64, &n(&[2, 3]))],
    );
    assert_has(&message(&m), &["graph output \"y\"", "[2, 3]", "[2, 1]"]);
    let m = model(
        13,
        vec![node("ArgMax", "a", &["x"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![vi("y", FLOAT, &n(&[1, 3]))],
    );
    assert_has(&message(&m), &["declared as FLOAT", "computes INT64"]);
    let mut m = model(
        13,
        vec![
            node("ReduceMax", "r", &["x"], &["t"], vec![]),
            node("Identity", "i", &["t"], &["y"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![output("y")],
    );
    m.graph
        .as_mut()
        .unwrap()
        .value_info
        .push(vi("t", FLOAT, &n(&[2])));
    assert_has(&message(&m), &["value_info \"t\"", "[1, 1]"]);
}

#[test]
fn graph_structure_errors() {
    let cycle = model(
        13,
        vec![
            node("Identity", "a", &["b_out"], &["a_out"], vec![]),
            node("Identity", "b", &["a_out"], &["b_out"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2]))],
        vec![output("a_out")],
    );
    assert_has(&message(&cycle), &["cycle", "\"a\"", "\"b\""]);

    let missing = model(
        13,
        vec![node("Identity", "a", &["nope"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2]))],
        vec![output("y")],
    );
    assert_has(&message(&missing), &["reads \"nope\"", "nothing produces"]);

    let twice = model(
        13,
        vec![
            node("Identity", "a", &["x"], &["y"], vec![]),
            node("Identity", "b", &["x"], &["y"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2]))],
        vec![output("y")],
    );
    assert_has(&message(&twice), &["\"y\" is produced twice"]);

    let dup_out = model(
        13,
        vec![node("Identity", "a", &["x"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2]))],
        vec![output("y"), output("y")],
    );
    assert_has(&message(&dup_out), &["listed twice"]);
}

#[test]
fn external_data_is_refused() {
    let mut m = single(13, "ReduceMax", FLOAT, &[2], vec![]);
    let g = m.graph.as_mut().unwrap();
    g.initializer.push(onnx_aot_codegen::onnx::TensorProto {
        name: "w".into(),
        dims: vec![2],
        data_type: FLOAT,
        data_location: 1,
        external_data: vec![onnx_aot_codegen::onnx::StringStringEntryProto {
            key: "location".into(),
            value: "w.bin".into(),
        }],
        ..Default::default()
    });
    assert_has(
        &message(&m),
        &[
            "initializer 0 \"w\"",
            "external",
            "save_as_external_data=False",
        ],
    );
}

#[test]
fn several_errors_are_collected() {
    let m = model(
        13,
        vec![
            node("ArgMax", "a", &["x"], &["y1"], vec![attr_int("axis", 5)]),
            node("Hardmax", "h", &["i"], &["y2"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2])), vi("i", INT32, &n(&[2]))],
        vec![output("y1"), output("y2")],
    );
    let errs = errors_of(&m, &Options::default());
    assert_eq!(errs.len(), 2, "{errs}");
}

fn macro_options(module: &str, path: &str) -> Options {
    Options::new(module).frontend(Frontend::Macro {
        path: path.to_string(),
    })
}

#[test]
fn readers_of_rejected_nodes_get_no_follow_on_error() {
    // Each way of rejecting node 0 before ordering; node 1 reads its output "p".
    let relu = || node("Relu", "relu1", &["x"], &["p"], vec![]);
    let mut foreign = node("ArgMax", "custom", &["x"], &["p"], vec![]);
    foreign.domain = "com.example".into();
    let mut unimported = node("Hardmax", "onehot", &["x"], &["p"], vec![]);
    unimported.domain = "onnx_aot".into();
    let cases: Vec<(onnx_aot_codegen::onnx::NodeProto, &str)> = vec![
        (relu(), "does not support"),
        (foreign, "which onnx-aot does not know"),
        (unimported, "does not import"),
    ];
    for (first, expected) in cases {
        let m = model(
            13,
            vec![
                first,
                node("ArgMax", "top1", &["p"], &["y"], vec![attr_int("axis", 1)]),
            ],
            vec![vi("x", FLOAT, &n(&[2, 3]))],
            vec![output("y")],
        );
        let errs = errors_of(&m, &Options::default());
        assert_eq!(errs.len(), 1, "{errs}");
        assert_has(&errs.to_string(), &[expected]);
    }
    // No version of the op under the imported opset (onnx_aot opset 0, reported as unknown too).
    let mut aot = node("Hardmax", "onehot", &["x"], &["p"], vec![]);
    aot.domain = "onnx_aot".into();
    let mut m = model(
        13,
        vec![aot, node("ArgMax", "top1", &["p"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![output("y")],
    );
    m.opset_import
        .push(onnx_aot_codegen::onnx::OperatorSetIdProto {
            domain: "onnx_aot".into(),
            version: 0,
        });
    let e = message(&m);
    assert_has(
        &e,
        &["has no version of this op", "import opset 1 or later"],
    );
    assert!(!e.contains("nothing produces"), "{e}");
    // The reader's own mistakes are still reported.
    let m = model(
        13,
        vec![
            relu(),
            node(
                "ArgMax",
                "top1",
                &["p"],
                &["y"],
                vec![attr_int("keepdim", 0)],
            ),
        ],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![output("y")],
    );
    let e = message(&m);
    assert_has(&e, &["Relu", "unknown attribute `keepdim`"]);
    assert!(!e.contains("nothing produces"), "{e}");
    // A value that really is produced by nothing is still reported.
    let m = model(
        13,
        vec![relu(), node("ArgMax", "top1", &["q"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![output("y")],
    );
    assert_has(&message(&m), &["reads \"q\", which nothing produces"]);
    // Axes computed by a rejected node: no follow-on error either.
    let m = model(
        18,
        vec![
            node("Shape", "shape", &["x"], &["axes"], vec![]),
            node("ReduceMax", "r", &["x", "axes"], &["y"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![output("y")],
    );
    let errs = errors_of(&m, &Options::default());
    assert_eq!(errs.len(), 1, "{errs}");
}

#[test]
fn bad_input_bindings_cause_no_follow_on_error() {
    let m = model(
        18,
        vec![node("ReduceMax", "r", &["x", "axes"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2, 3])), vi("axes", INT64, &n(&[1]))],
        vec![output("y")],
    );
    for (values, expected) in [
        (
            vec![Scalar::Int(1), Scalar::Int(0)],
            "gives 2 values for graph input \"axes\", whose shape [1] holds 1; give exactly 1 \
             value",
        ),
        (
            vec![Scalar::Float(1.5)],
            "must be an integer, but it is 1.5; write an integer, e.g. 1",
        ),
    ] {
        let errs = errors_of(&m, &Options::default().input("axes", values));
        assert_eq!(errs.len(), 1, "{errs}");
        let e = errs.iter().next().unwrap();
        assert_eq!(e.blame, Blame::Input("axes".into()));
        assert_has(&e.message, &[expected]);
    }
    let two = model(
        18,
        vec![node("ReduceMax", "r", &["x", "axes"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2, 3])), vi("axes", INT64, &n(&[2]))],
        vec![output("y")],
    );
    let errs = errors_of(
        &two,
        &Options::default().input("axes", vec![Scalar::Int(1)]),
    );
    assert_has(
        &errs.to_string(),
        &[
            "gives 1 value for",
            "give exactly 2 values, in row-major order",
        ],
    );
}

#[test]
fn a_cycle_is_reported_without_its_downstream_nodes() {
    let m = model(
        13,
        vec![
            node("Identity", "first", &["b"], &["a"], vec![]),
            node("Identity", "second", &["a"], &["b"], vec![]),
            node("ReduceMax", "rowmax", &["b"], &["y"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![output("y")],
    );
    let errs = errors_of(&m, &Options::default());
    assert_eq!(errs.len(), 1, "{errs}");
    assert_eq!(
        errs.iter().next().unwrap().message,
        "the graph has a cycle: node 0 \"first\" (Identity-13, opset 13) reads \"b\" from node 1 \
         \"second\" (Identity-13, opset 13), which reads \"a\" from node 0 \"first\"; an ONNX \
         graph must be acyclic: check these nodes' input names"
    );

    // A node reading its own output; and two separate cycles, each reported once, with a node
    // between them that is on neither.
    let m = model(
        13,
        vec![
            node("Identity", "self", &["s"], &["s"], vec![]),
            node("Identity", "c1", &["x", "d"], &["c"], vec![]),
            node("Identity", "d1", &["c"], &["d"], vec![]),
            node("Identity", "between", &["d"], &["e"], vec![]),
            node("Identity", "f1", &["e", "g"], &["f"], vec![]),
            node("Identity", "g1", &["f"], &["g"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2]))],
        vec![output("g")],
    );
    let e = message(&m);
    let cycles: Vec<&str> = e.lines().filter(|l| l.contains("cycle")).collect();
    assert_eq!(cycles.len(), 3, "{e}");
    assert_has(
        &e,
        &[
            "node 0 \"self\" (Identity-13, opset 13) reads \"s\" from itself",
            "node 1 \"c1\" (Identity-13, opset 13) reads \"d\" from node 2 \"d1\"",
            "node 4 \"f1\" (Identity-13, opset 13) reads \"g\" from node 5 \"g1\"",
        ],
    );
    assert!(!e.contains("between"), "{e}");
}

#[test]
fn fixes_are_spelled_for_the_frontend() {
    let dims = model(
        13,
        vec![node("ArgMax", "a", &["x"], &["y"], vec![])],
        vec![vi("x", FLOAT, &[D::P("batch"), D::N(3)])],
        vec![output("y")],
    );
    let axes = model(
        18,
        vec![node("ReduceMax", "r", &["x", "axes"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2, 3])), vi("axes", INT64, &n(&[1]))],
        vec![output("y")],
    );
    let cases = [
        (
            macro_options("top1", "models/top1.onnx"),
            "give it a size in the macro call's block form: \
             `mod top1 = \"models/top1.onnx\" { dims: { batch = 1 } }`",
            "`mod top1 = \"models/top1.onnx\" { inputs: { axes = [1] } }`",
        ),
        (
            Options::new("top1").frontend(Frontend::Builder),
            "give it a size in the build script: `.dim(\"batch\", 1)`",
            "in the build script: `.input(\"axes\", [1])`",
        ),
        (
            Options::new("top1").frontend(Frontend::Cli),
            "give it a size on the command line: `--dims batch=1`",
            "on the command line: `--inputs axes=1`",
        ),
        (
            Options::new("top1"),
            "give it a size with `Options::dim`: `.dim(\"batch\", 1)`",
            "with `Options::input`: `.input(\"axes\", vec![Scalar::Int(1)])`",
        ),
    ];
    for (options, dims_fix, axes_fix) in cases {
        assert_has(
            &errors_of(&dims, &options).to_string(),
            &["an unbound symbolic dimension: \"batch\"", dims_fix],
        );
        assert_has(&errors_of(&axes, &options).to_string(), &[axes_fix]);
    }
    // The binding names follow the frontend too.
    let e = errors_of(
        &dims,
        &Options::new("m").frontend(Frontend::Cli).dim("batsh", 1),
    );
    assert_has(
        &e.to_string(),
        &["`--dims` binds \"batsh\"", "did you mean \"batch\"?"],
    );
    let e = errors_of(&dims, &macro_options("m", "m.onnx").dim("batsh", 1));
    assert_has(&e.to_string(), &["`dims` binds \"batsh\""]);
}

#[test]
fn declared_shape_mismatch_mentions_bound_dims_only_when_bound() {
    let fixed = model(
        13,
        vec![node(
            "ArgMax",
            "a",
            &["x"],
            &["y"],
            vec![attr_int("keepdims", 0)],
        )],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![vi("y", INT64, &n(&[2]))],
    );
    let e = message(&fixed);
    assert_has(&e, &["fix the declared shape in the model"]);
    assert!(!e.contains("bound"), "{e}");
    let symbolic = model(
        13,
        vec![node(
            "ArgMax",
            "a",
            &["x"],
            &["y"],
            vec![attr_int("keepdims", 0)],
        )],
        vec![vi("x", FLOAT, &[D::P("batch"), D::N(3)])],
        vec![vi("y", INT64, &[D::P("batch"), D::N(1)])],
    );
    let e = errors_of(&symbolic, &macro_options("m", "m.onnx").dim("batch", 4)).to_string();
    assert_has(
        &e,
        &["fix the declared shape in the model (or the size bound with `dims`: batch = 4)"],
    );
}

#[test]
fn misspelled_names_get_a_suggestion() {
    use onnx_aot_codegen::messages::closest;
    assert_eq!(closest("axis", ["x", "axes"]), Some("axes"));
    assert_eq!(closest("batchsize", ["batch", "classes"]), Some("batch"));
    assert_eq!(closest("Batch", ["batch"]), Some("batch"));
    assert_eq!(closest("dim", ["dims", "inputs", "free"]), Some("dims"));
    assert_eq!(closest("logits", ["x", "axes"]), None);
    assert_eq!(closest("x", ["y"]), Some("y"), "one edit is always close");
    assert_eq!(closest("ab", ["xy"]), None);

    let m = model(
        18,
        vec![node("ReduceMax", "r", &["x", "axes"], &["y"], vec![])],
        vec![vi("x", FLOAT, &n(&[2, 3])), vi("axes", INT64, &n(&[1]))],
        vec![output("y")],
    );
    let errs = errors_of(&m, &Options::default().input("axis", vec![Scalar::Int(1)]));
    assert_has(&errs.to_string(), &["did you mean \"axes\"?"]);
    let errs = errors_of(
        &m,
        &Options::default().input("weights", vec![Scalar::Int(1)]),
    );
    assert!(!errs.to_string().contains("did you mean"), "{errs}");

    let e = message(&single(
        13,
        "ArgMax",
        FLOAT,
        &[2],
        vec![attr_int("keepdim", 0)],
    ));
    assert_has(
        &e,
        &["unknown attribute `keepdim` (did you mean `keepdims`?)"],
    );

    // `free` suggests only the inputs it can free, and is blamed on the name in `free`.
    let mut m = model(
        11,
        vec![node("ReduceMax", "r", &["w"], &["y"], vec![])],
        vec![vi("w", INT64, &n(&[3]))],
        vec![output("y")],
    );
    m.graph
        .as_mut()
        .unwrap()
        .initializer
        .push(i64_tensor("w", &[4, -2, 9]));
    let errs = errors_of(&m, &macro_options("m", "m.onnx").free("ww"));
    let e = errs.iter().next().unwrap();
    assert_eq!(e.blame, Blame::Free("ww".into()));
    assert_has(&e.message, &["`free` names \"ww\"", "did you mean \"w\"?"]);
}

#[test]
fn domain_messages_say_how_to_fix_them() {
    let mut m = single(13, "Hardmax", FLOAT, &[2, 3], vec![]);
    m.graph.as_mut().unwrap().node[0].domain = "onnx_aot".into();
    assert_has(
        &message(&m),
        &[
            "node 0 \"the_node\" (onnx_aot::Hardmax) uses domain \"onnx_aot\", which the model \
             does not import",
            "add an opset_import entry for domain \"onnx_aot\" version 1",
            "helper.make_opsetid(\"onnx_aot\", 1)",
        ],
    );

    let mut m = single(13, "ArgMax", FLOAT, &[2, 3], vec![]);
    m.graph.as_mut().unwrap().node[0].domain = "com.example".into();
    m.opset_import
        .push(onnx_aot_codegen::onnx::OperatorSetIdProto {
            domain: "com.example".into(),
            version: 1,
        });
    let e = message(&m);
    assert_has(
        &e,
        &[
            "node 0 \"the_node\" (com.example::ArgMax) is in domain \"com.example\", which \
             onnx-aot does not know;",
            "the default domain (\"\" or \"ai.onnx\") and of \"onnx_aot\"",
            "ArgMax is in the default domain (\"\"): if that is the op meant, set the node's \
             domain to it",
        ],
    );
    assert!(!e.contains("does not import"), "{e}");
}

#[test]
fn attribute_and_axis_errors_say_how_to_fix_them() {
    let mut bad = attr_int("axis", 0);
    bad.r#type = onnx_aot_codegen::onnx::attribute_type::FLOAT;
    bad.f = 1.0;
    let e = message(&single(13, "ArgMax", FLOAT, &[2, 3], vec![bad]));
    assert_has(
        &e,
        &[
            "`axis` has type FLOAT, but it must be INT; write it as an integer, e.g. axis=1, not \
           axis=1.0",
        ],
    );
    let mut bad = attr_ints("axes", &[]);
    bad.r#type = onnx_aot_codegen::onnx::attribute_type::INT;
    bad.i = 1;
    let e = message(&single(13, "ReduceMax", FLOAT, &[2, 3], vec![bad]));
    assert_has(
        &e,
        &["must be INTS; write it as a list of integers, e.g. axes=[1], not axes=1"],
    );
    let e = message(&single(
        13,
        "ArgMax",
        FLOAT,
        &[2, 0],
        vec![attr_int("axis", 1)],
    ));
    assert_has(
        &e,
        &["give axis 1 a non-zero size in the model, or reduce over another axis"],
    );
}

#[test]
fn a_long_cycle_is_shortened() {
    let count = 50;
    let nodes = (0..count)
        .map(|i| {
            let from = format!("v{}", (i + 1) % count);
            let to = format!("v{i}");
            node("Identity", &format!("n{i}"), &[&from], &[&to], vec![])
        })
        .collect();
    let m = model(
        13,
        nodes,
        vec![vi("x", FLOAT, &n(&[2]))],
        vec![output("v0")],
    );
    let e = message(&m);
    assert_has(
        &e,
        &[
            "node 0 \"n0\" (Identity-13, opset 13) reads \"v1\" from node 1 \"n1\"",
            "reads \"v6\" from node 6 \"n6\" (Identity-13, opset 13), and so on around 50 nodes, \
             to node 49 \"n49\" (Identity-13, opset 13), which reads \"v0\" from node 0 \"n0\";",
        ],
    );
    assert!(!e.contains("\"n7\""), "{e}");
}

#[test]
fn op_types_and_domains_are_escaped_in_messages() {
    let mut m = single(13, "evil\n\u{1b}[2J", FLOAT, &[2], vec![]);
    let e = message(&m);
    assert_has(&e, &["node 0 \"the_node\": \"evil\\n\\u{1b}[2J\""]);
    assert!(!e.contains('\u{1b}'), "{e:?}");
    m.graph.as_mut().unwrap().node[0].domain = "x\ny".into();
    let e = message(&m);
    assert_has(&e, &["(\"x\\ny\"::\"evil\\n\\u{1b}[2J\")"]);
    assert!(!e.contains('\u{1b}') && !e.contains("x\ny"), "{e:?}");
}

#[test]
fn bindings_given_twice_are_errors_not_last_one_wins() {
    let m = model(
        13,
        vec![node("ArgMax", "a", &["x"], &["y"], vec![])],
        vec![vi("x", FLOAT, &[D::P("batch"), D::N(3)])],
        vec![output("y")],
    );
    let e = errors_of(&m, &Options::default().dim("batch", 2).dim("batch", 3)).to_string();
    assert_has(
        &e,
        &[
            "binds \"batch\" twice (2 and 3)",
            "bind each dimension once",
        ],
    );
    let o = Options::default()
        .dim("batch", 2)
        .free("w")
        .free("w")
        .input("w", vec![1.into()]);
    let e = errors_of(&m, &o).to_string();
    assert_has(&e, &["names \"w\" twice", "both freed"]);
}

#[test]
fn errors_are_capped_with_a_count_of_the_rest() {
    // 200 nodes with a bad axis each: the first 50 errors, then one that counts the others.
    let nodes: Vec<_> = (0..200)
        .map(|k| {
            node(
                "ArgMax",
                &format!("n{k}"),
                &["x"],
                &[&format!("y{k}")],
                vec![attr_int("axis", 9)],
            )
        })
        .collect();
    let outputs = (0..200).map(|k| output(&format!("y{k}"))).collect();
    let m = model(13, nodes, vec![vi("x", FLOAT, &n(&[2, 3]))], outputs);
    let e = errors_of(&m, &Options::default());
    assert_eq!(e.len(), onnx_aot_codegen::error::MAX_ERRORS + 1);
    let last = e.iter().last().unwrap().message.clone();
    assert!(last.contains("and 150 more errors not shown"), "{last}");
}

/// MaxPool takes its `Indices` output from version 8: before that, or with a third output, or
/// over an empty map, the node is refused with what to change.
#[test]
fn maxpool_outputs_beyond_the_version_or_an_empty_map() {
    let pool = |opset: i64, outs: &[&str], shape: &[i64]| {
        let kernel: Vec<i64> = shape[2..].to_vec();
        model(
            opset,
            vec![node(
                "MaxPool",
                "pool",
                &["x"],
                outs,
                vec![attr_ints("kernel_shape", &kernel)],
            )],
            vec![vi("x", FLOAT, &n(shape))],
            outs.iter()
                .filter(|o| !o.is_empty())
                .map(|o| output(o))
                .collect(),
        )
    };
    // Version 8 and on: both outputs compile.
    let g = analyze(
        &bytes(&pool(8, &["y", "i"], &[1, 2, 3, 3])),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(g.nodes.len(), 1, "one fused node computes both");
    assert_eq!(g.nodes[0].fused.len(), 1);
    // Version 1 has one output.
    let e = message(&pool(7, &["y", "i"], &[1, 2, 3, 3]));
    assert_has(&e, &["\"pool\"", "has 2 outputs", "optional outputs"]);
    let e = message(&pool(12, &["y", "i", "z"], &[1, 2, 3, 3]));
    assert_has(&e, &["has 3 outputs"]);
    // Only Indices read (Y unread) is fine; an empty map has no index of a maximum.
    let e = message(&pool(12, &["y", "i"], &[1, 2, 0, 3]));
    assert_has(&e, &["empty map", "Indices", "remove the Indices output"]);
}

/// Tensors computed while generating code are bounded: a ConstantOfShape or a broadcast of
/// shape arithmetic that would build gigabytes from a few bytes of model is refused at once with
/// its shape and size, never allocated (the fuzzer found a 113-byte model folding to 241 MB).
#[test]
fn constants_computed_at_build_time_are_bounded() {
    let fill = |dims: &[i64]| {
        let mut m = model(
            13,
            vec![node("ConstantOfShape", "fill", &["s"], &["y"], vec![])],
            vec![],
            vec![output("y")],
        );
        m.graph
            .as_mut()
            .unwrap()
            .initializer
            .push(i64_tensor("s", dims));
        m
    };
    for dims in [
        &[97, 97, 97, 66][..],
        &[1 << 40],
        &[1 << 31, 1 << 31, 1 << 31],
    ] {
        let e = message(&fill(dims));
        assert_has(
            &e,
            &[
                "\"fill\"",
                "ConstantOfShape's output",
                "computed while",
                "16 MiB",
            ],
        );
    }
    // Within the bound it folds as before.
    assert!(analyze(&bytes(&fill(&[4, 4])), &Options::default()).is_ok());
    let mut m = model(
        13,
        vec![node("Mul", "outer", &["a", "b"], &["y"], vec![])],
        vec![],
        vec![output("y")],
    );
    let g = m.graph.as_mut().unwrap();
    let mut a = i64_tensor("a", &vec![1; 4096]);
    a.dims = vec![4096, 1];
    let mut b = i64_tensor("b", &vec![1; 4096]);
    b.dims = vec![1, 4096];
    g.initializer.extend([a, b]);
    let e = message(&m);
    assert_has(&e, &["\"outer\"", "[4096, 4096]", "134217728 bytes"]);
}
