//! The benchmark of issue 5: the generated code against its peers, in one process.
//!
//! ```sh
//! cargo bench -p onnx-aot-tests --bench peers                      # generated code and streaming baseline
//! export ORT_DYLIB_PATH="$(bash tests/benches/ort_dylib.sh)"       # ONNX Runtime from its PyPI wheel
//! cargo bench -p onnx-aot-tests --bench peers --features peers     # + tract-onnx and ONNX Runtime
//! ```
//!
//! Each workload W1..W9 is one ONNX file in `benches/models/` (written by `make_models.py`). The
//! same file and the same seeded random input go through:
//! - **generated**: the `onnx_aot::model!` expansion, `run_into` on preallocated, heap-allocated
//!   `Inputs`/`Outputs`;
//! - **tract**: tract-onnx, `into_optimized()?.into_runnable()?`, one state spawned once and run
//!   for every call (the input is an `Arc`-shared `TValue`, so no copy is timed);
//! - **ORT**: ONNX Runtime through the `ort` crate (`load-dynamic`, from `$ORT_DYLIB_PATH`), one
//!   intra-op thread, the input tensor created once, `Session::run` per call;
//! - **streaming**: the simplest vectorizable loop that reads the input once (a max fold): the
//!   practical limit for the generated code.
//!
//! Before timing, the tract and ORT results are compared with the generated code's (a warning is
//! printed on any difference). Criterion times every pair; its samples are also kept here, and the
//! run ends with a table of medians (ns per call), the ratios and the targets of issue 5.
//!
//! `cargo test --benches` (or `-- --test`) runs every implementation once and checks results,
//! without timing.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::Criterion;

onnx_aot::model!(mod w1 = "benches/models/w1_argmax_1x1000.onnx");
onnx_aot::model!(mod w2 = "benches/models/w2_argmax_64x1000.onnx");
onnx_aot::model!(mod w3 = "benches/models/w3_reducemax_middle.onnx");
onnx_aot::model!(mod w4 = "benches/models/w4_reducemax_leading.onnx");
onnx_aot::model!(mod w5 = "benches/models/w5_hardmax13.onnx");
onnx_aot::model!(mod w6 = "benches/models/w6_hardmax11.onnx");
onnx_aot::model!(mod w7 = "benches/models/w7_reducemax_u8.onnx");
onnx_aot::model!(mod w8 = "benches/models/w8_chain.onnx");
onnx_aot::model!(mod w9 = "benches/models/w9_argmax_leading.onnx");

/// Criterion's samples per benchmark (its minimum); its timings are shortened to match, so that
/// the whole run, peers included, stays within a few minutes on two cores.
const SAMPLE_SIZE: usize = 10;
const WARM_UP: Duration = Duration::from_millis(300);
const MEASUREMENT: Duration = Duration::from_millis(1200);

/// The stack of the thread that runs the benchmark: large enough for any `Inputs`/`Outputs`
/// temporary (the largest tensor is 4 MiB), although they are built straight into a `Box`.
const STACK: usize = 256 << 20;

/// A tensor's elements, flat, in row-major order.
#[derive(Clone, Debug, PartialEq)]
enum Data {
    F32(Vec<f32>),
    U8(Vec<u8>),
    I64(Vec<i64>),
}

/// The element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    F32,
    U8,
    I64,
}

impl Data {
    fn kind(&self) -> Kind {
        match self {
            Data::F32(_) => Kind::F32,
            Data::U8(_) => Kind::U8,
            Data::I64(_) => Kind::I64,
        }
    }

    fn f32(&self) -> &[f32] {
        match self {
            Data::F32(v) => v,
            _ => panic!("not f32: {self:?}"),
        }
    }

    fn u8(&self) -> &[u8] {
        match self {
            Data::U8(v) => v,
            _ => panic!("not u8: {self:?}"),
        }
    }

