//! Debug against release on small models: the official ONNX node tests' models (2 to 60
//! elements) that need no binding, through the macro, timed as a user's crate runs them.
//! Their release calls take 1.5 to 30 ns, so the fixed cost of a debug build's unoptimized
//! generated code (`run_into`, flattening the nested arrays, one call per node) shows here,
//! where the benchmark matrix (2 MiB inputs) does not (issue 17 item 4).
//!
//! ```sh
//! cargo bench -p onnx-aot-tests --bench small_models --profile dev -- --save debug.tsv
//! cargo bench -p onnx-aot-tests --bench small_models -- --ratio debug.tsv
//! ```
//!
//! Inputs are all zeros (every element ties): the same calls and loops as any other values.

use std::hint::black_box;
use std::time::Instant;

onnx_aot::model!(mod argmax_default_axis_example = "data/node/test_argmax_default_axis_example/model.onnx");
onnx_aot::model!(mod argmax_default_axis_example_select_last_index = "data/node/test_argmax_default_axis_example_select_last_index/model.onnx");
onnx_aot::model!(mod argmax_default_axis_random = "data/node/test_argmax_default_axis_random/model.onnx");
onnx_aot::model!(mod argmax_default_axis_random_select_last_index = "data/node/test_argmax_default_axis_random_select_last_index/model.onnx");
onnx_aot::model!(mod argmax_keepdims_example = "data/node/test_argmax_keepdims_example/model.onnx");
onnx_aot::model!(mod argmax_keepdims_example_select_last_index = "data/node/test_argmax_keepdims_example_select_last_index/model.onnx");
onnx_aot::model!(mod argmax_keepdims_random = "data/node/test_argmax_keepdims_random/model.onnx");
onnx_aot::model!(mod argmax_keepdims_random_select_last_index = "data/node/test_argmax_keepdims_random_select_last_index/model.onnx");
onnx_aot::model!(mod argmax_negative_axis_keepdims_example = "data/node/test_argmax_negative_axis_keepdims_example/model.onnx");
onnx_aot::model!(mod argmax_negative_axis_keepdims_example_select_last_index = "data/node/test_argmax_negative_axis_keepdims_example_select_last_index/model.onnx");
onnx_aot::model!(mod argmax_negative_axis_keepdims_random = "data/node/test_argmax_negative_axis_keepdims_random/model.onnx");
onnx_aot::model!(mod argmax_negative_axis_keepdims_random_select_last_index = "data/node/test_argmax_negative_axis_keepdims_random_select_last_index/model.onnx");
onnx_aot::model!(mod argmax_no_keepdims_example = "data/node/test_argmax_no_keepdims_example/model.onnx");
onnx_aot::model!(mod argmax_no_keepdims_example_select_last_index = "data/node/test_argmax_no_keepdims_example_select_last_index/model.onnx");
onnx_aot::model!(mod argmax_no_keepdims_random = "data/node/test_argmax_no_keepdims_random/model.onnx");
onnx_aot::model!(mod argmax_no_keepdims_random_select_last_index = "data/node/test_argmax_no_keepdims_random_select_last_index/model.onnx");
onnx_aot::model!(mod argmin_default_axis_example = "data/node/test_argmin_default_axis_example/model.onnx");
onnx_aot::model!(mod argmin_default_axis_example_select_last_index = "data/node/test_argmin_default_axis_example_select_last_index/model.onnx");
onnx_aot::model!(mod argmin_default_axis_random = "data/node/test_argmin_default_axis_random/model.onnx");
onnx_aot::model!(mod argmin_default_axis_random_select_last_index = "data/node/test_argmin_default_axis_random_select_last_index/model.onnx");
onnx_aot::model!(mod argmin_keepdims_example = "data/node/test_argmin_keepdims_example/model.onnx");
onnx_aot::model!(mod argmin_keepdims_example_select_last_index = "data/node/test_argmin_keepdims_example_select_last_index/model.onnx");
onnx_aot::model!(mod argmin_keepdims_random = "data/node/test_argmin_keepdims_random/model.onnx");
onnx_aot::model!(mod argmin_keepdims_random_select_last_index = "data/node/test_argmin_keepdims_random_select_last_index/model.onnx");
onnx_aot::model!(mod argmin_negative_axis_keepdims_example = "data/node/test_argmin_negative_axis_keepdims_example/model.onnx");
onnx_aot::model!(mod argmin_negative_axis_keepdims_example_select_last_index = "data/node/test_argmin_negative_axis_keepdims_example_select_last_index/model.onnx");
onnx_aot::model!(mod argmin_negative_axis_keepdims_random = "data/node/test_argmin_negative_axis_keepdims_random/model.onnx");
onnx_aot::model!(mod argmin_negative_axis_keepdims_random_select_last_index = "data/node/test_argmin_negative_axis_keepdims_random_select_last_index/model.onnx");
onnx_aot::model!(mod argmin_no_keepdims_example = "data/node/test_argmin_no_keepdims_example/model.onnx");
onnx_aot::model!(mod argmin_no_keepdims_example_select_last_index = "data/node/test_argmin_no_keepdims_example_select_last_index/model.onnx");
onnx_aot::model!(mod argmin_no_keepdims_random = "data/node/test_argmin_no_keepdims_random/model.onnx");
onnx_aot::model!(mod argmin_no_keepdims_random_select_last_index = "data/node/test_argmin_no_keepdims_random_select_last_index/model.onnx");
onnx_aot::model!(mod hardmax_axis_0 = "data/node/test_hardmax_axis_0/model.onnx");
onnx_aot::model!(mod hardmax_axis_1 = "data/node/test_hardmax_axis_1/model.onnx");
onnx_aot::model!(mod hardmax_axis_2 = "data/node/test_hardmax_axis_2/model.onnx");
onnx_aot::model!(mod hardmax_default_axis = "data/node/test_hardmax_default_axis/model.onnx");
onnx_aot::model!(mod hardmax_example = "data/node/test_hardmax_example/model.onnx");
onnx_aot::model!(mod hardmax_negative_axis = "data/node/test_hardmax_negative_axis/model.onnx");
onnx_aot::model!(mod hardmax_one_hot = "data/node/test_hardmax_one_hot/model.onnx");
onnx_aot::model!(mod reduce_max_default_axes_keepdim_example = "data/node/test_reduce_max_default_axes_keepdim_example/model.onnx");
onnx_aot::model!(mod reduce_max_default_axes_keepdims_random = "data/node/test_reduce_max_default_axes_keepdims_random/model.onnx");
onnx_aot::model!(mod reduce_min_default_axes_keepdims_example = "data/node/test_reduce_min_default_axes_keepdims_example/model.onnx");
onnx_aot::model!(mod reduce_min_default_axes_keepdims_random = "data/node/test_reduce_min_default_axes_keepdims_random/model.onnx");

