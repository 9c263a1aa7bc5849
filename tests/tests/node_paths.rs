//! The calls generated code makes (`onnx_aot::__private::node`), whole-node, for every element
//! type, over the sizes on both sides of every threshold (short rows under 32, few lanes under
//! 16, narrow periods, tiles of lanes), against the ndarray reference of
//! `onnx_aot_tests::reference`.
//!
//! Built with `debug_assertions` (`cargo test`), these are the debug builds' entry points
//! (`node::Thin`, run-time sizes: issue 17 item 4). Built without `debug_assertions` (`cargo test
//! --release`, or `--profile opt-paths` as `.ci/run` does: the same code unoptimized, built in
//! a tenth of the time), they are the optimized shims, with the kernels that
//! `kernel_paths.rs` checks one by one inlined at constant sizes, and on a CPU with AVX2 the
//! strided shims' AVX2 builds (`node/wide.rs`: blocks of 8 rows and more, lanes of 64 and more,
//! of 16 and more for 64-bit types, nodes of 256 elements and more, all reached by the shapes
//! below), on a CPU with AVX-512 both those and the AVX-512 builds (`each_build`); `cargo test
//! --benches` runs the optimized calls over the benchmark matrix against its own reference.
//! Inputs come from small pools (ties), with NaN of both signs, ±inf, ±0 and the types'
//! extremes.

use std::sync::atomic::{AtomicBool, Ordering};

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use onnx_aot::__private::node::{self, Thin, ThinIndex};
use onnx_aot::kernels::{arg_tile, narrow_period};
use onnx_aot::{Max, Min};
use onnx_aot_tests::reference::{self, Elem, Extreme};
use onnx_aot_tests::rng::Lcg;

/// An element type with a pool of test values.
trait Pool: Elem + Thin {
    fn pool(k: u64) -> Self;
}

macro_rules! int_pool {
    ($($t:ty)*) => {$(
        impl Pool for $t {
            fn pool(k: u64) -> Self {
                match k % 7 {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    2 => 0,
                    k => (k as $t).wrapping_mul(3),
                }
            }
        }
    )*};
}
int_pool!(i8 u8 i16 u16 i32 u32 i64 u64);

macro_rules! float_pool {
    ($($t:ty => $from:expr),*) => {$(
        impl Pool for $t {
            fn pool(k: u64) -> Self {
                let v: f64 = match k % 12 {
                    0 => f64::NAN,
                    1 => -f64::NAN,
                    2 => f64::INFINITY,
                    3 => f64::NEG_INFINITY,
                    4 => 0.0,
                    5 => -0.0,
                    k => k as f64 - 8.0,
                };
                $from(v)
            }
        }
    )*};
}
float_pool!(f32 => |v| v as f32, f64 => |v| v, f16 => f16::from_f64, bf16 => bf16::from_f64);

impl Pool for bool {
    fn pool(k: u64) -> Self {
        k.is_multiple_of(3)
    }
}

/// `n` values; NaN only when `nan` (so that the common NaN-free paths are reached too).
fn draw<T: Pool>(g: &mut Lcg, n: usize, nan: bool) -> Vec<T> {
    (0..n)
        .map(|_| loop {
            let v = T::pool(g.next());
            if nan || !Elem::is_nan(v) {
                break v;
            }
        })
        .collect()
}

fn array<T: Pool>(x: &[T], shape: &[usize]) -> ArrayD<T> {
    ArrayD::from_shape_vec(IxDyn(shape), x.to_vec()).unwrap()
}

fn same<T: Elem>(got: &[T], want: &[T]) -> bool {
    got.len() == want.len() && got.iter().zip(want).all(|(a, b)| a.same(*b))
}

/// Shapes `[outer, r, inner]` across the thresholds, and lane counts that take each step of the
/// small-work loops' chunks of lanes (16, 8, 4 and a last 4 that overlaps: 4, 5, 8, 12, 13, 20,
/// 28, 29 besides the others).
fn shapes() -> Vec<[usize; 3]> {
    let mut v = Vec::new();
    for r in [1, 2, 3, 4, 5, 17, 31, 32, 33, 70] {
        for inner in [1, 2, 3, 4, 5, 8, 9, 12, 13, 15, 16, 17, 20, 28, 29, 40, 300] {
            for outer in [1, 3] {
                if outer * r * inner <= 3_000 {
                    v.push([outer, r, inner]);
                }
            }
        }
    }
    // A block of many rows over 256 bytes and 32 KiB of every type: the strided kernels leave
    // it to the grouped passes (`tiled` in `reduce_lanes_small_avx2` and `arg_lanes_small_avx2`).
    v.push([1, 120, 300]);
    v
}

