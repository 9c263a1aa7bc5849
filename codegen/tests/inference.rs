//! Version resolution, attribute defaults and shape inference.

mod common;
use common::*;
use std::sync::Arc;

use onnx_aot_codegen::ir::{Compute, Direction};
use onnx_aot_codegen::onnx::data_type::*;
use onnx_aot_codegen::ops::arg::ArgOp;
use onnx_aot_codegen::ops::hardmax::{Form, HardmaxOp};
use onnx_aot_codegen::ops::reduce::ReduceOp;
use onnx_aot_codegen::{analyze, Options};

fn only_node(m: &onnx_aot_codegen::onnx::ModelProto) -> (i64, Arc<dyn Compute>, Vec<usize>) {
    let g = analyze(&bytes(m), &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let node = &g.nodes[0];
    (
        node.version,
        node.op.clone(),
        g.values[node.output].shape.clone(),
    )
}

/// The axes and form of a resolved Hardmax.
fn hardmax(op: &Arc<dyn Compute>) -> (Vec<usize>, Form) {
    let h = op.downcast_ref::<HardmaxOp>().expect("a Hardmax");
    (h.axes.clone(), h.form)
}

#[test]
fn versions_resolve_to_the_highest_not_above_the_opset() {
    for (opset, want) in [(1, 1), (10, 1), (11, 11), (12, 12), (17, 13), (28, 13)] {
        assert_eq!(
            only_node(&single(opset, "ArgMax", FLOAT, &[2], vec![])).0,
            want,
            "ArgMax at opset {opset}"
        );
    }
    for (opset, want) in [
        (1, 1),
        (12, 12),
        (17, 13),
        (18, 18),
        (19, 18),
        (20, 20),
        (28, 20),
    ] {
        assert_eq!(
            only_node(&single(opset, "ReduceMin", FLOAT, &[2], vec![])).0,
            want,
            "ReduceMin at opset {opset}"
        );
    }
    for (opset, want) in [(1, 1), (11, 11), (12, 11), (13, 13), (28, 13)] {
        assert_eq!(
            only_node(&single(opset, "Hardmax", FLOAT, &[2, 2], vec![])).0,
            want,
            "Hardmax at opset {opset}"
        );
    }
}

#[test]
fn ai_onnx_is_the_default_domain() {
    let mut m = single(13, "ArgMax", FLOAT, &[2], vec![]);
    m.opset_import[0].domain = "ai.onnx".into();
    m.graph.as_mut().unwrap().node[0].domain = "ai.onnx".into();
    assert_eq!(only_node(&m).0, 13);
}

#[test]
fn arg_defaults_and_keepdims() {
    let (_, op, shape) = only_node(&single(13, "ArgMax", FLOAT, &[2, 1, 3], vec![]));
    assert_eq!(
        op.downcast_ref::<ArgOp>(),
        Some(&ArgOp {
            direction: Direction::Max,
            axis: 0,
            keepdims: true,
            select_last_index: false,
            version: 13,
            rounded: None,
            index: onnx_aot_codegen::dtype::DType::I64,
        })
    );
    assert_eq!(shape, [1, 1, 3]);
    // keepdims=0 removes exactly the reduced axis, not other size-1 dims.
    let (_, _, shape) = only_node(&single(
        13,
        "ArgMin",
        FLOAT,
        &[2, 1, 3],
        vec![attr_int("axis", -1), attr_int("keepdims", 0)],
    ));
    assert_eq!(shape, [2, 1]);
}

#[test]
fn reduce_axes_before_and_after_18() {
    // No axes before 18: all dims.
    let (_, op, shape) = only_node(&single(
        13,
        "ReduceMax",
        FLOAT,
        &[2, 3, 4],
        vec![attr_int("keepdims", 0)],
    ));
    assert_eq!(shape, Vec::<usize>::new());
    assert!(
        matches!(op.downcast_ref::<ReduceOp>(), Some(ReduceOp { axes, noop: false, .. }) if axes == &[0, 1, 2])
    );
    let (_, _, shape) = only_node(&single(
        11,
        "ReduceMax",
        FLOAT,
        &[2, 1, 4],
        vec![attr_ints("axes", &[-1]), attr_int("keepdims", 0)],
    ));
    assert_eq!(shape, [2, 1]);

    // 18: axes from an initializer; absent axes reduce all; noop keeps the input.
    let mut m = model(
        18,
        vec![node(
            "ReduceMin",
            "r",
            &["x", "ax"],
            &["y"],
            vec![attr_int("keepdims", 0)],
        )],
        vec![vi("x", FLOAT, &n(&[2, 3, 4]))],
        vec![output("y")],
    );
    m.graph
        .as_mut()
        .unwrap()
        .initializer
        .push(i64_tensor("ax", &[0, 2]));
    assert_eq!(only_node(&m).2, [3]);
    let m = single(18, "ReduceMax", FLOAT, &[2, 3], vec![]);
    assert_eq!(only_node(&m).2, [1, 1]);
    let m = single(
        18,
        "ReduceMax",
        FLOAT,
        &[2, 3],
        vec![attr_int("noop_with_empty_axes", 1), attr_int("keepdims", 0)],
    );
    let (_, op, shape) = only_node(&m);
    assert_eq!(shape, [2, 3]);
    assert!(matches!(
        op.downcast_ref::<ReduceOp>(),
        Some(ReduceOp { noop: true, .. })
    ));
    // Empty axes tensor + noop: identity too.
    let mut m = model(
        18,
        vec![node(
            "ReduceMax",
            "r",
            &["x", "ax"],
            &["y"],
            vec![attr_int("noop_with_empty_axes", 1)],
        )],
        vec![vi("x", FLOAT, &n(&[2, 3]))],
        vec![output("y")],
    );
    m.graph
        .as_mut()
        .unwrap()
        .initializer
        .push(i64_tensor("ax", &[]));
    assert!(matches!(
        only_node(&m).1.downcast_ref::<ReduceOp>(),
        Some(ReduceOp { noop: true, .. })
    ));
    // Rank 0 input: unchanged.
    assert_eq!(
        only_node(&single(13, "ReduceMax", FLOAT, &[], vec![])).2,
        Vec::<usize>::new()
    );
}

#[test]
fn hardmax_axes_per_version() {
    let (_, op, _) = only_node(&single(11, "Hardmax", FLOAT, &[2, 3, 4, 5], vec![]));
    assert_eq!(
        hardmax(&op),
        (vec![1, 2, 3], Form::Coerced2d),
        "1 and 11 coerce to 2-D at axis 1"
    );
    let (_, op, _) = only_node(&single(13, "Hardmax", FLOAT, &[2, 3, 4, 5], vec![]));
    assert_eq!(
        hardmax(&op),
        (vec![3], Form::OneAxis),
        "13 defaults to the last axis"
    );
    let (_, op, _) = only_node(&single(
        13,
        "Hardmax",
        FLOAT,
        &[2, 3, 4, 5],
        vec![attr_int("axis", 1)],
    ));
    assert_eq!(hardmax(&op), (vec![1], Form::OneAxis));

    let mut m = single(
        13,
        "Hardmax",
        FLOAT,
        &[2, 2, 2],
        vec![attr_ints("axes", &[0, -1])],
    );
    m.graph.as_mut().unwrap().node[0].domain = "onnx_aot".into();
    m.opset_import
        .push(onnx_aot_codegen::onnx::OperatorSetIdProto {
            domain: "onnx_aot".into(),
            version: 1,
        });
    assert_eq!(hardmax(&only_node(&m).1), (vec![0, 2], Form::Axes));
}

#[test]
fn nodes_run_in_dependency_order() {
    let m = model(
        13,
        vec![
            // ArgMax along another axis than the Hardmax's: no shortcut past the Hardmax.
            node("ArgMax", "last", &["h"], &["y"], vec![attr_int("axis", 0)]),
            node("Hardmax", "middle", &["r"], &["h"], vec![]),
            node(
                "ReduceMax",
                "first",
                &["x"],
                &["r"],
                vec![attr_ints("axes", &[1])],
            ),
        ],
        vec![vi("x", FLOAT, &n(&[2, 3, 4]))],
        vec![output("y"), output("r")],
    );
    let g = analyze(&bytes(&m), &Options::default()).unwrap();
    let names: Vec<_> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["first", "middle", "last"]);
}

