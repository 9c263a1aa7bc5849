//! The benchmark matrix of issue 14: element types x axis positions x row lengths x the ops,
//! generated code against tract-onnx, ONNX Runtime (one thread) and a streaming read, in one
//! process.
//!
//! ```sh
//! cargo bench -p onnx-aot-tests --bench matrix -- --quick                 # generated code and baselines
//! export ORT_DYLIB_PATH="$(bash tests/benches/ort_dylib.sh)"              # ONNX Runtime from its PyPI wheel
//! cargo bench -p onnx-aot-tests --bench matrix --features peers           # + tract-onnx and ONNX Runtime
//! cargo bench -p onnx-aot-tests --bench matrix -- --filter "argmax f16"   # cells whose name contains it
//! cargo bench -p onnx-aot-tests --bench matrix -- --save run1.tsv         # also keep the runs
//! cargo bench -p onnx-aot-tests --bench matrix -- --merge run1.tsv run2.tsv run3.tsv  # one table
//! cargo bench -p onnx-aot-tests --bench matrix -- --twins 1              # AVX2 twins at most (A/B on one CPU)
//! ```
//!
//! The cells (one ONNX model and one seeded random, NaN-free input each) are made at build time by
//! `benches/matrix/spec.rs` (through `build.rs`): an f32 sweep over every op kind, layout and row
//! length, a sweep of the other element types at row length 1000, and samples from real models.
//! Per cell:
//! - **ours**: the generated module's `run_into` on heap-allocated `Inputs`/`Outputs`;
//! - **stream**: the practical limit, a max fold over the input's bytes (as `u8` for every
//!   type: the same read of the same bytes), in independent lanes so that it vectorizes; for
//!   Hardmax **read+write**, the same fold that also stores its lanes into an output of the
//!   input's size;
//! - **io** (column `ours/io`, no target): the fold that also writes as many bytes as the cell's
//!   outputs, block by block: the least memory traffic of any implementation. A cell that misses
//!   its target at about 1x of io is bound by its writes (ArgMax over rows of two writes an i64
//!   per two f32), not by its kernel;
//! - **ORT**: ONNX Runtime through the `ort` crate (`load-dynamic`, `$ORT_DYLIB_PATH`), one
//!   intra-op thread, the input created once; **tract**: tract-onnx's optimized runnable plan,
//!   one state spawned once. Both only with `--features peers`; otherwise `-`.
//!
//! Every result is checked before timing: ours against a plain reference written here, the peers
//! against ours (a warning on any difference). Timing is a simple harness: each implementation is
//! warmed up, then run in batches of calls (a batch is at least 20 µs) for about 50 ms per run
//! (10 ms with `--quick`), three runs interleaved across the implementations; a run's figure is
//! the median batch's time per call, and every column shows the spread (min–max) over the runs.
//! The targets (issue 14 item 5, the default target CPU): reductions within 1.3x of the stream,
//! arg-reductions, siblings and chains within 2x, Hardmax within 1.5x of read+write; faster than
//! ONNX Runtime; at least 3x faster than tract; the peer targets are waived when ours is within
//! 1.1x of its baseline. A verdict uses the median run; the run ends with a count per op kind
//! of the cells that meet each target. `--save FILE` keeps every run's figures; `--merge` prints
//! one table over several saved runs (min–max over all their runs), as in the README.
//!
//! `cargo test --benches` (no `--bench` argument) runs every implementation of every cell once and
//! checks the results, without timing; it fails if the generated code disagrees with the
//! reference.

use std::hint::black_box;
use std::time::{Duration, Instant};

use half::{bf16, f16};
use onnx_aot_tests::reference::Elem;

/// The generated modules, one per cell.
#[allow(
    dead_code,
    unused,
    clippy::all,
    clippy::pedantic,
    missing_docs,
    non_snake_case,
    non_upper_case_globals
)]
mod mx {
    include!(concat!(env!("OUT_DIR"), "/matrix_modules.rs"));
}

/// The stack of the benchmark thread: `Inputs` are built straight into a `Box`, but a debug
/// build (`cargo test --benches`) may place the largest (22 MB) on the stack first.
const STACK: usize = 256 << 20;

/// The element types of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dt {
    F32,
    F16,
    Bf16,
    F64,
    I8,
    U8,
    I16,
    U16,
    I32,
    I64,
    Bool,
}