    /// Seeded random values: f32 uniform in [-1, 1) on a 2^-23 grid, u8 uniform.
    fn random(kind: Kind, len: usize, seed: u64) -> Data {
        let mut state = seed;
        let mut next = move || {
            // splitmix64
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        match kind {
            Kind::F32 => Data::F32(
                (0..len)
                    .map(|_| (next() >> 40) as f32 / (1u32 << 23) as f32 - 1.0)
                    .collect(),
            ),
            Kind::U8 => Data::U8((0..len).map(|_| (next() >> 56) as u8).collect()),
            Kind::I64 => Data::I64((0..len).map(|_| next() as i64).collect()),
        }
    }

    /// The first index where `self` and `other` differ, with both values, or `None`.
    fn first_difference(&self, other: &Data) -> Option<String> {
        fn diff<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T]) -> Option<String> {
            if a.len() != b.len() {
                return Some(format!("{} elements instead of {}", b.len(), a.len()));
            }
            let i = a.iter().zip(b).position(|(x, y)| x != y)?;
            let count = a.iter().zip(b).filter(|(x, y)| x != y).count();
            Some(format!(
                "{count} of {} elements differ, the first at flat index {i}: {:?} (generated) vs {:?}",
                a.len(),
                a[i],
                b[i]
            ))
        }
        match (self, other) {
            (Data::F32(a), Data::F32(b)) => diff(a, b),
            (Data::U8(a), Data::U8(b)) => diff(a, b),
            (Data::I64(a), Data::I64(b)) => diff(a, b),
            _ => Some(format!("element types differ: {self:?} vs {other:?}")),
        }
    }
}

/// One implementation of one workload, ready to be called again and again.
trait Runner {
    /// One call. Outputs are written (and kept from being optimized away) but not read.
    fn run(&mut self);
    /// One call, returning the outputs (for the correctness check, outside timing).
    fn output(&mut self) -> Data;
}

/// Flattens a nested array of rank `$rank` into a slice of its elements.
macro_rules! flat {
    ($e:expr, 1) => {
        &$e[..]
    };
    ($e:expr, 2) => {
        $e.as_flattened()
    };
    ($e:expr, 3) => {
        $e.as_flattened().as_flattened()
    };
    ($e:expr, 4) => {
        $e.as_flattened().as_flattened().as_flattened()
    };
}

macro_rules! flat_mut {
    ($e:expr, 2) => {
        $e.as_flattened_mut()
    };
    ($e:expr, 3) => {
        $e.as_flattened_mut().as_flattened_mut()
    };
    ($e:expr, 4) => {
        $e.as_flattened_mut().as_flattened_mut().as_flattened_mut()
    };
}

/// A [`Runner`] over a generated module `$m` whose graph input `x` has rank `$in_rank` and
/// element accessor `$elem` (a [`Data`] method), and whose output `y` has rank `$out_rank` and
/// [`Data`] variant `$out`.
macro_rules! generated {
    ($m:ident, $in_rank:tt, $elem:ident, $out_rank:tt, $out:ident) => {{
        struct Generated {
            inputs: Box<$m::Inputs>,
            outputs: Box<$m::Outputs>,
        }
        impl Runner for Generated {
            fn run(&mut self) {
                $m::run_into(black_box(&self.inputs), black_box(&mut self.outputs));
            }
            fn output(&mut self) -> Data {
                self.run();
                Data::$out(flat!(self.outputs.y, $out_rank).to_vec())
            }
        }
        |input: &Data| -> Box<dyn Runner> {
            let mut inputs = Box::new($m::Inputs::zeroed());
            flat_mut!(inputs.x, $in_rank).copy_from_slice(input.$elem());
            Box::new(Generated {
                inputs,
                outputs: Box::new($m::Outputs::zeroed()),
            })
        }
    }};
}

/// The streaming baseline: a max fold over the input, in independent lanes so that it
/// vectorizes without reassociating anything (16 lanes for f32: more gain nothing here).
struct Streaming(Data);

// Not inlined: inlined into `Streaming::run`, the u8 lanes were kept in memory (4x slower).
#[inline(never)]
fn max_fold_f32(x: &[f32]) -> f32 {
    const LANES: usize = 16;
    let mut acc = [f32::NEG_INFINITY; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (a, &v) in acc.iter_mut().zip(chunk) {
            *a = if v > *a { v } else { *a };
        }
    }
    acc.iter()
        .chain(rest)
        .fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m })
}

/// The same in 64 lanes (a plain `fold(0, u8::max)` is about 25% slower here).
#[inline(never)]
fn max_fold_u8(x: &[u8]) -> u8 {
    const LANES: usize = 64;
    let mut acc = [0u8; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (a, &v) in acc.iter_mut().zip(chunk) {
            *a = (*a).max(v);
        }
    }
    acc.iter().chain(rest).fold(0, |m, &v| m.max(v))
}

