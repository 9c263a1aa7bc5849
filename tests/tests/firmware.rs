//! The firmware example (`examples/firmware`, its own workspace) builds as a `#![no_std]`
//! staticlib with default runtime features off, and its release build (fat LTO, which keeps
//! only what the `extern "C"` entry points reach) contains:
//! - no panic machinery: no `core::panicking` function, no bounds-check, unwrap, expect or
//!   slice-index failure path. If any code reachable from the entry points could panic, LTO
//!   would keep the call and its target, and the symbol would show here. A negative control
//!   (feature `panic-control`, one indexing function) proves the check sees them;
//! - no `std` and no allocator: nothing from `std::`, no `__rust_alloc`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn build(features: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // One target dir per feature set: both tests run at once and the archive has one name.
    let target =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("firmware-{}", features.join("-")));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(root.join("examples/firmware/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target);
    if !features.is_empty() {
        cmd.arg("--features").arg(features.join(","));
    }
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "firmware build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = target.join("release/libonnx_aot_firmware.a");
    let nm = Command::new("nm")
        .arg("-C")
        .arg(&lib)
        .output()
        .expect("`nm` (binutils) is needed to read the firmware's symbols; install binutils");
    assert!(nm.status.success());
    String::from_utf8_lossy(&nm.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

const PANIC_MARKERS: &[&str] = &[
    "core::panicking",
    "panic_bounds_check",
    "panic_fmt",
    "slice_index",
    "unwrap_failed",
    "expect_failed",
    "rust_begin_unwind",
];

fn panics(symbols: &[String]) -> Vec<&String> {
    symbols
        .iter()
        .filter(|s| PANIC_MARKERS.iter().any(|m| s.contains(m)))
        .collect()
}

#[test]
fn firmware_has_no_reachable_panics_no_std_and_no_allocator() {
    let symbols = build(&[]);
    for entry in ["onnx_top1_label", "onnx_head_run", "onnx_head_run_bytes"] {
        assert!(
            symbols.iter().any(|s| s.ends_with(&format!(" T {entry}"))),
            "entry point {entry} missing"
        );
    }
    assert_eq!(
        panics(&symbols),
        Vec::<&String>::new(),
        "panic machinery is reachable"
    );
    let std: Vec<_> = symbols
        .iter()
        .filter(|s| s.contains("std::") || s.contains("__rust_alloc"))
        .collect();
    assert_eq!(
        std,
        Vec::<&String>::new(),
        "std or an allocator was pulled in"
    );
}

#[test]
fn the_symbol_check_sees_a_panicking_entry_point() {
    let symbols = build(&["panic-control"]);
    assert!(
        !panics(&symbols).is_empty(),
        "the negative control's bounds check should leave panic symbols"
    );
}