impl Dt {
    fn name(self) -> &'static str {
        match self {
            Dt::F32 => "f32",
            Dt::F16 => "f16",
            Dt::Bf16 => "bf16",
            Dt::F64 => "f64",
            Dt::I8 => "i8",
            Dt::U8 => "u8",
            Dt::I16 => "i16",
            Dt::U16 => "u16",
            Dt::I32 => "i32",
            Dt::I64 => "i64",
            Dt::Bool => "bool",
        }
    }

    fn size(self) -> usize {
        match self {
            Dt::I8 | Dt::U8 | Dt::Bool => 1,
            Dt::F16 | Dt::Bf16 | Dt::I16 | Dt::U16 => 2,
            Dt::F32 | Dt::I32 => 4,
            Dt::F64 | Dt::I64 => 8,
        }
    }

    /// One element, for messages.
    fn show(self, b: &[u8]) -> String {
        match self {
            Dt::F32 => format!("{:?}", f32::read_le(b)),
            Dt::F16 => format!("{:?}", f16::read_le(b)),
            Dt::Bf16 => format!("{:?}", bf16::read_le(b)),
            Dt::F64 => format!("{:?}", f64::read_le(b)),
            Dt::I8 => format!("{}", i8::read_le(b)),
            Dt::U8 => format!("{}", u8::read_le(b)),
            Dt::I16 => format!("{}", i16::read_le(b)),
            Dt::U16 => format!("{}", u16::read_le(b)),
            Dt::I32 => format!("{}", i32::read_le(b)),
            Dt::I64 => format!("{}", i64::read_le(b)),
            Dt::Bool => format!("{}", bool::read_le(b)),
        }
    }

    /// The bytes of one, for Hardmax outputs.
    fn one(self) -> Vec<u8> {
        let mut v = Vec::new();
        match self {
            Dt::F32 => 1.0f32.write_le(&mut v),
            Dt::F16 => f16::ONE.write_le(&mut v),
            Dt::Bf16 => bf16::ONE.write_le(&mut v),
            Dt::F64 => 1.0f64.write_le(&mut v),
            _ => unreachable!("Hardmax takes floats"),
        }
        v
    }
}

/// What a cell computes, with axes resolved; every Arg and Reduce has `keepdims=0` unless the
/// cell says otherwise.
#[derive(Clone, Copy, Debug)]
enum Compute {
    Arg {
        min: bool,
        last: bool,
        axis: usize,
    },
    Reduce {
        min: bool,
        axes: &'static [usize],
    },
    Hardmax13 {
        axis: usize,
    },
    Hardmax11 {
        axis: usize,
    },
    /// ReduceMax and ArgMax over the same axis (outputs `y`, `i`).
    Siblings {
        axis: usize,
    },
    /// ReduceMax over `reduce` (keepdims 1), Hardmax and ArgMax over `axis`.
    Chain {
        reduce: usize,
        axis: usize,
    },
}

/// The target a cell is held to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// ReduceMax/ReduceMin: within 1.3x of the stream.
    Reduce,
    /// ArgMax/ArgMin, siblings, chains: within 2x of the stream.
    Arg,
    /// Hardmax: within 1.5x of read+write.
    Hardmax,
}

impl Target {
    fn limit(self) -> f64 {
        match self {
            Target::Reduce => 1.3,
            Target::Arg => 2.0,
            Target::Hardmax => 1.5,
        }
    }

    fn baseline(self) -> &'static str {
        match self {
            Target::Hardmax => "rw",
            _ => "stream",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Target::Reduce => "Reduce",
            Target::Arg => "Arg",
            Target::Hardmax => "Hardmax",
        }
    }

    fn from_key(key: &str) -> Option<Target> {
        [Target::Reduce, Target::Arg, Target::Hardmax]
            .into_iter()
            .find(|t| t.key() == key)
    }
}

/// The smallest ORT/ours ratio that meets the target (strictly above: faster).
const ORT_TARGET: f64 = 1.0;
/// The smallest tract/ours ratio that meets the target.
const TRACT_TARGET: f64 = 3.0;
/// Ours within this factor of its baseline waives both peer targets.
const WAIVER: f64 = 1.1;

/// One cell of the matrix (the table is generated; see `benches/matrix/spec.rs`).
#[allow(dead_code)]
struct Cell {
    name: &'static str,
    op: &'static str,
    dtype: Dt,
    layout: &'static str,
    /// The extent of the reduced axis (axes), or of Hardmax-11's coerced row.
    row: usize,
    /// `sweep`, `types` or `sample`.
    group: &'static str,
    /// In `--quick` (f32, row length 1000: one per op kind and layout).
    quick: bool,
    target: Target,
    shape: &'static [usize],
    compute: Compute,
    keepdims: bool,
    /// Element type and shape of each output, in graph order.
    outputs: &'static [(Dt, &'static [usize])],
    model: &'static [u8],
    generated: fn(&[u8]) -> Box<dyn Runner>,
}

/// One implementation of one cell, ready to be called again and again.
trait Runner {
    /// One call. Outputs are written (and kept from being optimized away) but not read.
    fn run(&mut self);
    /// One call, returning every output's little-endian bytes (outside timing); `Err` when a
    /// peer fails to run the model.
    fn outputs(&mut self) -> Result<Vec<Vec<u8>>, String>;
}

/// Fills a generated `Inputs` field from little-endian bytes.
fn fill<T: Elem>(dst: &mut [T], bytes: &[u8]) {
    assert_eq!(dst.len() * T::SIZE, bytes.len(), "input size");
    assert_eq!(std::mem::size_of::<T>(), T::SIZE, "element size");
    if cfg!(target_endian = "little") {
        // SAFETY: `dst` holds exactly `bytes.len()` bytes; every element type of the matrix is
        // plain data whose little-endian bytes are its memory (bool as 0/1, which is what the
        // inputs hold).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                dst.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            )
        }
    } else {
        for (d, b) in dst.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
            *d = T::read_le(b);
        }
    }
}

/// The little-endian bytes of a generated `Outputs` field.
fn bytes_of<T: Elem>(src: &[T]) -> Vec<u8> {
    assert_eq!(std::mem::size_of::<T>(), T::SIZE, "element size");
    if cfg!(target_endian = "little") {
        // SAFETY: any initialized element of these plain types may be read as its bytes.
        unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<u8>(), std::mem::size_of_val(src)) }
            .to_vec()
    } else {
        let mut v = Vec::with_capacity(src.len() * T::SIZE);
        for &x in src {
            x.write_le(&mut v);
        }
        v
    }
}