impl Runner for Streaming {
    fn run(&mut self) {
        match black_box(&self.0) {
            Data::F32(x) => {
                black_box(max_fold_f32(x));
            }
            Data::U8(x) => {
                black_box(max_fold_u8(x));
            }
            Data::I64(_) => unreachable!("no i64 inputs"),
        }
    }
    fn output(&mut self) -> Data {
        match &self.0 {
            Data::F32(x) => Data::F32(vec![max_fold_f32(x)]),
            Data::U8(x) => Data::U8(vec![max_fold_u8(x)]),
            Data::I64(_) => unreachable!("no i64 inputs"),
        }
    }
}

/// One workload of issue 5.
struct Workload {
    id: &'static str,
    what: &'static str,
    file: &'static str,
    shape: &'static [usize],
    input: Kind,
    output: Kind,
    /// The largest generated/streaming ratio the issue accepts, if it sets one.
    streaming_target: Option<f64>,
    /// The smallest ORT/generated ratio the issue asks for (above 1: faster).
    ort_target: f64,
    generated: fn(&Data) -> Box<dyn Runner>,
}

/// The smallest tract/generated ratio the issue asks for, on every workload.
const TRACT_TARGET: f64 = 3.0;

fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            id: "W1",
            what: "ArgMax [1, 1000] axis -1",
            file: "w1_argmax_1x1000.onnx",
            shape: &[1, 1000],
            input: Kind::F32,
            output: Kind::I64,
            streaming_target: Some(2.0),
            ort_target: 10.0,
            generated: generated!(w1, 2, f32, 1, I64),
        },
        Workload {
            id: "W2",
            what: "ArgMax [64, 1000] axis 1",
            file: "w2_argmax_64x1000.onnx",
            shape: &[64, 1000],
            input: Kind::F32,
            output: Kind::I64,
            streaming_target: Some(2.0),
            ort_target: 1.0,
            generated: generated!(w2, 2, f32, 1, I64),
        },
        Workload {
            id: "W3",
            what: "ReduceMax-18 [256, 256, 16] axes [1]",
            file: "w3_reducemax_middle.onnx",
            shape: &[256, 256, 16],
            input: Kind::F32,
            output: Kind::F32,
            streaming_target: Some(1.3),
            ort_target: 1.0,
            generated: generated!(w3, 3, f32, 3, F32),
        },
        Workload {
            id: "W4",
            what: "ReduceMax-18 [1024, 1024] axes [0]",
            file: "w4_reducemax_leading.onnx",
            shape: &[1024, 1024],
            input: Kind::F32,
            output: Kind::F32,
            streaming_target: Some(1.3),
            ort_target: 1.0,
            generated: generated!(w4, 2, f32, 1, F32),
        },
        Workload {
            id: "W5",
            what: "Hardmax-13 [128, 1000] axis -1",
            file: "w5_hardmax13.onnx",
            shape: &[128, 1000],
            input: Kind::F32,
            output: Kind::F32,
            streaming_target: Some(2.0),
            ort_target: 1.0,
            generated: generated!(w5, 2, f32, 2, F32),
        },
        Workload {
            id: "W6",
            what: "Hardmax-11 [8, 16, 16, 16] axis 1",
            file: "w6_hardmax11.onnx",
            shape: &[8, 16, 16, 16],
            input: Kind::F32,
            output: Kind::F32,
            streaming_target: None,
            ort_target: 1.0,
            generated: generated!(w6, 4, f32, 4, F32),
        },
        Workload {
            id: "W7",
            what: "ReduceMax-18 u8 [4096, 256] axes [1]",
            file: "w7_reducemax_u8.onnx",
            shape: &[4096, 256],
            input: Kind::U8,
            output: Kind::U8,
            streaming_target: Some(1.3),
            ort_target: 1.0,
            generated: generated!(w7, 2, u8, 1, U8),
        },
        Workload {
            id: "W8",
            what: "ReduceMax > Hardmax > ArgMax [32, 64, 64]",
            file: "w8_chain.onnx",
            shape: &[32, 64, 64],
            input: Kind::F32,
            output: Kind::I64,
            streaming_target: None,
            ort_target: 1.0,
            generated: generated!(w8, 3, f32, 2, I64),
        },
        Workload {
            id: "W9",
            what: "ArgMax [1024, 1024] axis 0",
            file: "w9_argmax_leading.onnx",
            shape: &[1024, 1024],
            input: Kind::F32,
            output: Kind::I64,
            streaming_target: Some(2.0),
            ort_target: 1.0,
            generated: generated!(w9, 2, f32, 1, I64),
        },
    ]
}

