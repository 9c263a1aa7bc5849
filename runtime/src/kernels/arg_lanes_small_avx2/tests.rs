//! Tests of [`super`]: every type, direction, tie rule, lane count and row count class it
//! takes (one row a vector lane, pairs folded in a vector, super-rows folded lane by lane; one
//! group of rows and several), against the definition in `test_util`.

extern crate std;
use super::*;
use crate::kernels::test_util::{
    bf16s, bools, f16s, i16s, i32s, i8s, naive_arg, same, u16s, u32s, u8s, Lcg,
};
use crate::{bf16, f16, Max, Min};
use std::vec::Vec;

/// Whether the kernel takes a block of `rows` rows of `inner` lanes of `T` without NaN.
fn taken<T: Element>(inner: usize, rows: usize) -> bool {
    let Some(plan) = Plan::of(inner * size_of::<T>()) else {
        return false;
    };
    let supers = rows / plan.k;
    let group = match size_of::<T>() {
        1 => 256,
        2 => 65536,
        _ => usize::MAX,
    } / plan.k;
    rows >= MIN_ROWS
        && (plan.k == 1
            || (plan.folds_in_vector() && supers <= group)
            || supers >= MIN_SUPER_ROWS)
}

/// One block of `rows` rows of `inner` lanes, values from `make` (now and then a NaN where
/// `nan`, mostly zeros where `sparse`), searched both ways with both tie rules, with and without
/// values, against the definition lane by lane.
fn check<T: Element>(
    g: &mut Lcg,
    inner: usize,
    rows: usize,
    make: fn(&mut Lcg, bool) -> T,
    sparse: bool,
) {
    for nan in [false, true] {
        let x: Vec<T> = (0..inner * rows)
            .map(|_| {
                let v = make(g, nan);
                let v = if !nan && v.is_nan() { T::ZERO } else { v };
                if sparse && !g.next().is_multiple_of(40) {
                    T::ZERO
                } else {
                    v
                }
            })
            .collect();
        let has_nan = x.iter().any(|v| v.is_nan());
        for (min, last, values) in (0..8).map(|m| (m & 1 != 0, m & 2 != 0, m & 4 != 0)) {
            let mut y = std::vec![-7i64; inner];
            let mut v = std::vec![T::ONE; if values { inner } else { 0 }];
            let done = match (min, last) {
                (false, false) => arg_lanes::<T, Max, false>(&x, &mut y, &mut v, inner),
                (false, true) => arg_lanes::<T, Max, true>(&x, &mut y, &mut v, inner),
                (true, false) => arg_lanes::<T, Min, false>(&x, &mut y, &mut v, inner),
                (true, true) => arg_lanes::<T, Min, true>(&x, &mut y, &mut v, inner),
            };
            let what = (T::DTYPE, inner, rows, min, last, values, sparse);
            assert_eq!(done, !has_nan && taken::<T>(inner, rows), "{what:?} taken");
            if !done {
                continue;
            }
            for col in 0..inner {
                let lane: Vec<T> = x.iter().skip(col).step_by(inner).copied().collect();
                let want = if min {
                    naive_arg::<T, Min>(&lane, last)
                } else {
                    naive_arg::<T, Max>(&lane, last)
                };
                assert_eq!(y[col], want as i64, "{what:?} lane {col}");
                if values {
                    assert!(same(v[col], lane[want]), "{what:?} lane {col} value");
                }
            }
        }
    }
}

#[test]
fn strided_bytes_match_the_definition() {
    if !available() {
        return;
    }
    let mut g = Lcg(7);
    // 16 lanes: pairs of rows folded in a vector up to 256 rows, then groups; 8, 17, 20, 24 and
    // 31: super-rows folded lane by lane; 32 and more: a row a vector, tiles of up to four.
    for inner in [8, 16, 17, 20, 24, 31, 32, 33, 48, 64, 100, 129, 200] {
        for rows in [3, 4, 5, 20, 63, 255, 256, 257, 258, 600] {
            for sparse in [false, true] {
                check::<u8>(&mut g, inner, rows, u8s, sparse);
                check::<i8>(&mut g, inner, rows, i8s, sparse);
            }
            check::<bool>(&mut g, inner, rows, bools, false);
        }
    }
}

#[test]
fn strided_two_byte_types_match_the_definition() {
    if !available() {
        return;
    }
    let mut g = Lcg(8);
    for inner in [16, 17, 24, 40, 64, 100, 129] {
        for rows in [3, 4, 20, 300] {
            for sparse in [false, true] {
                check::<u16>(&mut g, inner, rows, u16s, sparse);
                check::<i16>(&mut g, inner, rows, i16s, sparse);
                check::<f16>(&mut g, inner, rows, f16s, sparse);
                check::<bf16>(&mut g, inner, rows, bf16s, sparse);
            }
        }
    }
    // More rows than a group of 2-byte row numbers counts.
    check::<u16>(&mut g, 16, 65536 + 40, u16s, true);
    check::<f16>(&mut g, 16, 65536 + 41, f16s, false);
}

#[test]
fn strided_four_byte_types_match_the_definition() {
    if !available() {
        return;
    }
    let mut g = Lcg(9);
    for inner in [8, 9, 16, 25, 40] {
        for rows in [3, 4, 30, 300] {
            for sparse in [false, true] {
                check::<u32>(&mut g, inner, rows, u32s, sparse);
                check::<i32>(&mut g, inner, rows, i32s, sparse);
            }
        }
    }
}

#[test]
fn rows_of_under_32_bytes_are_read_as_super_rows() {
    // Whole vectors where a few rows make them, else the fewest vectors wasted.
    assert_eq!(Plan::of(16), Some(Plan { k: 2, p: 32 }));
    assert_eq!(Plan::of(20), Some(Plan { k: 8, p: 160 }));
    assert_eq!(Plan::of(24), Some(Plan { k: 4, p: 96 }));
    assert_eq!(Plan::of(32), Some(Plan { k: 1, p: 32 }));
    assert_eq!(Plan::of(1000), Some(Plan { k: 1, p: 1000 }));
    let odd = Plan::of(17).unwrap();
    assert!(odd.p <= MAX_PERIOD && odd.p >= 32 && odd.p % 17 == 0);
    assert_eq!(Plan::of(0), None);
}

#[test]
fn other_types_and_shapes_are_left() {
    let mut y = [0i64; 16];
    assert!(!arg_lanes::<f32, Max, false>(&[1.0; 64], &mut y, &mut [], 16));
    assert!(!arg_lanes::<i64, Max, false>(&[1; 64], &mut y, &mut [], 16));
    // Too few rows, and `y` not one index a lane.
    assert!(!arg_lanes::<u8, Max, false>(&[1; 48], &mut y, &mut [], 16));
    assert!(!arg_lanes::<u8, Max, false>(&[1; 64], &mut y[..8], &mut [], 16));
}
