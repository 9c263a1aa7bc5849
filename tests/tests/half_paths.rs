//! Property tests of the 16-bit kernel paths (issue 14, item 1): f16 and bf16 compared in their
//! own width (`arg_row`, `fold`/`reduce_rows`, `hardmax_row`, `reduce_lanes_rows`,
//! `arg_lanes`/`arg_lanes_values`, `hardmax_lanes`), against a plain reference written here over
//! the values as `f64`: a NaN wins an arg-reduction (the first, or the last with
//! `select_last_index`), reductions give the first NaN (checked by its bits, so the payload and
//! sign of the NaN that wins are checked too), `-0 == +0`. Inputs come from pools holding NaN
//! of both signs and several payloads, ±0, ±inf, the largest and smallest numbers, subnormals
//! and a few small numbers (many ties), sometimes with no NaN at all (so that the fast passes
//! decide), over row lengths and lane counts on both sides of every threshold of the kernels
//! (chunks of 16 and 32 lanes, groups of 16 rows, parts of 1024 elements).

use half::{bf16, f16};
use onnx_aot::kernels;
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

/// What the reference needs of f16 and bf16.
trait Half: Element {
    fn to(self) -> f64;
    fn bits(self) -> u16;
    fn of_bits(b: u16) -> Self;
    /// Bits of a pool: NaN of both signs (two payloads each), ±0, ±inf, ±max, ±min positive,
    /// subnormals, small numbers.
    const POOL: [u16; 20];
}

