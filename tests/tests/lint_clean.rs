//! Generated code is lint-clean wherever it lands (issue 17 item 8, issue 16 item 3): the crate
//! in `tests/lint-crate` embeds single- and multi-node models (constants, colliding names, doc
//! strings holding code, bool and f16, folded casts, MaxPool's indices) through the macro and as
//! Builder output included at its root, in `pub`, `pub(crate)` and private modules, under
//! `#![deny(warnings, missing_docs, unreachable_pub)]` and `#![forbid(unsafe_code)]`, with the
//! runtime's `ndarray` feature on; this test runs `cargo clippy -- -D warnings -D
//! clippy::pedantic` on it and fails with clippy's output if anything is reported.

use std::path::Path;
use std::process::Command;

#[test]
fn generated_code_passes_clippy_pedantic_under_deny_warnings() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = tests.join("lint-crate/Cargo.toml");
    let target = tests.join("../target/lint-crate");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["clippy", "--all-targets", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .args(["--", "-D", "warnings", "-D", "clippy::pedantic"])
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("run cargo clippy");
    assert!(
        out.status.success(),
        "clippy reported problems in generated code:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
