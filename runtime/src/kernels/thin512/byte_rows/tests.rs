//! Tests of [`super`]: `u8`, `i8`, bool, `u16`, `i16`, f16 and bf16 rows of 1 to 40 elements
//! (only 5 to 32 taken), none to a few hundred rows (whole chunks of 64 or 32 and a tail; NaN,
//! infinities and zeros of both signs in some chunks of the halves, and in what `y` holds), both
//! directions, both tie rules, with and without the elements, the reductions afresh and folded into
//! what `y` holds; each result against the definition row by row (`test_util`), and nothing written
//! past the rows.

extern crate std;
use std::vec::Vec;

use super::{arg_rows, reduce_rows};
use crate::kernels::isa;
use crate::kernels::test_util::{
    bf16s, bools, check_arg_rows, check_reduce_rows, f16s, i16s, i8s, same, u16s, u8s, Lcg,
};
use crate::{bf16, f16, Direction, Element, Max, Min};

/// Rows of 5 to 32 taken, where the CPU has VBMI.
fn taken(c: usize) -> bool {
    (5..=32).contains(&c) && isa::vbmi()
}

/// One direction and tie rule over `rows` rows of `c` (and a partial row after them).
fn check_arg<T: Element, D: Direction, const LAST: bool>(x: &[T], rows: usize, c: usize) {
    for values in [false, true] {
        let flags = (values, LAST, taken(c));
        check_arg_rows::<T, D>(x, (rows, c), flags, arg_rows::<T, D, LAST>);
    }
}

/// One direction over `rows` rows of `c`, afresh and folded into `y`'s elements.
fn check_reduce<T: Element, D: Direction>(x: &[T], rows: usize, c: usize, start: &[T]) {
    check_reduce_rows::<T, D>(x, (rows, c), start, taken(c), reduce_rows::<T, D>);
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    let mut g = Lcg(0xb17e + size_of::<T>() as u64);
    for c in 1..=40 {
        for rows in [0, 1, 5, 63, 64, 65, 127, 128, 200] {
            // A partial row after the rows: not read as one.
            // NaN (halves) only in rows 40 to 79, 120 to 159, ...: some chunks have none.
            let x: Vec<T> = (0..rows * c + c / 2)
                .map(|i| make(&mut g, (i / c / 40) % 2 == 1))
                .collect();
            let start: Vec<T> = (0..rows + 2).map(|i| make(&mut g, i % 50 == 7)).collect();
            check_arg::<T, Max, false>(&x, rows, c);
            check_arg::<T, Max, true>(&x, rows, c);
            check_arg::<T, Min, false>(&x, rows, c);
            check_arg::<T, Min, true>(&x, rows, c);
            check_reduce::<T, Max>(&x, rows, c, &start);
            check_reduce::<T, Min>(&x, rows, c, &start);
        }
    }
}

#[test]
fn u8_rows() {
    check::<u8>(u8s);
}

#[test]
fn i8_rows() {
    check::<i8>(i8s);
}

#[test]
fn bool_rows() {
    check::<bool>(bools);
}

#[test]
fn u16_rows() {
    check::<u16>(u16s);
}

#[test]
fn i16_rows() {
    check::<i16>(i16s);
}

#[test]
fn f16_rows() {
    check::<f16>(f16s);
}

#[test]
fn bf16_rows() {
    check::<bf16>(bf16s);
}

/// Every byte value in every position of a row: the extremes at 0 and 255 (-128 and 127) and
/// their indices at either end.
#[test]
fn extremes_at_every_position() {
    for c in [5, 8, 9, 16, 17, 32] {
        let rows = 2 * c + 70;
        for (lo, hi) in [(0u8, 255u8), (1, 254)] {
            let x: Vec<u8> = (0..rows * c)
                .map(|i| match (i / c) % (2 * c) {
                    k if k < c && i % c == k => hi,
                    k if k >= c && i % c == k - c => lo,
                    _ => 100,
                })
                .collect();
            check_arg::<u8, Max, false>(&x, rows, c);
            check_arg::<u8, Min, true>(&x, rows, c);
            let xi: Vec<i8> = x.iter().map(|&b| (b ^ 0x80) as i8).collect();
            check_arg::<i8, Max, true>(&xi, rows, c);
            check_arg::<i8, Min, false>(&xi, rows, c);
            let start = std::vec![0u8; rows + 2];
            check_reduce::<u8, Max>(&x, rows, c, &start);
            check_reduce::<u8, Min>(&x, rows, c, &std::vec![255u8; rows + 2]);
        }
    }
}

/// Elements of 4 and 8 bytes are refused, nothing written.
#[test]
fn wider_types_are_refused() {
    fn refused<T: Element>() {
        let x = std::vec![T::ONE; 16 * 100];
        let (mut y, mut idx) = (std::vec![T::ZERO; 100], std::vec![-1i64; 100]);
        assert!(
            !reduce_rows::<T, Max>(&mut y, &x, 16, true),
            "{:?}",
            T::DTYPE
        );
        assert!(
            !arg_rows::<T, Max, false>(&x, &mut idx, &mut [], 16),
            "{:?}",
            T::DTYPE
        );
        assert!(y.iter().all(|&v| same(v, T::ZERO)) && idx.iter().all(|&i| i == -1));
    }
    refused::<f32>();
    refused::<i32>();
    refused::<u32>();
    refused::<f64>();
    refused::<i64>();
    refused::<u64>();
}
