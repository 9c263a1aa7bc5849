//! Property tests: code generated for a few hundred random models (see `build.rs`) against the
//! independent reference implementation (`onnx_aot_tests::reference`).
//!
//! For every case, many random inputs are drawn from small pools (so that ties are frequent),
//! with NaN (both signs), ±inf, -0.0/+0.0 and the largest finite values for floats, MIN/MAX/0 for
//! integers and both bools; they go through the generated `run_bytes` and through the reference
//! (evaluating the graph's nodes in dependency order) and the outputs must agree: floats are
//! equal when both are NaN or when `==` holds.
//!
//! `PROP_CASES=<n>` sets the number of inputs per model (default 512); `PROP_FILTER=<text>` keeps
//! only the models whose name or description contains the text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use half::{bf16, f16};
use ndarray::{ArrayD, Dimension, IxDyn};
use onnx_aot::DType;
use onnx_aot_tests::reference::{self, Elem, Extreme};
use proptest::collection::vec as pvec;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

// The generated modules, one per case.
onnx_aot_tests::generated_modules!("prop_modules.rs");

/// A run-time graph input: name, element type and shape.
struct Value {
    name: &'static str,
    dtype: DType,
    shape: &'static [usize],
}

/// What a node computes, with every axis already resolved (non-negative).
#[derive(Debug)]
enum Op {
    /// ArgMax (`min: false`) or ArgMin.
    Arg {
        min: bool,
        axis: usize,
        keepdims: bool,
        select_last_index: bool,
    },
    /// ReduceMax (`min: false`) or ReduceMin; `axes: None` when absent or empty.
    Reduce {
        min: bool,
        axes: Option<&'static [usize]>,
        keepdims: bool,
        noop_with_empty_axes: bool,
    },
    /// Hardmax-1/11 (2-D coercion).
    Hardmax2d { axis: usize },
    /// Hardmax-13.
    Hardmax { axis: usize },
    /// `onnx_aot.Hardmax` (multi-axis).
    HardmaxAxes { axes: &'static [usize] },
    /// Identity.
    Identity,
}

/// One node of a case's graph.
struct NodeSpec {
    op: Op,
    /// Op and resolved version, e.g. `ReduceMax-18`.
    label: &'static str,
    input: &'static str,
    output: &'static str,
    /// The attributes as written in the model (axes as written, defaults marked).
    attrs: &'static str,
}

/// The signature of a generated module's `run_bytes`.
type RunBytes = fn(&[&[u8]], &mut [&mut [u8]]) -> Result<(), onnx_aot::Error>;

/// One generated model.
struct Case {
    name: &'static str,
    /// The default domain's opset import.
    opset: i64,
    inputs: &'static [Value],
    /// In the order the model file lists them.
    nodes: &'static [NodeSpec],
    outputs: &'static [&'static str],
    run: RunBytes,
    /// The generated module's constants.
    input_shapes: &'static [&'static [usize]],
    input_dtypes: &'static [DType],
    output_shapes: &'static [&'static [usize]],
    output_dtypes: &'static [DType],
}

include!(concat!(env!("OUT_DIR"), "/prop_cases.rs"));

/// A tensor of any element type.
#[derive(Clone, Debug)]
enum Tensor {
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
    F16(ArrayD<f16>),
    BF16(ArrayD<bf16>),
    I8(ArrayD<i8>),
    I16(ArrayD<i16>),
    I32(ArrayD<i32>),
    I64(ArrayD<i64>),
    U8(ArrayD<u8>),
    U16(ArrayD<u16>),
    U32(ArrayD<u32>),
    U64(ArrayD<u64>),
    Bool(ArrayD<bool>),
}

/// Element types of the harness: the reference's [`Elem`] plus wrapping into [`Tensor`] and the
/// pools random inputs are drawn from.
trait Sample: Elem {
    const DTYPE: DType;
    fn wrap(a: ArrayD<Self>) -> Tensor;
    fn unwrap(t: &Tensor) -> Option<&ArrayD<Self>>;
    /// Pool `mode` (0: small values with many ties; 1: specials incl. NaN; 2: specials without
    /// NaN; 3: ties with a rare NaN). Element 0 is a plain zero, so shrinking lands on it.
    fn pool(mode: u8) -> Vec<Self>;
}

