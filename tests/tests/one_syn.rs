//! Build cost (issue 17 item 9): the published crates compile one major version of `syn`.
//!
//! What is checked: `Cargo.lock` read as a graph, walked from the three published crates
//! (onnx-aot, onnx-aot-macros, onnx-aot-codegen) along every dependency edge the lock records.
//! The lock does not tell normal, build and dev edges apart, and it records the dependencies of
//! every feature the workspace turns on anywhere, so the walk is a superset of what a user of
//! the published crates compiles: it includes their own dev-dependencies (the runtime's
//! dev-dependency on onnx-aot-codegen, already reached through the macro) and every feature of
//! them. What is not checked: the dependencies only the unpublished crates (onnx-aot-tests,
//! onnx-aot-examples) reach, such as the benchmark's peers and criterion, which may bring other
//! majors into the lock without reaching a user.

use std::collections::{BTreeMap, BTreeSet};

/// The crates users depend on.
const PUBLISHED: [&str; 3] = ["onnx-aot", "onnx-aot-macros", "onnx-aot-codegen"];

/// One `[[package]]` of a lock file: name, version and the dependencies as written
/// (`"name"`, or `"name version"` / `"name version (source)"` where the name is ambiguous).
#[derive(Debug)]
struct Package {
    name: String,
    version: String,
    deps: Vec<String>,
}

fn quoted(s: &str) -> Option<&str> {
    s.trim()
        .trim_end_matches(',')
        .strip_prefix('"')?
        .strip_suffix('"')
}

fn parse_lock(text: &str) -> Vec<Package> {
    let mut packages = Vec::new();
    let mut current: Option<Package> = None;
    let mut in_deps = false;
    for line in text.lines() {
        let line = line.trim();
        if line == "[[package]]" || line.starts_with('[') && !in_deps {
            packages.extend(current.take());
            if line == "[[package]]" {
                current = Some(Package {
                    name: String::new(),
                    version: String::new(),
                    deps: Vec::new(),
                });
            }
            continue;
        }
        let Some(p) = current.as_mut() else { continue };
        if in_deps {
            if line == "]" {
                in_deps = false;
            } else if let Some(d) = quoted(line) {
                p.deps.push(d.to_string());
            }
        } else if let Some(v) = line.strip_prefix("name = ").and_then(quoted) {
            p.name = v.to_string();
        } else if let Some(v) = line.strip_prefix("version = ").and_then(quoted) {
            p.version = v.to_string();
        } else if line == "dependencies = [" {
            in_deps = true;
        } else if let Some(list) = line.strip_prefix("dependencies = [") {
            let list = list.trim_end_matches(']');
            p.deps
                .extend(list.split(',').filter_map(quoted).map(str::to_string));
        }
    }
    packages.extend(current);
    packages
}

/// Every package (name, version) reachable from `roots` along the lock's edges.
fn reachable(packages: &[Package], roots: &[&str]) -> BTreeSet<(String, String)> {
    let mut by_name: BTreeMap<&str, Vec<&Package>> = BTreeMap::new();
    for p in packages {
        by_name.entry(&p.name).or_default().push(p);
    }
    let resolve = |dep: &str| -> Vec<&Package> {
        let mut parts = dep.split_whitespace();
        let name = parts.next().unwrap_or_default();
        let candidates = by_name.get(name).cloned().unwrap_or_default();
        match parts.next() {
            Some(version) => candidates
                .into_iter()
                .filter(|p| p.version == version)
                .collect(),
            None => candidates,
        }
    };
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&Package> = roots.iter().flat_map(|r| resolve(r)).collect();
    assert_eq!(stack.len(), roots.len(), "every root is in the lock");
    while let Some(p) = stack.pop() {
        if seen.insert((p.name.clone(), p.version.clone())) {
            for d in &p.deps {
                let found = resolve(d);
                assert!(
                    !found.is_empty(),
                    "{} depends on {d:?}, not in the lock",
                    p.name
                );
                stack.extend(found);
            }
        }
    }
    seen
}

/// The majors of `name` among `reached` (for 0.x versions the minor is the major).
fn majors(reached: &BTreeSet<(String, String)>, name: &str) -> BTreeSet<String> {
    reached
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, v)| {
            let mut it = v.split('.');
            match (it.next(), it.next()) {
                (Some("0"), Some(minor)) => format!("0.{minor}"),
                (Some(major), _) => major.to_string(),
                _ => v.clone(),
            }
        })
        .collect()
}

#[test]
fn the_published_crates_reach_one_syn_major() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock");
    let text = std::fs::read_to_string(path).expect("the workspace's Cargo.lock");
    let packages = parse_lock(&text);
    let reached = reachable(&packages, &PUBLISHED);
    // The walk sees the real graph: the runtime's `half`, the generator's `prost` and `syn`.
    for name in ["half", "prost", "syn", "onnx-aot-codegen"] {
        assert!(reached.iter().any(|(n, _)| n == name), "{name} not reached");
    }
    let syn = majors(&reached, "syn");
    assert_eq!(
        syn.len(),
        1,
        "the published crates reach syn majors {syn:?}: each is compiled; find who pulls which \
         with `cargo tree -i syn@<major> -e normal,build` and move to one"
    );
}

#[test]
fn two_syn_majors_in_a_lock_are_seen() {
    // The check above against a lock where the root reaches syn 2 and, through a derive, syn 3.
    let lock = r#"
version = 4

[[package]]
name = "onnx-aot"
version = "0.1.0"
dependencies = [
 "derive",
 "syn 2.0.1",
]

[[package]]
name = "derive"
version = "1.0.0"
dependencies = ["syn 3.0.2"]

[[package]]
name = "syn"
version = "2.0.1"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "syn"
version = "3.0.2"

[[package]]
name = "unrelated"
version = "1.0.0"
dependencies = ["syn 3.0.2"]
"#;
    let packages = parse_lock(lock);
    assert_eq!(packages.len(), 5, "{packages:?}");
    let reached = reachable(&packages, &["onnx-aot"]);
    assert_eq!(
        majors(&reached, "syn"),
        BTreeSet::from(["2".into(), "3".into()])
    );
    let only_syn2 = reachable(&packages[2..], &["syn 2.0.1"]);
    assert_eq!(majors(&only_syn2, "syn"), BTreeSet::from(["2".into()]));
}