#[test]
fn generated_code_is_deterministic_and_parses() {
    let m = single(13, "ArgMax", FLOAT, &[2, 3], vec![attr_int("axis", 1)]);
    let a = onnx_aot_codegen::generate_pretty(&bytes(&m), &Options::new("m")).unwrap();
    let b = onnx_aot_codegen::generate_pretty(&bytes(&m), &Options::new("m")).unwrap();
    assert_eq!(a, b);
    assert!(a.contains("fn node_0_argmax"));
    assert!(a.contains("ArgMax-13"));
}

#[test]
fn initializers_listed_as_inputs_are_constants_unless_freed() {
    let mut m = model(
        11,
        vec![node(
            "ReduceMax",
            "r",
            &["w"],
            &["y"],
            vec![attr_int("keepdims", 0)],
        )],
        vec![vi("w", INT64, &n(&[3]))],
        vec![output("y")],
    );
    m.ir_version = 3;
    m.graph
        .as_mut()
        .unwrap()
        .initializer
        .push(i64_tensor("w", &[4, -2, 9]));
    let g = analyze(&bytes(&m), &Options::default()).unwrap();
    assert!(
        g.inputs.is_empty(),
        "an initializer listed as input is a constant by default"
    );
    let g = analyze(&bytes(&m), &Options::default().free("w")).unwrap();
    assert_eq!(g.inputs.len(), 1);
    assert_eq!(g.values[g.inputs[0]].name, "w");
    let e = analyze(&bytes(&m), &Options::default().free("v"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`Options::free` names \"v\""), "{e}");
    assert!(e.contains("did you mean \"w\"?"), "{e}");
}