macro_rules! float_sample {
    ($t:ty, $variant:ident, $from:expr, $max:expr, $tiny:expr) => {
        impl Sample for $t {
            const DTYPE: DType = DType::$variant;
            fn wrap(a: ArrayD<Self>) -> Tensor {
                Tensor::$variant(a)
            }
            fn unwrap(t: &Tensor) -> Option<&ArrayD<Self>> {
                match t {
                    Tensor::$variant(a) => Some(a),
                    _ => None,
                }
            }
            fn pool(mode: u8) -> Vec<Self> {
                let from: fn(f64) -> $t = $from;
                let nan = f64::NAN;
                let inf = f64::INFINITY;
                let ties = [0.0, 1.0, -1.0, 2.0];
                let mut v: Vec<$t> = match mode {
                    0 => ties.iter().map(|&x| from(x)).collect(),
                    1 | 2 => [0.0, -0.0, 1.0, -1.0, 2.5, inf, -inf, nan, -nan]
                        .iter()
                        .filter(|x| mode == 1 || !x.is_nan())
                        .map(|&x| from(x))
                        .chain([$max, -$max, $tiny])
                        .collect(),
                    _ => {
                        let mut v: Vec<$t> =
                            ties.iter().cycle().take(20).map(|&x| from(x)).collect();
                        v.push(from(nan));
                        v
                    }
                };
                if mode == 1 {
                    // A NaN with the sign bit set, explicitly (conversions may drop it).
                    v.push(-from(nan));
                }
                v
            }
        }
    };
}

float_sample!(f32, F32, |x| x as f32, f32::MAX, f32::from_bits(1));
float_sample!(f64, F64, |x| x, f64::MAX, f64::from_bits(1));
float_sample!(f16, F16, f16::from_f64, f16::MAX, f16::from_bits(1));
float_sample!(bf16, BF16, bf16::from_f64, bf16::MAX, bf16::from_bits(1));

macro_rules! int_sample {
    ($t:ty, $variant:ident) => {
        impl Sample for $t {
            const DTYPE: DType = DType::$variant;
            fn wrap(a: ArrayD<Self>) -> Tensor {
                Tensor::$variant(a)
            }
            fn unwrap(t: &Tensor) -> Option<&ArrayD<Self>> {
                match t {
                    Tensor::$variant(a) => Some(a),
                    _ => None,
                }
            }
            fn pool(mode: u8) -> Vec<Self> {
                match mode {
                    0 | 3 => vec![0, 1, 2, 3],
                    _ => vec![
                        0,
                        <$t>::MIN,
                        <$t>::MAX,
                        <$t>::MIN.wrapping_add(1),
                        <$t>::MAX - 1,
                        1,
                        (0 as $t).wrapping_sub(1),
                    ],
                }
            }
        }
    };
}

int_sample!(i8, I8);
int_sample!(i16, I16);
int_sample!(i32, I32);
int_sample!(i64, I64);
int_sample!(u8, U8);
int_sample!(u16, U16);
int_sample!(u32, U32);
int_sample!(u64, U64);

impl Sample for bool {
    const DTYPE: DType = DType::Bool;
    fn wrap(a: ArrayD<Self>) -> Tensor {
        Tensor::Bool(a)
    }
    fn unwrap(t: &Tensor) -> Option<&ArrayD<Self>> {
        match t {
            Tensor::Bool(a) => Some(a),
            _ => None,
        }
    }
    fn pool(_mode: u8) -> Vec<Self> {
        vec![false, true]
    }
}

/// Runs `$body` with `$T` bound to the element type of `$dtype`.
macro_rules! with_type {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            DType::F16 => {
                type $T = f16;
                $body
            }
            DType::BF16 => {
                type $T = bf16;
                $body
            }
            DType::I8 => {
                type $T = i8;
                $body
            }
            DType::I16 => {
                type $T = i16;
                $body
            }
            DType::I32 => {
                type $T = i32;
                $body
            }
            DType::I64 => {
                type $T = i64;
                $body
            }
            DType::U8 => {
                type $T = u8;
                $body
            }
            DType::U16 => {
                type $T = u16;
                $body
            }
            DType::U32 => {
                type $T = u32;
                $body
            }
            DType::U64 => {
                type $T = u64;
                $body
            }
            DType::Bool => {
                type $T = bool;
                $body
            }
        }
    };
}