fn arg_case<T: Pool>(x: &[T], [outer, r, inner]: [usize; 3], max: bool, last: bool) {
    let extreme = if max { Extreme::Max } else { Extreme::Min };
    let want = reference::arg(&array(x, &[outer, r, inner]), extreme, 1, false, last);
    let want: Vec<i64> = want.iter().copied().collect();
    let mut got = vec![-1i64; outer * inner];
    let mut vals = vec![T::zero(); outer * inner];
    let what = format!("{} {outer}x{r}x{inner} max={max} last={last}", T::NAME);
    match (max, last, inner) {
        (true, false, 1) => node::arg_rows::<T, Max, false, i64>(x, &mut got, r),
        (true, true, 1) => node::arg_rows::<T, Max, true, i64>(x, &mut got, r),
        (false, false, 1) => node::arg_rows::<T, Min, false, i64>(x, &mut got, r),
        (false, true, 1) => node::arg_rows::<T, Min, true, i64>(x, &mut got, r),
        (true, false, _) => {
            node::arg_blocks_values::<T, Max, false, 16>(x, &mut got, &mut vals, r, inner)
        }
        (true, true, _) => node::arg_blocks::<T, Max, true, 16>(x, &mut got, r, inner),
        (false, false, _) => node::arg_blocks::<T, Min, false, 16>(x, &mut got, r, inner),
        (false, true, _) => {
            node::arg_blocks_values::<T, Min, true, 16>(x, &mut got, &mut vals, r, inner)
        }
    }
    assert_eq!(got, want, "arg {what}");
    if inner > 1 && max != last {
        // The fused ReduceMax/ReduceMin of the same lanes.
        let want = reference::reduce(
            &array(x, &[outer, r, inner]),
            extreme,
            Some(&[1]),
            false,
            false,
        );
        let want: Vec<T> = want.iter().copied().collect();
        assert!(same(&vals, &want), "values {what}: {vals:?} vs {want:?}");
    }
}

/// The reduction shims: `reduce_*` write their outputs (which start here with the value that
/// would win if they were read), `fold_*` fold into them (which start with the identity, after
/// a first fold of half the blocks' rows where there are two or more).
fn reduce_case<T: Pool>(x: &[T], [outer, r, inner]: [usize; 3], max: bool) {
    let extreme = if max { Extreme::Max } else { Extreme::Min };
    let a = array(x, &[outer, r, inner]);
    let (id, poison) = if max {
        (T::lowest(), T::highest())
    } else {
        (T::highest(), T::lowest())
    };
    let what = format!("{} {outer}x{r}x{inner} max={max}", T::NAME);
    // Over the middle axis: blocks of `r · inner` into `inner` lanes.
    let want: Vec<T> = reference::reduce(&a, extreme, Some(&[1]), false, false)
        .iter()
        .copied()
        .collect();
    let mut got = vec![poison; outer * inner];
    if max {
        node::reduce_lanes::<T, Max>(&mut got, x, r * inner, inner);
    } else {
        node::reduce_lanes::<T, Min>(&mut got, x, r * inner, inner);
    }
    assert!(same(&got, &want), "lanes {what}: {got:?} vs {want:?}");
    // Folded: the first rows of each block, then the rest (one block, the whole tensor, when
    // `outer` is 1: rows of `inner`).
    if outer == 1 && r >= 2 {
        let h = r / 2 * inner;
        let mut got = vec![id; inner];
        if max {
            node::fold_lanes::<T, Max>(&mut got, &x[..h], h, inner);
            node::fold_lanes::<T, Max>(&mut got, &x[h..], x.len() - h, inner);
        } else {
            node::fold_lanes::<T, Min>(&mut got, &x[..h], h, inner);
            node::fold_lanes::<T, Min>(&mut got, &x[h..], x.len() - h, inner);
        }
        assert!(
            same(&got, &want),
            "folded lanes {what}: {got:?} vs {want:?}"
        );
    }
    // Over the last axis: rows of `inner`.
    let want: Vec<T> = reference::reduce(&a, extreme, Some(&[2]), false, false)
        .iter()
        .copied()
        .collect();
    let mut got = vec![poison; outer * r];
    if max {
        node::reduce_rows::<T, Max>(&mut got, x, inner);
    } else {
        node::reduce_rows::<T, Min>(&mut got, x, inner);
    }
    assert!(same(&got, &want), "rows {what}: {got:?} vs {want:?}");
    let mut got = vec![id; outer * r];
    if max {
        node::fold_rows::<T, Max>(&mut got, x, inner);
    } else {
        node::fold_rows::<T, Min>(&mut got, x, inner);
    }
    assert!(same(&got, &want), "folded rows {what}: {got:?} vs {want:?}");
    // The constant-length shims of short rows, written and folded.
    let short = |got: &mut [T], fold: bool| {
        match (max, fold, inner) {
            (true, false, 2) => node::reduce_rows_short::<T, Max, 2>(got, x),
            (false, false, 2) => node::reduce_rows_short::<T, Min, 2>(got, x),
            (true, true, 2) => node::fold_rows_short::<T, Max, 2>(got, x),
            (false, false, 3) => node::reduce_rows_short::<T, Min, 3>(got, x),
            (false, true, 3) => node::fold_rows_short::<T, Min, 3>(got, x),
            (true, false, 9) => node::reduce_rows_short::<T, Max, 9>(got, x),
            (true, true, 9) => node::fold_rows_short::<T, Max, 9>(got, x),
            (false, false, 17) => node::reduce_rows_short::<T, Min, 17>(got, x),
            _ => return false,
        }
        true
    };
    let mut got = vec![poison; outer * r];
    if short(&mut got, false) {
        assert!(same(&got, &want), "short rows {what}: {got:?} vs {want:?}");
    }
    let mut got = vec![id; outer * r];
    if short(&mut got, true) {
        assert!(
            same(&got, &want),
            "folded short rows {what}: {got:?} vs {want:?}"
        );
    }
    // Over the first and last axes (planes), rows of a few constant lengths.
    let want: Vec<T> = reference::reduce(&a, extreme, Some(&[0, 2]), false, false)
        .iter()
        .copied()
        .collect();
    let n = x.len();
    let planes = |got: &mut [T], fold: bool| {
        match (max, fold, inner) {
            (true, false, 1) => node::reduce_planes::<T, Max, 1>(got, x, outer, n, r),
            (true, true, 1) => node::fold_planes::<T, Max, 1>(got, x, outer, n, r),
            (false, false, 2) => node::reduce_planes::<T, Min, 2>(got, x, outer, n, r),
            (false, true, 2) => node::fold_planes::<T, Min, 2>(got, x, outer, n, r),
            (false, false, 3) => node::reduce_planes::<T, Min, 3>(got, x, outer, n, r),
            (true, false, 9) => node::reduce_planes::<T, Max, 9>(got, x, outer, n, r),
            (false, false, 17) => node::reduce_planes::<T, Min, 17>(got, x, outer, n, r),
            (true, true, 40) => node::fold_planes::<T, Max, 40>(got, x, outer, n, r),
            (true, false, 40) => node::reduce_planes::<T, Max, 40>(got, x, outer, n, r),
            (false, false, 300) => node::reduce_planes::<T, Min, 300>(got, x, outer, n, r),
            _ => return false,
        }
        true
    };
    let mut got = vec![poison; r];
    if planes(&mut got, false) {
        assert!(same(&got, &want), "planes {what}: {got:?} vs {want:?}");
    }
    let mut got = vec![id; r];
    if planes(&mut got, true) {
        assert!(
            same(&got, &want),
            "folded planes {what}: {got:?} vs {want:?}"
        );
    }
}

