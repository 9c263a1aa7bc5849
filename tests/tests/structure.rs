//! The size rules of the source tree (issue 13): no source file over 600 lines and no function
//! over 150 lines in `codegen/src`, `macros/src` and `runtime/src`.
//!
//! The sources are rustfmt-formatted (CI runs `cargo fmt --check`), so a function ends at the
//! first line that is a lone `}` at the indentation of its `fn` line; that is what is measured.

use std::fs;
use std::path::{Path, PathBuf};

/// The longest source file allowed, in lines.
const MAX_FILE_LINES: usize = 600;
/// The longest function allowed, in lines from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 150;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The sources the rules apply to.
fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in ["codegen", "macros", "runtime"] {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(
        files.len() > 20,
        "only {} files found: is the layout still codegen/src, macros/src, runtime/src?",
        files.len()
    );
    files
}

/// The name of the function a line declares, if it does.
fn declared_fn(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "unsafe ",
        "extern \"C\" ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Each function of `text` longer than `max` lines, as (name, first line, length).
fn long_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = declared_fn(line) else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue; // a declaration without a body
        }
        let indent = line.len() - line.trim_start().len();
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
            let length = end + 2;
            if length > max {
                long.push((name.to_string(), i + 1, length));
            }
        }
    }
    long
}

#[test]
fn no_source_file_is_over_600_lines() {
    let too_long: Vec<String> = sources()
        .iter()
        .filter_map(|path| {
            let n = fs::read_to_string(path).expect("source").lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{}: {n} lines", path.display()))
        })
        .collect();
    assert!(
        too_long.is_empty(),
        "split these files (limit {MAX_FILE_LINES} lines): {too_long:#?}"
    );
}

#[test]
fn no_function_is_over_150_lines() {
    let mut too_long = Vec::new();
    for path in sources() {
        let text = fs::read_to_string(&path).expect("source");
        for (name, line, length) in long_functions(&text, MAX_FN_LINES) {
            too_long.push(format!(
                "{}:{line}: fn {name}, {length} lines",
                path.display()
            ));
        }
    }
    assert!(
        too_long.is_empty(),
        "split these functions (limit {MAX_FN_LINES} lines): {too_long:#?}"
    );
}

#[test]
fn the_measure_finds_a_long_function() {
    let body = "    let x = 1;\n".repeat(160);
    let text =
        format!("impl A {{\n    pub(crate) fn big() {{\n{body}    }}\n\n    fn small() {{}}\n}}\n");
    assert_eq!(
        long_functions(&text, MAX_FN_LINES),
        vec![("big".to_string(), 2, 162)]
    );
    assert!(long_functions(&text, 200).is_empty());
}
