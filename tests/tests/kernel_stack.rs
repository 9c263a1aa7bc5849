//! The worst-case stack of every public runtime kernel, measured: `examples/kernel-stack` puts
//! each kernel, on each representative element type, behind an exported entry point; this test
//! builds it as the firmware is built (fat LTO, `panic=abort`, one object) with and without the
//! runtime's `small-code` feature, at opt-level "s" and 3, and adds up the frames its x86-64
//! disassembly shows (`objdump` from binutils; see `kernel_stack/frames.rs`).
//!
//! - With `small-code`, no kernel may take more than 1 KiB of stack, at either opt-level; nor
//!   may the firmware example's entry points (`examples/firmware`, opt-level "s").
//! - Without `small-code`, no runtime function may store more than a few 32- or 64-byte vector
//!   registers to the stack by unaligned moves without realigning its frame
//!   (`shared::align_frame`): such a spill lands across two cache lines or not by how its
//!   callers' frames fall, and stalls every reload when it does.
//! - The README's table (between the `kernel-stack` markers) is what this measures. The figures
//!   depend on the compiler: they are compared when the `rustc` the table names is the one in
//!   use, and rewritten with `UPDATE_STACK_TABLE=1`. Print them with
//!   `cargo test -p onnx-aot-tests --test kernel_stack -- --nocapture`.
//!
//! The measure is conservative: every push and `sub` of `%rsp` in a function counts, wherever
//! it is (arguments pushed for a call are on the stack during it). `memset` and `memcpy`, which
//! the object calls through the GOT, count as their return address. On other hosts than x86-64
//! the test is skipped.

#[path = "kernel_stack/frames.rs"]
mod frames;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The bound with `small-code`.
const SMALL_CODE_LIMIT: u64 = 1024;

/// Element types of the per-type entry points (the crate's `per_type!` list).
const TYPES: &[&str] = &["f32", "f64", "f16", "bf16", "i8", "i32", "i64"];

/// Kernels with one entry point per type (`stack_KERNEL_TYPE`).
const KERNELS: &[&str] = &[
    "arg_row",
    "arg_rows_short",
    "arg_lanes",
    "arg_lanes_values",
    "arg_lanes_narrow",
    "arg_values",
    "reduce_rows",
    "reduce_rows_short",
    "reduce_lanes_rows",
    "reduce_lanes_narrow",
    "reduce_planes",
    "fold",
    "hardmax_row",
    "hardmax_rows_short",
    "hardmax_lanes",
    "hardmax_lanes_narrow",
    "hardmax_general",
    "fill",
    "copy",
    "strided_copy",
    "split2",
];

/// Entry points of one type pair or none (`stack_NAME`).
const CONVERSIONS: &[&str] = &[
    "arg_row_rounded_f32_f16",
    "arg_row_rounded_f32_bf16",
    "arg_row_rounded_f64_f32",
    "cast_f32_i64",
    "cast_f64_f16",
    "cast_bf16_i8",
    "index_i32",
    "cast_index_f32",
];

/// One build: the runtime's features and the opt-level.
#[derive(Clone, Copy, PartialEq)]
struct Config {
    small_code: bool,
    opt: &'static str,
}

const CONFIGS: [Config; 4] = [
    Config {
        small_code: true,
        opt: "s",
    },
    Config {
        small_code: true,
        opt: "3",
    },
    Config {
        small_code: false,
        opt: "s",
    },
    Config {
        small_code: false,
        opt: "3",
    },
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what} does not run ({e})"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Builds the crate for `config` and returns the symbol table and disassembly of its own
/// object.
fn disassemble(config: Config) -> String {
    // A target directory for each build, so that builds run side by side (`measure`).
    let set = if config.small_code { "small" } else { "full" };
    let name = format!("kernel-stack-{set}-{}", config.opt);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let features: &[&str] = if config.small_code {
        &["small-code"]
    } else {
        &[]
    };
    build(
        "examples/kernel-stack",
        &dir,
        features,
        &[("CARGO_PROFILE_RELEASE_OPT_LEVEL", config.opt)],
    );
    dump(
        &dir.join("release/libonnx_aot_kernel_stack.a"),
        "onnx_aot_kernel_stack",
    )
}

/// The firmware example as `tests/tests/firmware.rs` builds it (the same target directory:
/// whichever test comes second finds it built): `small-code`, opt-level "s".
fn disassemble_firmware() -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("firmware-");
    build("examples/firmware", &dir, &[], &[]);
    dump(
        &dir.join("release/libonnx_aot_firmware.a"),
        "onnx_aot_firmware",
    )
}

/// `cargo build --release` of the crate in `path` (its own workspace).
fn build(path: &str, dir: &Path, features: &[&str], env: &[(&str, &str)]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(root().join(path).join("Cargo.toml"))
        .arg("--target-dir")
        .arg(dir)
        .envs(env.iter().copied());
    if !features.is_empty() {
        cmd.arg("--features").arg(features.join(","));
    }
    run(&mut cmd, &format!("the build of {path}"));
}