fn hardmax_case<T: Pool>(x: &[T], [outer, r, inner]: [usize; 3]) {
    let a = array(x, &[outer, r, inner]);
    let what = format!("{} {outer}x{r}x{inner}", T::NAME);
    let want: Vec<T> = reference::hardmax13(&a, 1).iter().copied().collect();
    let mut got = vec![T::one(); x.len()];
    node::hardmax_blocks::<T>(x, &mut got, r, inner);
    assert!(same(&got, &want), "hardmax lanes {what}");
    let want: Vec<T> = reference::hardmax13(&a, 2).iter().copied().collect();
    let mut got = vec![T::one(); x.len()];
    node::hardmax_rows::<T>(x, &mut got, inner);
    assert!(same(&got, &want), "hardmax rows {what}");
    if inner == 40 {
        // A tiny model's rows (fewer than eight of them, or the fallback).
        let mut got = vec![T::one(); x.len()];
        node::hardmax_rows_few::<T, 40>(x, &mut got);
        assert!(same(&got, &want), "hardmax few rows {what}");
    }
}

/// The narrow shims: rows of `C` lanes (under sixteen), read `narrow_period(C)` lanes at a time.
fn narrow_case<T: Pool>(x: &[T], shape: [usize; 3]) {
    macro_rules! narrow {
        ($($c:literal),*) => {
            match shape[2] {
                $($c => narrow_c::<
                    T,
                    $c,
                    { narrow_period($c) },
                    { arg_tile(narrow_period($c), 8) },
                >(x, shape),)*
                _ => {}
            }
        };
    }
    narrow!(2, 3, 9, 15);
}

