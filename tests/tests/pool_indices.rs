//! MaxPool with its `Indices` output, for a window covering the whole map (what exporters
//! write for `adaptive_max_pool2d(x, 1, return_indices=True)`): each case of
//! `build_pool_indices.rs` (maps of 1 to 3 dimensions, f32/f16/i8/u8, `storage_order` 0 and 1,
//! the pooled values an output or not) against the contract, written here from SEMANTICS.md:
//! the flat index into the whole input of each map's first maximum (first NaN), positions in
//! the map counted column-major with `storage_order=1`; the pooled values the maxima (NaN
//! propagating). Both outputs come from one pass over the input (no scratch).

use half::f16;
use onnx_aot::{DType, Error};

type RunBytes = fn(&[&[u8]], &mut [&mut [u8]]) -> Result<(), Error>;

struct PoolCase {
    dtype: DType,
    shape: &'static [usize],
    column_major: bool,
    values: bool,
    scratch: usize,
    run_bytes: RunBytes,
}

onnx_aot_tests::generated_modules!("pool_indices_modules.rs");

include!(concat!(env!("OUT_DIR"), "/pool_indices_cases.rs"));

use onnx_aot_tests::rng::Lcg;

/// A small pool of values (ties are frequent), NaN now and then for the float types.
fn value(g: &mut Lcg, dtype: DType) -> f64 {
    let v = (g.next() % 7) as f64 - 3.0;
    match dtype {
        DType::F32 | DType::F16 if g.next().is_multiple_of(23) => f64::NAN,
        DType::F32 | DType::F16 if g.next().is_multiple_of(17) => -0.0,
        DType::U8 => v + 3.0,
        _ => v,
    }
}

fn write(v: f64, dtype: DType, out: &mut Vec<u8>) {
    match dtype {
        DType::F32 => out.extend((v as f32).to_le_bytes()),
        DType::F16 => out.extend(f16::from_f64(v).to_le_bytes()),
        DType::I8 => out.push(v as i8 as u8),
        DType::U8 => out.push(v as u8),
        other => panic!("no values of {other:?}"),
    }
}

fn read(bytes: &[u8], dtype: DType) -> f64 {
    match dtype {
        DType::F32 => f64::from(f32::from_le_bytes(bytes.try_into().unwrap())),
        DType::F16 => f16::from_le_bytes(bytes.try_into().unwrap()).to_f64(),
        DType::I8 => f64::from(bytes[0] as i8),
        DType::U8 => f64::from(bytes[0]),
        other => panic!("no values of {other:?}"),
    }
}

/// The contract, map by map: the first NaN, else the first strictly greater value, in
/// row-major order; its coordinates, then the flat index.
fn expected(x: &[f64], shape: &[usize], column_major: bool) -> (Vec<i64>, Vec<f64>) {
    let map = &shape[2..];
    let size: usize = map.iter().product();
    let mut indices = Vec::new();
    let mut values = Vec::new();
    for (row, m) in x.chunks(size).enumerate() {
        let mut best = 0;
        for (k, &v) in m.iter().enumerate() {
            if m[best].is_nan() {
                break;
            }
            if v.is_nan() || v > m[best] {
                best = k;
            }
        }
        // Coordinates of `best` (row-major), then its position in the chosen order.
        let mut coords = vec![0; map.len()];
        let mut rest = best;
        for (c, &d) in coords.iter_mut().zip(map).rev() {
            *c = rest % d;
            rest /= d;
        }
        let mut position = 0;
        if column_major {
            for (c, &d) in coords.iter().zip(map).rev() {
                position = position * d + c;
            }
        } else {
            for (c, &d) in coords.iter().zip(map) {
                position = position * d + c;
            }
        }
        indices.push((row * size + position) as i64);
        values.push(m[best]);
    }
    (indices, values)
}

#[test]
fn maxpool_indices_match_the_contract() {
    assert_eq!(POOL_CASES.len(), 4 * 4 * 4);
    let mut g = Lcg(9);
    for case in POOL_CASES {
        assert_eq!(case.scratch, 0, "one pass, no intermediate");
        let n: usize = case.shape.iter().product();
        let size = case.dtype.size();
        let maps = n / case.shape[2..].iter().product::<usize>();
        for _ in 0..50 {
            let x: Vec<f64> = (0..n).map(|_| value(&mut g, case.dtype)).collect();
            let mut input = Vec::new();
            for &v in &x {
                write(v, case.dtype, &mut input);
            }
            let (want_i, want_v) = expected(&x, case.shape, case.column_major);
            let mut i = vec![0u8; maps * 8];
            let mut y = vec![0u8; maps * size];
            if case.values {
                (case.run_bytes)(&[&input], &mut [&mut y, &mut i]).expect("run_bytes");
                let got: Vec<f64> = y.chunks(size).map(|c| read(c, case.dtype)).collect();
                for (g, w) in got.iter().zip(&want_v) {
                    assert!(
                        g == w || (g.is_nan() && w.is_nan()),
                        "values of {:?} {:?}: {got:?} != {want_v:?}",
                        case.dtype,
                        case.shape
                    );
                }
            } else {
                (case.run_bytes)(&[&input], &mut [&mut i]).expect("run_bytes");
            }
            let got: Vec<i64> = i
                .chunks(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(
                got, want_i,
                "{:?} {:?} storage_order {} x {x:?}",
                case.dtype, case.shape, case.column_major as u8
            );
        }
    }
}
