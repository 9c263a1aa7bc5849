//! Tests of [`super`]: every element type, lane count and a range of row counts, against the
//! definitions lane by lane (`test_util`), NaN in some blocks, ties from small pools.

extern crate std;
use core::mem::size_of;
use std::vec::Vec;

use super::*;
use crate::kernels::test_util::{
    bf16s, bools, f16s, f32_pool, i16s, i32s, i8s, naive_arg, naive_reduce, u16s, u32s, u8s, Lcg,
};
use crate::{Max, Min};

/// The blocks taken, counted independently: whole blocks whose every row's window of `l`
/// elements lies inside `len`.
fn fitting(len: usize, r: usize, c: usize, l: usize) -> usize {
    if cfg!(feature = "small-code") {
        return 0;
    }
    (0..len / (r * c))
        .take_while(|b| b * r * c + (r - 1) * c + l <= len)
        .count()
}

/// Whether `a` and `b` are the same result: equal in order (either zero for a zero), or NaNs of
/// the same bits (any width up to 8 bytes).
fn same<T: Element>(a: T, b: T) -> bool {
    let (mut ab, mut bb) = ([0u8; 8], [0u8; 8]);
    a.write_le(&mut ab[..size_of::<T>()]);
    b.write_le(&mut bb[..size_of::<T>()]);
    if a.is_nan() || b.is_nan() {
        return ab == bb;
    }
    !a.gt(b) && !a.lt(b)
}

fn check_c<T: Element, const C: usize, const L: usize>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    for r in [1, 2, 3, 5, 8, 20, 81] {
        for outer in [1, 2, 5] {
            for nan in [false, true] {
                let n = outer * r * C;
                let x: Vec<T> = (0..n)
                    .map(|i| make(g, nan && i / (r * C) == 1))
                    .map(|v| if !nan && v.is_nan() { T::ZERO } else { v })
                    .collect();
                let want = fitting(n, r, C, L);
                let ctx = std::format!("{:?} C {C} r {r} outer {outer} nan {nan}", T::DTYPE);
                let lane = |b: usize, j: usize| -> Vec<T> {
                    (0..r).map(|k| x[(b * r + k) * C + j]).collect()
                };
                // Reductions.
                for min in [false, true] {
                    let mut y = std::vec![T::ONE; outer * C];
                    let done = if min {
                        reduce_blocks::<T, Min, C, L>(&mut y, &x, r)
                    } else {
                        reduce_blocks::<T, Max, C, L>(&mut y, &x, r)
                    };
                    assert_eq!(done, want, "{ctx} reduce taken");
                    for b in 0..done {
                        for j in 0..C {
                            let w = if min {
                                naive_reduce::<T, Min>(&lane(b, j))
                            } else {
                                naive_reduce::<T, Max>(&lane(b, j))
                            };
                            assert!(same(y[b * C + j], w), "{ctx} min {min} block {b} lane {j}");
                        }
                    }
                }
                // Arg-reductions, with and without values.
                for (min, last, values) in (0..8).map(|m| (m & 1 != 0, m & 2 != 0, m & 4 != 0)) {
                    let mut y = std::vec![-1i64; outer * C];
                    let mut v = std::vec![T::ONE; if values { outer * C } else { 0 }];
                    let done = match (min, last) {
                        (false, false) => arg_blocks::<T, Max, false, C, L>(&x, &mut y, &mut v, r),
                        (false, true) => arg_blocks::<T, Max, true, C, L>(&x, &mut y, &mut v, r),
                        (true, false) => arg_blocks::<T, Min, false, C, L>(&x, &mut y, &mut v, r),
                        (true, true) => arg_blocks::<T, Min, true, C, L>(&x, &mut y, &mut v, r),
                    };
                    assert_eq!(done, want, "{ctx} arg taken");
                    assert!(y[done * C..].iter().all(|&i| i == -1), "{ctx}: wrote past");
                    for b in 0..done {
                        for j in 0..C {
                            let l = lane(b, j);
                            let w = if min {
                                naive_arg::<T, Min>(&l, last)
                            } else {
                                naive_arg::<T, Max>(&l, last)
                            };
                            let what = std::format!("{ctx} {min} {last} block {b} lane {j}");
                            assert_eq!(y[b * C + j], w as i64, "{what}");
                            if values {
                                assert!(same(v[b * C + j], l[w]), "{what} value");
                            }
                        }
                    }
                }
            }
        }
    }
}

fn check<T: Element>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    check_c::<T, 1, 1>(g, make);
    check_c::<T, 2, 2>(g, make);
    check_c::<T, 3, 4>(g, make);
    check_c::<T, 5, 8>(g, make);
    check_c::<T, 8, 8>(g, make);
    check_c::<T, 9, 16>(g, make);
    check_c::<T, 15, 16>(g, make);
}

#[test]
fn blocks_of_every_type_match_the_definitions() {
    let mut g = Lcg(41);
    check::<u8>(&mut g, u8s);
    check::<i8>(&mut g, i8s);
    check::<bool>(&mut g, bools);
    check::<u16>(&mut g, u16s);
    check::<i16>(&mut g, i16s);
    check::<crate::f16>(&mut g, f16s);
    check::<crate::bf16>(&mut g, bf16s);
    check::<u32>(&mut g, u32s);
    check::<i32>(&mut g, i32s);
    check::<f32>(&mut g, f32_pool);
    check::<u64>(&mut g, |g, _| u64::from(u32s(g, false)) << (g.next() % 33));
    check::<i64>(&mut g, |g, _| {
        i64::from(i32s(g, false)) * (1 << (g.next() % 31))
    });
    check::<f64>(&mut g, |g, nan| f64::from(f32_pool(g, nan)));
}

#[test]
fn blocks_taken_are_those_whose_windows_fit() {
    assert_eq!(window(1), 1);
    assert_eq!(window(5), 8);
    assert_eq!(window(9), 16);
    assert_eq!(window(15), 16);
    if cfg!(feature = "small-code") {
        // None taken: the narrow kernels alone.
        assert_eq!(blocks(1 << 20, 3, 5, 8), 0);
        return;
    }
    // Two blocks of 3 rows of 5: the second's last window (8 from element 25) ends past 30.
    assert_eq!(blocks(30, 3, 5, 8), 1);
    assert_eq!(blocks(33, 3, 5, 8), 2);
    // Lane counts and row counts outside the module's.
    assert_eq!(blocks(1000, 3, 16, 16), 0);
    assert_eq!(blocks(1000, 0, 5, 8), 0);
    assert_eq!(blocks(1 << 20, MAX_ROWS + 1, 5, 8), 0);
    assert_eq!(
        blocks(1 << 20, MAX_ROWS, 5, 8),
        fitting(1 << 20, MAX_ROWS, 5, 8)
    );
}
