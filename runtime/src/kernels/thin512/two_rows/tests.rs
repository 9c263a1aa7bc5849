//! Tests of [`super`]: every type, blocks of two rows of 1 to 70 lanes and some wider (chunks of
//! a vector and a tail), none to a few blocks, NaN in some blocks, both directions, both tie
//! rules, with and without values; each index and value against the definition lane by lane
//! (`test_util::naive_arg`), and the lengths it refuses.

extern crate std;
use std::vec::Vec;

use super::super::isa;
use super::arg_two_rows;
use crate::kernels::test_util::{
    bf16s, bools, f16s, f32_pool, f64s, i16s, i32s, i64s, i8s, naive_arg, same, u16s, u32s, u64s,
    u8s, Lcg,
};
use crate::{Direction, Element, Max, Min};

/// One direction and tie rule over `x` (blocks of two rows of `c`), checked.
fn check_one<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    c: usize,
    values: bool,
    ctx: &str,
) {
    let blocks = x.len() / (2 * c);
    let mut y = std::vec![-1i64; blocks * c];
    let mut v = std::vec![T::ONE; if values { blocks * c } else { 0 }];
    assert!(
        arg_two_rows::<T, D, LAST>(x, &mut y, &mut v, c),
        "{ctx}: not taken"
    );
    for b in 0..blocks {
        for j in 0..c {
            let lane = [x[2 * b * c + j], x[(2 * b + 1) * c + j]];
            let at = naive_arg::<T, D>(&lane, LAST);
            assert_eq!(
                y[b * c + j],
                at as i64,
                "{ctx}: block {b} lane {j} of {lane:?}"
            );
            if values {
                assert!(
                    same(v[b * c + j], lane[at]),
                    "{ctx}: block {b} lane {j} value"
                );
            }
        }
    }
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    if isa::level() < isa::AVX512 {
        return;
    }
    let mut g = Lcg(0x2_0770 + size_of::<T>() as u64);
    for c in (1..=70).chain([127, 128, 129, 200]) {
        for blocks in [0, 1, 4] {
            for nan_every in [0, 3] {
                let x: Vec<T> = (0..blocks * 2 * c)
                    .map(|i| make(&mut g, nan_every > 0 && (i / (2 * c)) % nan_every == 1))
                    .collect();
                for values in [false, true] {
                    let ctx = std::format!(
                        "{:?} c {c} blocks {blocks} NaN every {nan_every} values {values}",
                        T::DTYPE
                    );
                    check_one::<T, Max, false>(&x, c, values, &ctx);
                    check_one::<T, Max, true>(&x, c, values, &ctx);
                    check_one::<T, Min, false>(&x, c, values, &ctx);
                    check_one::<T, Min, true>(&x, c, values, &ctx);
                }
            }
        }
    }
    // Lengths that are not whole blocks, or outputs not one a lane: refused, nothing written.
    let x: Vec<T> = (0..2 * 5 * 3 + 1).map(|_| make(&mut g, false)).collect();
    let mut y = std::vec![-1i64; 15];
    assert!(!arg_two_rows::<T, Max, false>(&x, &mut y, &mut [], 5));
    assert!(!arg_two_rows::<T, Max, false>(
        &x[..30],
        &mut y[..14],
        &mut [],
        5
    ));
    let mut v = std::vec![T::ONE; 14];
    assert!(!arg_two_rows::<T, Max, false>(&x[..30], &mut y, &mut v, 5));
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
