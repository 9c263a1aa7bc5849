//! The tests of [`super`]: every path against the definition.

extern crate std;
use super::*;
use crate::kernels::test_util::{f32_pool, fold_definition, plane_rows, Lcg};
use crate::{bf16, f16, Max, Min};
use std::vec::Vec;

fn check<const N: usize>(g: &mut Lcg, planes: usize, rows: usize, nan: bool) {
    check_in::<Min, N>(g, planes, rows, nan);
    check_in::<Max, N>(g, planes, rows, nan);
}

fn check_in<D: Direction, const N: usize>(g: &mut Lcg, planes: usize, rows: usize, nan: bool) {
    let x: Vec<f32> = (0..planes * rows * N).map(|_| f32_pool(g, nan)).collect();
    let identity = if D::IS_MIN {
        f32::INFINITY
    } else {
        f32::NEG_INFINITY
    };
    let mut y = std::vec![identity; rows];
    // A NaN already in the accumulator stays.
    if rows > 2 {
        y[2] = f32::NAN;
    }
    reduce_planes::<f32, D, N>(&mut y, &x, planes);
    for k in 0..rows {
        let mut want = if k == 2 { f32::NAN } else { identity };
        for p in 0..planes {
            for j in 0..N {
                let v = x[(p * rows + k) * N + j];
                let beats = if D::IS_MIN { v < want } else { v > want };
                if !want.is_nan() && (v.is_nan() || beats) {
                    want = v;
                }
            }
        }
        assert!(
            y[k] == want || (y[k].is_nan() && want.is_nan()),
            "N={N} planes={planes} rows={rows} row {k}: {} vs {want}",
            y[k]
        );
    }
}

#[test]
fn planes_match_the_definition() {
    let mut g = Lcg(3);
    for nan in [false, true] {
        // Tiles under sixteen elements, several tiles, a last tile that is not whole.
        for (planes, rows) in [(1, 1), (2, 3), (5, 40), (25, 131), (3, 700), (0, 4)] {
            check::<1>(&mut g, planes, rows, nan);
            check::<2>(&mut g, planes, rows, nan);
            check::<3>(&mut g, planes, rows, nan);
            check::<4>(&mut g, planes, rows, nan);
            check::<5>(&mut g, planes, rows, nan);
            check::<40>(&mut g, planes, rows, nan);
            check::<128>(&mut g, planes, rows, nan);
            check::<300>(&mut g, planes, rows, nan);
        }
    }
    let mut y = [0u8; 2];
    reduce_planes::<u8, Max, 1>(&mut y, &[1, 7, 9, 2], 2);
    assert_eq!(y, [9, 7]);
}

/// `i64` and `f64` planes (the AVX2 fold of 8-byte lanes where the CPU has it) against the
/// same definition: rows of 1, 5 and 40 over several tiles, NaN in the planes and in `y`.
#[test]
fn eight_byte_planes_match_the_definition() {
    fn check_wide<T: Element, D: Direction, const N: usize>(
        g: &mut Lcg,
        (planes, rows, nan): (usize, usize, bool),
        from: fn(f32) -> T,
    ) {
        let x: Vec<T> = (0..planes * rows * N)
            .map(|_| from(f32_pool(g, nan)))
            .collect();
        let mut y = std::vec![D::identity::<T>(); rows];
        if rows > 2 && nan {
            y[2] = from(f32::NAN);
        }
        let start = y.clone();
        reduce_planes::<T, D, N>(&mut y, &x, planes);
        for k in 0..rows {
            let want = fold_definition::<T, D>(start[k], plane_rows(&x, (planes, rows, N), k));
            assert!(
                y[k] == want || (y[k].is_nan() && want.is_nan()),
                "{:?} N={N} planes={planes} rows={rows} row {k}",
                T::DTYPE
            );
        }
    }
    let mut g = Lcg(5);
    for nan in [false, true] {
        for (planes, rows) in [(1, 3), (2, 5), (4, 131), (9, 700)] {
            let (wide, int) = ((planes, rows, nan), (planes, rows, false));
            check_wide::<f64, Max, 1>(&mut g, wide, f64::from);
            check_wide::<f64, Min, 5>(&mut g, wide, f64::from);
            check_wide::<f64, Max, 40>(&mut g, wide, f64::from);
            // Saturating: the infinities become the type's extremes.
            check_wide::<i64, Max, 5>(&mut g, int, |v| v as i64);
            check_wide::<i64, Min, 40>(&mut g, int, |v| v as i64);
            check_wide::<i64, Min, 1>(&mut g, int, |v| v as i64);
        }
    }
}