fn narrow_c<T: Pool, const C: usize, const W: usize, const TILE: usize>(
    x: &[T],
    [outer, r, inner]: [usize; 3],
) {
    let a = array(x, &[outer, r, inner]);
    let what = format!("{} {outer}x{r}x{inner} narrow", T::NAME);
    for (max, last) in [(true, false), (true, true), (false, false), (false, true)] {
        let extreme = if max { Extreme::Max } else { Extreme::Min };
        let want: Vec<i64> = reference::arg(&a, extreme, 1, false, last)
            .iter()
            .copied()
            .collect();
        let mut got = vec![-1i64; outer * inner];
        match (max, last) {
            (true, false) => node::arg_blocks_narrow::<T, Max, false, C, W, TILE>(x, &mut got, r),
            (true, true) => node::arg_blocks_narrow::<T, Max, true, C, W, TILE>(x, &mut got, r),
            (false, false) => node::arg_blocks_narrow::<T, Min, false, C, W, TILE>(x, &mut got, r),
            (false, true) => node::arg_blocks_narrow::<T, Min, true, C, W, TILE>(x, &mut got, r),
        }
        assert_eq!(got, want, "arg {what} max={max} last={last}");
        // The fused pass of indices and values where a kernel takes the blocks (AVX-512 in
        // optimized builds): both as the definitions; nothing written where none does.
        let want_v: Vec<T> = reference::reduce(&a, extreme, Some(&[1]), false, false)
            .iter()
            .copied()
            .collect();
        let mut got = vec![-1i64; outer * inner];
        let mut vals = vec![T::zero(); outer * inner];
        let (y, v) = (&mut got, &mut vals);
        let fused = match (max, last) {
            (true, false) => node::arg_blocks_values_narrow::<T, Max, false>(x, y, v, r, inner),
            (true, true) => node::arg_blocks_values_narrow::<T, Max, true>(x, y, v, r, inner),
            (false, false) => node::arg_blocks_values_narrow::<T, Min, false>(x, y, v, r, inner),
            (false, true) => node::arg_blocks_values_narrow::<T, Min, true>(x, y, v, r, inner),
        };
        if fused {
            assert_eq!(got, want, "fused arg {what} max={max} last={last}");
            assert!(
                same(&vals, &want_v),
                "fused values {what} max={max} last={last}"
            );
        } else {
            assert!(
                got.iter().all(|&i| i == -1),
                "{what}: written, yet not taken"
            );
        }
    }
    for max in [true, false] {
        let extreme = if max { Extreme::Max } else { Extreme::Min };
        let want: Vec<T> = reference::reduce(&a, extreme, Some(&[1]), false, false)
            .iter()
            .copied()
            .collect();
        // Written over the value that would win if read; folded from the identity.
        let (id, poison) = if max {
            (T::lowest(), T::highest())
        } else {
            (T::highest(), T::lowest())
        };
        let mut got = vec![poison; outer * inner];
        if max {
            node::reduce_lanes_narrow::<T, Max, C, W>(&mut got, x, r * inner);
        } else {
            node::reduce_lanes_narrow::<T, Min, C, W>(&mut got, x, r * inner);
        }
        assert!(
            same(&got, &want),
            "reduce {what} max={max}: {got:?} vs {want:?}"
        );
        let mut got = vec![id; outer * inner];
        if max {
            node::fold_lanes_narrow::<T, Max, C, W>(&mut got, x, r * inner);
        } else {
            node::fold_lanes_narrow::<T, Min, C, W>(&mut got, x, r * inner);
        }
        assert!(
            same(&got, &want),
            "folded {what} max={max}: {got:?} vs {want:?}"
        );
    }
    let want: Vec<T> = reference::hardmax13(&a, 1).iter().copied().collect();
    let mut got = vec![T::one(); x.len()];
    node::hardmax_blocks_narrow::<T, C, W, TILE>(x, &mut got, r);
    assert!(same(&got, &want), "hardmax {what}");
}

/// Whether the f32 row kernels' AVX2 form runs here (the debug builds' fused rows of 8 to 128).
/// Whether the optimized `arg_rows_values` takes `rows` rows of `r` of `T` through the AVX2
/// kernel of short rows (`runtime/src/kernels/short_rows_avx2.rs`): 1-, 2- and 4-byte integers,
/// bool, f16 and bf16, rows of 8 to 256 bytes, at least one whole block of rows (a vector's
/// lanes) whose reads stay inside the input (rows under 16 bytes are read 16 bytes at a time);
/// or rows of a few bytes by its sliding window.
fn short_rows_fused<T: Pool>(rows: usize, r: usize) -> bool {
    let size = std::mem::size_of::<T>();
    let bytes = r * size;
    // Rows a block: 1- and 2-byte elements widened to twice their width (half a vector's
    // lanes), except rows of 17 to 22 `i16`, f16 or bf16 by columns.
    let columns = ["int16", "float16", "bfloat16"].contains(&T::NAME) && (17..=22).contains(&r);
    let lanes = match size {
        2 if columns => 16,
        1 | 2 => 16 / size,
        _ => 32 / size,
    };
    // Rows of 8 to 256 bytes, and 4-byte rows of 9 to 1024 elements by columns.
    let taken = (8..=256).contains(&bytes) || size == 4 && (9..=1024).contains(&r);
    let typed = [
        "bool", "int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32",
    ]
    .contains(&T::NAME);
    let avx2 = {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        avx2
    };
    // Rows of 2 to 7 bytes (1- and 2-byte elements) and 4-byte rows of two or three: the
    // sliding window (`short_rows_avx2/tiny.rs`), whole tiles of 32 loads of `32 / bytes` rows
    // each, read to 32 bytes past the last load's last window; 4-byte rows left by it go to
    // the blocks.
    let window = match size {
        1 | 2 => r >= 2 && bytes <= 7,
        _ => (2..=3).contains(&r),
    };
    let tile = 32 * (32 / bytes.max(1));
    let window_takes = window
        && rows >= tile
        && rows * bytes >= (32 - 1) * (32 / bytes) * bytes + (r - 1) * size + 32;
    let blocks_take = taken && rows >= lanes && rows * bytes >= (lanes - 1) * bytes + bytes.max(16);
    // f64 rows of 4 to 80: whole groups of four rows (`rows_f64_avx2`).
    let doubles = T::NAME == "double" && (4..=80).contains(&r) && rows >= 4;
    !cfg!(debug_assertions) && avx2 && (typed && (window_takes || blocks_take) || doubles)
}

/// Rows of 5 to 32 one-byte elements, of 5 to 16 two-byte ones: the AVX-512 kernel of byte rows
/// (`thin512::byte_rows`, fused values) in optimized builds, on CPUs with VBMI, but in capped
/// runs.
fn byte_rows<T: Pool>(r: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    let vbmi = std::is_x86_feature_detected!("avx512vbmi") && !CAPPED.load(Ordering::SeqCst);
    #[cfg(not(target_arch = "x86_64"))]
    let vbmi = false;
    let bytes = ["bool", "int8", "uint8"].contains(&T::NAME);
    let wide = ["int16", "uint16", "float16", "bfloat16"].contains(&T::NAME);
    !cfg!(debug_assertions)
        && vbmi
        && (bytes || wide)
        && (5..=if bytes { 32 } else { 16 }).contains(&r)
}