fn model_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("benches/models")
        .join(file)
}

/// The peers, compiled in only with the `peers` feature.
#[cfg(feature = "peers")]
mod peers {
    use super::{black_box, model_path, Data, Kind, Runner};

    /// tract-onnx: optimized, runnable plan; one state, spawned once, run for every call.
    pub struct Tract {
        state: tract_onnx::prelude::TypedSimpleState,
        input: tract_onnx::prelude::TValue,
        output: Kind,
    }

    impl Tract {
        pub fn new(
            file: &str,
            shape: &[usize],
            input: &Data,
            output: Kind,
        ) -> Result<Self, String> {
            use tract_onnx::prelude::*;
            let plan = tract_onnx::onnx()
                .model_for_path(model_path(file))
                .and_then(|m| m.into_optimized())
                .and_then(|m| m.into_runnable())
                .map_err(|e| format!("{e:?}"))?;
            let state = plan.spawn().map_err(|e| format!("{e:?}"))?;
            let tensor = match input {
                Data::F32(v) => Tensor::from_shape(shape, v),
                Data::U8(v) => Tensor::from_shape(shape, v),
                Data::I64(v) => Tensor::from_shape(shape, v),
            }
            .map_err(|e| format!("{e:?}"))?;
            Ok(Tract {
                state,
                input: tensor.into_tvalue(),
                output,
            })
        }

        fn call(&mut self) -> tract_onnx::prelude::TVec<tract_onnx::prelude::TValue> {
            use tract_onnx::prelude::tvec;
            self.state
                .run(tvec![self.input.clone()])
                .expect("tract runs")
        }
    }

    impl Runner for Tract {
        fn run(&mut self) {
            black_box(self.call());
        }
        fn output(&mut self) -> Data {
            let out = self.call();
            let t = &out[0];
            match self.output {
                Kind::F32 => Data::F32(
                    t.to_plain_array_view::<f32>()
                        .unwrap()
                        .iter()
                        .copied()
                        .collect(),
                ),
                Kind::U8 => Data::U8(
                    t.to_plain_array_view::<u8>()
                        .unwrap()
                        .iter()
                        .copied()
                        .collect(),
                ),
                Kind::I64 => Data::I64(
                    t.to_plain_array_view::<i64>()
                        .unwrap()
                        .iter()
                        .copied()
                        .collect(),
                ),
            }
        }
    }

    /// ONNX Runtime, loaded from `$ORT_DYLIB_PATH`.
    pub struct Ort {
        session: ort::session::Session,
        input: ort::value::DynValue,
        output: Kind,
    }

    /// Loads ONNX Runtime and builds its environment once; `Err` says why ORT is skipped.
    pub fn ort_environment() -> Result<ort::environment::Environment, String> {
        let path = std::env::var_os("ORT_DYLIB_PATH").ok_or_else(|| {
            "ORT_DYLIB_PATH not set; pip install onnxruntime and point it at libonnxruntime.so \
             (`export ORT_DYLIB_PATH=\"$(bash tests/benches/ort_dylib.sh)\"`)"
                .to_string()
        })?;
        let builder = ort::init_from(&path).map_err(|e| format!("cannot load {path:?}: {e}"))?;
        builder
            .build()
            .map_err(|e| format!("cannot start ONNX Runtime: {e}"))
    }

    impl Ort {
        pub fn new(
            env: &ort::environment::Environment,
            file: &str,
            shape: &[usize],
            input: &Data,
            output: Kind,
        ) -> Result<Self, String> {
            use ort::value::Tensor;
            let session = ort::session::Session::builder(env)
                .map_err(|e| e.to_string())?
                .with_intra_threads(1)
                .map_err(|e| e.to_string())?
                .with_inter_threads(1)
                .map_err(|e| e.to_string())?
                .commit_from_file(model_path(file))
                .map_err(|e| e.to_string())?;
            let shape: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            let input = match input {
                Data::F32(v) => Tensor::from_array((shape, v.clone())).map(|t| t.into_dyn()),
                Data::U8(v) => Tensor::from_array((shape, v.clone())).map(|t| t.into_dyn()),
                Data::I64(v) => Tensor::from_array((shape, v.clone())).map(|t| t.into_dyn()),
            }
            .map_err(|e| e.to_string())?;
            Ok(Ort {
                session,
                input,
                output,
            })
        }
    }