/// Runs `$body` with `$a` bound to the array inside a [`Tensor`].
macro_rules! with_array {
    ($t:expr, $a:ident => $body:expr) => {
        match $t {
            Tensor::F32($a) => $body,
            Tensor::F64($a) => $body,
            Tensor::F16($a) => $body,
            Tensor::BF16($a) => $body,
            Tensor::I8($a) => $body,
            Tensor::I16($a) => $body,
            Tensor::I32($a) => $body,
            Tensor::I64($a) => $body,
            Tensor::U8($a) => $body,
            Tensor::U16($a) => $body,
            Tensor::U32($a) => $body,
            Tensor::U64($a) => $body,
            Tensor::Bool($a) => $body,
        }
    };
}

impl Tensor {
    fn dtype(&self) -> DType {
        fn of<T: Sample>(_: &ArrayD<T>) -> DType {
            T::DTYPE
        }
        with_array!(self, a => of(a))
    }

    fn shape(&self) -> Vec<usize> {
        with_array!(self, a => a.shape().to_vec())
    }

    /// Type, shape and the elements in row-major order, on one line.
    fn show(&self) -> String {
        let elements =
            with_array!(self, a => a.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>());
        format!(
            "{:?} {:?} [{}]",
            self.dtype(),
            self.shape(),
            elements.join(", ")
        )
    }

    /// The row-major position of the first element that differs from `other` (same shape).
    fn first_difference(&self, other: &Tensor) -> Option<Vec<usize>> {
        fn go<T: Sample>(a: &ArrayD<T>, b: &Tensor) -> Option<Vec<usize>> {
            let b = T::unwrap(b)?;
            if a.shape() != b.shape() {
                return None;
            }
            a.indexed_iter()
                .zip(b.iter())
                .find(|((_, x), y)| !x.same(**y))
                .map(|((at, _), _)| at.slice().to_vec())
        }
        with_array!(self, a => go(a, other))
    }

    /// The elements, little-endian, the layout of `run_bytes`.
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        with_array!(self, a => a.iter().for_each(|x| x.write_le(&mut out)));
        out
    }
}

