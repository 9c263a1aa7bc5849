//! A Cast before ArgMax/ArgMin (`x.half().argmax()`, `x.float().argmax()`): the generator folds
//! exact widenings and roundings to a narrower float into the read (no cast pass, no scratch),
//! and leaves other casts as a pass of their own. Every case (`build_cast_folds.rs`: eleven type
//! pairs, rows short and long, lanes, both directions, `select_last_index` 0 and 1) runs through
//! `run_bytes` on values crowded around rounding boundaries, and is compared with the
//! definition: each element cast by the contract's rules, then the reference arg-reduction.

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use onnx_aot::{DType, Error};
use onnx_aot_tests::reference::{self, Extreme};

type RunBytes = fn(&[&[u8]], &mut [&mut [u8]]) -> Result<(), Error>;

struct CastFoldCase {
    from: DType,
    to: DType,
    /// The Cast comes after the arg-reduction (of its indices).
    after: bool,
    /// The INT64 indices are a graph output too (then the Cast is not folded).
    shared: bool,
    /// A ReduceMax/ReduceMin over these axes instead of ArgMax/ArgMin (keepdims 0).
    reduce: Option<&'static [i64]>,
    shape: &'static [usize],
    axis: i64,
    max: bool,
    last: bool,
    scratch: usize,
    run_bytes: RunBytes,
}

onnx_aot_tests::generated_modules!("cast_fold_modules.rs");

include!(concat!(env!("OUT_DIR"), "/cast_fold_cases.rs"));

use onnx_aot_tests::rng::Lcg;

/// A value of `dtype` (held in f64, which holds each of these types exactly), crowded around
/// the values where Cast rounds: halfway points of f16, bf16 and f32, the edge of f16's range,
/// zero, subnormals; NaN of both signs and infinities now and then.
fn value(g: &mut Lcg, dtype: DType) -> f64 {
    if !matches!(dtype, DType::F16 | DType::BF16 | DType::F32 | DType::F64) {
        let pool: [f64; 9] = [-3.0, -1.0, 0.0, 1.0, 2.0, 255.0, 256.0, -129.0, 127.0];
        let v = pool[(g.next() % 9) as usize];
        // Large values too, where i32 -> f32 rounds; each value within its type's range.
        let scale = if g.next().is_multiple_of(5) {
            1e5 + 1.0
        } else {
            1.0
        };
        return match dtype {
            DType::U8 => v.rem_euclid(256.0),
            DType::I8 => v.clamp(-128.0, 127.0),
            DType::I16 => (v * scale).clamp(-32768.0, 32767.0),
            _ => v * scale,
        };
    }
    match g.next() % 30 {
        0 => return f64::NAN,
        1 => return -f64::NAN,
        2 => return f64::INFINITY,
        3 => return f64::NEG_INFINITY,
        _ => {}
    }
    let bases = [
        1.0,
        -1.0,
        1.0 + 2f64.powi(-11),
        1.0 + 2f64.powi(-8),
        1.0 + 2f64.powi(-24),
        65504.0,
        65520.0,
        -65520.0,
        0.0,
        -0.0,
        6e-8,
        3.0,
        -2.5,
    ];
    let base = bases[(g.next() % bases.len() as u64) as usize];
    let steps = (g.next() % 7) as i32 - 3;
    // Steps of the type's own spacing near `base`.
    let mut v = base;
    for _ in 0..steps.unsigned_abs() {
        v = match dtype {
            DType::F16 => f16::from_bits(step16(f16::from_f64(v).to_bits(), steps > 0)).to_f64(),
            DType::BF16 => bf16::from_bits(step16(bf16::from_f64(v).to_bits(), steps > 0)).to_f64(),
            DType::F32 => {
                let f = v as f32;
                f64::from(if steps > 0 {
                    f.next_up()
                } else {
                    f.next_down()
                })
            }
            _ => {
                if steps > 0 {
                    v.next_up()
                } else {
                    v.next_down()
                }
            }
        };
    }
    match dtype {
        DType::F16 => f16::from_f64(v).to_f64(),
        DType::BF16 => bf16::from_f64(v).to_f64(),
        DType::F32 => f64::from(v as f32),
        _ => v,
    }
}

/// The next 16-bit float (f16 or bf16, by bits) up or down; from either zero down, the smallest
/// negative subnormal.
fn step16(bits: u16, up: bool) -> u16 {
    let positive = bits & 0x8000 == 0;
    if bits & 0x7fff == 0 && !up {
        0x8001
    } else if up == positive {
        bits + 1
    } else {
        bits.wrapping_sub(1)
    }
}

