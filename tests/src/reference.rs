//! An independent, obviously-correct reference implementation of the contract.
//!
//! Written directly from `SEMANTICS.md`, without looking at the generator or the runtime kernels,
//! so that the property tests compare two independent readings of the contract. Everything here
//! favours plainness over speed: every output element is computed by walking its lane (or its set
//! of reduced positions) from scratch, by row-major offsets into the input's elements (no
//! allocation per element, so the unoptimized test builds run it in reasonable time).
//!
//! The rules implemented:
//! - ArgMax/ArgMin: a NaN wins (the first NaN, or the last one with `select_last_index`);
//!   otherwise the first (or last) index holding the maximum (minimum). Output int64.
//! - ReduceMax/ReduceMin: NaN propagates; an empty reduction gives the identity (`-inf`, the
//!   type's minimum, `false` for Max; `+inf`, the maximum, `true` for Min). No axes means all
//!   axes, unless `noop_with_empty_axes`, in which case the input is returned unchanged.
//! - Hardmax-13: one 1 per lane along `axis`, at the first NaN if any, else the first maximum.
//! - Hardmax-1/11: the same on the 2-D view `[prod(d[..axis]), prod(d[axis..])]`.
//! - Multi-axis Hardmax (DirectML's HARDMAX1): one 1 per position of the kept dimensions, at the
//!   first NaN, else the first maximum, in row-major order over the reduced axes.

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};

/// An element type of the contract, with its comparison rules.
pub trait Elem: Copy + std::fmt::Debug + 'static {
    /// The ONNX name of the type, for messages.
    const NAME: &'static str;
    /// Bytes per element in `run_bytes` buffers.
    const SIZE: usize;
    /// Whether this is a NaN (always false for integers and bool).
    fn is_nan(self) -> bool;
    /// Strictly greater; `-0.0` and `+0.0` are equal; false whenever a NaN is involved.
    fn gt(self, other: Self) -> bool;
    /// Strictly less; the mirror of [`Elem::gt`].
    fn lt(self, other: Self) -> bool {
        other.gt(self)
    }
    /// The result of ReduceMax over nothing: `-inf`, the type's minimum, or `false`.
    fn lowest() -> Self;
    /// The result of ReduceMin over nothing: `+inf`, the type's maximum, or `true`.
    fn highest() -> Self;
    /// Zero (`false`), for Hardmax outputs.
    fn zero() -> Self;
    /// One (`true`), for Hardmax outputs.
    fn one() -> Self;
    /// Equal for test purposes: both NaN, or `==` (so `-0.0` equals `+0.0`).
    fn same(self, other: Self) -> bool {
        if self.is_nan() || other.is_nan() {
            self.is_nan() && other.is_nan()
        } else {
            !self.gt(other) && !other.gt(self)
        }
    }
    /// Appends the little-endian bytes (bool: one byte 0/1; f16/bf16: the bit pattern).
    fn write_le(self, out: &mut Vec<u8>);
    /// Reads one element from exactly [`Elem::SIZE`] little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! float_elem {
    ($t:ty, $name:literal, $size:literal, $inf:expr, $zero:expr, $one:expr) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            const SIZE: usize = $size;
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn gt(self, other: Self) -> bool {
                self > other
            }
            fn lowest() -> Self {
                -$inf
            }
            fn highest() -> Self {
                $inf
            }
            fn zero() -> Self {
                $zero
            }
            fn one() -> Self {
                $one
            }
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("element size"))
            }
        }
    };
}

float_elem!(f32, "float", 4, f32::INFINITY, 0.0, 1.0);
float_elem!(f64, "double", 8, f64::INFINITY, 0.0, 1.0);
float_elem!(f16, "float16", 2, f16::INFINITY, f16::ZERO, f16::ONE);
float_elem!(bf16, "bfloat16", 2, bf16::INFINITY, bf16::ZERO, bf16::ONE);

macro_rules! int_elem {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn is_nan(self) -> bool {
                false
            }
            fn gt(self, other: Self) -> bool {
                self > other
            }
            fn lowest() -> Self {
                <$t>::MIN
            }
            fn highest() -> Self {
                <$t>::MAX
            }
            fn zero() -> Self {
                0
            }
            fn one() -> Self {
                1
            }
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("element size"))
            }
        }
    };
}

