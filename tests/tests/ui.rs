//! The compile-fail suite: every mistake a user can make with `onnx_aot::model!`, each case in
//! `tests/ui/NAME.rs` with the compiler's expected output in `tests/ui/NAME.stderr`. The bad models
//! are in `tests/ui/models/`, written by `tests/ui/models/make_models.py`.
//!
//! The expected output is pinned to one compiler: rustc 1.95. With another rustc the suite is
//! skipped (with a message), since rustc's wording and layout of diagnostics drift between
//! releases. To accept new output after a deliberate change:
//! `TRYBUILD=overwrite cargo test -p onnx-aot-tests --test ui`, then review the diff of the
//! .stderr files as a user reading those messages would.
//!
//! Two things differ from a plain `trybuild` run:
//! - trybuild compiles the cases as binaries of a crate it generates in
//!   `TARGET/tests/trybuild/onnx-aot-tests/`, so `CARGO_MANIFEST_DIR` (which the macro resolves
//!   model paths against) is that directory. The test links `ui` there to this crate's `tests/ui`
//!   folder, so that `"ui/models/x.onnx"` means the same in both places.
//! - the messages for a missing file or a directory show the absolute path that was tried, which
//!   contains that directory. So that the expected output is the same on every machine whatever
//!   `CARGO_TARGET_DIR` says, trybuild always builds under the workspace's own `target/` folder,
//!   where trybuild's normalization writes it as `$WORKSPACE/target/...`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The rustc release the .stderr files were written with.
const PINNED: &str = "1.95.";

/// `rustc --version` of the compiler cargo uses (`$RUSTC`, else `rustc`).
fn rustc_version() -> Result<String, String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run `{} --version`: {e}", rustc.to_string_lossy()))?;
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

#[cfg(unix)]
fn link_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn link_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    fn copy(from: &Path, to: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            let dest = to.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                copy(&entry.path(), &dest)?;
            } else {
                std::fs::copy(entry.path(), dest)?;
            }
        }
        Ok(())
    }
    copy(target, link)
}

/// Says why the suite was skipped, on the process's stderr itself so that the test harness's
/// output capture does not hide it.
fn not_compared(why: &str) {
    let _ = writeln!(std::io::stderr(), "UI suite not compared: {why}");
}

#[test]
fn ui() {
    let version = match rustc_version() {
        Ok(v) => v,
        Err(e) => {
            not_compared(&e);
            return;
        }
    };
    let release = version.strip_prefix("rustc ").unwrap_or(&version);
    if !release.starts_with(PINNED) {
        not_compared(&format!(
            "its expected compiler output is pinned to rustc {PINNED}x, and this is `{version}` \
             (diagnostics differ between rustc releases); run it with rustc {PINNED}x, e.g. \
             `cargo +1.95 test -p onnx-aot-tests --test ui`"
        ));
        return;
    }

    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest.parent().expect("tests/ is inside the workspace");
    let target = workspace.join("target");
    // trybuild asks `cargo metadata` for the target directory; this test has one #[test], so
    // changing the environment of its process affects nothing else.
    std::env::set_var("CARGO_TARGET_DIR", &target);

    let project = target.join("tests/trybuild/onnx-aot-tests");
    std::fs::create_dir_all(&project).expect("create trybuild's project directory");
    let link = project.join("ui");
    if std::fs::symlink_metadata(&link).is_err() {
        link_dir(&manifest.join("ui"), &link).expect("link tests/ui into trybuild's project");
    }

    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