#[allow(clippy::all, clippy::pedantic)]
mod cells {
    use super::{black_box, bytes_of, fill, mx, Cell, Compute, Dt, Runner, Target};
    include!(concat!(env!("OUT_DIR"), "/matrix_cells.rs"));
    pub fn all() -> &'static [Cell] {
        CELLS
    }
    pub fn skipped() -> &'static [&'static str] {
        MATRIX_SKIPPED
    }
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Seeded random elements, little-endian: floats uniform in [-1, 1) (f32 on a 2^-23 grid, f16 and
/// bf16 rounded from it: many ties), never NaN or -0.0; integers uniform; bools 0/1 uniform.
fn random_input(dt: Dt, n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let size = dt.size();
    let mut out = vec![0u8; n * size];
    match dt {
        Dt::F32 | Dt::F16 | Dt::Bf16 | Dt::F64 => {
            for b in out.chunks_exact_mut(size) {
                let r = rng.next();
                // x - 1.0 is never -0.0, so neither are the roundings of it.
                let f = (r >> 40) as f32 / (1u32 << 23) as f32 - 1.0;
                match dt {
                    Dt::F32 => b.copy_from_slice(&f.to_le_bytes()),
                    Dt::F16 => b.copy_from_slice(&f16::from_f32(f).to_le_bytes()),
                    Dt::Bf16 => b.copy_from_slice(&bf16::from_f32(f).to_le_bytes()),
                    _ => {
                        let d = (r >> 11) as f64 / (1u64 << 52) as f64 - 1.0;
                        b.copy_from_slice(&d.to_le_bytes());
                    }
                }
            }
        }
        _ => {
            for b in out.chunks_mut(8) {
                let r = rng.next().to_le_bytes();
                b.copy_from_slice(&r[..b.len()]);
            }
            if dt == Dt::Bool {
                for b in &mut out {
                    *b &= 1;
                }
            }
        }
    }
    out
}

#[path = "matrix/debug_speed.rs"]
mod debug_speed;
/// The plain reference the generated code's outputs are checked against.
#[path = "matrix/reference.rs"]
mod reference;

/// The first difference between two sets of outputs, or `None`.
fn first_difference(outputs: &[(Dt, &[usize])], a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<String> {
    if a.len() != b.len() {
        return Some(format!("{} outputs instead of {}", b.len(), a.len()));
    }
    for (k, ((dt, _), (a, b))) in outputs.iter().zip(a.iter().zip(b)).enumerate() {
        if a.len() != b.len() {
            return Some(format!(
                "output {k}: {} bytes instead of {}",
                b.len(),
                a.len()
            ));
        }
        let size = dt.size();
        let differ: Vec<usize> = (0..a.len() / size)
            .filter(|&i| a[i * size..(i + 1) * size] != b[i * size..(i + 1) * size])
            .collect();
        if let Some(&i) = differ.first() {
            return Some(format!(
                "output {k}: {} of {} elements differ, the first at flat index {i}: {} vs {}",
                differ.len(),
                a.len() / size,
                dt.show(&a[i * size..(i + 1) * size]),
                dt.show(&b[i * size..(i + 1) * size]),
            ));
        }
    }
    None
}

/// The stream and read+write baselines.
#[path = "matrix/baseline.rs"]
mod baseline;

/// tract-onnx and ONNX Runtime, only with the `peers` feature.
#[cfg(feature = "peers")]
#[path = "matrix/peers.rs"]
mod peers;

/// How long to time.
#[derive(Clone, Copy)]
struct Plan {
    warm_up: Duration,
    run: Duration,
    runs: usize,
}

/// A batch of calls lasts at least this long, so that the clock's cost does not count.
const BATCH: Duration = Duration::from_micros(20);
/// Samples (batches) per run, at least; slow implementations stop at `MIN_SLOW` after twice
/// the run's time.
const MIN_SAMPLES: usize = 5;
const MIN_SLOW: usize = 3;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A runner with its batch size.
struct Timed<'a> {
    runner: &'a mut dyn Runner,
    batch: usize,
    runs: Vec<f64>,
}

impl<'a> Timed<'a> {
    /// Calls once (cold), times one call, sizes the batch and warms up.
    fn new(runner: &'a mut dyn Runner, plan: &Plan) -> Self {
        runner.run();
        let start = Instant::now();
        runner.run();
        let once = start.elapsed().max(Duration::from_nanos(1));
        let batch = (BATCH.as_nanos() / once.as_nanos()).max(1) as usize + 1;
        let batch = if once >= BATCH { 1 } else { batch };
        let start = Instant::now();
        while start.elapsed() < plan.warm_up {
            for _ in 0..batch {
                runner.run();
            }
        }
        Timed {
            runner,
            batch,
            runs: Vec::new(),
        }
    }

    /// One run: batches for about `plan.run`; keeps the median time per call (ns).
    fn run(&mut self, plan: &Plan) {
        let mut samples = Vec::new();
        let start = Instant::now();
        loop {
            let t = Instant::now();
            for _ in 0..self.batch {
                self.runner.run();
            }
            samples.push(t.elapsed().as_nanos() as f64 / self.batch as f64);
            let elapsed = start.elapsed();
            if (samples.len() >= MIN_SAMPLES && elapsed >= plan.run)
                || (samples.len() >= MIN_SLOW && elapsed >= 2 * plan.run)
            {
                break;
            }
        }
        self.runs.push(median(&mut samples));
    }
}

/// A peer's figures, or why there are none.
#[derive(Clone, Debug)]
enum Peer {
    Runs(Vec<f64>),
    Absent(String),
}

/// The measurements of one cell: ns per call, one figure per run.
#[derive(Clone, Debug)]
struct Measured {
    name: String,
    target: Target,
    ours: Vec<f64>,
    base: Vec<f64>,
    /// The input read and the outputs written once (`baseline::Baseline::io`); empty in files
    /// saved before it was measured.
    io: Vec<f64>,
    ort: Peer,
    tract: Peer,
}

/// `f(a[r], b[r])` for every run `r` (runs are interleaved, so run `r` of each was close in time).
fn per_run(a: &[f64], b: &[f64], f: fn(f64, f64) -> f64) -> Vec<f64> {
    a.iter().zip(b).map(|(&a, &b)| f(a, b)).collect()
}

fn ns(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn ratio(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A ratio in a verdict: enough digits to see which side of the target it falls.
fn precise(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// `min–max` of a set of figures.
fn spread(v: &[f64], show: fn(f64) -> String) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if show(lo) == show(hi) {
        show(lo)
    } else {
        format!("{}–{}", show(lo), show(hi))
    }
}

/// Which targets a cell meets, on its median run.
struct Verdict {
    /// The targets missed, for the verdict column.
    misses: Vec<String>,
    base: bool,
    /// `None`: the peer was not measured; waived targets count as met.
    ort: Option<bool>,
    tract: Option<bool>,
    /// Ours over the input read and outputs written once, on the median run (if measured).
    io: Option<f64>,
}

impl Verdict {
    /// The misses, with how close ours is to the cell's traffic limit.
    fn missed(&self) -> String {
        let mut s = self.misses.join(", ");
        if let Some(io) = self.io {
            s += &format!("; {}x of io", precise(io));
        }
        s
    }
}

impl Measured {
    /// The table row and the verdict.
    fn row(&self) -> (String, Verdict) {
        let vs_base = per_run(&self.ours, &self.base, |o, b| o / b);
        let base_median = median(&mut vs_base.clone());
        let limit = self.target.limit();
        let mut misses = Vec::new();
        if base_median > limit {
            misses.push(format!(
                "{} ≤{limit} ({})",
                self.target.baseline(),
                precise(base_median)
            ));
        }
        let waived = base_median <= WAIVER;
        // `strict`: the ratio must exceed the target (ORT: faster), not just reach it.
        let peer =
            |p: &Peer, name: &str, target: f64, strict: bool, misses: &mut Vec<String>| match p {
                Peer::Absent(_) => ("-".to_string(), None),
                Peer::Runs(runs) => {
                    let r = per_run(runs, &self.ours, |p, o| p / o);
                    let m = median(&mut r.clone());
                    let met = waived || if strict { m > target } else { m >= target };
                    if !met {
                        misses.push(format!("{name} ({})", precise(m)));
                    }
                    (spread(&r, ratio), Some(met))
                }
            };
        let (ort, ort_met) = peer(&self.ort, "ORT", ORT_TARGET, true, &mut misses);
        let (tract, tract_met) = peer(&self.tract, "tract", TRACT_TARGET, false, &mut misses);
        let mut verdict = if misses.is_empty() {
            "ok".to_string()
        } else {
            format!("MISS: {}", misses.join(", "))
        };
        if waived && (ort_met.is_some() || tract_met.is_some()) {
            verdict.push_str(" (peers waived)");
        }
        let io = if self.io.len() == self.ours.len() {
            spread(&per_run(&self.ours, &self.io, |o, b| o / b), ratio)
        } else {
            "-".to_string()
        };
        let row = format!(
            "| {} | {} | {} | {} | {} ≤{} | {} | {} | {} |",
            markdown_name(&self.name),
            spread(&self.ours, ns),
            spread(&vs_base, ratio),
            io,
            self.target.baseline(),
            limit,
            ort,
            tract,
            verdict
        );
        let verdict = Verdict {
            io: (self.io.len() == self.ours.len())
                .then(|| median(&mut per_run(&self.ours, &self.io, |o, b| o / b))),
            base: base_median <= limit,
            ort: ort_met,
            tract: tract_met,
            misses,
        };
        (row, verdict)
    }
}

/// The op kinds, as cell names start (after a sample's own name).
const OP_KINDS: [&str; 9] = [
    "argmax",
    "argmin",
    "argmin-last",
    "reducemax",
    "reducemin",
    "hardmax13",
    "hardmax11",
    "max+argmax",
    "chain",
];

/// Prints, per op kind (and for the samples), how many cells meet each target.
fn print_summary(rows: &[(String, Verdict)]) {
    println!("| op | cells | ours/base | ORT/ours | tract/ours | every target |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let kind = |name: &str| -> &'static str {
        let first = name.split(' ').next().unwrap_or("");
        OP_KINDS
            .iter()
            .find(|k| **k == first)
            .copied()
            .unwrap_or("samples")
    };
    let count = |v: &[&Verdict], f: fn(&Verdict) -> Option<bool>| -> String {
        let measured = v.iter().filter(|x| f(x).is_some()).count();
        let met = v.iter().filter(|x| f(x) == Some(true)).count();
        if measured == 0 {
            "-".to_string()
        } else {
            format!("{met}/{measured}")
        }
    };
    for k in OP_KINDS.iter().copied().chain(["samples", "all"]) {
        let v: Vec<&Verdict> = rows
            .iter()
            .filter(|(name, _)| k == "all" || kind(name) == k)
            .map(|(_, v)| v)
            .collect();
        if v.is_empty() {
            continue;
        }
        println!(
            "| {k} | {} | {} | {} | {} | {} |",
            v.len(),
            count(&v, |x| Some(x.base)),
            count(&v, |x| x.ort),
            count(&v, |x| x.tract),
            count(&v, |x| Some(x.misses.is_empty())),
        );
    }
}

/// A cell's name for a Markdown table: its shape in backticks (`[262144,2]` would otherwise be
/// read as a link where the table is pasted, as rustdoc does with the README).
fn markdown_name(name: &str) -> String {
    match name.rfind(" [") {
        Some(i) => format!("{} `{}`", &name[..i], &name[i + 1..]),
        None => name.to_string(),
    }
}

const TABLE_HEADER: &str = "| cell | ours ns | ours/base | ours/io | target | ORT/ours | tract/ours | verdict |\n| --- | ---: | ---: | ---: | --- | ---: | ---: | --- |";

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string())
}

fn build_target() -> &'static str {
    if cfg!(target_feature = "avx512f") {
        "AVX-512 (target-cpu=native or similar, not the default target CPU)"
    } else if cfg!(target_feature = "avx2") {
        "AVX2 (target-cpu=native or similar, not the default target CPU)"
    } else {
        "the default target CPU (no target-cpu=native; x86-64 baseline on x86-64)"
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_string())
}