/// The rows the AVX-512 kernel of long rows and rows of a few vectors takes
/// (`thin512::long_rows`, fused values) in optimized builds, on CPUs with AVX-512, but in capped
/// runs: `f32` rows of 33 to 160, 8-byte integers of 7 to 511, `f64` from 21, other 4-byte
/// integers from 25, 2-byte integers from 80, f16 and bf16 from 128, `i8` and bool from 257;
/// not `u8`.
fn long_rows<T: Pool>(r: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    let avx512 = std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512dq")
        && !CAPPED.load(Ordering::SeqCst);
    #[cfg(not(target_arch = "x86_64"))]
    let avx512 = false;
    let (from, to) = match T::NAME {
        "float" => (33, 160),
        "int64" | "uint64" => (7, 511),
        "uint8" => return false,
        "bool" | "int8" => (257, usize::MAX),
        "int16" | "uint16" => (80, usize::MAX),
        "float16" | "bfloat16" => (128, usize::MAX),
        "double" => (21, usize::MAX),
        _ => (25, usize::MAX),
    };
    !cfg!(debug_assertions) && avx512 && (from..=to).contains(&r)
}

fn wide_rows() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Many contiguous rows, short (the f32 kernels' groups of four rows) and of 32 to 128 (the
/// AVX2 builds' own row path, `arg_row_wide`, in nodes of 256 elements and more) and longer, in
/// all four modes; with the fused values (`arg_rows_values`: optimized x86-64 builds take f32
/// rows of 2 and 4 to 128 in one pass, and longer ones on CPUs with AVX2; debug builds rows of
/// 8 to 128 on CPUs with AVX2; optimized builds rows of 2 to 4 of every type; every other
/// case says it did nothing).
fn arg_rows_case<T: Pool>(g: &mut Lcg) {
    for (r, rows) in [
        2, 3, 4, 7, 20, 26, 31, 32, 33, 40, 64, 100, 128, 129, 300, 1024, 2100,
    ]
    .into_iter()
    .map(|r| (r, 21))
    // 64 short rows and more: the debug builds' transposing tile for other types than f32;
    // hundreds: whole tiles of the sliding window over rows of a few bytes; 12 rows of 26: a
    // block of the widened lanes (8 rows) but not of the columns (16 rows), which take such
    // rows of f16 and bf16 and not of integers.
    .chain([
        (3, 70),
        (7, 70),
        (20, 70),
        (2, 600),
        (3, 700),
        (5, 400),
        (26, 12),
    ]) {
        for nan in [false, true] {
            let x: Vec<T> = draw(g, rows * r, nan);
            let a = array(&x, &[rows, r]);
            for (max, last) in [(true, false), (true, true), (false, false), (false, true)] {
                let extreme = if max { Extreme::Max } else { Extreme::Min };
                let want: Vec<i64> = reference::arg(&a, extreme, 1, false, last)
                    .iter()
                    .copied()
                    .collect();
                let mut got = vec![-1i64; rows];
                match (max, last) {
                    (true, false) => node::arg_rows::<T, Max, false, i64>(&x, &mut got, r),
                    (true, true) => node::arg_rows::<T, Max, true, i64>(&x, &mut got, r),
                    (false, false) => node::arg_rows::<T, Min, false, i64>(&x, &mut got, r),
                    (false, true) => node::arg_rows::<T, Min, true, i64>(&x, &mut got, r),
                }
                let what = format!("{} {rows}x{r} max={max} last={last} nan={nan}", T::NAME);
                assert_eq!(got, want, "arg rows {what}");
                let want_v: Vec<T> = reference::reduce(&a, extreme, Some(&[1]), false, false)
                    .iter()
                    .copied()
                    .collect();
                let mut got = vec![-1i64; rows];
                let mut vals = vec![T::one(); rows];
                let fused = match (max, last) {
                    (true, false) => {
                        node::arg_rows_values::<T, Max, false>(&x, &mut got, &mut vals, r)
                    }
                    (true, true) => {
                        node::arg_rows_values::<T, Max, true>(&x, &mut got, &mut vals, r)
                    }
                    (false, false) => {
                        node::arg_rows_values::<T, Min, false>(&x, &mut got, &mut vals, r)
                    }
                    (false, true) => {
                        node::arg_rows_values::<T, Min, true>(&x, &mut got, &mut vals, r)
                    }
                };
                let expected = cfg!(target_arch = "x86_64")
                    && T::NAME == "float"
                    && if cfg!(debug_assertions) {
                        // Rows of two through the AVX2 pairs, 3 to 128 through the AVX2 kernels
                        // of short rows (columns, eight rows at a time) and of rows.
                        (r == 2 || (3..=128).contains(&r)) && wide_rows()
                    } else {
                        // Rows of three only through the AVX2 kernel of columns.
                        r == 2 || (4..=128).contains(&r) || ((r == 3 || r > 128) && wide_rows())
                    };
                // Rows of 2 to 4 that no vector kernel takes: a scalar tile of positions and
                // their values, in optimized builds.
                let scalar = !cfg!(debug_assertions) && (2..=4).contains(&r);
                let expected = expected
                    || short_rows_fused::<T>(rows, r)
                    || scalar
                    || byte_rows::<T>(r)
                    || long_rows::<T>(r);
                assert_eq!(fused, expected, "fused rows taken {what}");
                if fused {
                    assert_eq!(got, want, "fused arg rows {what}");
                    assert!(
                        same(&vals, &want_v),
                        "fused values {what}: {vals:?} vs {want_v:?}"
                    );
                } else {
                    assert!(got.iter().all(|&i| i == -1), "untouched {what}");
                }
            }
        }
    }
}

/// Runs `f` once per build of the strided shims this CPU runs (`node/wide.rs`): on a CPU with
/// AVX-512, under the AVX2 twins (`cap_twins(1)`) and then the AVX-512 ones; elsewhere once.
/// The cap is process-wide, so a capped run shuts out the others. Debug builds have no
/// twins (the runtime's unit tests check both builds of its hand-written kernels): once.
/// Held for writing while a run is capped ([`each_build`]), for reading by uncapped ones.
static LOCK: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Whether a capped run (`cap_twins(1)`: no AVX-512 kernels) is under way.
static CAPPED: AtomicBool = AtomicBool::new(false);

fn each_build(f: impl Fn()) {
    if cfg!(debug_assertions) {
        f();
        return;
    }
    // Uncapped runs go side by side (on a CPU without AVX-512 there is no capped run).
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512dq")
    {
        let _alone = LOCK
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        node::cap_twins(1);
        CAPPED.store(true, Ordering::SeqCst);
        let capped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(&f));
        CAPPED.store(false, Ordering::SeqCst);
        node::cap_twins(u8::MAX);
        if let Err(e) = capped {
            std::panic::resume_unwind(e);
        }
    }
    let _shared = LOCK
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f();
}

