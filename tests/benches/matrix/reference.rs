//! The reference: checks the generated code's outputs lane by lane (a lane: the elements one
//! output position is computed from), from the input bytes.

use super::{Compute, Dt};
use onnx_aot_tests::reference::offsets;

/// The order key of element `i` (no element is NaN or -0.0; no type is wider than i64):
/// floats through their bits, integers and bools as they are.
fn key(dt: Dt, x: &[u8], i: usize) -> i64 {
    fn float(bits: i64) -> i64 {
        if bits < 0 {
            bits ^ i64::MAX
        } else {
            bits
        }
    }
    let b = &x[i * dt.size()..(i + 1) * dt.size()];
    match dt {
        Dt::F32 => float(f64::from(f32::from_le_bytes(b.try_into().unwrap())).to_bits() as i64),
        Dt::F64 => float(i64::from_le_bytes(b.try_into().unwrap())),
        Dt::F16 => float(f64::from(half::f16::from_le_bytes([b[0], b[1]])).to_bits() as i64),
        Dt::Bf16 => float(f64::from(half::bf16::from_le_bytes([b[0], b[1]])).to_bits() as i64),
        Dt::I8 => i64::from(b[0] as i8),
        Dt::U8 | Dt::Bool => i64::from(b[0]),
        Dt::I16 => i64::from(i16::from_le_bytes([b[0], b[1]])),
        Dt::U16 => i64::from(u16::from_le_bytes([b[0], b[1]])),
        Dt::I32 => i64::from(i32::from_le_bytes(b.try_into().unwrap())),
        Dt::I64 => i64::from_le_bytes(b.try_into().unwrap()),
    }
}

/// The position in `positions` of the first maximum (`last`: the last), of the minimum with
/// `min`.
fn best(dt: Dt, x: &[u8], positions: impl Iterator<Item = usize>, min: bool, last: bool) -> usize {
    let mut best = (0, 0);
    for (k, p) in positions.enumerate() {
        let v = if min { !key(dt, x, p) } else { key(dt, x, p) };
        if k == 0 || v > best.1 || (last && v == best.1) {
            best = (k, v);
        }
    }
    best.0
}

/// The lanes along one axis: lane `l` is `(outer, inner)` = `(l / inner, l % inner)`, its
/// elements `base + k * inner` for `k < n`.
#[derive(Clone, Copy)]
struct Axis {
    n: usize,
    inner: usize,
    lanes: usize,
}

impl Axis {
    fn new(shape: &[usize], axis: usize) -> Axis {
        let outer: usize = shape[..axis].iter().product();
        let inner: usize = shape[axis + 1..].iter().product();
        Axis {
            n: shape[axis],
            inner,
            lanes: outer * inner,
        }
    }
    fn positions(self, lane: usize) -> impl Iterator<Item = usize> {
        let base = lane / self.inner * self.n * self.inner + lane % self.inner;
        (0..self.n).map(move |k| base + k * self.inner)
    }
}

fn elem(out: &[u8], size: usize, i: usize) -> &[u8] {
    &out[i * size..(i + 1) * size]
}

fn index_at(out: &[u8], i: usize) -> i64 {
    i64::from_le_bytes(elem(out, 8, i).try_into().unwrap())
}

/// The lanes to check: every lane, or about 64 spread over them (first and last included).
fn lanes(count: usize, sampled: bool) -> Vec<usize> {
    if !sampled || count <= 64 {
        return (0..count).collect();
    }
    let step = count / 64;
    let mut v: Vec<usize> = (0..count).step_by(step).collect();
    v.push(count - 1);
    v
}