/// Rows longer than the tile (folded plane by plane by the row kernels) of every kind of
/// element against the definition: a NaN in `y` stays, else each row's first NaN over the
/// planes in order, else the extreme (both zeros equal); row lengths around the long-row
/// kernels' thresholds.
#[test]
fn long_rows_of_every_type_match_the_definition() {
    use crate::kernels::test_util::{bf16s, bools, f16s, i32s, i8s, same, u16s, u8s};
    fn check<T: Element, D: Direction, const N: usize>(
        g: &mut Lcg,
        (planes, rows): (usize, usize),
        make: fn(&mut Lcg, bool) -> T,
    ) {
        for nan in [false, true] {
            let x: Vec<T> = (0..planes * rows * N)
                .map(|_| {
                    let rare = nan && g.next().is_multiple_of(50);
                    make(g, rare)
                })
                .collect();
            let mut y: Vec<T> = (0..rows).map(|_| make(g, false)).collect();
            if rows > 2 && nan {
                y[2] = make(g, true);
            }
            let start = y.clone();
            reduce_planes::<T, D, N>(&mut y, &x, planes);
            for k in 0..rows {
                let want = fold_definition::<T, D>(start[k], plane_rows(&x, (planes, rows, N), k));
                assert!(
                    same(y[k], want),
                    "{:?} N={N} planes={planes} rows={rows} row {k}",
                    T::DTYPE
                );
            }
        }
    }
    let mut g = Lcg(8);
    for shape in [(1, 1), (3, 5), (7, 2)] {
        check::<f16, Max, 257>(&mut g, shape, f16s);
        check::<f16, Min, 400>(&mut g, shape, f16s);
        check::<bf16, Max, 520>(&mut g, shape, bf16s);
        check::<i32, Min, 400>(&mut g, shape, i32s);
        check::<u16, Max, 300>(&mut g, shape, u16s);
        check::<i8, Max, 520>(&mut g, shape, i8s);
        check::<u8, Min, 400>(&mut g, shape, u8s);
        check::<bool, Max, 300>(&mut g, shape, bools);
        check::<f32, Min, 300>(&mut g, shape, f32_pool);
    }
}

/// [`reduce_parts`] of every kind of element against the definition: each element of `y`
/// (whatever it held, a NaN too) the first NaN over the planes' parts in order, else their
/// extreme (both zeros equal); parts at the start, middle and end of planes, under sixteen
/// elements and over the kernels' tiles, one to seven planes.
#[test]
fn parts_of_every_type_match_the_definition() {
    use crate::kernels::test_util::{bf16s, bools, f16s, f64s, i32s, i64s, i8s, same, u16s, u8s};
    fn check<T: Element, D: Direction>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
        for (planes, plane, at, n) in [
            (1, 40, 3, 17),
            (2, 40, 0, 40),
            (2, 300, 290, 10),
            (3, 2000, 16, 1100),
            (7, 64, 1, 62),
            (2, 5000, 2500, 2500),
        ] {
            for nan in [false, true] {
                let x: Vec<T> = (0..planes * plane)
                    .map(|_| {
                        let rare = nan && g.next().is_multiple_of(50);
                        make(g, rare)
                    })
                    .collect();
                let mut y: Vec<T> = (0..n).map(|i| make(g, nan && i % 7 == 0)).collect();
                reduce_parts::<T, D>(&mut y, &x, planes, plane, at);
                for (k, &got) in y.iter().enumerate() {
                    let column = (0..planes).map(|p| x[p * plane + at + k]);
                    let want = fold_definition::<T, D>(D::identity::<T>(), column);
                    assert!(
                        same(got, want),
                        "{:?} planes={planes} plane={plane} at={at} n={n} element {k}",
                        T::DTYPE
                    );
                }
            }
        }
    }
    let mut g = Lcg(11);
    check::<f32, Max>(&mut g, f32_pool);
    check::<f32, Min>(&mut g, f32_pool);
    check::<f64, Max>(&mut g, f64s);
    check::<f64, Min>(&mut g, f64s);
    check::<i64, Min>(&mut g, i64s);
    check::<i64, Max>(&mut g, i64s);
    check::<f16, Max>(&mut g, f16s);
    check::<bf16, Min>(&mut g, bf16s);
    check::<i32, Max>(&mut g, i32s);
    check::<u16, Min>(&mut g, u16s);
    check::<i8, Max>(&mut g, i8s);
    check::<u8, Min>(&mut g, u8s);
    check::<bool, Max>(&mut g, bools);
    // Parts that do not fit the planes leave `y` alone.
    let mut y = [7.0f32; 4];
    reduce_parts::<f32, Max>(&mut y, &[1.0; 8], 2, 4, 1);
    assert_eq!(y, [7.0; 4]);
}
