//! Tests of [`super`]: every type; rows of 2 elements to 1031: every count of vectors that
//! [`few`] takes (whole, and with a rest that varies with the count), the first rows past them,
//! and long rows (whole vectors and a rest of every size); none to a few rows and a partial row
//! after them, three kinds of data (a small pool with ties, the type's extremes and, in some
//! rows, NaN of either sign; random bits, the best at a random place; zeros of both signs below
//! a few negatives), both directions, both tie rules, the indices as `i64` and `i32`, with and
//! without the elements, and the reductions afresh and folded into what `y` holds; each result
//! against the definition row by row (`test_util`), and nothing written past the rows.

extern crate std;
use std::vec::Vec;

use super::{arg_rows, few, reduce_rows, takes};
use crate::kernels::test_util::{
    bf16s, bools, check_arg_rows, check_reduce_rows, f16s, f32_ends, f64s, i16s, i32s, i64s, i8s,
    u16s, u32s, u64s, u8s, Lcg,
};
use crate::{bf16, f16, Direction, Element, Max, Min};

/// The row lengths tried for `T`: 2, 3, every count of vectors [`few`] takes (whole, and with a
/// rest that varies with the count), the first lengths past them, and long rows.
fn lengths<T: Element>() -> Vec<usize> {
    let (l, most) = (64 / size_of::<T>(), few::most_vectors(size_of::<T>()));
    let mut v = std::vec![2, 3, 20, 31, 32, 33, 1000, 1031];
    for n in 1..=most {
        v.extend([n * l, (n - 1) * l + 1 + n * 7 % l]);
    }
    v.extend([most * l + 1, most * l + l / 2 + 3, most * l + 2 * l]);
    v.sort_unstable();
    v.dedup();
    v.retain(|&c| c >= 2);
    v
}

/// One direction and tie rule over `rows` rows of `c` (and a partial row after them), the
/// indices as `i64` and then as `i32`.
fn check_arg<T: Element, D: Direction, const LAST: bool>(x: &[T], rows: usize, c: usize) {
    for values in [false, true] {
        let run = arg_rows::<T, D, LAST, i64>;
        let flags = (values, LAST, takes::<T>(c));
        if let Some(y) = check_arg_rows::<T, D>(x, (rows, c), flags, run) {
            // The same indices as `i32` (a Cast folded into the node).
            let mut narrow = std::vec![-1i32; rows];
            assert!(arg_rows::<T, D, LAST, i32>(x, &mut narrow, &mut [], c));
            let wide: Vec<i64> = narrow.iter().map(|&i| i64::from(i)).collect();
            assert_eq!(wide, y, "{:?} rows of {c} x{rows}: i32 indices", T::DTYPE);
        }
    }
}

/// One direction over `rows` rows of `c`, afresh and folded into what `y` holds (`start`: some
/// NaN, some beating every row).
fn check_reduce<T: Element, D: Direction>(x: &[T], rows: usize, c: usize, start: &[T]) {
    check_reduce_rows::<T, D>(x, (rows, c), start, takes::<T>(c), reduce_rows::<T, D>);
}

fn check_all<T: Element>(x: &[T], rows: usize, c: usize) {
    check_arg::<T, Max, false>(x, rows, c);
    check_arg::<T, Max, true>(x, rows, c);
    check_arg::<T, Min, false>(x, rows, c);
    check_arg::<T, Min, true>(x, rows, c);
    // What `y` holds: the row's first element (a NaN where it is), the first element of the
    // next row, or the extremes of the type.
    let start: Vec<T> = (0..rows + 2)
        .map(|i| match i % 3 {
            0 => x[(i * c) % x.len().max(1)],
            1 => x[(i * c + c / 2) % x.len().max(1)],
            _ => x[x.len() / 2],
        })
        .collect();
    if !x.is_empty() {
        check_reduce::<T, Max>(x, rows, c, &start);
        check_reduce::<T, Min>(x, rows, c, &start);
    }
}