/// Checks the outputs `got` of a cell on input `x` (every lane, or a sample of them);
/// returns the first disagreement and how many of the checked lanes disagree.
pub fn check(
    dt: Dt,
    shape: &[usize],
    compute: Compute,
    x: &[u8],
    got: &[Vec<u8>],
    sampled: bool,
) -> Option<String> {
    let size = dt.size();
    let mut bad = Vec::new();
    let mut note = |lane: usize, what: String| bad.push(format!("lane {lane}: {what}"));
    let hardmax = |a: Axis, note: &mut dyn FnMut(usize, String)| {
        for l in lanes(a.lanes, sampled) {
            let k = best(dt, x, a.positions(l), false, false);
            let one = dt.one();
            for (j, p) in a.positions(l).enumerate() {
                let v = elem(&got[0], size, p);
                let want_one = j == k;
                if (want_one && v != one.as_slice()) || (!want_one && v.iter().any(|&b| b != 0)) {
                    note(
                        l,
                        format!(
                            "element {j} of the lane is {}, the one belongs at {k}",
                            dt.show(v)
                        ),
                    );
                    break;
                }
            }
        }
    };
    match compute {
        Compute::Arg { min, last, axis } => {
            let a = Axis::new(shape, axis);
            for l in lanes(a.lanes, sampled) {
                let k = best(dt, x, a.positions(l), min, last);
                if index_at(&got[0], l) != k as i64 {
                    note(l, format!("index {} instead of {k}", index_at(&got[0], l)));
                }
            }
        }
        Compute::Reduce { min, axes } => {
            let kept = offsets(shape, |d| !axes.contains(&d));
            let reduced = offsets(shape, |d| axes.contains(&d));
            for l in lanes(kept.len(), sampled) {
                let positions = reduced.iter().map(|&r| kept[l] + r);
                let p = kept[l] + reduced[best(dt, x, positions, min, false)];
                if elem(&got[0], size, l) != elem(x, size, p) {
                    note(
                        l,
                        format!(
                            "{} instead of {}",
                            dt.show(elem(&got[0], size, l)),
                            dt.show(elem(x, size, p))
                        ),
                    );
                }
            }
        }
        Compute::Hardmax13 { axis } => hardmax(Axis::new(shape, axis), &mut note),
        Compute::Hardmax11 { axis } => {
            let rows: usize = shape[..axis].iter().product();
            let cols: usize = shape[axis..].iter().product();
            hardmax(Axis::new(&[rows, cols], 1), &mut note)
        }
        Compute::Siblings { axis } => {
            let a = Axis::new(shape, axis);
            for l in lanes(a.lanes, sampled) {
                let k = best(dt, x, a.positions(l), false, false);
                let p = a.positions(l).nth(k).unwrap();
                if index_at(&got[1], l) != k as i64 || elem(&got[0], size, l) != elem(x, size, p) {
                    note(
                        l,
                        format!(
                            "({}, {}) instead of ({}, {k})",
                            dt.show(elem(&got[0], size, l)),
                            index_at(&got[1], l),
                            dt.show(elem(x, size, p))
                        ),
                    );
                }
            }
        }
        Compute::Chain { reduce, axis } => {
            // The pooled value at pooled flat index `q`: the maximum over the `reduce` axis.
            let kept = offsets(shape, |d| d != reduce);
            let reduced = offsets(shape, |d| d == reduce);
            let pooled_max = |q: usize| -> i64 {
                let p = reduced[best(dt, x, reduced.iter().map(|&r| kept[q] + r), false, false)];
                key(dt, x, kept[q] + p)
            };
            let mut pooled_shape = shape.to_vec();
            pooled_shape[reduce] = 1;
            let a = Axis::new(&pooled_shape, axis);
            for l in lanes(a.lanes, sampled) {
                // Hardmax puts its one at the first maximum; ArgMax of that finds it.
                let values: Vec<i64> = a.positions(l).map(pooled_max).collect();
                let mut k = 0;
                for (j, &v) in values.iter().enumerate() {
                    if v > values[k] {
                        k = j;
                    }
                }
                if index_at(&got[0], l) != k as i64 {
                    note(l, format!("index {} instead of {k}", index_at(&got[0], l)));
                }
            }
        }
    }
    let first = bad.first()?;
    Some(format!(
        "{} of the lanes checked disagree; {first}",
        bad.len()
    ))
}