/// Command-line options.
struct Args {
    /// Timed (`cargo bench` passes `--bench`); otherwise every implementation runs once.
    timing: bool,
    quick: bool,
    filter: Vec<String>,
    save: Option<String>,
    merge: Vec<String>,
    /// `--ours`: time the generated code alone (debug against release builds).
    ours: bool,
    /// `--ratio DEBUG RELEASE`: saved `--ours` runs compared.
    ratio: Vec<String>,
    /// `--twins N`: the strided shims' run-time builds kept at level `N` or narrower (0 as
    /// written, 1 AVX2; `onnx_aot::__private::node::cap_twins`), to compare them on one CPU.
    twins: Option<u8>,
}

fn parse_args() -> Args {
    let mut args = Args {
        timing: false,
        quick: false,
        filter: Vec::new(),
        save: None,
        merge: Vec::new(),
        ours: false,
        ratio: Vec::new(),
        twins: None,
    };
    let mut test = false;
    let mut it = std::env::args().skip(1).peekable();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--bench" => args.timing = true,
            "--test" | "--list" => test = true,
            "--quick" => args.quick = true,
            "--filter" => args.filter.extend(it.next()),
            "--save" => args.save = it.next(),
            "--ours" => args.ours = true,
            "--twins" => {
                let level = it.next().and_then(|n| n.parse().ok());
                args.twins = Some(level.expect("--twins takes a level: 0, 1 or 2"));
            }
            "--ratio" => args.ratio.extend(it.next().into_iter().chain(it.next())),
            "--merge" => {
                while let Some(file) = it.next_if(|f| !f.starts_with("--")) {
                    args.merge.push(file);
                }
            }
            s if s.starts_with("--") => {} // options of the libtest harness, ignored
            s => args.filter.push(s.to_string()),
        }
    }
    args.timing &= !test;
    args
}

