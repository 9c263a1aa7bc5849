//! Tests of [`super`]: against references written here.

extern crate std;
use super::*;
use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
use crate::{Max, Min};
use std::vec::Vec;

fn naive_reduce<D: Direction>(x: &[f32]) -> f32 {
    if let Some(&n) = x.iter().find(|v| v.is_nan()) {
        return n;
    }
    x.iter().fold(
        D::identity::<f32>(),
        |a, &v| if D::better(v, a) { v } else { a },
    )
}

fn rows_case<const R: usize>(g: &mut Lcg, nan: bool) {
    // A single row and a few (a tiny model's own paths), then several tiles and a part.
    for n in [1, 7, 3 * ROW_TILE + 5] {
        rows_case_of::<R>(g, nan, n);
    }
}

fn rows_case_of<const R: usize>(g: &mut Lcg, nan: bool, n: usize) {
    let x: Vec<f32> = (0..n * R).map(|_| f32_pool(g, nan)).collect();
    let mut y = std::vec![-1i64; n];
    let mut yl = std::vec![-1i64; n];
    arg_rows_short::<f32, Max, false, R>(&x, &mut y);
    arg_rows_short::<f32, Min, true, R>(&x, &mut yl);
    let mut m = std::vec![f32::NEG_INFINITY; n];
    reduce_rows_short::<f32, Max, R>(&mut m, &x);
    let mut h = std::vec![9f32; n * R];
    hardmax_rows_short::<f32, R>(&x, &mut h);
    for (o, row) in x.chunks_exact(R).enumerate() {
        let at = naive_arg::<f32, Max>(row, false);
        for j in 0..R {
            assert_eq!(
                h[o * R + j],
                if j == at { 1.0 } else { 0.0 },
                "R={R} row {o}"
            );
        }
        assert_eq!(
            y[o] as usize,
            naive_arg::<f32, Max>(row, false),
            "R={R} row {o}"
        );
        assert_eq!(
            yl[o] as usize,
            naive_arg::<f32, Min>(row, true),
            "R={R} row {o}"
        );
        let want = naive_reduce::<Max>(row);
        assert!(
            m[o] == want || (m[o].is_nan() && want.is_nan()),
            "R={R} row {o}: {} vs {want}",
            m[o]
        );
    }
}

#[test]
fn short_rows_match_the_definition() {
    let mut g = Lcg(5);
    for nan in [false, true] {
        rows_case::<1>(&mut g, nan);
        rows_case::<2>(&mut g, nan);
        rows_case::<3>(&mut g, nan);
        rows_case::<7>(&mut g, nan);
        rows_case::<20>(&mut g, nan);
        rows_case::<31>(&mut g, nan);
    }
}

#[test]
fn short_rows_accumulate_and_keep_a_nan() {
    let mut y = [f32::NAN, 1.0, 5.0];
    reduce_rows_short::<f32, Min, 2>(&mut y, &[0.0, 1.0, 3.0, 0.5, 6.0, f32::NAN]);
    assert!(y[0].is_nan() && y[2].is_nan());
    assert_eq!(y[1], 0.5);
    let mut i = [0u8; 2];
    reduce_rows_short::<u8, Max, 3>(&mut i, &[1, 7, 2, 9, 0, 0]);
    assert_eq!(i, [7, 9]);
}

fn lanes_case<const C: usize, const W: usize, const TILE: usize>(
    g: &mut Lcg,
    rows: usize,
    nan: bool,
) {
    let x: Vec<f32> = (0..rows * C).map(|_| f32_pool(g, nan)).collect();
    let mut y = [0i64; C];
    let mut yl = [0i64; C];
    arg_lanes_narrow::<f32, Max, false, C, W, TILE>(&x, &mut y);
    arg_lanes_narrow::<f32, Min, true, C, W, TILE>(&x, &mut yl);
    let mut acc = [f32::INFINITY; C];
    reduce_lanes_narrow::<f32, Min, C, W>(&mut acc, &x);
    let mut h = std::vec![9f32; rows * C];
    hardmax_lanes_narrow::<f32, C, W, TILE>(&x, &mut h);
    for c in 0..C {
        let lane: Vec<f32> = x.iter().skip(c).step_by(C).copied().collect();
        let ctx = std::format!("C={C} W={W} rows={rows} lane {c} nan {nan}");
        let at = naive_arg::<f32, Max>(&lane, false);
        for r in 0..rows {
            assert_eq!(
                h[r * C + c],
                if r == at { 1.0 } else { 0.0 },
                "{ctx} row {r}"
            );
        }
        assert_eq!(y[c] as usize, naive_arg::<f32, Max>(&lane, false), "{ctx}");
        assert_eq!(yl[c] as usize, naive_arg::<f32, Min>(&lane, true), "{ctx}");
        let want = naive_reduce::<Min>(&lane);
        assert!(
            acc[c] == want || (acc[c].is_nan() && want.is_nan()),
            "{ctx}"
        );
    }
}

