//! Chunked pairs (`onnx_aot_codegen::chunks`): which adjacent nodes run together chunk after
//! chunk of axis 0, how many positions a chunk takes, and the scratch the value between them
//! gets. (That the generated loops compute the same outputs is checked by the property models
//! of `tests/`, which include chains large enough to be chunked.)

mod common;
use common::*;
use onnx_aot_codegen::chunks::{CHUNK_BYTES, L1_PART_BYTES, MIN_VALUE_BYTES};
use onnx_aot_codegen::ir::{Chunked, Graph};
use onnx_aot_codegen::memory::plan_memory;
use onnx_aot_codegen::onnx::data_type::*;
use onnx_aot_codegen::{analyze, DType, Options};

/// A pair of nodes 0 and 1 along axis 0, `rows` positions per chunk.
fn along_0(rows: usize) -> Chunked {
    Chunked {
        first: 0,
        rows,
        planes: 1,
        axis: 0,
    }
}

/// The module generated for `m` (named `m`), formatted, and the same with every run of
/// whitespace as one space.
fn generated(m: &onnx_aot_codegen::onnx::ModelProto) -> (String, String) {
    let text = onnx_aot_codegen::pretty(
        onnx_aot_codegen::generate(&bytes(m), &Options::new("m")).unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let squeezed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (text, squeezed)
}

fn graph(m: &onnx_aot_codegen::onnx::ModelProto) -> Graph {
    analyze(&bytes(m), &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// ReduceMax over `reduce` (keepdims 1) of `x` of `shape`, then ArgMax along `axis`; `extra`
/// adds a second reader of the maxima, `shown` makes them a graph output.
fn reduce_then_arg(
    shape: &[i64],
    elem: i32,
    reduce: &[i64],
    axis: i64,
    extra: bool,
    shown: bool,
) -> Graph {
    graph(&reduce_then_arg_model(
        shape, elem, reduce, axis, extra, shown,
    ))
}

/// The model of [`reduce_then_arg`].
fn reduce_then_arg_model(
    shape: &[i64],
    elem: i32,
    reduce: &[i64],
    axis: i64,
    extra: bool,
    shown: bool,
) -> onnx_aot_codegen::onnx::ModelProto {
    let mut nodes = vec![
        node(
            "ReduceMax",
            "r",
            &["x"],
            &["m"],
            vec![attr_ints("axes", reduce)],
        ),
        node("ArgMax", "a", &["m"], &["y"], vec![attr_int("axis", axis)]),
    ];
    let mut outputs = vec![output("y")];
    if extra {
        nodes.push(node(
            "ArgMin",
            "b",
            &["m"],
            &["z"],
            vec![attr_int("axis", axis)],
        ));
        outputs.push(output("z"));
    }
    if shown {
        outputs.push(output("m"));
    }
    model(13, nodes, vec![vi("x", elem, &n(shape))], outputs)
}

#[test]
fn a_reduction_and_the_arg_over_its_output_run_in_chunks() {
    // Maxima [4096, 64, 1] f32: 1 MiB, 256 bytes per position of axis 0: 64 positions make
    // 16 KiB, and 64 divides 4096.
    for (shape, reduce, axis) in [
        ([4096, 64, 2], [2], 1), // rows of two, then ArgMax along the middle axis
        ([4096, 2, 64], [1], 2), // two rows of lanes, then ArgMax along the last axis
    ] {
        let g = reduce_then_arg(&shape, FLOAT, &reduce, axis, false, false);
        assert_eq!(g.chunked, vec![along_0(64)], "{shape:?}");
        let plan = plan_memory(&g);
        // The maxima take one chunk of scratch, not 1 MiB.
        assert_eq!(plan.sizes[&DType::F32], 64 * 64, "{shape:?}");
        assert_eq!(plan.bytes(), CHUNK_BYTES);
        // `onnx-aot inspect` says so, and counts one chunk of scratch.
        let text = onnx_aot_codegen::inspect::summary(&g, 0);
        assert!(
            text.contains("chunked: nodes 0 and 1 run together, 64 positions of axis 0 at a time")
                && text.contains("scratch 16384 B"),
            "{text}"
        );
    }
    // f64: twice the bytes per position, half the positions per chunk.
    let g = reduce_then_arg(&[4096, 64, 2], DOUBLE, &[2], 1, false, false);
    assert_eq!(g.chunked, vec![along_0(32)]);
}

#[test]
fn the_chunk_is_the_largest_divisor_within_the_budget() {
    // 1560 positions of 256 bytes: 61 to 64 do not divide 1560, 60 does (15 KiB).
    let g = reduce_then_arg(&[1560, 64, 2], FLOAT, &[2], 1, false, false);
    assert_eq!(g.chunked, vec![along_0(60)]);
    // A prime number of positions has no divisor between a quarter of the budget and all of
    // it: chunks of 64 and a last one of 4099 % 64 = 3 positions (the scratch is one chunk).
    let g = reduce_then_arg(&[4099, 64, 2], FLOAT, &[2], 1, false, false);
    assert_eq!(g.chunked, vec![along_0(64)]);
    assert_eq!(plan_memory(&g).bytes(), CHUNK_BYTES);
    // A position larger than the budget: no pair either.
    let g = reduce_then_arg(&[64, 8192, 2], FLOAT, &[2], 1, false, false);
    assert!(g.chunked.is_empty());
}

#[test]
fn pairs_that_would_change_what_is_computed_or_gain_nothing_stay_whole() {
    let whole = |g: &Graph, why: &str| assert!(g.chunked.is_empty(), "{why}: {:?}", g.chunked);
    // The first node reduces axis 0, and the second reduces the axis after it.
    whole(
        &reduce_then_arg(&[2, 4096, 64], FLOAT, &[0], 1, false, false),
        "second node reduces the axis after the planes",
    );
    // The first node reduces axes 0 and 2: not only planes.
    whole(
        &reduce_then_arg(&[2, 4096, 64, 2], FLOAT, &[0, 2], 3, false, false),
        "axes not all leading",
    );
    // Planes, but no divisor of the axis within the budget (4099 is prime).
    whole(
        &reduce_then_arg(&[2, 4099, 64], FLOAT, &[0], 2, false, false),
        "planes without a divisor",
    );
    // The second node reduces axis 0 of the maxima.
    whole(
        &reduce_then_arg(&[4096, 64, 2], FLOAT, &[2], 0, false, false),
        "second node reduces axis 0",
    );
    // Another node reads the maxima: they must be whole for it.
    whole(
        &reduce_then_arg(&[4096, 64, 2], FLOAT, &[2], 1, true, false),
        "two readers",
    );
    // The maxima are a graph output.
    whole(
        &reduce_then_arg(&[4096, 64, 2], FLOAT, &[2], 1, false, true),
        "graph output",
    );
    // Maxima under MIN_VALUE_BYTES: the caches keep them anyway.
    let positions = (MIN_VALUE_BYTES / 256 / 2) as i64;
    whole(
        &reduce_then_arg(&[positions, 64, 2], FLOAT, &[2], 1, false, false),
        "small value",
    );
}

#[test]
fn the_generated_loop_calls_both_node_functions_per_chunk() {
    let m = reduce_then_arg_model(&[4099, 64, 2], FLOAT, &[2], 1, false, false);
    let (text, squeezed) = generated(&m);
    for want in [
        "fn chunks_0_1(x: &[f32], t: &mut [f32], y: &mut [i64])",
        "let (mut xs, mut ys) = (x.chunks_exact(8192), y.chunks_exact_mut(64));",
        "for (x, y) in (&mut xs).zip(&mut ys) {",
        "node_0_reduce_max(x, t); node_1_argmax(t, y);",
        // The last 3 positions: both nodes generated for them, in the front of `t`.
        "if let Some(t) = t.get_mut(..192) { node_0_reduce_max_rest(xs.remainder(), t); \
         node_1_argmax_rest(t, ys.into_remainder()); }",
        "fn node_0_reduce_max_rest(x: &[f32], y: &mut [f32])",
        "fn node_1_argmax_rest(x: &[f32], y: &mut [i64])",
        "chunks_0_1(in_x, a1, &mut *out_y)",
        "buf_f32: [f32; 4096]",
    ] {
        assert!(squeezed.contains(want), "missing {want:?} in:\n{text}");
    }
}

/// ReduceMax over `reduce` with `keepdims`, then ArgMax along `axis` (of the maxima).
fn planes_model(shape: &[i64], reduce: &[i64], keepdims: i64, axis: i64) -> Graph {
    graph(&model(
        13,
        vec![
            node(
                "ReduceMax",
                "r",
                &["x"],
                &["m"],
                vec![attr_ints("axes", reduce), attr_int("keepdims", keepdims)],
            ),
            node("ArgMax", "a", &["m"], &["y"], vec![attr_int("axis", axis)]),
        ],
        vec![vi("x", FLOAT, &n(shape))],
        vec![output("y")],
    ))
}

#[test]
fn a_reduction_over_leading_axes_runs_in_chunks_of_the_axis_after_them() {
    // Maxima [1, 4096, 64] f32 of two planes: chunks of 32 positions of axis 1 (8 KiB: the
    // chunk and its two parts fit L1).
    let g = planes_model(&[2, 4096, 64], &[0], 1, 2);
    let planes = |rows, planes, axis| Chunked {
        first: 0,
        rows,
        planes,
        axis,
    };
    assert_eq!(g.chunked, vec![planes(32, 2, 1)]);
    assert_eq!(plan_memory(&g).bytes(), L1_PART_BYTES);
    let text = onnx_aot_codegen::inspect::summary(&g, 0);
    assert!(
        text.contains(
            "chunked: nodes 0 and 1 run together, 32 positions of axis 1 of the input (over its \
             2 planes) at a time"
        ),
        "{text}"
    );
    // Without keepdims the maxima are [4096, 64]: the pair runs along their axis 0.
    assert_eq!(
        planes_model(&[2, 4096, 64], &[0], 0, 1).chunked,
        vec![planes(32, 2, 0)]
    );
    // Two leading axes: 3 x 2 planes, chunks of 16 KiB (64 positions).
    let six = planes_model(&[3, 2, 4096, 64], &[0, 1], 1, 3);
    assert_eq!(six.chunked, vec![planes(64, 6, 2)]);
    assert_eq!(plan_memory(&six).bytes(), CHUNK_BYTES);
    // One plane is no reduction over planes (axis 0 of extent 1, kept or not).
    assert!(planes_model(&[1, 4096, 64], &[0], 1, 2).chunked.is_empty());
}

#[test]
fn the_planes_loop_reads_each_plane_in_place() {
    let m = reduce_then_arg_model(&[2, 4096, 64], FLOAT, &[0], 2, false, false);
    let (text, squeezed) = generated(&m);
    for want in [
        "fn chunks_0_1(x: &[f32], t: &mut [f32], y: &mut [i64])",
        "for (c, y) in y.chunks_exact_mut(32).enumerate() { node_0_reduce_max(x, t, c * 2048); \
         node_1_argmax(t, y); }",
        "fn node_0_reduce_max(x: &[f32], y: &mut [f32], at: usize)",
        "::onnx_aot::__private::node::reduce_parts::< f32, ::onnx_aot::__private::Max, \
         >(y, x, 262_144, at);",
        "32 of the 4096 positions of axis 1 of `x`: `chunks_0_1` calls it",
        "fn node_1_argmax(x: &[f32], y: &mut [i64])",
        "buf_f32: [f32; 2048]",
    ] {
        assert!(squeezed.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(
        !text.contains("_max_rest") && !text.contains("_argmax_rest"),
        "{text}"
    );
}