/// Decodes `run_bytes` output into a tensor; a bool byte other than 0/1 is an error.
fn decode(dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<Tensor, String> {
    fn go<T: Sample>(shape: &[usize], bytes: &[u8]) -> Result<Tensor, String> {
        if bytes.len() != shape.iter().product::<usize>() * T::SIZE {
            return Err(format!("{} output bytes for shape {shape:?}", bytes.len()));
        }
        if T::DTYPE == DType::Bool {
            if let Some(k) = bytes.iter().position(|&b| b > 1) {
                return Err(format!("bool byte {} at offset {k}", bytes[k]));
            }
        }
        let v: Vec<T> = bytes.chunks_exact(T::SIZE).map(T::read_le).collect();
        Ok(T::wrap(
            ArrayD::from_shape_vec(IxDyn(shape), v).map_err(|e| e.to_string())?,
        ))
    }
    with_type!(dtype, T => go::<T>(shape, bytes))
}

/// Whether two tensors agree: same type and shape, elements [`Elem::same`].
fn agree(a: &Tensor, b: &Tensor) -> bool {
    fn go<T: Sample>(a: &ArrayD<T>, b: &Tensor) -> bool {
        match T::unwrap(b) {
            Some(b) => a.shape() == b.shape() && a.iter().zip(b.iter()).all(|(x, y)| x.same(*y)),
            None => false,
        }
    }
    with_array!(a, x => go(x, b))
}

/// The reference's result of one node.
fn apply(op: &Op, x: &Tensor) -> Tensor {
    fn go<T: Sample>(op: &Op, x: &ArrayD<T>) -> Tensor {
        let ext = |min: bool| if min { Extreme::Min } else { Extreme::Max };
        let list = |axes: &[usize]| axes.iter().map(|&a| a as i64).collect::<Vec<i64>>();
        match *op {
            Op::Arg {
                min,
                axis,
                keepdims,
                select_last_index,
            } => Tensor::I64(reference::arg(
                x,
                ext(min),
                axis as i64,
                keepdims,
                select_last_index,
            )),
            Op::Reduce {
                min,
                axes,
                keepdims,
                noop_with_empty_axes,
            } => {
                let axes = axes.map(list);
                T::wrap(reference::reduce(
                    x,
                    ext(min),
                    axes.as_deref(),
                    keepdims,
                    noop_with_empty_axes,
                ))
            }
            Op::Hardmax2d { axis } => T::wrap(reference::hardmax_2d(x, axis as i64)),
            Op::Hardmax { axis } => T::wrap(reference::hardmax13(x, axis as i64)),
            Op::HardmaxAxes { axes } => T::wrap(reference::hardmax_axes(x, &list(axes))),
            Op::Identity => T::wrap(x.clone()),
        }
    }
    with_array!(x, a => go(op, a))
}

/// Evaluates a case's graph with the reference: nodes in dependency order, whatever the order
/// of the file.
fn evaluate(case: &Case, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut values: BTreeMap<&str, Tensor> = case
        .inputs
        .iter()
        .zip(inputs)
        .map(|(v, t)| (v.name, t.clone()))
        .collect();
    let mut done = vec![false; case.nodes.len()];
    while done.iter().any(|d| !d) {
        let mut progress = false;
        for (k, node) in case.nodes.iter().enumerate() {
            if done[k] {
                continue;
            }
            if let Some(x) = values.get(node.input) {
                let y = apply(&node.op, x);
                values.insert(node.output, y);
                done[k] = true;
                progress = true;
            }
        }
        assert!(
            progress,
            "{}: the graph has a node with no producer",
            case.name
        );
    }
    case.outputs
        .iter()
        .map(|name| values[name].clone())
        .collect()
}

/// Random input tensors from pool indices.
fn make_inputs(case: &Case, mode: u8, picks: &[Vec<usize>]) -> Vec<Tensor> {
    fn go<T: Sample>(shape: &[usize], mode: u8, picks: &[usize]) -> Tensor {
        let pool = T::pool(mode);
        let v: Vec<T> = picks.iter().map(|&i| pool[i % pool.len()]).collect();
        T::wrap(ArrayD::from_shape_vec(IxDyn(shape), v).expect("element count"))
    }
    case.inputs
        .iter()
        .zip(picks)
        .map(|(v, p)| with_type!(v.dtype, T => go::<T>(v.shape, mode, p)))
        .collect()
}

/// Everything a failure message needs to identify a case.
fn describe(case: &Case) -> String {
    let mut s = format!(
        "{} (opset {}; model {}/models/{}.onnx)",
        case.name,
        case.opset,
        env!("OUT_DIR"),
        case.name
    );
    for v in case.inputs {
        let _ = write!(s, "\n  input {}: {:?} {:?}", v.name, v.dtype, v.shape);
    }
    for n in case.nodes {
        let _ = write!(
            s,
            "\n  node {} -> {}: {} [{}] resolved {:?}",
            n.input, n.output, n.label, n.attrs, n.op
        );
    }
    let _ = write!(s, "\n  outputs: {:?}", case.outputs);
    s
}

/// One run: generated code against the reference on the given inputs.
fn check(case: &Case, inputs: &[Tensor]) -> Result<(), String> {
    let expected = evaluate(case, inputs);
    let in_bytes: Vec<Vec<u8>> = inputs.iter().map(Tensor::to_bytes).collect();
    let in_refs: Vec<&[u8]> = in_bytes.iter().map(Vec::as_slice).collect();
    let mut out_bytes: Vec<Vec<u8>> = expected
        .iter()
        .map(|t| vec![0xA5; t.to_bytes().len()])
        .collect();
    let mut out_refs: Vec<&mut [u8]> = out_bytes.iter_mut().map(Vec::as_mut_slice).collect();
    (case.run)(&in_refs, &mut out_refs).map_err(|e| format!("run_bytes refused: {e}"))?;
    let mut problems = String::new();
    for ((name, want), bytes) in case.outputs.iter().zip(&expected).zip(&out_bytes) {
        match decode(want.dtype(), &want.shape(), bytes) {
            Ok(got) if agree(want, &got) => {}
            Ok(got) => {
                let _ = write!(
                    problems,
                    "\n  output {name}: expected {}\n  {:>width$} got {}",
                    want.show(),
                    "",
                    got.show(),
                    width = name.len() + 7,
                );
                if let Some(at) = want.first_difference(&got) {
                    let _ = write!(problems, "\n  first difference at {at:?}");
                }
            }
            Err(e) => {
                let _ = write!(problems, "\n  output {name}: {e}; expected {}", want.show());
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let mut msg = String::from("mismatch on input");
        for (v, t) in case.inputs.iter().zip(inputs) {
            let _ = write!(msg, "\n  {} = {}", v.name, t.show());
        }
        msg.push_str(&problems);
        Err(msg)
    }
}

fn cases_per_model() -> u32 {
    std::env::var("PROP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(512)
}

/// Cases for a model of `elements` input elements: [`cases_per_model`] up to 4096 elements
/// (every model but the chunked chains), then fewer, down to 8, so that each model takes about
/// as many elements in all (a chunked chain reads 32,768 elements and more a case).
fn cases_for(elements: usize) -> u32 {
    let all = cases_per_model();
    let scaled = u64::from(all) * 4096 / elements.max(1) as u64;
    u32::try_from(scaled)
        .unwrap_or(u32::MAX)
        .clamp(all.min(8), all)
}

fn selected(case: &Case) -> bool {
    match std::env::var("PROP_FILTER") {
        Ok(f) if !f.is_empty() => describe(case).contains(&f),
        _ => true,
    }
}

/// Checks every case whose index is `shard` modulo `of`; panics with every failure.
fn run_shard(shard: usize, of: usize) {
    assert!(!CASES.is_empty(), "no property cases were generated");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (index, case) in CASES.iter().enumerate() {
        if index % of != shard || !selected(case) {
            continue;
        }
        checked += 1;
        let sizes: Vec<usize> = case
            .inputs
            .iter()
            .map(|v| v.shape.iter().product())
            .collect();
        let config = Config {
            cases: cases_for(sizes.iter().sum()),
            failure_persistence: None,
            // Shrinking inputs of 100,000 elements would take hours: large models report the
            // failing input as drawn.
            max_shrink_iters: if sizes.iter().sum::<usize>() > 4096 {
                0
            } else {
                2000
            },
            ..Config::default()
        };
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed(case.name));
        let mut runner = TestRunner::new_with_rng(config, rng);
        let strategy = (
            0u8..4,
            sizes
                .iter()
                .map(|&n| pvec(0usize..64, n))
                .collect::<Vec<_>>(),
        );
        let result = runner.run(&strategy, |(mode, picks)| {
            let inputs = make_inputs(case, mode, &picks);
            check(case, &inputs).map_err(TestCaseError::fail)
        });
        match result {
            Ok(()) => {}
            Err(TestError::Fail(reason, _)) => {
                failures.push(format!("{}\n{}", describe(case), reason));
            }
            Err(e) => failures.push(format!("{}\n{e}", describe(case))),
        }
    }
    eprintln!(
        "shard {shard}/{of}: {checked} models, {} inputs each, {} failed",
        cases_per_model(),
        failures.len()
    );
    if !failures.is_empty() {
        panic!(
            "{} of {checked} models disagree with the reference:\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

/// A seed per case, so that a case's inputs do not depend on which others run.
fn seed(name: &str) -> [u8; 32] {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    let mut out = [0u8; 32];
    for (k, chunk) in out.chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&(h.wrapping_add(k as u64).rotate_left(17 * k as u32)).to_le_bytes());
    }
    out
}

#[test]
fn shard_0() {
    run_shard(0, 4);
}

#[test]
fn shard_1() {
    run_shard(1, 4);
}

#[test]
fn shard_2() {
    run_shard(2, 4);
}

#[test]
fn shard_3() {
    run_shard(3, 4);
}

/// The generated constants agree with the table and with the reference's shapes and types.
#[test]
fn constants_agree() {
    let mut bad = Vec::new();
    for case in CASES {
        let table_shapes: Vec<&[usize]> = case.inputs.iter().map(|v| v.shape).collect();
        let table_dtypes: Vec<DType> = case.inputs.iter().map(|v| v.dtype).collect();
        let zeros: Vec<Vec<usize>> = case
            .inputs
            .iter()
            .map(|v| vec![0; v.shape.iter().product()])
            .collect();
        let expected = evaluate(case, &make_inputs(case, 0, &zeros));
        let shapes: Vec<Vec<usize>> = expected.iter().map(Tensor::shape).collect();
        let dtypes: Vec<DType> = expected.iter().map(Tensor::dtype).collect();
        let generated_shapes: Vec<Vec<usize>> =
            case.output_shapes.iter().map(|s| s.to_vec()).collect();
        if case.input_shapes != table_shapes.as_slice()
            || case.input_dtypes != table_dtypes.as_slice()
            || generated_shapes != shapes
            || case.output_dtypes != dtypes.as_slice()
        {
            bad.push(format!(
                "{}\n  generated: inputs {:?} {:?}, outputs {:?} {:?}\n  reference: outputs {:?} {:?}",
                describe(case),
                case.input_shapes,
                case.input_dtypes,
                case.output_shapes,
                case.output_dtypes,
                shapes,
                dtypes
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}
