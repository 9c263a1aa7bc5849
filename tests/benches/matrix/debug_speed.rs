//! Debug builds against release builds (issue 17 item 4): `--ours` times only the generated
//! code of each selected cell (no reference, no baseline: a debug build of those is slow, and
//! the release run checks every result), and `--ratio DEBUG.tsv RELEASE.tsv` prints how many
//! times slower each cell ran in the debug build.
//!
//! ```sh
//! cargo bench -p onnx-aot-tests --bench matrix --profile dev -- --ours --save debug.tsv
//! cargo bench -p onnx-aot-tests --bench matrix -- --ours --save release.tsv
//! cargo bench -p onnx-aot-tests --bench matrix -- --ratio debug.tsv release.tsv
//! ```
//!
//! The workspace's `Cargo.toml` holds the one profile line the README asks of users
//! (`[profile.dev.package.onnx-aot] opt-level = 3`), so `--profile dev` is a user's debug build.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{index_of, median, random_input, Cell, Plan, Timed};

/// Times the generated code of every cell; returns the saved lines (`name`, median ns of each
/// run).
pub(super) fn time_ours(cells: &[&'static Cell], plan: &Plan) -> String {
    let mut saved = String::from("# cell\tours ns per run\n");
    let build = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "generated code only, {build} build; ns per call, median of {} runs",
        plan.runs
    );
    for cell in cells {
        let numel: usize = cell.shape.iter().product();
        let input = random_input(cell.dtype, numel, 0x6d61_7472_6978 + index_of(cell) as u64);
        let mut ours = (cell.generated)(&input);
        let mut timed = Timed::new(ours.as_mut(), plan);
        for _ in 0..plan.runs {
            timed.run(plan);
        }
        let mut runs = timed.runs.clone();
        println!("{:<48} {:>14.0}", cell.name, median(&mut runs));
        let runs: Vec<String> = timed.runs.iter().map(|r| format!("{r:.1}")).collect();
        let _ = writeln!(saved, "{}\t{}", cell.name, runs.join(","));
    }
    saved
}

/// The median of each cell's runs in a file `time_ours` saved.
fn read(path: &str) -> Result<BTreeMap<String, f64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut cells = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, runs) = line
            .split_once('\t')
            .ok_or_else(|| format!("{path}: not a saved line: {line:?}"))?;
        let mut runs: Vec<f64> = runs
            .split(',')
            .map(|r| r.parse().map_err(|e| format!("{path}: {r:?}: {e}")))
            .collect::<Result<_, _>>()?;
        cells.insert(name.to_string(), median(&mut runs));
    }
    Ok(cells)
}

/// Prints debug / release per cell present in both files, and the spread.
pub(super) fn ratio(debug: &str, release: &str) -> Result<(), String> {
    let (d, r) = (read(debug)?, read(release)?);
    let mut ratios: Vec<(f64, &str)> = Vec::new();
    println!(
        "{:<48} {:>12} {:>12} {:>8}",
        "cell", "debug ns", "release ns", "ratio"
    );
    for (name, &dn) in &d {
        let Some(&rn) = r.get(name) else { continue };
        let q = dn / rn.max(1e-9);
        println!("{name:<48} {dn:>12.0} {rn:>12.0} {q:>8.2}");
        ratios.push((q, name));
    }
    if ratios.is_empty() {
        return Err("no cell is in both files".to_string());
    }
    ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut qs: Vec<f64> = ratios.iter().map(|r| r.0).collect();
    let over = ratios.iter().filter(|r| r.0 > 3.0).count();
    let min = qs[0];
    let mid = median(&mut qs);
    println!(
        "\n{} cells: debug/release min {:.2}, median {:.2}, max {:.2} ({}); {over} over 3x",
        ratios.len(),
        min,
        mid,
        ratios[ratios.len() - 1].0,
        ratios[ratios.len() - 1].1
    );
    for (q, name) in ratios.iter().rev().take_while(|r| r.0 > 3.0) {
        println!("- over 3x: {name} {q:.2}");
    }
    Ok(())
}