/// The best of 20 runs of 2,000 calls, ns per call. The loop counts with `while` (an
/// unoptimized `for` over a range is two calls per step, more than some models' release call).
fn time(mut f: impl FnMut()) -> f64 {
    f();
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = Instant::now();
        let mut n = 0;
        while n < 2_000 {
            f();
            n += 1;
        }
        best = best.min(t.elapsed().as_nanos() as f64 / 2_000.0);
    }
    best
}

macro_rules! models {
    ($($m:ident)*) => {
        [$((stringify!($m), {
            fn run() -> f64 {
                let i = $m::Inputs::zeroed();
                let mut o = $m::Outputs::zeroed();
                time(|| $m::run_into(black_box(&i), black_box(&mut o)))
            }
            run as fn() -> f64
        })),*]
    };
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut save, mut ratio, mut filter, mut repeat) = (None, None, None, 1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--save" => save = args.next(),
            "--ratio" => ratio = args.next(),
            "--filter" => filter = args.next(),
            // Time each model this many times (the best counts): long runs for a profiler.
            "--repeat" => repeat = args.next().and_then(|n| n.parse().ok()).unwrap_or(1),
            _ => {}
        }
    }
    if std::env::args().any(|a| a == "--test" || a == "--list")
        || !std::env::args().any(|a| a == "--bench")
    {
        // `cargo test --benches`: nothing to time.
        return;
    }
    let debug: std::collections::HashMap<String, f64> = ratio
        .map(|f| {
            std::fs::read_to_string(&f)
                .unwrap_or_else(|e| panic!("{f}: {e}"))
                .lines()
                .filter_map(|l| l.split_once('\t'))
                .map(|(k, v)| (k.to_string(), v.parse().unwrap_or(f64::NAN)))
                .collect()
        })
        .unwrap_or_default();
    let mut out = String::new();
    let mut ratios = Vec::new();
    // The harness alone: the timing loop and an empty call through a closure.
    let empty = time(|| {
        black_box(0u8);
    });
    println!(
        "{:58} {empty:8.1} ns (an empty call, in every figure below)",
        "(harness)"
    );
    for (name, run) in models!(
        argmax_default_axis_example argmax_default_axis_example_select_last_index argmax_default_axis_random argmax_default_axis_random_select_last_index argmax_keepdims_example argmax_keepdims_example_select_last_index argmax_keepdims_random argmax_keepdims_random_select_last_index argmax_negative_axis_keepdims_example argmax_negative_axis_keepdims_example_select_last_index argmax_negative_axis_keepdims_random argmax_negative_axis_keepdims_random_select_last_index argmax_no_keepdims_example argmax_no_keepdims_example_select_last_index argmax_no_keepdims_random argmax_no_keepdims_random_select_last_index argmin_default_axis_example argmin_default_axis_example_select_last_index argmin_default_axis_random argmin_default_axis_random_select_last_index argmin_keepdims_example argmin_keepdims_example_select_last_index argmin_keepdims_random argmin_keepdims_random_select_last_index argmin_negative_axis_keepdims_example argmin_negative_axis_keepdims_example_select_last_index argmin_negative_axis_keepdims_random argmin_negative_axis_keepdims_random_select_last_index argmin_no_keepdims_example argmin_no_keepdims_example_select_last_index argmin_no_keepdims_random argmin_no_keepdims_random_select_last_index hardmax_axis_0 hardmax_axis_1 hardmax_axis_2 hardmax_default_axis hardmax_example hardmax_negative_axis hardmax_one_hot reduce_max_default_axes_keepdim_example reduce_max_default_axes_keepdims_random reduce_min_default_axes_keepdims_example reduce_min_default_axes_keepdims_random
    ) {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let ns = (0..repeat).map(|_| run()).fold(f64::MAX, f64::min);
        out += &format!("{name}\t{ns:.1}\n");
        match debug.get(name) {
            Some(d) => {
                ratios.push(d / ns);
                println!("{name:58} {d:8.1} {ns:8.1} {:6.2}", d / ns);
            }
            None => println!("{name:58} {ns:8.1} ns"),
        }
    }
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        let within = ratios.iter().filter(|&&r| r <= 3.0).count();
        println!(
            "debug/release over {} models: min {:.2}, median {:.2}, max {:.2}; {within} within 3x",
            ratios.len(),
            ratios[0],
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1]
        );
    }
    if let Some(f) = save {
        std::fs::write(&f, out).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
}