#[test]
fn narrow_lanes_match_the_definition() {
    let mut g = Lcg(9);
    for rows in [1, 2, 7, 8, 31, 32, 33, 100, 1000] {
        for nan in [false, true] {
            lanes_case::<1, 64, 64>(&mut g, rows, nan);
            lanes_case::<2, 64, 64>(&mut g, rows, nan);
            lanes_case::<3, 96, 96>(&mut g, rows, nan);
            lanes_case::<5, 80, 80>(&mut g, rows, nan);
            lanes_case::<7, 126, 128>(&mut g, rows, nan);
        }
    }
}

#[test]
fn narrow_periods_are_multiples_of_the_lanes() {
    for c in 1..LANES {
        let w = narrow_period(c);
        assert!(w.is_multiple_of(c) && (64..=256).contains(&w), "{c}: {w}");
    }
    assert_eq!(narrow_period(2), 64);
    assert_eq!(narrow_period(5), 80);
    assert_eq!(narrow_period(7), 112);
    assert_eq!(narrow_period(9), 126);
}

/// The definition over f16/bf16 through f32 (exact for both): a NaN accumulator stays, else the
/// row's first NaN, else the extreme (either zero when the extreme is a zero).
fn naive_fold_half<T: Element + Into<f32>, D: Direction>(acc: T, row: &[T]) -> T {
    if acc.is_nan() {
        return acc;
    }
    if let Some(&n) = row.iter().find(|v| v.is_nan()) {
        return n;
    }
    row.iter().fold(
        acc,
        |a, &v| if D::better(v.into(), a.into()) { v } else { a },
    )
}

fn half_rows_case<T: Element + Into<f32>, const R: usize>(g: &mut Lcg, from: fn(f32) -> T) {
    for n in [1, 9, 2 * ROW_TILE + 3] {
        for nan in [false, true] {
            // Values from the f32 pool (ties, zeros of both signs, infinities), a NaN in some
            // rows; accumulators of every kind, a NaN among them.
            // NaN of either sign (a negative NaN's order key is the lowest).
            let x: Vec<T> = (0..n * R)
                .map(|_| match f32_pool(g, nan) {
                    v if v.is_nan() && g.next().is_multiple_of(2) => from(-v),
                    v => from(v),
                })
                .collect();
            let acc: Vec<T> = (0..n)
                .map(|i| match i % 7 {
                    3 => from(f32::NAN),
                    5 => from(f32::INFINITY),
                    _ => from(f32_pool(g, false)),
                })
                .collect();
            // Hardmax: one at the first maximum (or the first NaN), zeros elsewhere.
            let mut h = std::vec![from(9.0); n * R];
            hardmax_rows_short::<T, R>(&x, &mut h);
            for (o, (row, out)) in x.chunks_exact(R).zip(h.chunks_exact(R)).enumerate() {
                let wide: Vec<f32> = row.iter().map(|&v| v.into()).collect();
                let at = naive_arg::<f32, Max>(&wide, false);
                for (j, &v) in out.iter().enumerate() {
                    let want = if j == at { 1.0 } else { 0.0 };
                    assert_eq!(v.into(), want, "R={R} row {o} of {n}: {wide:?}");
                }
            }
            for min in [false, true] {
                let mut y = acc.clone();
                if min {
                    reduce_rows_short::<T, Min, R>(&mut y, &x);
                } else {
                    reduce_rows_short::<T, Max, R>(&mut y, &x);
                }
                for (o, row) in x.chunks_exact(R).enumerate() {
                    let want = if min {
                        naive_fold_half::<T, Min>(acc[o], row)
                    } else {
                        naive_fold_half::<T, Max>(acc[o], row)
                    };
                    let (got, want_f): (f32, f32) = (y[o].into(), want.into());
                    assert!(
                        if want.is_nan() {
                            T::half_bits(core::slice::from_ref(&y[o]))
                                == T::half_bits(core::slice::from_ref(&want))
                        } else {
                            got == want_f
                        },
                        "R={R} row {o} of {n} min={min}: {got} want {want_f}"
                    );
                }
            }
        }
    }
}

#[test]
fn half_short_rows_reduce_and_hardmax_by_the_definition() {
    let mut g = Lcg(23);
    let f16 = |v: f32| crate::f16::from_f32(v);
    let bf16 = |v: f32| crate::bf16::from_f32(v);
    half_rows_case::<crate::f16, 1>(&mut g, f16);
    half_rows_case::<crate::f16, 3>(&mut g, f16);
    half_rows_case::<crate::f16, 20>(&mut g, f16);
    half_rows_case::<crate::f16, 31>(&mut g, f16);
    half_rows_case::<crate::bf16, 4>(&mut g, bf16);
    half_rows_case::<crate::bf16, 20>(&mut g, bf16);
    half_rows_case::<crate::bf16, 9>(&mut g, bf16);
}
