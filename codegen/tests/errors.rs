//! Every compile-time error of the contract: each yields an `Err` whose message says what,
//! where and how to fix it. None may panic.

mod common;
use common::*;
use onnx_aot_codegen::onnx::data_type::*;
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
            "dims: { batch = 1, classes = 1 }",
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
    assert_has(&message(&m), &["neither a size nor a name"]);
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
            "inputs: { axes = [1] }",
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