/// The value as little-endian bytes of `dtype`.
fn bytes(v: f64, dtype: DType, out: &mut Vec<u8>) {
    match dtype {
        DType::F16 => out.extend(f16::from_f64(v).to_le_bytes()),
        DType::BF16 => out.extend(bf16::from_f64(v).to_le_bytes()),
        DType::F32 => out.extend((v as f32).to_le_bytes()),
        DType::F64 => out.extend(v.to_le_bytes()),
        DType::U8 => out.push(v as u8),
        DType::I8 => out.push(v as i8 as u8),
        DType::I16 => out.extend((v as i16).to_le_bytes()),
        DType::I32 => out.extend((v as i32).to_le_bytes()),
        other => panic!("no test values of {other:?}"),
    }
}

/// The contract's Cast of one value (held exactly in f64) from `from` to `to`, held in f64.
fn cast(v: f64, from: DType, to: DType) -> f64 {
    let int = !matches!(from, DType::F16 | DType::BF16 | DType::F32 | DType::F64);
    match to {
        DType::F16 if from == DType::F32 => f16::from_f32(v as f32).to_f64(),
        DType::F16 => f16::from_f64(v).to_f64(),
        DType::BF16 => bf16::from_f32(v as f32).to_f64(),
        DType::F32 if int => f64::from(v as i64 as f32),
        DType::F32 => f64::from(v as f32),
        DType::F64 => v,
        // Integers wrap, floats truncate and saturate, NaN gives 0 (Rust's `as`).
        DType::I32 if int => f64::from(v as i64 as i32),
        DType::I32 => f64::from(v as i32),
        DType::U8 if int => f64::from(v as i64 as u8),
        DType::U8 => f64::from(v as u8),
        other => panic!("no cast to {other:?}"),
    }
}