/// The cells selected by `--quick` and `--filter` (a part of the name, or a group: `sweep`,
/// `types`, `sample`, `breadth`).
fn selected(args: &Args) -> Vec<&'static Cell> {
    cells::all()
        .iter()
        .filter(|c| !args.quick || c.quick)
        .filter(|c| {
            args.filter.is_empty()
                || args
                    .filter
                    .iter()
                    .any(|f| c.name.contains(f.as_str()) || c.group == f)
        })
        .collect()
}

/// A peer ready to run, or why it is absent.
type PeerRunner = Result<Box<dyn Runner>, String>;

/// The generated code, the baseline and the peers of one cell, built and checked.
struct Prepared {
    ours: Box<dyn Runner>,
    base: Box<dyn Runner>,
    /// The input read and the outputs written once: not a target, the cell's traffic limit.
    io: Box<dyn Runner>,
    peers: Vec<(&'static str, PeerRunner)>,
    /// Ours disagrees with the reference.
    wrong: Option<String>,
    warnings: Vec<String>,
}

#[cfg(feature = "peers")]
type OrtEnv = Result<ort::environment::Environment, String>;
#[cfg(not(feature = "peers"))]
type OrtEnv = Result<(), String>;

fn ort_env() -> OrtEnv {
    #[cfg(feature = "peers")]
    return peers::ort_environment();
    #[cfg(not(feature = "peers"))]
    Err("not built (--features peers)".to_string())
}

fn prepare(cell: &Cell, index: usize, env: &OrtEnv, sampled: bool) -> Prepared {
    let numel: usize = cell.shape.iter().product();
    let input = random_input(cell.dtype, numel, 0x6d61_7472_6978 + index as u64);
    let mut ours = (cell.generated)(&input);
    let got = ours.outputs().expect("the generated code runs");
    let wrong = reference::check(cell.dtype, cell.shape, cell.compute, &input, &got, sampled);
    let base: Box<dyn Runner> = Box::new(baseline::Baseline::new(
        &input,
        cell.target == Target::Hardmax,
    ));
    let out_bytes = cell
        .outputs
        .iter()
        .map(|(dt, shape)| dt.size() * shape.iter().product::<usize>())
        .sum();
    let io: Box<dyn Runner> = Box::new(baseline::Baseline::io(&input, out_bytes));
    let mut peers: Vec<(&'static str, PeerRunner)> = Vec::new();
    #[cfg(feature = "peers")]
    {
        let ort = match env {
            Err(why) => Err(why.clone()),
            Ok(env) => peers::Ort::new(env, cell.model, cell.dtype, cell.shape, &input)
                .map(|o| Box::new(o) as Box<dyn Runner>),
        };
        peers.push(("ORT", ort));
        let tract = peers::Tract::new(cell.model, cell.dtype, cell.shape, &input)
            .map(|t| Box::new(t) as Box<dyn Runner>);
        peers.push(("tract", tract));
    }
    #[cfg(not(feature = "peers"))]
    {
        let why = env.as_ref().err().cloned().unwrap_or_default();
        peers.push(("ORT", Err(why.clone())));
        peers.push(("tract", Err(why)));
    }
    let mut warnings = Vec::new();
    for (name, runner) in &mut peers {
        if let Ok(r) = runner {
            match r.outputs() {
                Ok(out) => {
                    if let Some(d) = first_difference(cell.outputs, &got, &out) {
                        warnings.push(format!(
                            "{}: {name}'s result differs from ours: {d}",
                            cell.name
                        ));
                    }
                }
                // A peer that cannot run the model is left out, like one that cannot load it.
                Err(e) => *runner = Err(e),
            }
        }
        if let Err(e) = runner {
            // Keep the first line: ORT's and tract's messages run long.
            *e = e.lines().next().unwrap_or("").to_string();
        }
    }
    Prepared {
        ours,
        base,
        io,
        peers,
        wrong,
        warnings,
    }
}

/// What the checks of one cell found.
struct Summary {
    wrong: Option<String>,
    warnings: Vec<String>,
    /// Each peer, with why it is absent (`None`: run and compared).
    peers: Vec<(&'static str, Option<String>)>,
}

impl Prepared {
    fn summary(&mut self) -> Summary {
        Summary {
            wrong: self.wrong.take(),
            warnings: std::mem::take(&mut self.warnings),
            peers: self
                .peers
                .iter()
                .map(|(name, r)| (*name, r.as_ref().err().cloned()))
                .collect(),
        }
    }
}

/// The checks of every cell, printed as they come and summed up at the end.
#[derive(Default)]
struct Report {
    wrong: Vec<String>,
    warnings: Vec<String>,
    /// Why peers are absent, with the number of cells and their element types.
    absent: Vec<(String, usize, Vec<&'static str>)>,
    /// Peer results compared with ours.
    checked: usize,
}

impl Report {
    fn add(&mut self, cell: &Cell, s: Summary) {
        if let Some(w) = s.wrong {
            let msg = format!("{}: ours differs from the reference: {w}", cell.name);
            println!("WRONG: {msg}");
            self.wrong.push(msg);
        }
        for w in s.warnings {
            println!("WARNING: {w}");
            self.warnings.push(w);
        }
        for (name, why) in s.peers {
            match why {
                None => self.checked += 1,
                Some(why) => {
                    let key = format!("{name}: {why}");
                    let dt = cell.dtype.name();
                    match self.absent.iter_mut().find(|(k, _, _)| *k == key) {
                        Some((_, n, types)) => {
                            *n += 1;
                            if !types.contains(&dt) {
                                types.push(dt);
                            }
                        }
                        None => self.absent.push((key, 1, vec![dt])),
                    }
                }
            }
        }
    }
}

/// The position of a cell in the table (its input's seed).
fn index_of(cell: &Cell) -> usize {
    cells::all()
        .iter()
        .position(|c| std::ptr::eq(c, cell))
        .expect("a cell of the table")
}

/// Header lines of a saved run.
fn save_header() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!(
        "# onnx-aot benchmark matrix\n# cpu\t{}\n# build\t{}\n# unix-time\t{now}\ncell\ttarget\tours\tbase\tort\ttract\tio\n",
        cpu_name(),
        build_target()
    )
}

fn runs_text(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.1}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn peer_text(p: &Peer) -> String {
    match p {
        Peer::Runs(v) => runs_text(v),
        Peer::Absent(why) => format!("!{}", why.replace(['\t', '\n'], " ")),
    }
}

fn save_line(m: &Measured) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
        m.name,
        m.target.key(),
        runs_text(&m.ours),
        runs_text(&m.base),
        peer_text(&m.ort),
        peer_text(&m.tract),
        runs_text(&m.io)
    )
}

fn parse_runs(s: &str) -> Option<Vec<f64>> {
    s.split(',').map(|x| x.parse().ok()).collect()
}

fn parse_peer(s: &str) -> Option<Peer> {
    match s.strip_prefix('!') {
        Some(why) => Some(Peer::Absent(why.to_string())),
        None => parse_runs(s).map(Peer::Runs),
    }
}

/// `--merge`: one table over the runs of several saved files (min–max over all their runs).
fn merge(files: &[String]) -> Result<(), String> {
    let mut order: Vec<Measured> = Vec::new();
    let mut headers: Vec<(String, Vec<String>)> = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        for line in text.lines() {
            if let Some(h) = line.strip_prefix("# ") {
                if let Some((key, value)) = h.split_once('\t') {
                    match headers.iter_mut().find(|(k, _)| *k == key) {
                        None => headers.push((key.to_string(), vec![value.to_string()])),
                        Some((_, values)) => {
                            if !values.iter().any(|v| v == value) {
                                values.push(value.to_string());
                            }
                        }
                    }
                }
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            // Six fields in files saved before the `io` column.
            if !(6..=7).contains(&f.len()) || f[0] == "cell" {
                continue;
            }
            let bad = || format!("{file}: cannot read the line `{line}`");
            let m = Measured {
                name: f[0].to_string(),
                target: Target::from_key(f[1]).ok_or_else(bad)?,
                ours: parse_runs(f[2]).ok_or_else(bad)?,
                base: parse_runs(f[3]).ok_or_else(bad)?,
                ort: parse_peer(f[4]).ok_or_else(bad)?,
                tract: parse_peer(f[5]).ok_or_else(bad)?,
                io: match f.get(6) {
                    Some(io) => parse_runs(io).ok_or_else(bad)?,
                    None => Vec::new(),
                },
            };
            match order.iter_mut().find(|o| o.name == m.name) {
                None => order.push(m),
                Some(o) => {
                    o.ours.extend(m.ours);
                    o.base.extend(m.base);
                    o.io.extend(m.io);
                    for (mine, theirs) in [(&mut o.ort, m.ort), (&mut o.tract, m.tract)] {
                        match (mine, theirs) {
                            (Peer::Runs(a), Peer::Runs(b)) => a.extend(b),
                            (mine @ Peer::Absent(_), theirs @ Peer::Runs(_)) => *mine = theirs,
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    println!("merged: {}", files.join(", "));
    for (key, values) in &headers {
        println!("{key}: {}", values.join(" | "));
    }
    println!();
    println!("{TABLE_HEADER}");
    let mut rows = Vec::new();
    for m in &order {
        // A peer measured in only some files: its runs no longer pair with ours; keep pairs.
        let mut m = m.clone();
        for p in [&mut m.ort, &mut m.tract] {
            if let Peer::Runs(v) = p {
                if v.len() != m.ours.len() {
                    *p = Peer::Absent("not in every file".to_string());
                }
            }
        }
        let (row, verdict) = m.row();
        println!("{row}");
        rows.push((m.name, verdict));
    }
    println!();
    println!(
        "{} cells from {} files; {} miss a target",
        order.len(),
        files.len(),
        rows.iter().filter(|(_, v)| !v.misses.is_empty()).count()
    );
    for (name, v) in rows.iter().filter(|(_, v)| !v.misses.is_empty()) {
        println!("- {name}: {}", v.missed());
    }
    println!();
    print_summary(&rows);
    Ok(())
}

fn bench(args: Args) {
    if !args.merge.is_empty() {
        if let Err(e) = merge(&args.merge) {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
        return;
    }
    let all = cells::all();
    let cells = selected(&args);
    println!("# onnx-aot benchmark matrix (issue 14)");
    println!();
    println!("CPU: {}", cpu_name());
    println!("code built for: {}", build_target());
    println!("load average at start: {}", load_average());
    println!(
        "cells: {} in the matrix ({} sweep, {} types, {} samples, {} breadth), {} selected{}{}",
        all.len(),
        all.iter().filter(|c| c.group == "sweep").count(),
        all.iter().filter(|c| c.group == "types").count(),
        all.iter().filter(|c| c.group == "sample").count(),
        all.iter().filter(|c| c.group == "breadth").count(),
        cells.len(),
        if args.quick { ", --quick" } else { "" },
        if args.filter.is_empty() {
            String::new()
        } else {
            format!(", --filter {:?}", args.filter)
        }
    );
    for s in cells::skipped() {
        println!("left out (the generator refused it at build time): {s}");
    }
    let env = ort_env();
    if let Err(why) = &env {
        println!("ORT: {why}");
    }
    if cfg!(not(feature = "peers")) {
        println!(
            "peers not built: tract and ONNX Runtime are behind the `peers` feature \
             (`cargo bench -p onnx-aot-tests --bench matrix --features peers`, with ORT_DYLIB_PATH set)"
        );
    }
    let plan = if args.quick {
        Plan {
            warm_up: Duration::from_millis(5),
            run: Duration::from_millis(10),
            runs: 3,
        }
    } else {
        Plan {
            warm_up: Duration::from_millis(20),
            run: Duration::from_millis(50),
            runs: 3,
        }
    };
    if let [debug, release] = args.ratio.as_slice() {
        if let Err(e) = debug_speed::ratio(debug, release) {
            eprintln!("--ratio: {e}");
            std::process::exit(2);
        }
        return;
    }
    if args.ours && args.timing {
        let saved = debug_speed::time_ours(&cells, &plan);
        if let Some(path) = &args.save {
            std::fs::write(path, saved).expect("write the --save file");
            println!("saved to {path}");
        }
        return;
    }
    if args.timing {
        println!(
            "timing: {} runs of about {} ms per implementation and cell, interleaved; figures are \
             min–max over the runs of the median call",
            plan.runs,
            plan.run.as_millis()
        );
        println!(
            "targets: ours/base ≤ 1.3 (reductions, stream), ≤ 2 (arg, siblings, chain; stream), \
             ≤ 1.5 (Hardmax; rw = read+write); ORT/ours > 1; tract/ours ≥ 3; peer targets \
             waived when ours/base ≤ {WAIVER}"
        );
        println!();
        println!("{TABLE_HEADER}");
    } else {
        println!("not timed (run `cargo bench` for the table): each implementation runs once");
    }

    let mut saved = args.save.as_ref().map(|_| save_header());
    let mut report = Report::default();
    let mut missed = Vec::new();
    let mut verdicts = Vec::new();
    if !args.timing {
        // Not timed: every implementation once, on all cores (the debug build is slow).
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut done: Vec<(usize, Summary)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    std::thread::Builder::new()
                        .stack_size(STACK)
                        .spawn_scoped(scope, || {
                            let mut done = Vec::new();
                            loop {
                                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(cell) = cells.get(k) else { break };
                                let mut p = prepare(cell, index_of(cell), &env, true);
                                p.base.run();
                                p.io.run();
                                done.push((k, p.summary()));
                            }
                            done
                        })
                        .expect("spawn a worker")
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a worker panicked"))
                .collect()
        });
        done.sort_by_key(|(k, _)| *k);
        for (k, summary) in done {
            report.add(cells[k], summary);
        }
    }
    for cell in cells.iter().filter(|_| args.timing) {
        let mut p = prepare(cell, index_of(cell), &env, false);
        report.add(cell, p.summary());
        let mut timed: Vec<Timed<'_>> = Vec::new();
        timed.push(Timed::new(p.ours.as_mut(), &plan));
        timed.push(Timed::new(p.base.as_mut(), &plan));
        timed.push(Timed::new(p.io.as_mut(), &plan));
        let mut peer_names = Vec::new();
        let mut absent_peers = Vec::new();
        for (name, r) in &mut p.peers {
            match r {
                Ok(r) => {
                    peer_names.push(*name);
                    timed.push(Timed::new(r.as_mut(), &plan));
                }
                Err(why) => absent_peers.push((*name, why.clone())),
            }
        }
        for _ in 0..plan.runs {
            for t in &mut timed {
                t.run(&plan);
            }
        }
        let runs: Vec<Vec<f64>> = timed.into_iter().map(|t| t.runs).collect();
        let peer = |name: &str| -> Peer {
            match peer_names.iter().position(|n| *n == name) {
                Some(k) => Peer::Runs(runs[3 + k].clone()),
                None => Peer::Absent(
                    absent_peers
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, w)| w.clone())
                        .unwrap_or_default(),
                ),
            }
        };
        let m = Measured {
            name: cell.name.to_string(),
            target: cell.target,
            ours: runs[0].clone(),
            base: runs[1].clone(),
            io: runs[2].clone(),
            ort: peer("ORT"),
            tract: peer("tract"),
        };
        let (row, verdict) = m.row();
        println!("{row}");
        if !verdict.misses.is_empty() {
            missed.push(format!("{}: {}", cell.name, verdict.missed()));
        }
        verdicts.push((m.name.clone(), verdict));
        if let Some(s) = &mut saved {
            s.push_str(&save_line(&m));
        }
    }

    println!();
    println!("load average at the end: {}", load_average());
    if args.timing {
        println!(
            "{} cells timed; {} meet every measured target; {} miss one",
            cells.len(),
            cells.len() - missed.len(),
            missed.len()
        );
        for m in &missed {
            println!("- {m}");
        }
        println!();
        print_summary(&verdicts);
    } else {
        println!("{} cells run once and checked", cells.len());
    }
    let Report {
        wrong,
        warnings,
        absent,
        checked,
    } = report;
    if checked > 0 {
        println!(
            "peer results compared with ours: {checked} ({})",
            if warnings.is_empty() {
                "all equal"
            } else {
                "DIFFERENCES, see the warnings"
            }
        );
    }
    if !absent.is_empty() {
        println!("peer columns marked - (cells):");
        for (why, n, types) in &absent {
            println!("- {why} ({n} cells: {})", types.join(", "));
        }
    }
    if !warnings.is_empty() {
        println!("warnings:");
        for w in &warnings {
            println!("- {w}");
        }
    }
    if let (Some(path), Some(text)) = (&args.save, &saved) {
        match std::fs::write(path, text) {
            Ok(()) => println!("runs saved to {path}"),
            Err(e) => println!("cannot save the runs to {path}: {e}"),
        }
    }
    if !wrong.is_empty() {
        println!(
            "the generated code disagrees with the reference on {} cells:",
            wrong.len()
        );
        for w in &wrong {
            println!("- {w}");
        }
        std::process::exit(1);
    }
}

fn main() {
    let args = parse_args();
    if let Some(level) = args.twins {
        onnx_aot::__private::node::cap_twins(level);
    }
    std::thread::Builder::new()
        .name("matrix".into())
        .stack_size(STACK)
        .spawn(move || bench(args))
        .expect("spawn the benchmark thread")
        .join()
        .expect("the benchmark thread panicked");
}