/// A value of `T` from random bytes (a NaN made 1, an invalid bool 0).
fn random<T: Element>(g: &mut Lcg) -> T {
    let bytes = g.next().to_le_bytes();
    let mut wide = [0u8; 8];
    wide[..4].copy_from_slice(&bytes[..4]);
    wide[4..].copy_from_slice(&g.next().to_le_bytes()[..4]);
    match T::read_le(&wide[..size_of::<T>()]) {
        Some(v) if !v.is_nan() => v,
        Some(_) => T::ONE,
        None => T::ZERO,
    }
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    let mut g = Lcg(0x1096 + size_of::<T>() as u64);
    for c in lengths::<T>() {
        for rows in [0, 1, 3, 6] {
            // NaN (where `make` draws one) only in odd rows.
            let pool: Vec<T> = (0..rows * c + c / 2)
                .map(|i| make(&mut g, (i / c) % 2 == 1))
                .collect();
            check_all(&pool, rows, c);
            let wide: Vec<T> = (0..rows * c + c / 2).map(|_| random(&mut g)).collect();
            check_all(&wide, rows, c);
        }
    }
}

/// Rows of zeros of both signs among negatives (floats): the best is a zero, and the first
/// (last) zero of either sign is its index; and the reverse for the minimum.
fn check_zeros<T: Element>(from: fn(f32) -> T) {
    let mut g = Lcg(0x2e40);
    for c in lengths::<T>() {
        let rows = 4;
        for sign in [1.0f32, -1.0] {
            let x: Vec<T> = (0..rows * c)
                .map(|_| {
                    from(match g.next() % 8 {
                        0 => 0.0,
                        1 => -0.0,
                        _ => -sign * (1 + g.next() % 5) as f32,
                    })
                })
                .collect();
            check_all(&x, rows, c);
        }
    }
}

/// A single extreme (or NaN) at every position of a row, the rest one value.
fn check_positions<T: Element>(base: T, hi: T, lo: T) {
    for c in [2, 3, 9, 17, 32, 64, 65, 200, 257, 520] {
        for at in 0..c {
            for e in [hi, lo] {
                let mut x = std::vec![base; 2 * c];
                x[at] = e;
                x[c + c - 1 - at] = e;
                check_all(&x, 2, c);
            }
        }
    }
}

#[test]
fn u8_rows() {
    check::<u8>(u8s);
    check_positions::<u8>(7, 255, 0);
}

#[test]
fn i8_rows() {
    check::<i8>(i8s);
    check_positions::<i8>(7, 127, -128);
}

#[test]
fn bool_rows() {
    check::<bool>(bools);
    check_positions::<bool>(false, true, false);
    check_positions::<bool>(true, true, false);
}

#[test]
fn u16_rows() {
    check::<u16>(u16s);
    check_positions::<u16>(300, u16::MAX, 0);
}

#[test]
fn i16_rows() {
    check::<i16>(i16s);
    check_positions::<i16>(-3, i16::MAX, i16::MIN);
}

#[test]
fn u32_rows() {
    check::<u32>(u32s);
    check_positions::<u32>(70000, u32::MAX, 0);
}

#[test]
fn i32_rows() {
    check::<i32>(i32s);
    check_positions::<i32>(-3, i32::MAX, i32::MIN);
}

#[test]
fn u64_rows() {
    check::<u64>(u64s);
    check_positions::<u64>(70000, u64::MAX, 0);
}

#[test]
fn i64_rows() {
    check::<i64>(i64s);
    check_positions::<i64>(-3, i64::MAX, i64::MIN);
}

#[test]
fn f16_rows() {
    check::<f16>(f16s);
    check_zeros::<f16>(f16::from_f32);
    let h = f16::from_f32;
    check_positions::<f16>(h(1.0), h(f32::INFINITY), h(f32::NEG_INFINITY));
    check_positions::<f16>(h(1.0), h(f32::NAN), h(-f32::NAN));
}

#[test]
fn bf16_rows() {
    check::<bf16>(bf16s);
    check_zeros::<bf16>(bf16::from_f32);
    let h = bf16::from_f32;
    check_positions::<bf16>(h(1.0), h(f32::INFINITY), h(f32::NEG_INFINITY));
    check_positions::<bf16>(h(1.0), h(f32::NAN), h(-f32::NAN));
}

#[test]
fn f32_rows() {
    check::<f32>(f32_ends);
    check_zeros::<f32>(|v| v);
    check_positions::<f32>(1.0, f32::INFINITY, f32::NEG_INFINITY);
    check_positions::<f32>(1.0, f32::NAN, -f32::NAN);
}

#[test]
fn f64_rows() {
    check::<f64>(f64s);
    check_zeros::<f64>(f64::from);
    check_positions::<f64>(1.0, f64::INFINITY, f64::NEG_INFINITY);
    check_positions::<f64>(1.0, f64::NAN, -f64::NAN);
}