/// Symbol table and disassembly of the archive's member whose name starts with `crate_name`
/// (fat LTO leaves the crate's code in that one object; the others are compiler_builtins).
fn dump(lib: &Path, crate_name: &str) -> String {
    let members = run(Command::new("ar").arg("t").arg(lib), "`ar` (binutils)");
    let member = members
        .lines()
        .find(|m| m.starts_with(crate_name))
        .expect("the crate's object in the archive");
    let obj = lib.with_file_name(format!("{crate_name}-objects"));
    std::fs::create_dir_all(&obj).unwrap();
    run(
        Command::new("ar")
            .arg("x")
            .arg(lib)
            .arg(member)
            .current_dir(&obj),
        "`ar x`",
    );
    run(
        Command::new("objdump")
            .args(["-t", "-dr", "--no-show-raw-insn"])
            .arg(obj.join(member)),
        "`objdump` (binutils)",
    )
}

/// Worst-case stack of the firmware example's entry points (`onnx_*`).
fn measure_firmware() -> BTreeMap<String, u64> {
    let dump = disassemble_firmware();
    let funcs = frames::parse(&dump);
    let entries: BTreeMap<String, u64> = funcs
        .keys()
        .filter(|n| n.starts_with("onnx_"))
        .map(|n| {
            (
                n.clone(),
                frames::worst(&funcs, n).unwrap_or_else(|e| panic!("{n}: {e}")),
            )
        })
        .collect();
    assert_eq!(
        entries.len(),
        4,
        "the firmware's four entry points: {entries:?}"
    );
    entries
}

/// Unaligned vector spills a runtime function may make without realigning its frame: a few
/// outside its loops cost little.
const SPILLS_ALLOWED: usize = 4;

/// The runtime's functions (by demangled-ish name and config) that store more than
/// [`SPILLS_ALLOWED`] vector registers to the stack by unaligned moves and do not realign
/// their frame.
fn unaligned_spills(funcs: &BTreeMap<String, frames::Func>, config: Config) -> Vec<String> {
    funcs
        .iter()
        .filter(|(name, f)| {
            name.contains("onnx_aot") && !f.realigned && f.unaligned_spills.len() > SPILLS_ALLOWED
        })
        .map(|(name, f)| {
            format!(
                "{name} (opt-level {}): {} spills, first {}",
                config.opt,
                f.unaligned_spills.len(),
                f.unaligned_spills.first().map_or("", String::as_str)
            )
        })
        .collect()
}

