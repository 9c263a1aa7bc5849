//! Graph cuts: `start` tensors become run-time inputs, `outputs` are kept, and everything else
//! is dropped before it is checked, whatever op or domain it is.

mod common;

use common::*;
use onnx_aot_codegen::ir::Source;
use onnx_aot_codegen::onnx::data_type::*;
use onnx_aot_codegen::onnx::ModelProto;
use onnx_aot_codegen::options::Frontend;
use onnx_aot_codegen::{analyze, DType, DimSpec, Errors, Options, Start};

/// A full classifier as an exporter writes it: a backbone of ops this project does not compile
/// (Gemm, Relu, an `ai.onnx.ml` op, a TopK with two outputs), then the max-family tail:
/// `logits` -> ReduceMax `best` and ArgMax `label`.
fn classifier(logits_declared: bool) -> ModelProto {
    let mut ml = node("Normalizer", "ml_op", &["h"], &["h2"], vec![]);
    ml.domain = "ai.onnx.ml".into();
    let mut m = model(
        13,
        vec![
            node("Gemm", "fc1", &["x", "w1"], &["h"], vec![]),
            ml,
            node("Relu", "relu", &["h2"], &["logits"], vec![]),
            node(
                "TopK",
                "topk",
                &["logits", "k"],
                &["top_v", "top_i"],
                vec![],
            ),
            node(
                "ReduceMax",
                "best",
                &["logits"],
                &["score"],
                vec![attr_ints("axes", &[1]), attr_int("keepdims", 0)],
            ),
            node(
                "ArgMax",
                "label",
                &["logits"],
                &["class"],
                vec![attr_int("axis", 1)],
            ),
        ],
        vec![vi("x", FLOAT, &[D::P("batch"), D::N(16)])],
        vec![output("score"), output("class")],
    );
    let g = m.graph.as_mut().unwrap();
    g.initializer.push(i64_tensor("k", &[3]));
    if logits_declared {
        g.value_info
            .push(vi("logits", FLOAT, &[D::P("batch"), D::N(10)]));
    }
    m
}

fn names(errors: &Errors) -> String {
    errors.to_string()
}

#[test]
fn a_tail_compiles_from_its_start_tensor_and_the_backbone_is_never_checked() {
    let opts = Options::new("m").dim("batch", 2).start("logits");
    let g = analyze(&bytes(&classifier(true)), &opts).unwrap();
    let inputs: Vec<&str> = g
        .inputs
        .iter()
        .map(|&v| g.values[v].name.as_str())
        .collect();
    assert_eq!(inputs, ["logits"]);
    assert_eq!(g.values[g.inputs[0]].shape, [2, 10]);
    assert!(matches!(g.values[g.inputs[0]].source, Source::Input(0)));
    // ReduceMax and ArgMax of one tensor over one axis: one fused node.
    assert_eq!(g.nodes.len(), 1);
    let outputs: Vec<&str> = g.outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(outputs, ["score", "class"]);
    // Without the cut, the backbone is refused.
    let e = analyze(
        &bytes(&classifier(true)),
        &Options::new("m").dim("batch", 2),
    )
    .unwrap_err();
    assert!(names(&e).contains("Gemm"), "{e}");
}

#[test]
fn a_start_tensor_without_a_type_in_the_file_needs_one_written() {
    let e = analyze(
        &bytes(&classifier(false)),
        &Options::new("m").dim("batch", 2).start("logits"),
    )
    .unwrap_err();
    let text = names(&e);
    assert!(
        text.contains("start tensor \"logits\" has no type or shape in the file"),
        "{text}"
    );
    assert!(text.contains("Options::start_as(\"logits\""), "{text}");
    // Each front end is told its own syntax.
    let e = analyze(
        &bytes(&classifier(false)),
        &Options::new("m").start("logits").frontend(Frontend::Macro {
            path: "m.onnx".into(),
        }),
    )
    .unwrap_err();
    assert!(
        names(&e).contains("`start: [\"logits\": f32[..dims..]]`"),
        "{e}"
    );
    let e = analyze(
        &bytes(&classifier(false)),
        &Options::new("m").start("logits").frontend(Frontend::Cli),
    )
    .unwrap_err();
    assert!(
        names(&e).contains("`--start 'logits:f32[..dims..]'`"),
        "{e}"
    );
    // Written with symbols bound in dims, it compiles.
    let opts = Options::new("m").dim("n", 3).start_as(
        "logits",
        DType::F32,
        vec![DimSpec::Symbol("n".into()), DimSpec::Fixed(10)],
    );
    let g = analyze(&bytes(&classifier(false)), &opts).unwrap();
    assert_eq!(g.values[g.inputs[0]].shape, [3, 10]);
}

