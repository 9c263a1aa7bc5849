//! The glue benchmark of issue 15: each pattern an exporter writes around a max-family node
//! (`benches/glue/*_glue.onnx`, written by `benches/glue/make_models.py`) against the same node
//! without it (`*_bare.onnx`), over the same data, in one process. The target: the glue within
//! 5% of the bare node.
//!
//! ```sh
//! cargo bench -p onnx-aot-tests --bench glue
//! ```
//!
//! Each implementation is warmed up, then the two are timed in alternation, five rounds of about
//! 40 ms each; a round's figure is its median batch per call, and the table shows the fastest
//! round of each and their ratio (with the spread of the ratio over the rounds). Before timing,
//! the two outputs are compared. `cargo test --benches` runs each model once.

use std::hint::black_box;
use std::time::{Duration, Instant};

use half::f16;

macro_rules! models {
    ($($name:ident = $file:literal;)*) => {
        $(onnx_aot::model!(mod $name = $file);)*
    };
}

models! {
    reshape_glue = "benches/glue/reshape_glue.onnx";
    reshape_bare = "benches/glue/reshape_bare.onnx";
    cast_after_glue = "benches/glue/cast_after_glue.onnx";
    cast_after_bare = "benches/glue/cast_after_bare.onnx";
    cast_before_glue = "benches/glue/cast_before_glue.onnx";
    cast_before_bare = "benches/glue/cast_before_bare.onnx";
    squeeze_glue = "benches/glue/squeeze_glue.onnx";
    squeeze_bare = "benches/glue/squeeze_bare.onnx";
    transpose_glue = "benches/glue/transpose_glue.onnx";
    transpose_bare = "benches/glue/transpose_bare.onnx";
    slice_glue = "benches/glue/slice_glue.onnx";
    slice_bare = "benches/glue/slice_bare.onnx";
    maxpool_glue = "benches/glue/maxpool_glue.onnx";
    maxpool_bare = "benches/glue/maxpool_bare.onnx";
}

/// Seeded pseudo-random values in [-1, 1).
fn values(n: usize) -> Vec<f32> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// A model ready to run: its inputs filled, its outputs allocated, a closure per call, and its
/// outputs as bytes for the comparison.
struct Runner {
    run: Box<dyn FnMut()>,
    outputs: Box<dyn Fn() -> Vec<u8>>,
}

/// A runner for a generated module: the input field `$x` filled from `$data`, the outputs read
/// through `run_bytes` for the comparison.
macro_rules! runner {
    ($m:ident, $x:ident, $data:expr) => {{
        let data: Vec<_> = $data;
        let mut inputs: Box<$m::Inputs> = Box::default();
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert!(fill(&mut inputs.$x, &data), "input size");
        let mut outputs: Box<$m::Outputs> = Box::default();
        let out_sizes = $m::OUTPUT_BYTES;
        Runner {
            run: Box::new(move || $m::run_into(black_box(&inputs), black_box(&mut outputs))),
            outputs: Box::new(move || {
                let mut outs: Vec<Vec<u8>> = out_sizes.iter().map(|&n| vec![0u8; n]).collect();
                let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
                $m::run_bytes(&[&bytes], &mut refs).expect("run_bytes");
                outs.concat()
            }),
        }
    }};
}

/// Copies `data` into a nested array of any rank, element by element; false on a size mismatch.
fn fill<A: Fill<T>, T: Copy>(target: &mut A, data: &[T]) -> bool {
    let mut it = data.iter().copied();
    target.fill_from(&mut it);
    it.next().is_none()
}

/// Filling nested arrays from an iterator, whatever their rank.
trait Fill<T> {
    fn fill_from(&mut self, it: &mut dyn Iterator<Item = T>);
}

macro_rules! leaf {
    ($($t:ty)*) => {$(
        impl Fill<$t> for $t {
            fn fill_from(&mut self, it: &mut dyn Iterator<Item = $t>) {
                if let Some(v) = it.next() {
                    *self = v;
                }
            }
        }
    )*};
}
leaf!(f32 f16);

impl<T, A: Fill<T>, const N: usize> Fill<T> for [A; N] {
    fn fill_from(&mut self, it: &mut dyn Iterator<Item = T>) {
        for a in self.iter_mut() {
            a.fill_from(it);
        }
    }
}

