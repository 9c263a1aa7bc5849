//! Tests of [`super`]: every type, blocks of two to sixteen rows (one and seventeen refused) of
//! 1 to 70 lanes and some wider (chunks of a vector and a tail), none to a few blocks, NaN in
//! some blocks, both directions, both tie rules, with and without values; each index and value
//! against the definition lane by lane (`test_util::naive_arg`), and the lengths it refuses.

extern crate std;
use std::vec::Vec;

use super::super::isa;
use super::arg_stacked;
use crate::kernels::test_util::{
    bf16s, bools, check_arg_blocks, f16s, f32_pool, f64s, i16s, i32s, i64s, i8s, u16s, u32s, u64s,
    u8s, Lcg,
};
use crate::{Direction, Element, Max, Min};

/// One direction and tie rule over `x` (blocks of `r` rows of `c`), checked.
fn check_one<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    r: usize,
    c: usize,
    values: bool,
    ctx: &str,
) {
    let blocks = x.len() / (r * c);
    let mut y = std::vec![-1i64; blocks * c];
    let mut v = std::vec![T::ONE; if values { blocks * c } else { 0 }];
    let taken = arg_stacked::<T, D, LAST>(x, &mut y, &mut v, r, c);
    if !(2..=16).contains(&r) {
        assert!(!taken, "{ctx}: taken");
        assert!(y.iter().all(|&i| i == -1), "{ctx}: written");
        return;
    }
    assert!(taken, "{ctx}: not taken");
    check_arg_blocks::<T, D>(x, (&y, &v), (r, c), blocks, LAST, ctx);
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    if isa::level() < isa::AVX512 {
        return;
    }
    let mut g = Lcg(0x2_0770 + size_of::<T>() as u64);
    for (r, cs) in [
        (1, &[5, 70][..]),
        (2, &[][..]),
        (3, &[1, 5, 16, 17, 33, 64, 65, 129][..]),
        (4, &[2, 15, 16, 40, 100][..]),
        (7, &[1, 16, 24, 65][..]),
        (16, &[3, 16, 31][..]),
        (17, &[16][..]),
    ] {
        // Every lane count up to 70 and some wider for two rows; a few for the others.
        let all: Vec<usize> = (1..=70).chain([127, 128, 129, 200]).collect();
        for &c in if r == 2 { &all[..] } else { cs } {
            for blocks in [0, 1, 4] {
                for nan_every in [0, 3] {
                    let x: Vec<T> = (0..blocks * r * c)
                        .map(|i| make(&mut g, nan_every > 0 && (i / (r * c)) % nan_every == 1))
                        .collect();
                    for values in [false, true] {
                        let ctx = std::format!(
                            "{:?} r {r} c {c} blocks {blocks} NaN every {nan_every} values {values}",
                            T::DTYPE
                        );
                        check_one::<T, Max, false>(&x, r, c, values, &ctx);
                        check_one::<T, Max, true>(&x, r, c, values, &ctx);
                        check_one::<T, Min, false>(&x, r, c, values, &ctx);
                        check_one::<T, Min, true>(&x, r, c, values, &ctx);
                    }
                }
            }
        }
    }
    // Lengths that are not whole blocks, or outputs not one a lane: refused, nothing written.
    let x: Vec<T> = (0..2 * 5 * 3 + 1).map(|_| make(&mut g, false)).collect();
    let mut y = std::vec![-1i64; 15];
    assert!(!arg_stacked::<T, Max, false>(&x, &mut y, &mut [], 2, 5));
    assert!(!arg_stacked::<T, Max, false>(
        &x[..30],
        &mut y[..14],
        &mut [],
        2,
        5
    ));
    let mut v = std::vec![T::ONE; 14];
    assert!(!arg_stacked::<T, Max, false>(
        &x[..30],
        &mut y,
        &mut v,
        2,
        5
    ));
    assert!(y.iter().all(|&i| i == -1));
}

#[test]
fn one_and_two_byte_blocks_match_the_definition() {
    check::<u8>(u8s);
    check::<i8>(i8s);
    check::<bool>(bools);
    check::<u16>(u16s);
    check::<i16>(i16s);
    check::<half::f16>(f16s);
    check::<half::bf16>(bf16s);
}

#[test]
fn four_and_eight_byte_blocks_match_the_definition() {
    check::<u32>(u32s);
    check::<i32>(i32s);
    check::<f32>(f32_pool);
    check::<u64>(u64s);
    check::<i64>(i64s);
    check::<f64>(f64s);
}