fn every_path<T: Pool>(seed: u64) {
    let mut g = Lcg(seed);
    for shape in shapes() {
        let n: usize = shape.iter().product();
        for nan in [false, true] {
            let x: Vec<T> = draw(&mut g, n, nan);
            for (max, last) in [(true, false), (true, true), (false, false), (false, true)] {
                arg_case(&x, shape, max, last);
            }
            reduce_case(&x, shape, true);
            reduce_case(&x, shape, false);
            hardmax_case(&x, shape);
            narrow_case(&x, shape);
        }
    }
    arg_rows_case::<T>(&mut g);
}

/// An integer type drawn from its whole range too.
trait AnyInt: Pool {
    fn any(k: u64) -> Self;
}

macro_rules! any_int {
    ($($t:ty)*) => {$(
        impl AnyInt for $t {
            fn any(k: u64) -> Self {
                (k >> 11) as $t
            }
        }
    )*};
}
any_int!(i8 u8 i16 u16 i32 u32 i64 u64);

/// Strided integer arg-reductions through the shims at the tiles the generator picks (tiles of
/// hundreds of lanes: the grouped pass's chunks of 64 and, in the AVX2 builds, 128 bytes, the
/// chunks of sixteen after them and the overlapping last chunk), over rows on both sides of the
/// grouped pass of many rows (128) and of the most groups a `u8` counter holds (4096 rows of
/// 1-byte keys). Values are drawn from the whole range (the extreme met
/// anywhere down a lane, in any group) or from the small pool (ties).
fn strided_ints<T: AnyInt, const TILE: usize>(g: &mut Lcg, inner: usize, rows: &[usize]) {
    assert_eq!(TILE, arg_tile(inner, core::mem::size_of::<T>()));
    for &r in rows {
        for ties in [false, true] {
            let x: Vec<T> = (0..r * inner)
                .map(|_| {
                    if ties {
                        T::pool(g.next())
                    } else {
                        T::any(g.next())
                    }
                })
                .collect();
            let a = array(&x, &[1, r, inner]);
            for (max, last) in [(true, false), (true, true), (false, false), (false, true)] {
                let extreme = if max { Extreme::Max } else { Extreme::Min };
                let want = reference::arg(&a, extreme, 1, false, last);
                let want: Vec<i64> = want.iter().copied().collect();
                let vals_want = reference::reduce(&a, extreme, Some(&[1]), false, false);
                let vals_want: Vec<T> = vals_want.iter().copied().collect();
                let (mut got, mut vals) = (vec![-1i64; inner], vec![T::zero(); inner]);
                // Indices alone in two modes, with the values in the other two (as `arg_case`):
                // each call is a whole kernel instantiated, so that the build stays short.
                match (max, last) {
                    (true, false) => node::arg_blocks_values::<T, Max, false, TILE>(
                        &x, &mut got, &mut vals, r, inner,
                    ),
                    (true, true) => node::arg_blocks::<T, Max, true, TILE>(&x, &mut got, r, inner),
                    (false, false) => {
                        node::arg_blocks::<T, Min, false, TILE>(&x, &mut got, r, inner)
                    }
                    (false, true) => node::arg_blocks_values::<T, Min, true, TILE>(
                        &x, &mut got, &mut vals, r, inner,
                    ),
                }
                let what = format!(
                    "{} [{r}, {inner}] max={max} last={last} ties={ties}",
                    T::NAME
                );
                assert_eq!(got, want, "arg {what}");
                if max != last {
                    assert!(same(&vals, &vals_want), "fused values {what}");
                }
            }
        }
    }
}