#[test]
fn model_docs_and_metadata_reach_the_module_docs() {
    let mut m = single(13, "ArgMax", FLOAT, &[2, 3], vec![attr_int("axis", 1)]);
    m.doc_string = "Picks the top class.".into();
    m.producer_name = "pytorch".into();
    m.metadata_props
        .push(onnx_aot_codegen::onnx::StringStringEntryProto {
            key: "author".into(),
            value: "me".into(),
        });
    let code = onnx_aot_codegen::generate_pretty(&bytes(&m), &Options::new("m")).unwrap();
    for part in [
        "Picks the top class.",
        "produced by `pytorch`",
        "`author`: `me`",
        "| 0 `the_node` | ArgMax-13 |",
    ] {
        assert!(code.contains(part), "docs lack {part:?}:\n{code}");
    }
}

#[test]
fn the_cache_analyzes_a_file_once_until_it_changes() {
    let dir = std::env::temp_dir().join(format!("onnx-aot-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.onnx");
    let m = single(13, "ArgMax", FLOAT, &[2, 3], vec![]);
    std::fs::write(&path, bytes(&m)).unwrap();
    let cache = onnx_aot_codegen::cache::Cache::default();
    let read = || std::fs::read(&path).unwrap();
    cache.analyze(&path, &read(), &Options::default()).unwrap();
    cache.analyze(&path, &read(), &Options::default()).unwrap();
    assert_eq!(
        cache.misses(),
        1,
        "the second expansion is served from the cache"
    );
    cache
        .analyze(&path, &read(), &Options::default().source_name("other"))
        .unwrap();
    assert_eq!(cache.misses(), 2, "other options are another entry");
    // A changed file (another length) is analyzed again.
    let m = single(13, "ArgMax", FLOAT, &[2, 3, 4], vec![]);
    std::fs::write(&path, bytes(&m)).unwrap();
    let g = cache.analyze(&path, &read(), &Options::default()).unwrap();
    assert_eq!(g.values[g.nodes[0].output].shape, [1, 3, 4]);
    assert_eq!(cache.misses(), 3);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn argmax_over_a_hardmax_along_its_axis_reads_the_hardmax_input() {
    // ReduceMax -> Hardmax -> ArgMax along the Hardmax's axis (W8): the ArgMax reads the
    // ReduceMax's output and the Hardmax, read by nothing else, is dropped.
    let chain = |outputs: Vec<onnx_aot_codegen::onnx::ValueInfoProto>| {
        model(
            13,
            vec![
                node(
                    "ReduceMax",
                    "pool",
                    &["x"],
                    &["r"],
                    vec![attr_ints("axes", &[0])],
                ),
                node("Hardmax", "hot", &["r"], &["h"], vec![attr_int("axis", 2)]),
                node(
                    "ArgMax",
                    "pick",
                    &["h"],
                    &["y"],
                    vec![attr_int("axis", -1), attr_int("select_last_index", 1)],
                ),
            ],
            vec![vi("x", FLOAT, &n(&[2, 3, 4]))],
            outputs,
        )
    };
    let g = analyze(&bytes(&chain(vec![output("y")])), &Options::default()).unwrap();
    let names: Vec<_> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["pool", "pick"]);
    assert_eq!(g.values[g.nodes[1].input].name, "r");
    // The Hardmax stays when its output is a graph output too.
    let g = analyze(
        &bytes(&chain(vec![output("y"), output("h")])),
        &Options::default(),
    )
    .unwrap();
    let names: Vec<_> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["pool", "hot", "pick"]);
    assert_eq!(g.values[g.nodes[2].input].name, "r");
}

#[test]
fn reducemax_and_argmax_of_one_tensor_over_one_axis_run_as_one_node() {
    let siblings = |reduce_axes: &[i64], arg: &str, arg_axis: i64| {
        model(
            13,
            vec![
                node(
                    "ReduceMax",
                    "max",
                    &["x"],
                    &["v"],
                    vec![attr_ints("axes", reduce_axes)],
                ),
                node(arg, "arg", &["x"], &["i"], vec![attr_int("axis", arg_axis)]),
            ],
            vec![vi("x", FLOAT, &n(&[2, 3, 1]))],
            vec![output("v"), output("i")],
        )
    };
    // torch.max(x, dim): the ArgMax computes the ReduceMax's output in its own pass, at the
    // ReduceMax's position; axes that differ only by length-1 dims still match.
    for axes in [&[1][..], &[-2], &[1, 2]] {
        let g = analyze(&bytes(&siblings(axes, "ArgMax", 1)), &Options::default()).unwrap();
        assert_eq!(g.nodes.len(), 1, "axes {axes:?}");
        assert_eq!(g.nodes[0].name, "arg");
        assert_eq!(g.nodes[0].fused.len(), 1);
        assert_eq!(g.values[g.nodes[0].fused[0].output].name, "v");
    }
    // Another axis, or ArgMin beside ReduceMax: two passes.
    for (axes, arg, axis) in [(&[0][..], "ArgMax", 1), (&[1], "ArgMin", 1)] {
        let g = analyze(&bytes(&siblings(axes, arg, axis)), &Options::default()).unwrap();
        assert_eq!(g.nodes.len(), 2, "{axes:?} {arg}");
        assert!(g.nodes.iter().all(|n| n.fused.is_empty()));
    }
}