int_elem!(i8, "int8");
int_elem!(i16, "int16");
int_elem!(i32, "int32");
int_elem!(i64, "int64");
int_elem!(u8, "uint8");
int_elem!(u16, "uint16");
int_elem!(u32, "uint32");
int_elem!(u64, "uint64");

impl Elem for bool {
    const NAME: &'static str = "bool";
    const SIZE: usize = 1;
    fn is_nan(self) -> bool {
        false
    }
    fn gt(self, other: Self) -> bool {
        // False < True.
        self && !other
    }
    fn lowest() -> Self {
        false
    }
    fn highest() -> Self {
        true
    }
    fn zero() -> Self {
        false
    }
    fn one() -> Self {
        true
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn read_le(bytes: &[u8]) -> Self {
        assert_eq!(bytes.len(), 1, "bool is one byte");
        match bytes[0] {
            0 => false,
            1 => true,
            b => panic!("bool byte {b} is neither 0 nor 1"),
        }
    }
}

/// Which extreme an Arg or Reduce op looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extreme {
    /// The largest element (ArgMax, ReduceMax, Hardmax).
    Max,
    /// The smallest element (ArgMin, ReduceMin).
    Min,
}

impl Extreme {
    /// Whether `candidate` is strictly better than `best` (neither is NaN).
    fn better<T: Elem>(self, candidate: T, best: T) -> bool {
        match self {
            Extreme::Max => candidate.gt(best),
            Extreme::Min => candidate.lt(best),
        }
    }
}

/// Normalizes an axis that may count from the back; panics when out of range (the tests only
/// ask for valid axes).
pub fn normalize_axis(axis: i64, rank: usize) -> usize {
    let r = rank as i64;
    assert!(
        (-r..r).contains(&axis),
        "axis {axis} out of range for rank {rank}"
    );
    if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    }
}

/// The flat row-major offsets of every position of the dimensions `walk` picks, in row-major
/// order, the other dimensions held at 0: a single 0 when it picks none, nothing when a picked
/// dimension is empty. With `walk` and its negation, every element is one kept offset plus one
/// walked offset.
pub fn offsets(shape: &[usize], walk: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut out = vec![0];
    let mut stride = 1;
    let mut strides = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        strides[d] = stride;
        stride *= shape[d];
    }
    for d in (0..shape.len()).filter(|&d| walk(d)) {
        let stride = strides[d];
        out = out
            .iter()
            .flat_map(|&o| (0..shape[d]).map(move |k| o + k * stride))
            .collect();
    }
    out
}

/// The elements of `x` in row-major order.
fn row_major<T: Elem>(x: &ArrayD<T>) -> Vec<T> {
    x.iter().copied().collect()
}

/// The position chosen along one sequence of candidates (given in order): the first NaN (the last
/// with `last`), else the first (last) extreme. `None` for an empty sequence.
fn choose<T: Elem>(values: &[T], extreme: Extreme, last: bool) -> Option<usize> {
    let n = values.len();
    // The i-th position in the order of preference among equals.
    let at = |i: usize| if last { n - 1 - i } else { i };
    if let Some(i) = (0..n).find(|&i| values[at(i)].is_nan()) {
        return Some(at(i));
    }
    let mut best: Option<usize> = None;
    for k in (0..n).map(at) {
        match best {
            None => best = Some(k),
            Some(b) => {
                if extreme.better(values[k], values[b]) {
                    best = Some(k);
                }
            }
        }
    }
    best
}