impl Half for f16 {
    fn to(self) -> f64 {
        self.to_f64()
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
    fn of_bits(b: u16) -> Self {
        f16::from_bits(b)
    }
    const POOL: [u16; 20] = [
        0x7e00, 0x7c01, 0xfe00, 0xfc17, 0x0000, 0x8000, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0400,
        0x8400, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x3555, 0x0003,
    ];
}

impl Half for bf16 {
    fn to(self) -> f64 {
        self.to_f64()
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
    fn of_bits(b: u16) -> Self {
        bf16::from_bits(b)
    }
    const POOL: [u16; 20] = [
        0x7fc0, 0x7f81, 0xffc0, 0xff93, 0x0000, 0x8000, 0x7f80, 0xff80, 0x7f7f, 0xff7f, 0x0080,
        0x8080, 0x0001, 0x8001, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x3eaa, 0x0003,
    ];
}

/// `n` values: pool values (a NaN only if `nan`), and now and then any bit pattern.
fn draw<T: Half>(rng: &mut Rng, n: usize, nan: bool) -> Vec<T> {
    (0..n)
        .map(|_| loop {
            let r = rng.next();
            let b = if r.is_multiple_of(7) {
                (r >> 20) as u16
            } else {
                T::POOL[((r >> 8) % 20) as usize]
            };
            let v = T::of_bits(b);
            if nan || !v.to().is_nan() {
                break v;
            }
        })
        .collect()
}

/// The index the contract picks.
fn ref_arg<T: Half>(x: &[T], max: bool, last: bool) -> usize {
    let nans: Vec<usize> = (0..x.len()).filter(|&i| x[i].to().is_nan()).collect();
    if let (Some(&f), Some(&l)) = (nans.first(), nans.last()) {
        return if last { l } else { f };
    }
    let mut best = 0;
    for i in 1..x.len() {
        let (v, b) = (x[i].to(), x[best].to());
        let better = if max { v > b } else { v < b };
        if better || (last && v == b) {
            best = i;
        }
    }
    best
}

/// The reduction folded into `acc`: `acc` if it is a NaN, else the first NaN, else the extreme.
fn ref_reduce<T: Half>(acc: T, x: &[T], max: bool) -> T {
    if acc.to().is_nan() {
        return acc;
    }
    if let Some(&n) = x.iter().find(|v| v.to().is_nan()) {
        return n;
    }
    x.iter().fold(acc, |m, &v| {
        let better = if max {
            v.to() > m.to()
        } else {
            v.to() < m.to()
        };
        if better {
            v
        } else {
            m
        }
    })
}

/// Equal as the contract compares results: a NaN by its bits, a number by its value.
fn same<T: Half>(a: T, b: T) -> bool {
    if a.to().is_nan() || b.to().is_nan() {
        a.bits() == b.bits()
    } else {
        a.to() == b.to()
    }
}

fn lane<T: Copy>(x: &[T], rows: usize, inner: usize, j: usize) -> Vec<T> {
    (0..rows).map(|r| x[r * inner + j]).collect()
}

/// Contiguous rows: every length class of `arg_row`, `fold` and `hardmax_row`.
fn contiguous<T: Half>(rng: &mut Rng, what: &str) {
    for len in [
        1, 2, 3, 31, 32, 33, 63, 64, 65, 200, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 5000,
    ] {
        for case in 0..8 {
            let x: Vec<T> = draw(rng, len, case % 2 == 1);
            let ctx = format!("{what} contiguous len {len} case {case}");
            macro_rules! arg {
                ($d:ty, $max:expr, $last:expr) => {
                    assert_eq!(
                        kernels::arg_row::<T, $d, $last>(&x),
                        ref_arg(&x, $max, $last),
                        "{ctx}: max {} last {}",
                        $max,
                        $last
                    );
                };
            }
            arg!(Max, true, false);
            arg!(Max, true, true);
            arg!(Min, false, false);
            arg!(Min, false, true);
            // Accumulators: the identities, a zero of each sign, a number, a NaN.
            let accs = [
                T::of_bits(T::POOL[4]),
                T::of_bits(T::POOL[5]),
                T::of_bits(T::POOL[14]),
                T::of_bits(T::POOL[2]),
            ];
            for acc in [Max::identity::<T>(), Min::identity::<T>()]
                .into_iter()
                .chain(accs)
            {
                let m = kernels::fold::<T, Max>(acc, &x);
                assert!(
                    same(m, ref_reduce(acc, &x, true)),
                    "{ctx}: max from {acc:?}"
                );
                let m = kernels::fold::<T, Min>(acc, &x);
                assert!(
                    same(m, ref_reduce(acc, &x, false)),
                    "{ctx}: min from {acc:?}"
                );
            }
            let mut h = vec![T::of_bits(0x1234); len];
            kernels::hardmax_row(&x, &mut h);
            let at = ref_arg(&x, true, false);
            for (i, &v) in h.iter().enumerate() {
                let want = if i == at { T::ONE } else { T::ZERO };
                assert_eq!(v.bits(), want.bits(), "{ctx}: hardmax at {i}");
            }
        }
    }
    // Empty rows: index 0, the accumulator unchanged.
    assert_eq!(kernels::arg_row::<T, Max, true>(&[]), 0);
    let acc = T::of_bits(T::POOL[14]);
    assert_eq!(kernels::fold::<T, Min>(acc, &[]).bits(), acc.bits());
    let mut y = [acc; 3];
    kernels::reduce_rows::<T, Max>(&mut y, &draw::<T>(rng, 6, true), 2);
}

/// Strided lanes: `reduce_lanes_rows`, `arg_lanes`, `arg_lanes_values`, `hardmax_lanes`.
fn strided<T: Half>(rng: &mut Rng, what: &str) {
    for rows in [1, 2, 15, 16, 17, 33, 129, 300] {
        for inner in [1, 15, 16, 17, 33, 100] {
            for case in 0..4 {
                let x: Vec<T> = draw(rng, rows * inner, case % 2 == 1);
                let ctx = format!("{what} strided {rows} rows of {inner}, case {case}");
                let mut y = vec![-1i64; inner];
                let mut v = vec![T::ZERO; inner];
                kernels::arg_lanes_values::<T, Max, false, 256>(&x, &mut y, &mut v, inner);
                let mut ymin = vec![-1i64; inner];
                let mut vmin = vec![T::ZERO; inner];
                kernels::arg_lanes_values::<T, Min, true, 16>(&x, &mut ymin, &mut vmin, inner);
                let mut ylast = vec![-1i64; inner];
                kernels::arg_lanes::<T, Max, true, 32>(&x, &mut ylast, inner);
                let mut yfirst = vec![-1i64; inner];
                kernels::arg_lanes::<T, Min, false, 48>(&x, &mut yfirst, inner);
                let mut h = vec![T::ONE; rows * inner];
                kernels::hardmax_lanes(&x, &mut h, inner);
                // Accumulators: identity, a NaN in some lanes (case 2), a number in others.
                let acc0: Vec<T> = (0..inner)
                    .map(|j| match (case, j % 4) {
                        (2, 0) => T::of_bits(T::POOL[2]),
                        (_, 1) => T::of_bits(T::POOL[5]),
                        _ => Max::identity::<T>(),
                    })
                    .collect();
                let mut amax = acc0.clone();
                kernels::reduce_lanes_rows::<T, Max>(&mut amax, &x);
                let mut amin = acc0.clone();
                kernels::reduce_lanes_rows::<T, Min>(&mut amin, &x);
                for j in 0..inner {
                    let l = lane(&x, rows, inner, j);
                    let c = format!("{ctx}: lane {j} {l:?}");
                    let at = ref_arg(&l, true, false);
                    assert_eq!(y[j] as usize, at, "{c}");
                    // The fused ReduceMax value: the element at the index, but a zero of either
                    // sign for a zero (SEMANTICS: the sign of a zero extreme is unspecified).
                    assert!(same(v[j], l[at]), "{c}: value {:?} vs {:?}", v[j], l[at]);
                    let at_min = ref_arg(&l, false, true);
                    assert_eq!(ymin[j] as usize, at_min, "{c}: min last");
                    assert!(same(vmin[j], l[at_min]), "{c}: min value");
                    assert_eq!(ylast[j] as usize, ref_arg(&l, true, true), "{c}: last");
                    assert_eq!(yfirst[j] as usize, ref_arg(&l, false, false), "{c}");
                    assert!(same(amax[j], ref_reduce(acc0[j], &l, true)), "{c}: max");
                    assert!(same(amin[j], ref_reduce(acc0[j], &l, false)), "{c}: min");
                    for r in 0..rows {
                        let want = if r == at { T::ONE } else { T::ZERO };
                        assert_eq!(h[r * inner + j].bits(), want.bits(), "{c}: hardmax {r}");
                    }
                }
            }
        }
    }
    // Hardmax over more lanes than one tile of the 16-bit kernel (1024), NaN or not.
    for (rows, inner) in [(1, 1100), (17, 1030), (40, 2100)] {
        for case in 0..2 {
            let x: Vec<T> = draw(rng, rows * inner, case == 1);
            let mut h = vec![T::of_bits(0x1234); rows * inner];
            kernels::hardmax_lanes(&x, &mut h, inner);
            let mut y = vec![-1i64; inner];
            kernels::arg_lanes::<T, Min, true, 1024>(&x, &mut y, inner);
            for j in 0..inner {
                let l = lane(&x, rows, inner, j);
                let at = ref_arg(&l, true, false);
                assert_eq!(
                    y[j] as usize,
                    ref_arg(&l, false, true),
                    "{what} {rows}x{inner}"
                );
                for r in 0..rows {
                    let want = if r == at { T::ONE } else { T::ZERO };
                    let got = h[r * inner + j].bits();
                    assert_eq!(got, want.bits(), "{what} {rows}x{inner} lane {j} row {r}");
                }
            }
        }
    }
    // No rows: the accumulators unchanged.
    let mut acc = vec![T::of_bits(T::POOL[14]); 20];
    kernels::reduce_lanes_rows::<T, Max>(&mut acc, &[]);
    assert!(acc.iter().all(|a| a.bits() == T::POOL[14]));
}

/// Ties between `-0` and `+0` and between equal numbers, in both kernels' layouts.
fn signed_zero_ties<T: Half>(what: &str) {
    let (p, n) = (T::of_bits(0x0000), T::of_bits(0x8000));
    for len in [2, 40, 1100] {
        let mut x = vec![T::of_bits(T::POOL[15]); len];
        x[len / 3] = n;
        x[len / 2] = p;
        assert_eq!(
            kernels::arg_row::<T, Max, false>(&x),
            len / 3,
            "{what} {len}"
        );
        assert_eq!(
            kernels::arg_row::<T, Max, true>(&x),
            len / 2,
            "{what} {len}"
        );
        let m = kernels::fold::<T, Max>(Max::identity::<T>(), &x);
        assert_eq!(m.to(), 0.0, "{what} {len}");
        let mut y = [-1i64; 3];
        let mut strided = vec![T::of_bits(T::POOL[15]); len * 3];
        strided[len / 3 * 3 + 1] = n;
        strided[len / 2 * 3 + 1] = p;
        kernels::arg_lanes::<T, Max, false, 16>(&strided, &mut y, 3);
        assert_eq!(y[1] as usize, len / 3, "{what} {len} strided");
        kernels::arg_lanes::<T, Max, true, 16>(&strided, &mut y, 3);
        assert_eq!(y[1] as usize, len / 2, "{what} {len} strided last");
    }
}

#[test]
fn f16_paths_match_the_reference() {
    let mut rng = Rng(0x1616_2024);
    contiguous::<f16>(&mut rng, "f16");
    signed_zero_ties::<f16>("f16");
}

#[test]
fn bf16_paths_match_the_reference() {
    let mut rng = Rng(0xbf16_2024);
    contiguous::<bf16>(&mut rng, "bf16");
    signed_zero_ties::<bf16>("bf16");
}

/// The strided paths twice where the CPU has AVX-512: capped at AVX2 (`cap_twins(1)`: the
/// 16-lane AVX2 pass of the arg-reductions and Hardmax), then uncapped (its 32-lane AVX-512
/// twin for tiles of 32 lanes or more); once elsewhere (both runs then take the same kernels).
/// One test, so that the runs follow each other (the cap is process-wide; the other tests of
/// this file are right under either).
#[test]
fn strided_paths_match_the_reference_at_each_width() {
    for level in [1, u8::MAX] {
        onnx_aot::node::cap_twins(level);
        let mut rng = Rng(0x1616_2025);
        strided::<f16>(&mut rng, &format!("f16 (cap {level})"));
        let mut rng = Rng(0xbf16_2025);
        strided::<bf16>(&mut rng, &format!("bf16 (cap {level})"));
    }
}
