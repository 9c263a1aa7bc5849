//! The `onnx-aot` command line: output, exit status and error messages.
#![cfg(feature = "cli")]

use std::process::Command;

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_onnx-aot"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn emit_prints_a_formatted_module() {
    let (code, out, err) = cli(&["emit", "tests/data/top1.onnx"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pub mod top1 {"), "{out}");
    assert!(
        out.contains("fn node_0_argmax(x: &[f32], y: &mut [i64])"),
        "{out}"
    );
    syn::parse_file(&out).expect("the output parses as Rust");
}

#[test]
fn inspect_prints_nodes_and_memory() {
    let (code, out, err) = cli(&[
        "inspect",
        "tests/data/head.onnx",
        "--dims",
        "batch=2",
        "--inputs",
        "axes=1",
    ]);
    assert_eq!(code, 0, "{err}");
    for part in [
        "features FLOAT [2, 4, 8]",
        "ReduceMax-18",
        "Hardmax-13",
        "ArgMax-13",
        "inputs 256 B, outputs 80 B, scratch 64 B",
    ] {
        assert!(out.contains(part), "lacks {part:?}:\n{out}");
    }
}

#[test]
fn errors_go_to_stderr_with_failure_status() {
    let (code, out, err) = cli(&["inspect", "tests/data/head.onnx"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("error: the model has an unbound symbolic dimension: \"batch\""),
        "{err}"
    );
    assert!(
        err.contains("takes its axes from graph input \"axes\""),
        "{err}"
    );
    // The fixes are spelled as command-line options.
    assert!(err.contains("`--dims batch=1`"), "{err}");
    assert!(err.contains("`--inputs axes=1`"), "{err}");

    let (code, _, err) = cli(&["emit", "no/such.onnx"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read model file no/such.onnx"), "{err}");

    // Only regular files: a device is refused at once (never read until memory runs out).
    #[cfg(unix)]
    {
        let (code, _, err) = cli(&["emit", "/dev/zero"]);
        assert_eq!(code, 1);
        assert!(err.contains("not a regular file"), "{err}");
    }

    // Malformed option values are usage errors, like clap's own: exit status 2.
    let (code, _, err) = cli(&["emit", "tests/data/top1.onnx", "--dims", "batch"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected NAME=SIZE"), "{err}");

    let (code, _, _) = cli(&["frobnicate"]);
    assert_eq!(code, 2, "usage errors exit with 2");
}

#[test]
fn inspect_lists_where_a_cut_can_start_and_start_cuts_there() {
    // The whole model does not compile (Gemm, an ai.onnx.ml op): the error, then the cut points.
    let model = "tests/data/classifier_tail.onnx";
    let (code, out, err) = cli(&["inspect", model]);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("start a graph cut below those nodes with `--start`"),
        "{err}"
    );
    assert!(err.contains("cut points"), "{err}");
    assert!(
        err.contains("logits") && err.contains("from Relu \"relu\""),
        "{err}"
    );
    // Cut there (the file has no type for `logits`: written after the name).
    let (code, out, err) = cli(&["emit", model, "--start", "logits:f32[2, 4]"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pub logits: [[f32; 4]; 2]"), "{out}");
    let (code, out, err) = cli(&[
        "emit",
        model,
        "--start",
        "logits:f32[2,4]",
        "--output",
        "label",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("pub score"), "{out}");
    // Without the type: the fix in command-line syntax.
    let (code, _, err) = cli(&["emit", model, "--start", "logits"]);
    assert_eq!(code, 1);
    assert!(err.contains("`--start 'logits:f32[..dims..]'`"), "{err}");
    let (code, _, err) = cli(&["emit", model, "--start", "logits:f33[2,4]"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `f32`"), "{err}");
    let head = "tests/data/head.onnx";
    let (code, _, err) = cli(&["emit", head, "--dims", "batch=2", "--inputs", "axes=1e400"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("beyond the range of f64; write `inf`"),
        "{err}"
    );
}

#[test]
fn emit_takes_the_runtime_path_and_the_visibility() {
    let (code, out, err) = cli(&[
        "emit",
        "tests/data/top1.onnx",
        "--crate",
        "rt",
        "--visibility",
        "pub(crate)",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pub(crate) mod top1 {"), "{out}");
    assert!(out.contains("rt::__private::VERSION"), "{out}");
    assert!(!out.contains("::onnx_aot::"), "{out}");
    let (code, out, _) = cli(&["emit", "tests/data/top1.onnx", "--visibility", ""]);
    assert_eq!(code, 0);
    assert!(out.contains("\nmod top1 {"), "{out}");
    assert!(out.contains("#![allow(dead_code)]"), "{out}");
    for (flag, value, says) in [
        ("--crate", "r t", "not a Rust path"),
        ("--visibility", "public", "not a Rust visibility"),
    ] {
        let (code, _, err) = cli(&["emit", "tests/data/top1.onnx", flag, value]);
        assert_eq!(code, 2, "{flag} {value}: {err}");
        assert!(err.contains(says), "{err}");
    }
}