/// ArgMax (`Extreme::Max`) or ArgMin (`Extreme::Min`) along `axis` (may be negative).
///
/// Panics on a rank-0 input or a zero-length axis, which the contract makes compile-time errors.
pub fn arg<T: Elem>(
    x: &ArrayD<T>,
    extreme: Extreme,
    axis: i64,
    keepdims: bool,
    select_last_index: bool,
) -> ArrayD<i64> {
    let shape = x.shape().to_vec();
    let axis = normalize_axis(axis, shape.len());
    assert!(shape[axis] > 0, "Arg over a zero-length axis is undefined");
    let flat = row_major(x);
    let walk = offsets(&shape, |d| d == axis);
    let mut out = Vec::new();
    let mut lane = Vec::new();
    for base in offsets(&shape, |d| d != axis) {
        lane.clear();
        lane.extend(walk.iter().map(|&offset| flat[base + offset]));
        let k = choose(&lane, extreme, select_last_index).expect("non-empty lane");
        out.push(k as i64);
    }
    let mut out_shape = shape;
    if keepdims {
        out_shape[axis] = 1;
    } else {
        out_shape.remove(axis);
    }
    ArrayD::from_shape_vec(IxDyn(&out_shape), out).expect("one index per lane")
}

/// The distinct, normalized axes of a reduction; panics on a repeated one.
fn distinct_axes(axes: &[i64], rank: usize) -> Vec<usize> {
    let v: Vec<usize> = axes.iter().map(|&a| normalize_axis(a, rank)).collect();
    for (i, a) in v.iter().enumerate() {
        assert!(!v[..i].contains(a), "repeated axis {a}");
    }
    v
}

/// ReduceMax (`Extreme::Max`) or ReduceMin (`Extreme::Min`).
///
/// `axes: None` (or an empty list) reduces every axis, unless `noop_with_empty_axes`, in which
/// case the input is returned unchanged. Axes may be negative.
pub fn reduce<T: Elem>(
    x: &ArrayD<T>,
    extreme: Extreme,
    axes: Option<&[i64]>,
    keepdims: bool,
    noop_with_empty_axes: bool,
) -> ArrayD<T> {
    let shape = x.shape().to_vec();
    let rank = shape.len();
    let axes: Vec<usize> = match axes {
        Some(list) if !list.is_empty() => distinct_axes(list, rank),
        _ => {
            if noop_with_empty_axes {
                return x.clone();
            }
            (0..rank).collect()
        }
    };
    let identity = match extreme {
        Extreme::Max => T::lowest(),
        Extreme::Min => T::highest(),
    };
    let reduced = |d: usize| axes.contains(&d);
    let flat = row_major(x);
    let walk = offsets(&shape, reduced);
    let mut out = Vec::new();
    // A kept position with an empty reduction still gets its identity: walk the kept
    // positions whether or not the reduced part is empty.
    for base in offsets(&shape, |d| !reduced(d)) {
        let mut acc = identity;
        for &offset in &walk {
            let v = flat[base + offset];
            if v.is_nan() {
                acc = v;
                break;
            }
            if extreme.better(v, acc) {
                acc = v;
            }
        }
        out.push(acc);
    }
    let out_shape: Vec<usize> = (0..rank)
        .filter(|&d| keepdims || !reduced(d))
        .map(|d| if reduced(d) { 1 } else { shape[d] })
        .collect();
    ArrayD::from_shape_vec(IxDyn(&out_shape), out).expect("one value per kept position")
}

/// Multi-axis Hardmax: for every position of the dimensions not in `axes`, a 1 at the first NaN,
/// else at the first maximum, in row-major order over the reduced axes; 0 elsewhere. Axes may be
/// negative; they must be distinct.
pub fn hardmax_axes<T: Elem>(x: &ArrayD<T>, axes: &[i64]) -> ArrayD<T> {
    let shape = x.shape().to_vec();
    let axes = distinct_axes(axes, shape.len());
    let flat = row_major(x);
    let walk = offsets(&shape, |d| axes.contains(&d));
    let mut out = vec![T::zero(); flat.len()];
    let mut values = Vec::new();
    for base in offsets(&shape, |d| !axes.contains(&d)) {
        values.clear();
        values.extend(walk.iter().map(|&offset| flat[base + offset]));
        if let Some(k) = choose(&values, Extreme::Max, false) {
            out[base + walk[k]] = T::one();
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), out).expect("same element count")
}

/// Hardmax-13: one axis (may be negative).
pub fn hardmax13<T: Elem>(x: &ArrayD<T>, axis: i64) -> ArrayD<T> {
    hardmax_axes(x, &[axis])
}