    impl Runner for Ort {
        fn run(&mut self) {
            let out = self
                .session
                .run(ort::inputs![&self.input])
                .expect("ONNX Runtime runs");
            black_box(&out);
        }
        fn output(&mut self) -> Data {
            let out = self
                .session
                .run(ort::inputs![&self.input])
                .expect("ONNX Runtime runs");
            let v = &out[0];
            match self.output {
                Kind::F32 => Data::F32(v.try_extract_tensor::<f32>().unwrap().1.to_vec()),
                Kind::U8 => Data::U8(v.try_extract_tensor::<u8>().unwrap().1.to_vec()),
                Kind::I64 => Data::I64(v.try_extract_tensor::<i64>().unwrap().1.to_vec()),
            }
        }
    }
}

/// Median nanoseconds per call of each implementation of one workload (`None`: not run).
struct Row {
    generated: Option<f64>,
    tract: Option<f64>,
    ort: Option<f64>,
    streaming: Option<f64>,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Benchmarks `runner` under criterion and returns the median of criterion's own samples (ns per
/// call): its measurement calls are the last `SAMPLE_SIZE` calls of the routine, after warm-up.
fn measure(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    runner: &mut dyn Runner,
) -> Option<f64> {
    let mut samples = Vec::new();
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                runner.run();
            }
            let elapsed = start.elapsed();
            samples.push(elapsed.as_nanos() as f64 / iters.max(1) as f64);
            elapsed
        })
    });
    let keep = samples.len().min(SAMPLE_SIZE);
    median(samples.split_off(samples.len() - keep))
}

/// Whether criterion times (as `cargo bench` asks) rather than runs each benchmark once.
fn benchmark_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    has("--bench")
        && !has("--test")
        && !has("--list")
        && !args.iter().any(|a| a.starts_with("--profile-time"))
}

fn bench_all() {
    let timing = benchmark_mode();
    let mut criterion = Criterion::default()
        .sample_size(SAMPLE_SIZE)
        .warm_up_time(WARM_UP)
        .measurement_time(MEASUREMENT)
        .configure_from_args();

    #[cfg(feature = "peers")]
    let ort_env = match peers::ort_environment() {
        Ok(env) => Some(env),
        Err(why) => {
            println!("ORT skipped: {why}");
            None
        }
    };
    #[cfg(not(feature = "peers"))]
    println!(
        "peers not built: tract and ONNX Runtime are behind the `peers` feature of \
         onnx-aot-tests; run `cargo bench -p onnx-aot-tests --bench peers --features peers` \
         (and set ORT_DYLIB_PATH, see tests/benches/ort_dylib.sh)"
    );

    let workloads = workloads();
    println!("workloads (models in {}):", model_path("").display());
    for w in &workloads {
        println!("- {} {}: {}", w.id, w.what, w.file);
    }
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    let mut checked: Vec<String> = Vec::new();
    for (index, w) in workloads.iter().enumerate() {
        let numel: usize = w.shape.iter().product();
        let input = Data::random(w.input, numel, 0x5eed_0000 + index as u64);
        let mut generated = (w.generated)(&input);
        let mut streaming = Streaming(input.clone());
        let expected = generated.output();
        assert_eq!(expected.kind(), w.output, "{}: output type", w.id);

        let mut peer_runners: Vec<(&str, Option<Box<dyn Runner>>)> = Vec::new();
        #[cfg(feature = "peers")]
        {
            let tract = peers::Tract::new(w.file, w.shape, &input, w.output);
            peer_runners.push((
                "tract",
                match tract {
                    Ok(t) => Some(Box::new(t)),
                    Err(e) => {
                        warnings.push(format!("{}: tract failed to load the model: {e}", w.id));
                        None
                    }
                },
            ));
            peer_runners.push((
                "ORT",
                match &ort_env {
                    None => None,
                    Some(env) => match peers::Ort::new(env, w.file, w.shape, &input, w.output) {
                        Ok(o) => Some(Box::new(o)),
                        Err(e) => {
                            warnings.push(format!("{}: ORT failed to load the model: {e}", w.id));
                            None
                        }
                    },
                },
            ));
        }
        for (name, runner) in &mut peer_runners {
            if let Some(r) = runner {
                checked.push(format!("{} {name}", w.id));
                if let Some(d) = expected.first_difference(&r.output()) {
                    let msg = format!(
                        "{}: {name}'s result differs from the generated code's: {d}",
                        w.id
                    );
                    println!("WARNING: {msg}");
                    warnings.push(msg);
                }
            }
        }

        let group_name = format!("{} {}", w.id, w.what);
        let mut group = criterion.benchmark_group(group_name);
        let mut row = Row {
            generated: measure(&mut group, "generated", generated.as_mut()),
            tract: None,
            ort: None,
            streaming: None,
        };
        for (name, runner) in &mut peer_runners {
            if let Some(r) = runner {
                let m = measure(&mut group, name, r.as_mut());
                match *name {
                    "tract" => row.tract = m,
                    _ => row.ort = m,
                }
            }
        }
        row.streaming = measure(&mut group, "streaming", &mut streaming);
        group.finish();
        rows.push(row);
    }
    criterion.final_summary();

    if timing {
        print_table(&workloads, &rows);
    } else {
        println!("(not timed: run `cargo bench` for the table)");
    }
    if !checked.is_empty() {
        println!(
            "\nresults compared with the generated code's before timing ({} runs): {}",
            checked.len(),
            if warnings.iter().any(|w| w.contains("differs")) {
                "DIFFERENCES, see the warnings"
            } else {
                "all equal"
            }
        );
    }
    if !warnings.is_empty() {
        println!("\nwarnings:");
        for w in &warnings {
            println!("- {w}");
        }
    }
}

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