/// The median time per call of one batch run for about `budget`.
fn round(run: &mut dyn FnMut(), budget: Duration) -> f64 {
    let mut times = Vec::new();
    let start = Instant::now();
    while start.elapsed() < budget || times.len() < 5 {
        let t = Instant::now();
        let mut calls = 0u32;
        while t.elapsed() < Duration::from_micros(200) || calls == 0 {
            run();
            calls += 1;
        }
        times.push(t.elapsed().as_nanos() as f64 / f64::from(calls));
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn pairs() -> Vec<(&'static str, Runner, Runner)> {
    let mega = values(1 << 20);
    let classes = values(4096 * 256);
    let head = values(84 * 8400);
    let maps = values(512 * 32 * 32);
    let halves: Vec<f16> = classes.iter().map(|&v| f16::from_f32(v)).collect();
    vec![
        (
            "Reshape [-1] + ArgMax (x.argmax())",
            runner!(reshape_glue, x, mega.clone()),
            runner!(reshape_bare, x, mega),
        ),
        (
            "ArgMax + Cast to INT32",
            runner!(cast_after_glue, x, classes.clone()),
            runner!(cast_after_bare, x, classes.clone()),
        ),
        (
            "Cast to FLOAT16 + ArgMax (x.half())",
            runner!(cast_before_glue, x, classes.clone()),
            runner!(cast_before_bare, x, halves),
        ),
        (
            "ReduceMax keepdims + Squeeze",
            runner!(squeeze_glue, x, classes.clone()),
            runner!(squeeze_bare, x, classes),
        ),
        (
            "Transpose (0, 2, 1) + ReduceMax + ArgMax",
            runner!(transpose_glue, x, head.clone()),
            runner!(transpose_bare, x, head.clone()),
        ),
        (
            "Slice [:, 4:, :] + ArgMax",
            runner!(slice_glue, x, head.clone()),
            runner!(slice_bare, x, head[4 * 8400..].to_vec()),
        ),
        (
            "MaxPool over the whole map",
            runner!(maxpool_glue, x, maps.clone()),
            runner!(maxpool_bare, x, maps),
        ),
    ]
}

fn main() {
    // `Box::default()` builds the value on the stack first (in debug builds): a
    // thread with room for the largest (8 MiB).
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(bench)
        .expect("spawn")
        .join()
        .expect("the benchmark thread");
}

fn bench() {
    // `cargo bench` passes --bench; `cargo test --benches` does not (or passes --test).
    let args: Vec<String> = std::env::args().collect();
    let test_only = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test");
    let mut rows = Vec::new();
    for (name, mut glue, mut bare) in pairs() {
        // The glue's outputs are the bare node's (Cast to INT32 is compared by value).
        let (g, b) = ((glue.outputs)(), (bare.outputs)());
        let same = if name.starts_with("ArgMax + Cast") {
            let g: Vec<i64> = g
                .chunks(4)
                .map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .collect();
            let b: Vec<i64> = b
                .chunks(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            g == b
        } else {
            g == b
        };
        assert!(
            same,
            "{name}: the glue's outputs differ from the bare node's"
        );
        if test_only {
            (glue.run)();
            (bare.run)();
            continue;
        }
        for _ in 0..3 {
            (glue.run)();
            (bare.run)();
        }
        let mut ratios = Vec::new();
        let (mut best_g, mut best_b) = (f64::MAX, f64::MAX);
        for _ in 0..5 {
            let tg = round(&mut *glue.run, Duration::from_millis(40));
            let tb = round(&mut *bare.run, Duration::from_millis(40));
            best_g = best_g.min(tg);
            best_b = best_b.min(tb);
            ratios.push(tg / tb);
        }
        ratios.sort_by(f64::total_cmp);
        rows.push((name, best_g, best_b, ratios[0], ratios[ratios.len() - 1]));
    }
    if test_only {
        println!("glue: every pattern ran once and matched its bare node");
        return;
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    println!("glue patterns against the same node without them ({cpu}, default target CPU)");
    println!();
    println!("| pattern | glue ns | bare ns | glue / bare (min–max over rounds) | within 5% |");
    println!("| --- | ---: | ---: | ---: | --- |");
    for (name, g, b, lo, hi) in rows {
        let verdict = if g / b <= 1.05 { "yes" } else { "no" };
        println!(
            "| {name} | {g:.0} | {b:.0} | {:.3} ({lo:.3}–{hi:.3}) | {verdict} |",
            g / b
        );
    }
}