#[test]
fn a_written_type_is_checked_against_the_file() {
    for (dtype, dims, says) in [
        (
            DType::F64,
            vec![DimSpec::Fixed(2), DimSpec::Fixed(10)],
            "file declares FLOAT",
        ),
        (
            DType::F32,
            vec![DimSpec::Fixed(2), DimSpec::Fixed(11)],
            "dimension 1 is written as 11",
        ),
        (
            DType::F32,
            vec![DimSpec::Fixed(10)],
            "written with 1 dimensions",
        ),
    ] {
        let opts = Options::new("m")
            .dim("batch", 2)
            .start_as("logits", dtype, dims);
        let e = analyze(&bytes(&classifier(true)), &opts).unwrap_err();
        assert!(names(&e).contains(says), "{says}: {e}");
    }
    // A size for a symbolic dim of the file is fine.
    let opts = Options::new("m").start_as(
        "logits",
        DType::F32,
        vec![DimSpec::Fixed(4), DimSpec::Fixed(10)],
    );
    let g = analyze(&bytes(&classifier(true)), &opts).unwrap();
    assert_eq!(g.values[g.inputs[0]].shape, [4, 10]);
}

#[test]
fn wrong_start_tensors_are_errors_that_say_how_to_fix_them() {
    let check = |opts: Options, says: &str| {
        let e = analyze(&bytes(&classifier(true)), &opts.dim("batch", 2)).unwrap_err();
        assert!(names(&e).contains(says), "{says}: {e}");
    };
    check(Options::new("m").start("logit"), "did you mean \"logits\"");
    check(Options::new("m").start("x"), "already a graph input");
    check(
        Options::new("m").start("logits").start("logits"),
        "listed twice",
    );
    // Upstream of another start tensor: nothing kept reads it.
    check(
        Options::new("m").start("logits").start("h"),
        "start tensor \"h\" is not needed by the outputs",
    );
    // TopK's values as a start while its indices are still an output: TopK stays needed.
    check(
        Options::new("m")
            .start("top_v")
            .output("top_v")
            .output("top_i"),
        "still needed upstream for [\"top_i\"]",
    );
}

#[test]
fn outputs_keep_any_tensor_and_drop_what_nothing_kept_needs() {
    // Only the label, from the start tensor.
    let opts = Options::new("m")
        .dim("batch", 2)
        .start("logits")
        .output("class");
    let g = analyze(&bytes(&classifier(true)), &opts).unwrap();
    let outputs: Vec<&str> = g.outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(outputs, ["class"]);
    assert_eq!(g.nodes.len(), 1);
    assert!(g.nodes[0].fused.is_empty());
    // The start tensor itself can be an output too (a copy).
    let opts = Options::new("m")
        .dim("batch", 2)
        .start("logits")
        .output("logits")
        .output("score");
    let g = analyze(&bytes(&classifier(true)), &opts).unwrap();
    assert_eq!(g.outputs.len(), 2);
    // Unknown or repeated outputs.
    for (opts, says) in [
        (
            Options::new("m").start("logits").output("clas"),
            "did you mean \"class\"",
        ),
        (
            Options::new("m")
                .start("logits")
                .output("class")
                .output("class"),
            "listed twice",
        ),
    ] {
        let e = analyze(&bytes(&classifier(true)), &opts.dim("batch", 2)).unwrap_err();
        assert!(names(&e).contains(says), "{says}: {e}");
    }
    // Keeping an output of the backbone brings its ops back: they are checked then.
    let opts = Options::new("m").dim("batch", 2).output("h");
    let e = analyze(&bytes(&classifier(true)), &opts).unwrap_err();
    assert!(names(&e).contains("Gemm"), "{e}");
}