/// Hardmax-1 and -11: the input viewed as `[prod(d[..axis]), prod(d[axis..])]`, one 1 per row.
pub fn hardmax_2d<T: Elem>(x: &ArrayD<T>, axis: i64) -> ArrayD<T> {
    let shape = x.shape().to_vec();
    let axis = normalize_axis(axis, shape.len());
    let rows: usize = shape[..axis].iter().product();
    let cols: usize = shape[axis..].iter().product();
    let flat = row_major(x);
    let mut out = vec![T::zero(); flat.len()];
    if cols > 0 {
        for r in 0..rows {
            let row = &flat[r * cols..(r + 1) * cols];
            if let Some(k) = choose(row, Extreme::Max, false) {
                out[r * cols + k] = T::one();
            }
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), out).expect("same element count")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{arr1, arr2, arr3, ArrayD};

    fn same<T: Elem>(a: &ArrayD<T>, b: &ArrayD<T>) -> bool {
        a.shape() == b.shape() && a.iter().zip(b.iter()).all(|(x, y)| x.same(*y))
    }

    fn cube() -> ArrayD<f32> {
        arr3(&[[[1.0f32, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]).into_dyn()
    }

    #[test]
    fn offsets_walk_the_picked_dimensions_in_row_major_order() {
        // [2, 3, 4]: strides 12, 4, 1.
        assert_eq!(
            offsets(&[2, 3, 4], |d| d != 1),
            [0, 1, 2, 3, 12, 13, 14, 15]
        );
        assert_eq!(offsets(&[2, 3, 4], |d| d == 1), [0, 4, 8]);
        assert_eq!(offsets(&[2, 1, 2], |_| true), [0, 1, 2, 3]);
        assert_eq!(offsets(&[], |_| true), [0], "rank 0 has one position");
        assert_eq!(
            offsets(&[2, 3], |_| false),
            [0],
            "nothing picked: one position"
        );
        assert!(
            offsets(&[3, 0, 2], |_| true).is_empty(),
            "an empty dimension: none"
        );
    }

    #[test]
    fn directml_hardmax1_examples() {
        // Axes {1}: the larger row of each 2x2 block.
        let e1 = arr3(&[[[0.0f32, 0.0], [1.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]]]).into_dyn();
        assert_eq!(hardmax_axes(&cube(), &[1]), e1);
        // Axes {0}: the second block everywhere.
        let e0 = arr3(&[[[0.0f32, 0.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]]]).into_dyn();
        assert_eq!(hardmax_axes(&cube(), &[0]), e0);
        // Axes {0, 2}: for each row index j, the maximum of x[.., j, ..] sits at (1, j, 1).
        let e02 = arr3(&[[[0.0f32, 0.0], [0.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]]).into_dyn();
        assert_eq!(hardmax_axes(&cube(), &[0, 2]), e02);
        assert_eq!(hardmax_axes(&cube(), &[-3, -1]), e02);
        // Axes {2, 0} are the same set.
        assert_eq!(hardmax_axes(&cube(), &[2, 0]), e02);
        // All axes: a single 1 at the global maximum.
        let mut all = ArrayD::<f32>::zeros(IxDyn(&[2, 2, 2]));
        all[[1, 1, 1]] = 1.0;
        assert_eq!(hardmax_axes(&cube(), &[0, 1, 2]), all);
    }

    #[test]
    fn hardmax_multi_axis_ties_and_nan_row_major() {
        // Ties over axes {0, 2}: first in row-major order over (i, k).
        let x = arr3(&[[[1.0f32, 9.0], [0.0, 0.0]], [[9.0, 1.0], [0.0, f32::NAN]]]).into_dyn();
        let e = arr3(&[[[0.0f32, 1.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]]]).into_dyn();
        assert_eq!(hardmax_axes(&x, &[0, 2]), e);
        // Order over the reduced axes is row-major (i outer, k inner), whatever order is given.
        let x = arr3(&[[[1.0f32, 2.0]], [[2.0, 1.0]]]).into_dyn();
        let e = arr3(&[[[0.0f32, 1.0]], [[0.0, 0.0]]]).into_dyn();
        assert_eq!(hardmax_axes(&x, &[2, 0]), e);
    }

    #[test]
    fn hardmax13_versus_2d_coercion() {
        // Shape [2, 2, 2], axis 1: Hardmax-13 picks per (i, k); Hardmax-1/11 per row i of the
        // [2, 4] view.
        let h13 = hardmax13(&cube(), 1);
        let e13 = arr3(&[[[0.0f32, 0.0], [1.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]]]).into_dyn();
        assert_eq!(h13, e13);
        let h1 = hardmax_2d(&cube(), 1);
        let e1 = arr3(&[[[0.0f32, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 1.0]]]).into_dyn();
        assert_eq!(h1, e1);
        // Axis 0 in the 2-D view is one row of everything.
        let h0 = hardmax_2d(&cube(), 0);
        let mut e0 = ArrayD::<f32>::zeros(IxDyn(&[2, 2, 2]));
        e0[[1, 1, 1]] = 1.0;
        assert_eq!(h0, e0);
        // Last axis: both agree.
        assert_eq!(hardmax_2d(&cube(), 2), hardmax13(&cube(), -1));
    }

    #[test]
    fn hardmax_first_max_and_nan() {
        let x = arr2(&[
            [3.0f32, 1.0, 3.0],
            [f32::NAN, 5.0, f32::NAN],
            [-0.0, 0.0, -1.0],
        ])
        .into_dyn();
        let e = arr2(&[[1.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]).into_dyn();
        assert_eq!(hardmax13(&x, -1), e);
        assert_eq!(hardmax_2d(&x, 1), e);
        let x = arr2(&[[1.0f32, f32::NAN, 9.0]]).into_dyn();
        let e = arr2(&[[0.0f32, 1.0, 0.0]]).into_dyn();
        assert_eq!(hardmax13(&x, 1), e);
        // Negative NaN is a NaN too.
        let x = arr1(&[f16::from_f32(2.0), -f16::NAN]).into_dyn();
        assert_eq!(hardmax13(&x, 0), arr1(&[f16::ZERO, f16::ONE]).into_dyn());
    }

    #[test]
    fn hardmax_empty() {
        let x = ArrayD::<f32>::zeros(IxDyn(&[2, 0, 3]));
        assert_eq!(hardmax13(&x, 2).shape(), &[2, 0, 3]);
        assert_eq!(hardmax_2d(&x, 1).shape(), &[2, 0, 3]);
        assert_eq!(hardmax_axes(&x, &[0]).shape(), &[2, 0, 3]);
    }

    #[test]
    fn argmax_ties_and_select_last() {
        let x = arr2(&[[1i32, 3, 3, 0], [2, 2, 2, 2]]).into_dyn();
        assert_eq!(
            arg(&x, Extreme::Max, 1, false, false),
            arr1(&[1i64, 0]).into_dyn()
        );
        assert_eq!(
            arg(&x, Extreme::Max, 1, false, true),
            arr1(&[2i64, 3]).into_dyn()
        );
        assert_eq!(
            arg(&x, Extreme::Min, -1, true, false),
            arr2(&[[3i64], [0]]).into_dyn()
        );
        assert_eq!(
            arg(&x, Extreme::Min, 1, true, true),
            arr2(&[[3i64], [3]]).into_dyn()
        );
        assert_eq!(
            arg(&x, Extreme::Max, 0, true, false),
            arr2(&[[1i64, 0, 0, 1]]).into_dyn()
        );
        assert_eq!(
            arg(&x, Extreme::Max, 0, false, true),
            arr1(&[1i64, 0, 0, 1]).into_dyn()
        );
    }

    #[test]
    fn arg_nan_wins_for_max_and_min() {
        let n = f64::NAN;
        let x = arr1(&[1.0, n, 7.0, n, -7.0]).into_dyn();
        assert_eq!(arg(&x, Extreme::Max, 0, false, false)[[]], 1);
        assert_eq!(arg(&x, Extreme::Min, 0, false, false)[[]], 1);
        assert_eq!(arg(&x, Extreme::Max, 0, false, true)[[]], 3);
        assert_eq!(arg(&x, Extreme::Min, 0, false, true)[[]], 3);
        let y = arr1(&[f64::NEG_INFINITY, -0.0, 0.0, f64::INFINITY, f64::INFINITY]).into_dyn();
        assert_eq!(arg(&y, Extreme::Max, 0, false, false)[[]], 3);
        assert_eq!(arg(&y, Extreme::Max, 0, false, true)[[]], 4);
        assert_eq!(arg(&y, Extreme::Min, 0, false, false)[[]], 0);
        // -0.0 and +0.0 tie.
        let z = arr1(&[0.0f32, -0.0, -1.0]).into_dyn();
        assert_eq!(arg(&z, Extreme::Max, 0, false, false)[[]], 0);
        assert_eq!(arg(&z, Extreme::Max, 0, false, true)[[]], 1);
        let z = arr1(&[bf16::from_f32(-0.0), bf16::from_f32(0.0)]).into_dyn();
        assert_eq!(arg(&z, Extreme::Min, 0, false, true)[[]], 1);
    }

    #[test]
    fn arg_zero_length_other_axis_and_keepdims() {
        let x = ArrayD::<u8>::zeros(IxDyn(&[0, 3]));
        let y = arg(&x, Extreme::Max, 1, true, false);
        assert_eq!(y.shape(), &[0, 1]);
        // keepdims=0 removes only the axis, never other size-1 dimensions.
        let x = ArrayD::<u8>::zeros(IxDyn(&[1, 3, 1]));
        assert_eq!(arg(&x, Extreme::Max, 1, false, false).shape(), &[1, 1]);
    }

    #[test]
    #[should_panic(expected = "zero-length")]
    fn arg_over_empty_axis_panics() {
        let x = ArrayD::<f32>::zeros(IxDyn(&[2, 0]));
        let _ = arg(&x, Extreme::Max, 1, true, false);
    }

    #[test]
    fn reduce_nan_propagates() {
        let x = arr2(&[[1.0f32, f32::NAN, 3.0], [f32::NEG_INFINITY, -0.0, 2.0]]).into_dyn();
        let m = reduce(&x, Extreme::Max, Some(&[1]), false, false);
        assert!(same(&m, &arr1(&[f32::NAN, 2.0]).into_dyn()));
        assert!(!same(&m, &arr1(&[1.0, 2.0]).into_dyn()));
        let m = reduce(&x, Extreme::Min, Some(&[-1]), true, false);
        assert!(m[[0, 0]].is_nan());
        assert_eq!(m[[1, 0]], f32::NEG_INFINITY);
        assert_eq!(m.shape(), &[2, 1]);
        let m = reduce(&x, Extreme::Max, Some(&[0]), false, false);
        assert_eq!(m.shape(), &[3]);
        assert_eq!(m[[0]], 1.0);
        assert!(m[[1]].is_nan());
        let all = reduce(&x, Extreme::Min, None, false, false);
        assert_eq!(all.shape(), &[] as &[usize]);
        assert!(all[[]].is_nan());
    }

    #[test]
    fn reduce_empty_gives_identities() {
        let f = ArrayD::<f32>::zeros(IxDyn(&[2, 0]));
        let m = reduce(&f, Extreme::Max, Some(&[1]), false, false);
        assert_eq!(m, arr1(&[f32::NEG_INFINITY; 2]).into_dyn());
        let m = reduce(&f, Extreme::Min, Some(&[1]), true, false);
        assert_eq!(m, arr2(&[[f32::INFINITY], [f32::INFINITY]]).into_dyn());
        // Reducing the non-empty axis of an empty tensor gives an empty tensor.
        assert_eq!(
            reduce(&f, Extreme::Max, Some(&[0]), true, false).shape(),
            &[1, 0]
        );
        let i = ArrayD::<i8>::zeros(IxDyn(&[0]));
        assert_eq!(reduce(&i, Extreme::Max, None, false, false)[[]], i8::MIN);
        assert_eq!(reduce(&i, Extreme::Min, None, false, false)[[]], i8::MAX);
        let u = ArrayD::<u64>::zeros(IxDyn(&[3, 0]));
        assert_eq!(
            reduce(&u, Extreme::Min, None, true, false)[[0, 0]],
            u64::MAX
        );
        let b = ArrayD::<bool>::from_elem(IxDyn(&[0, 2]), true);
        assert!(!reduce(&b, Extreme::Max, None, false, false)[[]]);
        assert!(reduce(&b, Extreme::Min, None, false, false)[[]]);
        let h = ArrayD::<f16>::from_elem(IxDyn(&[0]), f16::ONE);
        assert_eq!(
            reduce(&h, Extreme::Max, None, false, false)[[]],
            f16::NEG_INFINITY
        );
    }

    #[test]
    fn reduce_axes_keepdims_and_noop() {
        let x = arr3(&[[[1i64, 9], [3, 4]], [[5, 6], [7, 0]]]).into_dyn();
        let m = reduce(&x, Extreme::Max, Some(&[0, 2]), true, false);
        assert_eq!(m, arr3(&[[[9i64], [7]]]).into_dyn());
        let m = reduce(&x, Extreme::Min, Some(&[2, 0]), false, false);
        assert_eq!(m, arr1(&[1i64, 0]).into_dyn());
        // No axes: everything, unless noop_with_empty_axes (then keepdims does not matter).
        let m = reduce(&x, Extreme::Max, None, true, false);
        assert_eq!(m, arr3(&[[[9i64]]]).into_dyn());
        assert_eq!(reduce(&x, Extreme::Max, Some(&[]), false, false)[[]], 9);
        assert_eq!(reduce(&x, Extreme::Max, None, false, true), x);
        assert_eq!(reduce(&x, Extreme::Max, Some(&[]), true, true), x);
        // noop_with_empty_axes with axes given: an ordinary reduction.
        let m = reduce(&x, Extreme::Max, Some(&[1]), false, true);
        assert_eq!(m, arr2(&[[3i64, 9], [7, 6]]).into_dyn());
        // keepdims=0 keeps other size-1 dimensions.
        let y = ArrayD::<i32>::zeros(IxDyn(&[1, 2, 1]));
        assert_eq!(
            reduce(&y, Extreme::Max, Some(&[1]), false, false).shape(),
            &[1, 1]
        );
        // Rank 0: unchanged.
        let s = ArrayD::from_elem(IxDyn(&[]), 4u32);
        assert_eq!(reduce(&s, Extreme::Min, None, false, false), s);
        assert_eq!(reduce(&s, Extreme::Min, None, true, false), s);
    }

    #[test]
    fn reduce_bool_and_extremes() {
        let b = arr2(&[[false, true], [false, false]]).into_dyn();
        assert_eq!(
            reduce(&b, Extreme::Max, Some(&[1]), false, false),
            arr1(&[true, false]).into_dyn()
        );
        assert_eq!(
            reduce(&b, Extreme::Min, Some(&[0]), false, false),
            arr1(&[false, false]).into_dyn()
        );
        let i = arr1(&[i64::MIN, i64::MAX, 0]).into_dyn();
        assert_eq!(reduce(&i, Extreme::Max, None, false, false)[[]], i64::MAX);
        assert_eq!(reduce(&i, Extreme::Min, None, false, false)[[]], i64::MIN);
        assert_eq!(
            arg(&b, Extreme::Max, 1, false, false),
            arr1(&[1i64, 0]).into_dyn()
        );
    }

    #[test]
    fn same_and_bytes() {
        assert!(f32::NAN.same(-f32::NAN));
        assert!((0.0f32).same(-0.0));
        assert!(!(1.0f32).same(f32::NAN));
        assert!(!(1u8).same(2));
        let mut out = Vec::new();
        f16::from_f32(1.0).write_le(&mut out);
        true.write_le(&mut out);
        (-2i16).write_le(&mut out);
        assert_eq!(out, [0x00, 0x3c, 1, 0xfe, 0xff]);
        assert_eq!(f16::read_le(&out[0..2]), f16::ONE);
        assert!(bool::read_le(&out[2..3]));
        assert_eq!(i16::read_le(&out[3..5]), -2);
    }
}