macro_rules! strided_int_tests {
    ($($name:ident: $t:ty,)*) => {$(
        #[test]
        fn $name() {
            const S: usize = core::mem::size_of::<$t>();
            each_build(|| {
            let mut g = Lcg(stringify!($name).len() as u64 * 104_729);
            // Two tiles of 1-byte lanes (the last one of 468: chunks of 128, of 16, and the
            // overlapping last one; 2-byte lanes in two tiles, wider ones in more), and one
            // tile of 130 lanes (a chunk of 128 bytes of 1-byte lanes, or of 32 4-byte lanes,
            // then chunks of sixteen and the overlapping last one).
            strided_ints::<$t, { arg_tile(2100, S) }>(&mut g, 2100, &[9, 130]);
            strided_ints::<$t, { arg_tile(130, S) }>(&mut g, 130, &[8, 127, 128, 300, 1000]);
            // Around the most groups a `u8` counter holds (256 groups of 16 rows of 1-byte keys).
            strided_ints::<$t, { arg_tile(130, S) }>(&mut g, 130, &[4095, 4097]);
            });
        }
    )*};
}
strided_int_tests! {
    i8_strided: i8, u8_strided: u8, i16_strided: i16, u16_strided: u16,
    i32_strided: i32, u32_strided: u32, i64_strided: i64, u64_strided: u64,
}

/// The narrow shims over many rows: the widened rows of `narrow_period(C)` lanes take the
/// grouped pass (128 of them and more; in the twins 64-bit keys go by vectors of sixteen lanes),
/// with rows left over after the last whole period, NaN-free and with NaN, values from the small
/// pool (ties down every lane, across groups) and, for integers, from the whole range.
fn narrow_many_rows<T: Pool>(seed: u64, any: impl Fn(u64) -> T) {
    let mut g = Lcg(seed);
    for c in [2usize, 3, 9, 15] {
        let k = narrow_period(c) / c;
        for r in [128 * k + k - 1, 300 * k] {
            let n = 2 * r * c;
            for nan in [false, true] {
                narrow_case(&draw::<T>(&mut g, n, nan), [2, r, c]);
            }
            let x: Vec<T> = (0..n).map(|_| any(g.next())).collect();
            narrow_case(&x, [2, r, c]);
        }
    }
}

/// The fused narrow pass is taken where it should be: blocks of a few lanes of every type (and
/// row count) but 8-byte ones over eight lanes, in optimized builds on a CPU with AVX-512 (so
/// that the checks above do not pass by never taking it).
#[test]
fn fused_narrow_values_are_taken_with_avx512() {
    #[cfg(target_arch = "x86_64")]
    let wide = std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512dq");
    #[cfg(not(target_arch = "x86_64"))]
    let wide = false;
    // Uncapped: not beside a capped run of `each_build`.
    let _uncapped = LOCK
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let x: Vec<f32> = (0..3 * 20 * 5).map(|i| (i % 7) as f32).collect();
    let (mut y, mut v) = (vec![0i64; 15], vec![0f32; 15]);
    let taken = node::arg_blocks_values_narrow::<f32, Max, false>(&x, &mut y, &mut v, 20, 5);
    assert_eq!(taken, wide && !cfg!(debug_assertions));
    // Blocks of two rows of 8-byte elements too (`arg_shifted` or the windows).
    let x: Vec<f64> = (0..40 * 2 * 5).map(|i| (i % 5) as f64).collect();
    let (mut y, mut v) = (vec![0i64; 200], vec![0f64; 200]);
    let taken = node::arg_blocks_values_narrow::<f64, Max, false>(&x, &mut y, &mut v, 2, 5);
    assert_eq!(taken, wide && !cfg!(debug_assertions));
    let x = vec![0u64; 3 * 4 * 9];
    let (mut y, mut v) = (vec![0i64; 27], vec![0u64; 27]);
    assert!(!node::arg_blocks_values_narrow::<u64, Max, false>(
        &x, &mut y, &mut v, 4, 9
    ));
}

#[test]
fn narrow_many_rows_of_64_bit_types() {
    each_build(|| {
        narrow_many_rows::<i64>(11, i64::any);
        narrow_many_rows::<u64>(12, u64::any);
        narrow_many_rows::<f64>(13, |k| (k >> 11) as f64 * 0.25 - 1e6);
        narrow_many_rows::<i32>(14, i32::any);
    });
}

macro_rules! every_type {
    ($($name:ident: $t:ty,)*) => {$(
        #[test]
        fn $name() {
            each_build(|| every_path::<$t>(stringify!($name).len() as u64 * 7919));
        }
    )*};
}
every_type! {
    f32_paths: f32, f64_paths: f64, f16_paths: f16, bf16_paths: bf16,
    i8_paths: i8, u8_paths: u8, i16_paths: i16, u16_paths: u16,
    i32_paths: i32, u32_paths: u32, i64_paths: i64, u64_paths: u64, bool_paths: bool,
}

