//! Property tests of every kernel path (issue 14, item 7): each public kernel of the runtime, for
//! every element type, over the row lengths and lane counts on both sides of each threshold the
//! generator or the kernel uses (short rows under 32, few lanes under 16, grouped strided passes
//! from 128 rows, 256-element blocks and 1024-element parts of contiguous rows, tiles of lanes),
//! against a plain reference written here: loops over indices with the contract's rules (a NaN
//! wins an arg-reduction, the first or, with `select_last_index`, the last; reductions propagate
//! NaN; `-0.0 == +0.0`). Inputs are drawn from small pools (so that ties are frequent) holding
//! NaN of both signs, ±inf, ±0 and the types' extremes, from a fixed seed; `KERNEL_PATH_CASES`
//! sets how many inputs per shape (default 6).

use std::cmp::Ordering;

use half::{bf16, f16};
use onnx_aot::kernels::{self, arg_tile, narrow_period};
use onnx_aot::{Direction, Element, Max, Min};

/// A tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// What the reference needs of an element type: its order (None with a NaN) and a pool.
trait Sample: Element {
    fn order(a: Self, b: Self) -> Option<Ordering>;
    fn pool(k: u64) -> Self;
}

macro_rules! int_sample {
    ($($t:ty)*) => {$(
        impl Sample for $t {
            fn order(a: Self, b: Self) -> Option<Ordering> {
                Some(a.cmp(&b))
            }
            fn pool(k: u64) -> Self {
                match k % 8 {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    2 => 0,
                    k => (k as $t).wrapping_mul(3),
                }
            }
        }
    )*};
}
int_sample!(i8 u8 i16 u16 i32 u32 i64 u64);

