//! Tests of [`super`]: every type, direction, row length class (rows under the short-row
//! kernel's 8 bytes, rows it takes, rows over 128 bytes that go plane by plane), one to several
//! tiles and a last tile under a vector, planes with and without NaN, accumulators with NaN,
//! against the definition written here.

extern crate std;
use super::*;
use crate::kernels::test_util::{
    bf16s, bools, f16s, fold_definition, i16s, i32s, i8s, plane_rows, same, u16s, u32s, u8s, Lcg,
};
use crate::{bf16, f16, Max, Min};
use std::vec::Vec;

/// The definition: a NaN accumulator stays; else the first NaN of the row's elements taken plane
/// after plane; else their extreme and the accumulator's.
fn want<T: Element, D: Direction>(acc: T, x: &[T], shape: (usize, usize, usize), k: usize) -> T {
    fold_definition::<T, D>(acc, plane_rows(x, shape, k))
}

fn check<T: Element, const N: usize>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    for (planes, rows) in [
        (2, 1),
        (2, 7),
        (3, 33),
        (4, 700),
        (5, 2100),
        (9, 64),
        (1, 300),
    ] {
        for nan in [false, true] {
            let x: Vec<T> = (0..planes * rows * N)
                .map(|_| {
                    let rare = nan && g.next().is_multiple_of(3001);
                    let v = make(g, rare);
                    if !nan && v.is_nan() {
                        T::ZERO
                    } else {
                        v
                    }
                })
                .collect();
            let acc: Vec<T> = (0..rows).map(|i| make(g, i % 13 == 5)).collect();
            for min in [false, true] {
                let mut y = acc.clone();
                let done = if min {
                    reduce_planes::<T, Min, N>(&mut y, &x, planes)
                } else {
                    reduce_planes::<T, Max, N>(&mut y, &x, planes)
                };
                let what = (T::DTYPE, N, planes, rows, min, nan);
                let row = N * size_of::<T>();
                let taken = planes >= 2
                    && rows * row >= 32
                    && (row <= 128 || (row <= 512 && T::DTYPE != DType::Bool));
                assert_eq!(done, taken, "{what:?} taken");
                if !done {
                    assert!(
                        y.iter().zip(&acc).all(|(&a, &b)| same(a, b)),
                        "{what:?} untouched"
                    );
                    continue;
                }
                for k in 0..rows {
                    let w = if min {
                        want::<T, Min>(acc[k], &x, (planes, rows, N), k)
                    } else {
                        want::<T, Max>(acc[k], &x, (planes, rows, N), k)
                    };
                    assert!(
                        same(y[k], w),
                        "{what:?} row {k}: {:?}",
                        (y[k].is_nan(), w.is_nan())
                    );
                }
            }
        }
    }
}

fn check_all<T: Element>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    check::<T, 1>(g, make);
    check::<T, 3>(g, make);
    check::<T, 5>(g, make);
    check::<T, 8>(g, make);
    check::<T, 10>(g, make);
    check::<T, 20>(g, make);
    check::<T, 33>(g, make);
    check::<T, 40>(g, make);
    check::<T, 100>(g, make);
    check::<T, 300>(g, make);
    check::<T, 600>(g, make);
}

#[test]
fn planes_of_narrow_types_match_the_definition() {
    if !available() {
        return;
    }
    let mut g = Lcg(21);
    check_all::<u8>(&mut g, u8s);
    check_all::<i8>(&mut g, i8s);
    check_all::<bool>(&mut g, bools);
    check_all::<u16>(&mut g, u16s);
    check_all::<i16>(&mut g, i16s);
    check_all::<f16>(&mut g, f16s);
    check_all::<bf16>(&mut g, bf16s);
    check_all::<u32>(&mut g, u32s);
    check_all::<i32>(&mut g, i32s);
}

#[test]
fn other_types_are_left() {
    let mut y = [0f32; 16];
    assert!(!reduce_planes::<f32, Max, 4>(&mut y, &[1.0; 128], 2));
    let mut y = [0i64; 16];
    assert!(!reduce_planes::<i64, Max, 4>(&mut y, &[1; 128], 2));
}
