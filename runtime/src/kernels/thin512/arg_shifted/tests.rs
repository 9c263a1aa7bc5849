//! Tests of [`super`]: every type, blocks of two to five rows (five refused) of 1
//! to 17 lanes and some wider (a period of lanes over the table refused), several groups and a
//! tail, NaN in some blocks, both directions, both tie rules, with and without values; each
//! index and value against the definition lane by lane (`test_util::naive_arg`), nothing
//! written past the blocks done, and groups taken wherever the input holds a few.

extern crate std;
use core::mem::size_of;
use std::vec::Vec;

use super::super::{isa, kind_of, FLOAT, HALF, SIGNED, UNSIGNED};
use super::arg_shifted;
use crate::kernels::test_util::{
    bf16s, bools, check_arg_blocks, f16s, f32_pool, f64s, i16s, i32s, i64s, i8s, same, u16s, u32s,
    u64s, u8s, Lcg,
};
use crate::{Direction, Element, Max, Min};

/// [`arg_shifted`] for `T`, `D` and `LAST`.
fn run<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> usize {
    let (w, kind, inf) = kind_of::<T>();
    assert!(isa::level() >= isa::AVX512);
    // SAFETY: AVX-512 checked above; `T` is of the width and kind named.
    unsafe {
        match (w, kind) {
            (1, UNSIGNED) => arg_shifted::<T, D, LAST, 1, UNSIGNED>(x, y, v, r, c, inf),
            (1, SIGNED) => arg_shifted::<T, D, LAST, 1, SIGNED>(x, y, v, r, c, inf),
            (2, UNSIGNED) => arg_shifted::<T, D, LAST, 2, UNSIGNED>(x, y, v, r, c, inf),
            (2, SIGNED) => arg_shifted::<T, D, LAST, 2, SIGNED>(x, y, v, r, c, inf),
            (2, HALF) => arg_shifted::<T, D, LAST, 2, HALF>(x, y, v, r, c, inf),
            (4, UNSIGNED) => arg_shifted::<T, D, LAST, 4, UNSIGNED>(x, y, v, r, c, inf),
            (4, SIGNED) => arg_shifted::<T, D, LAST, 4, SIGNED>(x, y, v, r, c, inf),
            (4, FLOAT) => arg_shifted::<T, D, LAST, 4, FLOAT>(x, y, v, r, c, inf),
            (8, UNSIGNED) => arg_shifted::<T, D, LAST, 8, UNSIGNED>(x, y, v, r, c, inf),
            (8, SIGNED) => arg_shifted::<T, D, LAST, 8, SIGNED>(x, y, v, r, c, inf),
            (8, FLOAT) => arg_shifted::<T, D, LAST, 8, FLOAT>(x, y, v, r, c, inf),
            _ => unreachable!("{:?} has no width and kind", T::DTYPE),
        }
    }
}

/// One direction and tie rule over `x`: the blocks done, each checked.
fn check_one<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    r: usize,
    c: usize,
    values: bool,
    ctx: &str,
) -> usize {
    let size = r * c;
    let blocks = x.len() / size;
    let mut y = std::vec![-1i64; blocks * c];
    let mut v = std::vec![T::ONE; if values { blocks * c } else { 0 }];
    let done = run::<T, D, LAST>(x, &mut y, &mut v, r, c);
    assert!(done <= blocks, "{ctx}: {done} of {blocks} blocks");
    assert!(
        y[done * c..].iter().all(|&i| i == -1),
        "{ctx}: wrote past {done} blocks"
    );
    if values {
        assert!(
            v[done * c..].iter().all(|&e| same(e, T::ONE)),
            "{ctx}: values past"
        );
    }
    check_arg_blocks::<T, D>(x, (&y, &v), (r, c), done, LAST, ctx);
    done
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    if isa::level() < isa::AVX512 {
        return;
    }
    let mut g = Lcg(0xa7_5417 + size_of::<T>() as u64);
    for r in 2..=5 {
        for c in (1..=17).chain([24, 29, 40]) {
            let size = r * c;
            // A period of lanes (the least multiple of both a vector's lanes and a block's)
            // of at most 45 vectors: the table this module keeps; 1- and 2-byte lanes only
            // where the CPU compresses them (VBMI2).
            let lanes = 64 / size_of::<T>();
            let fits = r <= 4
                && (1..=45).any(|k| (k * lanes).is_multiple_of(size))
                && (size_of::<T>() >= 4 || isa::vbmi2());
            // More than three groups of the largest (45 vectors), and a tail.
            let blocks = 3 * 45 * lanes / size + 5;
            for nan_every in [0, 5] {
                let x: Vec<T> = (0..blocks * size)
                    .map(|i| make(&mut g, nan_every > 0 && (i / size) % nan_every == 2))
                    .collect();
                for values in [false, true] {
                    let ctx = std::format!(
                        "{:?} r {r} c {c} NaN every {nan_every} values {values}",
                        T::DTYPE
                    );
                    let done = [
                        check_one::<T, Max, false>(&x, r, c, values, &ctx),
                        check_one::<T, Max, true>(&x, r, c, values, &ctx),
                        check_one::<T, Min, false>(&x, r, c, values, &ctx),
                        check_one::<T, Min, true>(&x, r, c, values, &ctx),
                    ];
                    for d in done {
                        if fits {
                            assert!(d >= blocks / 2, "{ctx}: {d} of {blocks} blocks taken");
                        } else {
                            assert_eq!(d, 0, "{ctx}: taken");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn one_byte_blocks_match_the_definition() {
    check::<u8>(u8s);
    check::<i8>(i8s);
    check::<bool>(bools);
}

#[test]
fn two_byte_blocks_match_the_definition() {
    check::<u16>(u16s);
    check::<i16>(i16s);
    check::<half::f16>(f16s);
    check::<half::bf16>(bf16s);
}

#[test]
fn four_byte_blocks_match_the_definition() {
    check::<u32>(u32s);
    check::<i32>(i32s);
    check::<f32>(f32_pool);
}

#[test]
fn eight_byte_blocks_match_the_definition() {
    check::<u64>(u64s);
    check::<i64>(i64s);
    check::<f64>(f64s);
}