macro_rules! float_sample {
    ($($t:ty: $to:expr, $from:expr;)*) => {$(
        impl Sample for $t {
            fn order(a: Self, b: Self) -> Option<Ordering> {
                let (a, b): (f64, f64) = ($to(a), $to(b));
                a.partial_cmp(&b)
            }
            fn pool(k: u64) -> Self {
                let v: f64 = match k % 11 {
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
float_sample! {
    f32: f64::from, |v: f64| v as f32;
    f64: |v: f64| v, |v: f64| v;
    f16: |v: f16| v.to_f64(), f16::from_f64;
    bf16: |v: bf16| v.to_f64(), bf16::from_f64;
}

impl Sample for bool {
    fn order(a: Self, b: Self) -> Option<Ordering> {
        Some(a.cmp(&b))
    }
    fn pool(k: u64) -> Self {
        k.is_multiple_of(3)
    }
}

fn is_nan<T: Sample>(v: T) -> bool {
    T::order(v, v).is_none()
}

/// The index the contract picks in `lane`.
fn ref_arg<T: Sample>(lane: &[T], max: bool, last: bool) -> usize {
    let nans: Vec<usize> = (0..lane.len()).filter(|&i| is_nan(lane[i])).collect();
    if let (Some(&f), Some(&l)) = (nans.first(), nans.last()) {
        return if last { l } else { f };
    }
    let mut best = 0;
    for i in 1..lane.len() {
        let o = T::order(lane[i], lane[best]).unwrap();
        let better = if max {
            o == Ordering::Greater
        } else {
            o == Ordering::Less
        };
        if better || (last && o == Ordering::Equal) {
            best = i;
        }
    }
    best
}

/// The reduction of `lane` (a NaN if it holds one), folded into `acc`.
fn ref_reduce<T: Sample>(acc: T, lane: &[T], max: bool) -> T {
    let mut m = acc;
    for &v in lane {
        if is_nan(m) {
            return m;
        }
        if is_nan(v) {
            m = v;
            continue;
        }
        let o = T::order(v, m).unwrap();
        if (max && o == Ordering::Greater) || (!max && o == Ordering::Less) {
            m = v;
        }
    }
    m
}

fn same<T: Sample>(a: T, b: T) -> bool {
    (is_nan(a) && is_nan(b)) || T::order(a, b) == Some(Ordering::Equal)
}

fn draw<T: Sample>(rng: &mut Rng, n: usize) -> Vec<T> {
    // Sometimes no NaN at all, so that the fast passes decide.
    let nan_free = rng.next().is_multiple_of(2);
    (0..n)
        .map(|_| loop {
            let v = T::pool(rng.next() >> 7);
            if !(nan_free && is_nan(v)) {
                break v;
            }
        })
        .collect()
}

fn cases() -> usize {
    std::env::var("KERNEL_PATH_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

/// The lane `j` of a block of `rows` rows of `inner` lanes.
fn lane<T: Copy>(x: &[T], rows: usize, inner: usize, j: usize) -> Vec<T> {
    (0..rows).map(|r| x[r * inner + j]).collect()
}

/// Contiguous rows: `arg_row`, `fold`/`reduce_rows`, `hardmax_row` over every length class.
fn contiguous<T: Sample>(rng: &mut Rng, what: &str) {
    for len in [
        1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 17, 20, 31, 32, 33, 255, 256, 257, 1000, 1024, 1025, 3000,
    ] {
        for _ in 0..cases() {
            let x: Vec<T> = draw(rng, len);
            let ctx = format!("{what} contiguous len {len}: {x:?}");
            assert_eq!(
                kernels::arg_row::<T, Max, false>(&x),
                ref_arg(&x, true, false),
                "{ctx}"
            );
            assert_eq!(
                kernels::arg_row::<T, Min, true>(&x),
                ref_arg(&x, false, true),
                "{ctx}"
            );
            let m = kernels::fold::<T, Max>(Max::identity::<T>(), &x);
            assert!(same(m, ref_reduce(Max::identity::<T>(), &x, true)), "{ctx}");
            let mut h = vec![T::ZERO; len];
            kernels::hardmax_row(&x, &mut h);
            let at = ref_arg(&x, true, false);
            assert!(
                h.iter()
                    .enumerate()
                    .all(|(i, &v)| v == if i == at { T::ONE } else { T::ZERO }),
                "{ctx}"
            );
        }
    }
}

/// Short rows: the unrolled kernels for each row length under 32 (and, for 1- and 2-byte
/// types, the sliding window over rows of 2 to 7 bytes).
fn short_rows<T: Sample>(rng: &mut Rng, what: &str) {
    macro_rules! each {
        ($($r:literal)*) => {$(
            for _ in 0..cases() {
                // Now and then enough rows for whole tiles of the kernel of rows under eight
                // bytes (128 to 512 rows a tile).
                let rows = match rng.next() % 4 {
                    0 => 500 + (rng.next() % 700) as usize,
                    _ => 1 + (rng.next() % 150) as usize,
                };
                let x: Vec<T> = draw(rng, rows * $r);
                let ctx = format!("{what} short rows of {}, {rows} rows", $r);
                let mut y = vec![-1i64; rows];
                kernels::arg_rows_short::<T, Min, true, $r>(&x, &mut y);
                let mut m = vec![Max::identity::<T>(); rows];
                kernels::reduce_rows_short::<T, Max, $r>(&mut m, &x);
                let mut h = vec![T::ZERO; rows * $r];
                kernels::hardmax_rows_short::<T, $r>(&x, &mut h);
                for (o, row) in x.chunks_exact($r).enumerate() {
                    assert_eq!(y[o] as usize, ref_arg(row, false, true), "{ctx}: row {o} {row:?}");
                    assert!(same(m[o], ref_reduce(Max::identity::<T>(), row, true)), "{ctx}: {row:?}");
                    let at = ref_arg(row, true, false);
                    for (i, &v) in h[o * $r..(o + 1) * $r].iter().enumerate() {
                        assert!(v == if i == at { T::ONE } else { T::ZERO }, "{ctx}: hardmax {row:?}");
                    }
                }
            }
        )*};
    }
    each!(1 2 3 4 5 6 7 8 16 20 31);
}

/// Strided lanes: `arg_lanes`, `arg_lanes_values`, `reduce_lanes_rows`, `hardmax_lanes`, on
/// both sides of the grouped pass (128 rows) and of whole chunks of sixteen lanes.
fn strided<T: Sample>(rng: &mut Rng, what: &str) {
    for rows in [1, 2, 7, 8, 9, 20, 127, 128, 129, 300] {
        for inner in [16, 17, 40, 64, 100] {
            for _ in 0..cases().div_ceil(2) {
                let x: Vec<T> = draw(rng, rows * inner);
                let ctx = format!("{what} strided {rows} rows of {inner}");
                let mut y = vec![-1i64; inner];
                let mut v = vec![T::ZERO; inner];
                // The tile the generator would pick for this size (a multiple of sixteen).
                kernels::arg_lanes_values::<T, Max, false, 256>(&x, &mut y, &mut v, inner);
                let mut yl = vec![-1i64; inner];
                kernels::arg_lanes::<T, Min, true, 16>(&x, &mut yl, inner);
                let mut acc = vec![Min::identity::<T>(); inner];
                kernels::reduce_lanes_rows::<T, Min>(&mut acc, &x);
                let mut acc_max = vec![Max::identity::<T>(); inner];
                kernels::reduce_lanes_rows::<T, Max>(&mut acc_max, &x);
                let mut h = vec![T::ONE; rows * inner];
                kernels::hardmax_lanes(&x, &mut h, inner);
                for j in 0..inner {
                    let l = lane(&x, rows, inner, j);
                    let at = ref_arg(&l, true, false);
                    assert_eq!(y[j] as usize, at, "{ctx}: lane {j} {l:?}");
                    assert!(same(v[j], l[at]), "{ctx}: value of lane {j}");
                    assert_eq!(
                        yl[j] as usize,
                        ref_arg(&l, false, true),
                        "{ctx}: lane {j} {l:?}"
                    );
                    assert!(
                        same(acc[j], ref_reduce(Min::identity::<T>(), &l, false)),
                        "{ctx}"
                    );
                    assert!(
                        same(acc_max[j], ref_reduce(Max::identity::<T>(), &l, true)),
                        "{ctx}: max of lane {j}"
                    );
                    for r in 0..rows {
                        let want = if r == at { T::ONE } else { T::ZERO };
                        assert!(h[r * inner + j] == want, "{ctx}: hardmax lane {j} row {r}");
                    }
                }
            }
        }
    }
    let _ = arg_tile(1, 4);
}

/// Hardmax over many lanes and rows (from 256: spans of lanes, over 256 lanes, and over 1024 in
/// several spans, each found tile by tile, then written whole), and over fewer rows (each tile
/// written after its arg pass).
fn strided_wide_hardmax<T: Sample>(rng: &mut Rng, what: &str) {
    for rows in [3, 256] {
        for inner in [300, 1100, 2100] {
            let x: Vec<T> = draw(rng, rows * inner);
            let mut h = vec![T::ONE; rows * inner];
            kernels::hardmax_lanes(&x, &mut h, inner);
            for j in 0..inner {
                let at = ref_arg(&lane(&x, rows, inner, j), true, false);
                for r in 0..rows {
                    let want = if r == at { T::ONE } else { T::ZERO };
                    assert!(
                        h[r * inner + j] == want,
                        "{what} hardmax {rows} rows of {inner}: lane {j} row {r}"
                    );
                }
            }
        }
    }
}

/// Few lanes: the kernels that read several rows at a time, for every lane count under 16.
fn narrow<T: Sample>(rng: &mut Rng, what: &str) {
    macro_rules! each {
        ($($c:literal)*) => {$(
            for rows in [1, 5, 63, 64, 65, 200, 1000] {
                for _ in 0..cases().div_ceil(2) {
                    const W: usize = narrow_period($c);
                    const TILE: usize = W.div_ceil(16) * 16;
                    let x: Vec<T> = draw(rng, rows * $c);
                    let ctx = format!("{what} narrow {rows} rows of {}", $c);
                    let mut y = [-1i64; $c];
                    kernels::arg_lanes_narrow::<T, Max, true, $c, W, TILE>(&x, &mut y);
                    let mut acc = [Max::identity::<T>(); $c];
                    kernels::reduce_lanes_narrow::<T, Max, $c, W>(&mut acc, &x);
                    let mut h = vec![T::ONE; rows * $c];
                    kernels::hardmax_lanes_narrow::<T, $c, W, TILE>(&x, &mut h);
                    for j in 0..$c {
                        let l = lane(&x, rows, $c, j);
                        assert_eq!(y[j] as usize, ref_arg(&l, true, true), "{ctx}: lane {j} {l:?}");
                        assert!(same(acc[j], ref_reduce(Max::identity::<T>(), &l, true)), "{ctx}");
                        let at = ref_arg(&l, true, false);
                        for r in 0..rows {
                            let want = if r == at { T::ONE } else { T::ZERO };
                            assert!(h[r * $c + j] == want, "{ctx}: hardmax lane {j} row {r}");
                        }
                    }
                }
            }
        )*};
    }
    each!(1 2 3 5 7 9 15);
}

/// Two axes apart: `reduce_planes` against folding the rows of every plane.
fn planes<T: Sample>(rng: &mut Rng, what: &str) {
    macro_rules! each {
        ($($n:literal)*) => {$(
            // (3, 450): several tiles of the f32 path (1024 elements).
            for (planes, rows) in [(1, 3), (2, 40), (5, 100), (25, 7), (3, 450)] {
                for _ in 0..cases().div_ceil(2) {
                    let x: Vec<T> = draw(rng, planes * rows * $n);
                    let mut y = vec![Min::identity::<T>(); rows];
                    kernels::reduce_planes::<T, Min, $n>(&mut y, &x, planes);
                    let mut ymax = vec![Max::identity::<T>(); rows];
                    kernels::reduce_planes::<T, Max, $n>(&mut ymax, &x, planes);
                    for k in 0..rows {
                        let all: Vec<T> = (0..planes)
                            .flat_map(|p| x[(p * rows + k) * $n..(p * rows + k + 1) * $n].to_vec())
                            .collect();
                        let want = ref_reduce(Min::identity::<T>(), &all, false);
                        assert!(same(y[k], want), "{what} planes {planes}x{rows}x{}: row {k}", $n);
                        let want = ref_reduce(Max::identity::<T>(), &all, true);
                        assert!(same(ymax[k], want), "{what} max planes {planes}x{rows}x{}: row {k}", $n);
                    }
                }
            }
        )*};
    }
    // 4 to 16: the f32 tiles' rows, NaN-free, eight at a time in AVX2 (17: past them).
    each!(1 2 4 5 8 13 16 17 40 300);
}

/// Every path for one element type.
fn all_paths<T: Sample>(what: &str, seed: u64) {
    let mut rng = Rng(seed);
    contiguous::<T>(&mut rng, what);
    short_rows::<T>(&mut rng, what);
    strided::<T>(&mut rng, what);
    strided_wide_hardmax::<T>(&mut rng, what);
    narrow::<T>(&mut rng, what);
    planes::<T>(&mut rng, what);
}

macro_rules! type_tests {
    ($($name:ident: $t:ty = $seed:literal;)*) => {$(
        #[test]
        fn $name() {
            all_paths::<$t>(stringify!($t), $seed);
        }
    )*};
}

type_tests! {
    every_path_f32: f32 = 0x1234_5678;
    every_path_f64: f64 = 0x2345_6789;
    every_path_f16: f16 = 0x3456_789a;
    every_path_bf16: bf16 = 0x4567_89ab;
    every_path_i8: i8 = 0x5678_9abc;
    every_path_u8: u8 = 0x6789_abcd;
    every_path_i16: i16 = 0x789a_bcde;
    every_path_u16: u16 = 0x89ab_cdef;
    every_path_i32: i32 = 0x9abc_def0;
    every_path_u32: u32 = 0xabcd_ef01;
    every_path_i64: i64 = 0xbcde_f012;
    every_path_u64: u64 = 0xcdef_0123;
}

/// bool takes only the reductions (ReduceMax/ReduceMin-20), false < true.
#[test]
fn every_reduction_path_bool() {
    let mut rng = Rng(0xdef0_1234);
    for len in [1, 2, 17, 256, 1025] {
        let x: Vec<bool> = draw(&mut rng, len);
        assert_eq!(kernels::fold::<bool, Max>(false, &x), x.contains(&true));
        assert_eq!(kernels::fold::<bool, Min>(true, &x), !x.contains(&false));
    }
    planes::<bool>(&mut rng, "bool");
    let x: Vec<bool> = draw(&mut rng, 7 * 20);
    let mut y = vec![true; 7];
    kernels::reduce_rows_short::<bool, Min, 20>(&mut y, &x);
    for (o, row) in x.chunks_exact(20).enumerate() {
        assert_eq!(y[o], !row.contains(&false));
    }
    let mut acc = [false; 3];
    kernels::reduce_lanes_narrow::<bool, Max, 3, { narrow_period(3) }>(&mut acc, &x[..42 * 3]);
    for (j, a) in acc.iter().enumerate() {
        assert_eq!(*a, lane(&x, 42, 3, j).contains(&true));
    }
}