#[test]
fn cast_then_arg_matches_the_definition() {
    assert_eq!(
        CAST_FOLD_CASES.len(),
        11 * 5 * 4 + 4 * 6 * 2 + 11 * 4 * 4 - 8
    );
    let mut g = Lcg(3);
    for case in CAST_FOLD_CASES
        .iter()
        .filter(|c| !c.after && c.reduce.is_none())
    {
        let n: usize = case.shape.iter().product();
        for round in 0..40 {
            let x: Vec<f64> = (0..n).map(|_| value(&mut g, case.from)).collect();
            let mut input = Vec::new();
            for &v in &x {
                bytes(v, case.from, &mut input);
            }
            let kept = n / case.shape[case.axis.rem_euclid(case.shape.len() as i64) as usize];
            let mut out = vec![0u8; kept * 8];
            (case.run_bytes)(&[&input], &mut [&mut out]).expect("run_bytes");
            let got: Vec<i64> = out
                .chunks(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let cast_x: Vec<f64> = x.iter().map(|&v| cast(v, case.from, case.to)).collect();
            let array = ArrayD::from_shape_vec(IxDyn(case.shape), cast_x).unwrap();
            let extreme = if case.max { Extreme::Max } else { Extreme::Min };
            let want = reference::arg(&array, extreme, case.axis, false, case.last);
            assert_eq!(
                got,
                want.iter().copied().collect::<Vec<_>>(),
                "Cast {:?} -> {:?}, shape {:?} axis {}, max {}, last {}, round {round}, x {x:?}",
                case.from,
                case.to,
                case.shape,
                case.axis,
                case.max,
                case.last
            );
        }
    }
}

/// Which casts are folded: exact widenings always, roundings to a narrower float over rows;
/// the others keep their own pass and a scratch tensor.
#[test]
fn foldable_casts_leave_no_intermediate() {
    for case in CAST_FOLD_CASES
        .iter()
        .filter(|c| !c.after && c.reduce.is_none())
    {
        let widening = matches!(
            (case.from, case.to),
            (DType::F16, DType::F32)
                | (DType::BF16, DType::F64)
                | (DType::U8, DType::I32)
                | (DType::I16, DType::F32)
                | (DType::I8, DType::F16)
        );
        let rounding = matches!(
            (case.from, case.to),
            (DType::F32, DType::F16) | (DType::F32, DType::BF16) | (DType::F64, DType::F32)
        );
        let axis = case.axis.rem_euclid(case.shape.len() as i64) as usize;
        let rows = axis == case.shape.len() - 1;
        let folded = widening || (rounding && rows);
        assert_eq!(
            case.scratch == 0,
            folded,
            "Cast {:?} -> {:?} over {:?} axis {}: scratch {}",
            case.from,
            case.to,
            case.shape,
            case.axis,
            case.scratch
        );
    }
}

/// The contract's Cast of an index (an i64) to `to`: integers wrap, f32 rounds.
fn cast_index(i: i64, to: DType) -> Vec<u8> {
    match to {
        DType::I32 => (i as i32).to_le_bytes().to_vec(),
        DType::U8 => vec![i as u8],
        DType::I16 => (i as i16).to_le_bytes().to_vec(),
        DType::F32 => (i as f32).to_le_bytes().to_vec(),
        other => panic!("no index cast to {other:?}"),
    }
}

/// ArgMax/ArgMin then a Cast of the indices: the node writes the narrow type (rows, short
/// rows, lanes; the long axis of 3000 wraps in UINT8), or, when the INT64 indices are a graph
/// output too, the Cast runs apart; either way both outputs are the definition's.
#[test]
fn arg_then_cast_matches_the_definition() {
    let mut g = Lcg(5);
    let cases: Vec<_> = CAST_FOLD_CASES
        .iter()
        .filter(|c| c.after && c.reduce.is_none())
        .collect();
    assert_eq!(cases.len(), 48);
    for case in cases {
        let n: usize = case.shape.iter().product();
        let axis = case.axis.rem_euclid(case.shape.len() as i64) as usize;
        let kept = n / case.shape[axis];
        for _ in 0..10 {
            let x: Vec<f64> = (0..n).map(|_| value(&mut g, DType::F32)).collect();
            let mut input = Vec::new();
            for &v in &x {
                bytes(v, DType::F32, &mut input);
            }
            let array = ArrayD::from_shape_vec(IxDyn(case.shape), x).unwrap();
            let extreme = if case.max { Extreme::Max } else { Extreme::Min };
            let want = reference::arg(&array, extreme, case.axis, false, case.last);
            let want_cast: Vec<u8> = want.iter().flat_map(|&i| cast_index(i, case.to)).collect();
            let mut y = vec![0u8; want_cast.len()];
            let mut i64s = vec![0u8; kept * 8];
            // Folded: no INT64 intermediate in scratch.
            assert_eq!(case.scratch, 0, "{:?} {:?}", case.to, case.shape);
            if case.shared {
                (case.run_bytes)(&[&input], &mut [&mut y, &mut i64s]).expect("run_bytes");
                let got: Vec<i64> = i64s
                    .chunks(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                assert_eq!(got, want.iter().copied().collect::<Vec<_>>());
            } else {
                (case.run_bytes)(&[&input], &mut [&mut y]).expect("run_bytes");
            }
            assert_eq!(
                y, want_cast,
                "ArgMax {} then Cast to {:?}, shape {:?} axis {}",
                case.max, case.to, case.shape, case.axis
            );
        }
    }
}

/// A Cast before or after ReduceMax/ReduceMin: after, always folded (the reduction writes the
/// cast type); before, folded when the cast keeps the order and NaN (then the extreme of the
/// cast values is the cast extreme), not for wraps and float-to-integer casts. Every case against
/// the definition: the reference reduction over the cast values, or the cast of the reduction.
#[test]
fn casts_around_reductions_match_the_definition() {
    let mut g = Lcg(13);
    let cases: Vec<_> = CAST_FOLD_CASES
        .iter()
        .filter(|c| c.reduce.is_some())
        .collect();
    // Every pair, both sides, but a ReduceMax/ReduceMin over INT16 (not in its constraint).
    assert_eq!(cases.len(), 11 * 4 * 4 - 8);
    for case in cases {
        let axes = case.reduce.unwrap_or(&[]);
        let order_kept = !matches!(
            (case.from, case.to),
            (DType::I32, DType::U8) | (DType::F32, DType::I32)
        );
        assert_eq!(
            case.scratch == 0,
            case.after || order_kept,
            "{:?} -> {:?} after {}: scratch {}",
            case.from,
            case.to,
            case.after,
            case.scratch
        );
        let n: usize = case.shape.iter().product();
        let extreme = if case.max { Extreme::Max } else { Extreme::Min };
        for _ in 0..20 {
            let x: Vec<f64> = (0..n).map(|_| value(&mut g, case.from)).collect();
            let mut input = Vec::new();
            for &v in &x {
                bytes(v, case.from, &mut input);
            }
            let want: Vec<f64> = if case.after {
                let array = ArrayD::from_shape_vec(IxDyn(case.shape), x.clone()).unwrap();
                let r = reference::reduce(&array, extreme, Some(axes), false, false);
                r.iter().map(|&v| cast(v, case.from, case.to)).collect()
            } else {
                let cast_x: Vec<f64> = x.iter().map(|&v| cast(v, case.from, case.to)).collect();
                let array = ArrayD::from_shape_vec(IxDyn(case.shape), cast_x).unwrap();
                let r = reference::reduce(&array, extreme, Some(axes), false, false);
                r.iter().copied().collect()
            };
            let size = case.to.size();
            let mut y = vec![0u8; want.len() * size];
            (case.run_bytes)(&[&input], &mut [&mut y]).expect("run_bytes");
            let mut expected = Vec::new();
            for &v in &want {
                bytes(v, case.to, &mut expected);
            }
            // NaN payloads aside: compare NaN as NaN.
            let got: Vec<f64> = y.chunks(size).map(|c| read(c, case.to)).collect();
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(
                    a == b || (a.is_nan() && b.is_nan()),
                    "{:?} -> {:?} after {} {:?} axes {axes:?} at {k}: {a} != {b}",
                    case.from,
                    case.to,
                    case.after,
                    case.shape
                );
            }
        }
    }
}

/// One element of `dtype` from its little-endian bytes, held in f64.
fn read(c: &[u8], dtype: DType) -> f64 {
    match dtype {
        DType::F16 => f16::from_le_bytes([c[0], c[1]]).to_f64(),
        DType::BF16 => bf16::from_le_bytes([c[0], c[1]]).to_f64(),
        DType::F32 => f64::from(f32::from_le_bytes(c.try_into().unwrap())),
        DType::F64 => f64::from_le_bytes(c.try_into().unwrap()),
        DType::U8 => f64::from(c[0]),
        DType::I8 => f64::from(c[0] as i8),
        DType::I16 => f64::from(i16::from_le_bytes(c.try_into().unwrap())),
        DType::I32 => f64::from(i32::from_le_bytes(c.try_into().unwrap())),
        other => panic!("no values of {other:?}"),
    }
}

/// The rounding read next to the other folds: after a Transpose whose rows are the input's
/// lanes, and after a Hardmax (whose one-hot the Cast does not move).
#[test]
fn rounding_reads_next_to_transposes_and_one_hots() {
    let mut g = Lcg(17);
    for _ in 0..200 {
        let x: Vec<f64> = (0..120).map(|_| value(&mut g, DType::F32)).collect();
        let got = run_f32(cast_fold_transposed::run_bytes, &x, 40);
        let cast_x: Vec<f64> = x.iter().map(|&v| cast(v, DType::F32, DType::F16)).collect();
        let array = ArrayD::from_shape_vec(IxDyn(&[3, 40]), cast_x).unwrap();
        let want = reference::arg(&array, Extreme::Max, 0, false, false);
        assert_eq!(
            got,
            want.iter().copied().collect::<Vec<_>>(),
            "transposed {x:?}"
        );

        // Without NaN (a row of 300 would almost always hold one, which both readings pick).
        let x: Vec<f64> = (0..1800)
            .map(|_| value(&mut g, DType::F32))
            .map(|v| if v.is_nan() { 1.0 } else { v })
            .collect();
        let got = run_f32(cast_fold_after_hardmax::run_bytes, &x, 6);
        // The one-hot's 1 sits at the first maximum of the uncast row.
        let array = ArrayD::from_shape_vec(IxDyn(&[6, 300]), x.clone()).unwrap();
        let want = reference::arg(&array, Extreme::Max, 1, false, false);
        assert_eq!(
            got,
            want.iter().copied().collect::<Vec<_>>(),
            "after hardmax"
        );
    }
}

/// Runs a model of one f32 input and one INT64 output of `n` elements.
fn run_f32(run_bytes: RunBytes, x: &[f64], n: usize) -> Vec<i64> {
    let input: Vec<u8> = x.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect();
    let mut out = vec![0u8; n * 8];
    run_bytes(&[&input], &mut [&mut out]).unwrap();
    out.chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