#[test]
fn start_tensors_parse_as_written_on_a_command_line() {
    let s = Start::parse("scores:f32[1, 84, 8400]").unwrap();
    assert_eq!(s.name, "scores");
    assert_eq!(
        s.declared,
        Some((
            DType::F32,
            vec![DimSpec::Fixed(1), DimSpec::Fixed(84), DimSpec::Fixed(8400)]
        ))
    );
    // tf2onnx names with colons stay whole.
    assert_eq!(Start::parse("Identity:0").unwrap().name, "Identity:0");
    let s = Start::parse("model/dense/BiasAdd:0:bf16[batch,10]").unwrap();
    assert_eq!(s.name, "model/dense/BiasAdd:0");
    assert_eq!(
        s.declared,
        Some((
            DType::BF16,
            vec![DimSpec::Symbol("batch".into()), DimSpec::Fixed(10)]
        ))
    );
    assert!(onnx_aot_codegen::parse_type("f33[1]")
        .unwrap_err()
        .contains("did you mean `f32`"));
    assert!(onnx_aot_codegen::parse_type("f32[1, -2]").is_err());
    assert_eq!(
        onnx_aot_codegen::parse_type("FLOAT[]").unwrap(),
        (DType::F32, vec![])
    );
}

#[test]
fn the_builder_cuts_with_the_same_rules() {
    let dir = std::env::temp_dir().join(format!("onnx-aot-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("classifier.onnx");
    std::fs::write(&model, bytes(&classifier(false))).unwrap();
    let out = dir.join("classifier.rs");
    let written = onnx_aot_codegen::Builder::new(&model)
        .dim("batch", 2)
        .start_typed("logits", "f32[batch, 10]")
        .output("class")
        .out_file(&out)
        .write()
        .unwrap();
    let code = std::fs::read_to_string(written).unwrap();
    assert!(code.contains("pub logits: [[f32; 10]; 2]"), "{code}");
    assert!(!code.contains("pub score"), "{code}");
    // A malformed type and a missing one are reported by `write`, in the Builder's terms.
    let e = onnx_aot_codegen::Builder::new(&model)
        .start_typed("logits", "f32[batch; 10]")
        .out_file(&out)
        .write()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Builder::start_typed(\"logits\", \"f32[batch; 10]\")"),
        "{e}"
    );
    let e = onnx_aot_codegen::Builder::new(&model)
        .dim("batch", 2)
        .start("logits")
        .out_file(&out)
        .write()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`.start_typed(\"logits\", \"f32[..dims..]\")`"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_builder_refuses_module_names_it_would_rewrite() {
    let dir = std::env::temp_dir().join(format!("onnx-aot-modname-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("m.onnx");
    std::fs::write(&model, bytes(&classifier(true))).unwrap();
    for bad in ["type", "My Model", "2fast"] {
        let e = onnx_aot_codegen::Builder::new(&model)
            .module_name(bad)
            .out_file(dir.join("x.rs"))
            .write()
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a Rust module name"), "{bad}: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_builder_checks_the_runtime_path_and_the_visibility() {
    let dir = std::env::temp_dir().join(format!("onnx-aot-rtpath-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/top1.onnx");
    let out = dir.join("ok.rs");
    onnx_aot_codegen::Builder::new(&model)
        .module_name("m")
        .runtime_crate("rt")
        .visibility("pub(crate)")
        .out_file(&out)
        .write()
        .unwrap();
    let code = std::fs::read_to_string(&out).unwrap();
    assert!(code.contains("pub(crate) mod m {") && code.contains("rt::__private::"));
    let e = onnx_aot_codegen::Builder::new(&model)
        .runtime_crate("not a path")
        .out_file(dir.join("x.rs"))
        .write()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Builder::runtime_crate(\"not a path\") is not a Rust path"),
        "{e}"
    );
    let e = onnx_aot_codegen::Builder::new(&model)
        .visibility("public")
        .out_file(dir.join("y.rs"))
        .write()
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not a Rust visibility"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