/// Hardmax along blocks of many rows (from 160, where the strided `f32` kernel keeps each lane's
/// row) and of rows of a multiple of 512 lanes (where it does from 24 rows), around both
/// thresholds: every float type (the others share the shim). The values are the pool's without
/// NaN or -inf (a lane holding both infinities is left to the exact kernel by the `f32` one, as
/// a lane with a NaN is), then with one NaN, then the whole pool.
fn hardmax_many_rows<T: Pool>(seed: u64) {
    let mut g = Lcg(seed);
    let shapes = [
        [2, 159, 16],
        [2, 160, 17],
        [1, 300, 40],
        [3, 200, 33],
        [1, 23, 512],
        [1, 24, 512],
        [2, 40, 1024],
    ];
    let neg_inf = T::pool(3);
    for shape in shapes {
        let n: usize = shape.iter().product();
        let x: Vec<T> = (0..n)
            .map(|_| loop {
                let v = T::pool(g.next());
                if !Elem::is_nan(v) && !same(&[v], &[neg_inf]) {
                    break v;
                }
            })
            .collect();
        hardmax_case(&x, shape);
        let mut one_nan = x;
        one_nan[g.next() as usize % n] = T::pool(0);
        hardmax_case(&one_nan, shape);
        hardmax_case(&draw::<T>(&mut g, n, true), shape);
    }
}

/// `f64` Hardmax along blocks of two and three rows of sixteen lanes or more (the AVX-512
/// kernel of shifted rows where the CPU has it, in groups of blocks, the rest after them by
/// the other kernels): enough blocks for several groups and a tail, without NaN, with one, and
/// the whole pool.
#[test]
fn hardmax_few_rows_f64() {
    let mut g = Lcg(43);
    for r in [2, 3] {
        for inner in [16, 17, 20, 29, 40] {
            let shape = [1000 / inner + 5, r, inner];
            let n: usize = shape.iter().product();
            let x: Vec<f64> = draw(&mut g, n, false);
            hardmax_case(&x, shape);
            let mut one_nan = x;
            one_nan[g.next() as usize % n] = f64::NAN;
            hardmax_case(&one_nan, shape);
            hardmax_case(&draw::<f64>(&mut g, n, true), shape);
        }
    }
}

#[test]
fn hardmax_many_rows_f32() {
    hardmax_many_rows::<f32>(31);
}

#[test]
fn hardmax_many_rows_other_floats() {
    hardmax_many_rows::<f64>(37);
    hardmax_many_rows::<f16>(41);
}

/// Indices written as another type, a tile at a time, as a Cast folded into the node does.
fn indices_as<I: ThinIndex + Copy + PartialEq + std::fmt::Debug>(cast: impl Fn(i64) -> I) {
    let mut g = Lcg(5);
    for (rows, r) in [
        (0, 40),
        (1, 40),
        (255, 33),
        (256, 32),
        (257, 100),
        (1000, 35),
    ] {
        let x: Vec<f32> = draw(&mut g, rows * r, true);
        let mut want = vec![0i64; rows];
        node::arg_rows::<f32, Max, false, i64>(&x, &mut want, r);
        let mut got = vec![cast(-1); rows];
        node::arg_rows::<f32, Max, false, I>(&x, &mut got, r);
        let want: Vec<I> = want.iter().map(|&i| cast(i)).collect();
        assert_eq!(got, want, "{rows} rows of {r}");
        let mut again = vec![cast(-1); rows];
        let idx: Vec<i64> = (0..rows as i64).map(|i| i * 37).collect();
        node::cast_indices::<I>(&idx, &mut again);
        assert_eq!(again, idx.iter().map(|&i| cast(i)).collect::<Vec<I>>());
    }
}

#[test]
fn indices_written_as_other_types() {
    indices_as::<i32>(|i| i as i32);
    indices_as::<u8>(|i| i as u8);
    indices_as::<i16>(|i| i as i16);
    indices_as::<f32>(|i| i as f32);
    indices_as::<u64>(|i| i as u64);
}

#[test]
fn casts_between_types_in_tiles() {
    let mut g = Lcg(9);
    for n in [0, 1, 255, 256, 257, 1000] {
        let x: Vec<f32> = draw(&mut g, n, true);
        let mut got = vec![7u8; n];
        node::cast::<f32, u8>(&x, &mut got);
        let mut want = vec![7u8; n];
        onnx_aot::kernels::cast::<f32, u8>(&x, &mut want);
        assert_eq!(got, want);
        let mut half = vec![f16::ONE; n];
        node::cast::<f32, f16>(&x, &mut half);
        for (h, v) in half.iter().zip(&x) {
            assert!(h.same(f16::from_f32(*v)), "{v} -> {h}");
        }
    }
}

#[test]
fn arg_rows_rounded_to_narrower_floats() {
    let mut g = Lcg(11);
    for r in [1, 2, 5, 31, 32, 100] {
        let x: Vec<f32> = (0..r * 20)
            .map(|_| 1.0 + (g.next() % 64) as f32 * 1e-4)
            .collect();
        let mut got = vec![-1i64; 20];
        node::arg_rows_rounded::<f32, f16, Max, false>(&x, &mut got, r);
        let rounded: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
        let want = reference::arg(&array(&rounded, &[20, r]), Extreme::Max, 1, false, false);
        assert_eq!(
            got,
            want.iter().copied().collect::<Vec<i64>>(),
            "rows of {r}"
        );
    }
}