fn print_table(workloads: &[Workload], rows: &[Row]) {
    let ns = |v: Option<f64>| match v {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.1}"),
        None => "-".to_string(),
    };
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let mut misses = Vec::new();
    let mut mark = |id: &str, r: Option<f64>, ok: Option<bool>, target: &str| -> String {
        match (r, ok) {
            (None, _) => "-".to_string(),
            (Some(r), None) => format!("{r:.2}"),
            (Some(r), Some(true)) => format!("{r:.2} ok"),
            (Some(r), Some(false)) => {
                misses.push(format!("{id} {target} (got {r:.2})"));
                format!("{r:.2} MISSED ({target})")
            }
        }
    };

    let features = if cfg!(target_feature = "avx512f") {
        "AVX-512"
    } else if cfg!(target_feature = "avx2") {
        "AVX2"
    } else {
        "baseline x86-64 (SSE2), the default target CPU"
    };
    println!();
    println!("## onnx-aot vs peers: median ns per call (one process, one thread)");
    println!();
    println!("CPU: {}; code built for {features}", cpu_name());
    println!();
    println!(
        "| workload | generated | tract | ORT | streaming | tract/generated (>= 3) | ORT/generated (> 1; W1 >= 10) | generated/streaming (W3,W4,W7 <= 1.3; W1,W2,W5,W9 <= 2) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | --- | --- | --- |");
    for (w, r) in workloads.iter().zip(rows) {
        let t = ratio(r.tract, r.generated);
        let o = ratio(r.ort, r.generated);
        let s = ratio(r.generated, r.streaming);
        let ort_target = if w.ort_target > 1.0 {
            format!(">= {}", w.ort_target)
        } else {
            "> 1".to_string()
        };
        let t_mark = mark(
            w.id,
            t,
            t.map(|t| t >= TRACT_TARGET),
            "tract/generated >= 3",
        );
        let o_mark = mark(
            w.id,
            o,
            o.map(|o| {
                if w.ort_target > 1.0 {
                    o >= w.ort_target
                } else {
                    o > 1.0
                }
            }),
            &format!("ORT/generated {ort_target}"),
        );
        let s_mark = mark(
            w.id,
            s,
            w.streaming_target.and_then(|limit| s.map(|s| s <= limit)),
            &format!(
                "generated/streaming <= {}",
                w.streaming_target.unwrap_or(0.0)
            ),
        );
        println!(
            "| {} {} | {} | {} | {} | {} | {t_mark} | {o_mark} | {s_mark} |",
            w.id,
            w.what,
            ns(r.generated),
            ns(r.tract),
            ns(r.ort),
            ns(r.streaming),
        );
    }
    println!();
    if misses.is_empty() {
        println!("targets: all measured targets met");
    } else {
        println!("targets missed: {}", misses.join("; "));
    }
    if rows.iter().any(|r| r.tract.is_none() || r.ort.is_none()) {
        println!("(- : not run; see above for why)");
    }
}

fn main() {
    std::thread::Builder::new()
        .name("peers".into())
        .stack_size(STACK)
        .spawn(bench_all)
        .expect("spawn the benchmark thread")
        .join()
        .expect("the benchmark thread panicked");
}