/// Worst-case stack of every entry point (by its name without `stack_`) in each config.
fn measure() -> BTreeMap<String, [u64; 4]> {
    let mut table: BTreeMap<String, [u64; 4]> = BTreeMap::new();
    // Two threads of two builds each (fat LTO into one codegen unit keeps one core busy), the
    // longest two (without `small-code`: about 50 and 65 s on the 2-core AMD EPYC, against 17
    // with it) in different threads.
    let dumps: Vec<(usize, String)> = std::thread::scope(|s| {
        let lanes = [[3, 0], [2, 1]]
            .map(|lane| s.spawn(move || lane.map(|c| (c, disassemble(CONFIGS[c])))));
        lanes
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut spilling = Vec::new();
    for (c, dump) in dumps {
        let funcs = frames::parse(&dump);
        if !CONFIGS[c].small_code {
            spilling.extend(unaligned_spills(&funcs, CONFIGS[c]));
        }
        let aliases = frames::aliases(&dump);
        let mut found = 0;
        let names = funcs.keys().chain(aliases.keys());
        for name in names.filter(|n| n.starts_with("stack_")) {
            let code = aliases.get(name).unwrap_or(name);
            let bytes = frames::worst(&funcs, code).unwrap_or_else(|e| panic!("{name}: {e}"));
            table.entry(name["stack_".len()..].to_string()).or_default()[c] = bytes;
            found += 1;
        }
        assert_eq!(
            found,
            KERNELS.len() * TYPES.len() + CONVERSIONS.len(),
            "every entry point is in the object"
        );
    }
    assert_eq!(
        spilling,
        Vec::<String>::new(),
        "runtime functions that spill {SPILLS_ALLOWED}+ vector registers to the stack by \
         unaligned moves without realigning their frame (a spill across two cache lines stalls \
         each reload, by how the callers' frames fall): call `shared::align_frame()` first in them"
    );
    table
}

fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    run(Command::new(rustc).arg("--version"), "rustc")
        .trim()
        .to_string()
}

/// The README block: two tables of kernels by type ("s" / 3), one of the conversions.
fn render(
    table: &BTreeMap<String, [u64; 4]>,
    firmware: &BTreeMap<String, u64>,
    rustc: &str,
) -> String {
    let mut s = format!(
        "Worst-case stack in bytes (`cargo test -p onnx-aot-tests --test kernel_stack`;\n\
         {rustc}, x86_64-unknown-linux-gnu, default target CPU;\n\
         fat LTO, `panic=abort`): opt-level \"s\" / 3.\n"
    );
    for (title, half) in [("`small-code`", 0), ("default kernels", 2)] {
        s += &format!("\n| {title} | {} |\n", TYPES.join(" | "));
        s += &format!("| --- |{}\n", " ---: |".repeat(TYPES.len()));
        for k in KERNELS {
            let cells: Vec<String> = TYPES
                .iter()
                .map(|t| {
                    let v = table[&format!("{k}_{t}")];
                    format!("{} / {}", v[half], v[half + 1])
                })
                .collect();
            s += &format!("| {k} | {} |\n", cells.join(" | "));
        }
    }
    s += "\n| conversions | `small-code` | default kernels |\n| --- | ---: | ---: |\n";
    for name in CONVERSIONS {
        let v = table[*name];
        s += &format!("| {name} | {} / {} | {} / {} |\n", v[0], v[1], v[2], v[3]);
    }
    let entries: Vec<String> = firmware.iter().map(|(n, b)| format!("`{n}` {b}")).collect();
    s += &format!(
        "\nThe firmware example's entry points (`examples/firmware`: `small-code`, opt-level \"s\",\n\
         the kernels inlined):\n{} bytes.\n",
        entries.join(", ")
    );
    s
}

/// How far a published figure may sit from a fresh measure: the same compiler's frames move by a
/// few slots between checkouts (symbol hashes follow the checkout's path and nudge inlining and
/// register allocation), so figures agree within 5% or 64 bytes, whichever is larger.
fn close(published: u64, measured: u64) -> bool {
    published.abs_diff(measured) <= (measured / 20).max(64)
}

/// The published block against the measured one: the same text, numbers `close`.
fn agrees(published: &str, measured: &str) -> Result<(), String> {
    fn pieces(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (a, b) = (pieces(published), pieces(measured));
    if a.len() != b.len() {
        return Err("the tables differ in shape".into());
    }
    for ((digits, p), (_, m)) in a.iter().zip(&b) {
        let same = match (digits, p.parse::<u64>(), m.parse::<u64>()) {
            (true, Ok(p), Ok(m)) => close(p, m),
            _ => p == m,
        };
        if !same {
            return Err(format!("published {p:?}, measured {m:?}"));
        }
    }
    Ok(())
}

const BEGIN: &str = "<!-- kernel-stack:begin -->\n";
const END: &str = "<!-- kernel-stack:end -->";

#[test]
fn every_kernel_stays_within_1_kib_with_small_code_and_the_readme_says_so() {
    if !cfg!(target_arch = "x86_64") {
        eprintln!("the frame measure reads x86-64 code: skipped");
        return;
    }
    let table = measure();
    let firmware = measure_firmware();
    let mut over: Vec<String> = table
        .iter()
        .filter(|(_, v)| v[0] > SMALL_CODE_LIMIT || v[1] > SMALL_CODE_LIMIT)
        .map(|(k, v)| format!("{k}: {} / {} bytes", v[0], v[1]))
        .collect();
    over.extend(
        firmware
            .iter()
            .filter(|(_, &b)| b > SMALL_CODE_LIMIT)
            .map(|(k, b)| format!("firmware {k}: {b} bytes")),
    );
    let rustc = rustc_version();
    let block = render(&table, &firmware, &rustc);
    println!("{block}");
    assert_eq!(
        over,
        Vec::<String>::new(),
        "kernels over {SMALL_CODE_LIMIT} bytes of stack with small-code"
    );
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme
        .find(BEGIN)
        .expect("the README's kernel-stack begin marker")
        + BEGIN.len();
    let end = readme
        .find(END)
        .expect("the README's kernel-stack end marker");
    let published = &readme[start..end];
    if std::env::var_os("UPDATE_STACK_TABLE").is_some() {
        let updated = format!("{}{block}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).unwrap();
    } else if published.contains(&rustc) {
        if let Err(why) = agrees(published, &block) {
            panic!(
                "the README's stack table is out of date ({why}): rerun with \
                 UPDATE_STACK_TABLE=1\n--- README\n{published}\n--- measured\n{block}"
            );
        }
    } else {
        eprintln!(
            "the README's table was measured with another compiler than {rustc}: not compared"
        );
    }
}

#[test]
fn the_readme_comparison_allows_small_moves_only() {
    let published = "| arg_lanes | 600 / 664 |\nrustc 1.95.0";
    assert_eq!(agrees(published, published), Ok(()));
    assert_eq!(
        agrees(published, "| arg_lanes | 616 / 600 |\nrustc 1.95.0"),
        Ok(())
    );
    assert!(agrees(published, "| arg_lanes | 800 / 664 |\nrustc 1.95.0").is_err());
    assert!(agrees(published, "| arg_rows | 600 / 664 |\nrustc 1.95.0").is_err());
    assert!(agrees(published, "| arg_lanes | 600 / 664 | 8 |\nrustc 1.95.0").is_err());
    assert!(agrees("| x | 19864 |", "| x | 19768 |").is_ok());
    assert!(agrees("| x | 19864 |", "| x | 17864 |").is_err());
}
