//! The published crates ship copies of a few models so that their tests and doctests, run from
//! the unpacked package alone, read nothing outside it (`.ci/package-check`). The copies must
//! stay the files they copy: the originals are the ones made by the `make_models.py` scripts.

use std::path::Path;

#[test]
fn packaged_models_are_copies_of_their_originals() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let pairs = [
        ("runtime/models/top1.onnx", "examples/models/top1.onnx"),
        ("runtime/models/head.onnx", "examples/models/head.onnx"),
        (
            "runtime/models/classifier_tail.onnx",
            "tests/data/models/classifier_tail.onnx",
        ),
        (
            "runtime/models/legacy_names.onnx",
            "tests/data/models/legacy_names.onnx",
        ),
        ("codegen/tests/data/top1.onnx", "examples/models/top1.onnx"),
        ("codegen/tests/data/head.onnx", "examples/models/head.onnx"),
        (
            "codegen/tests/data/classifier_tail.onnx",
            "tests/data/models/classifier_tail.onnx",
        ),
    ];
    for (copy, original) in pairs {
        let read = |p: &str| std::fs::read(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert!(
            read(copy) == read(original),
            "{copy} differs from {original}: copy it again (`cp {original} {copy}`)"
        );
    }
}
