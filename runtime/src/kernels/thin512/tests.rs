//! Tests of [`super`]: every type it takes, rows of 1 to 15 lanes (8 of 8 bytes), blocks of 1
//! to 1024 rows, one to 37 blocks (several a window where they fit, two in split windows),
//! both directions, both tie rules, with and without values, reductions and Hardmax too,
//! against the definitions lane by lane (`test_util::naive_arg`, a lane's first NaN for a
//! reduction, a one at the first maximum for Hardmax), NaN in some blocks, ties from small
//! pools; the blocks taken counted independently, and none without AVX-512.

extern crate std;
use core::mem::size_of;
use std::vec::Vec;

use super::*;
use crate::kernels::test_util::{
    bf16s, blocks_input, bools, f16s, f32_pool, f64s, i16s, i32s, i64s, i8s, naive_arg,
    naive_reduce, same, u16s, u32s, u64s, u8s, Lcg,
};
use crate::{bf16, f16, Max, Min};

/// The blocks this kernel should take, counted independently of it.
fn taken<T>(len: usize, r: usize, c: usize) -> usize {
    let w = size_of::<T>();
    let fits = c * w <= 64 && (w > 1 || r <= 256) && r <= 1024;
    if isa::level() < isa::AVX512 || !fits {
        return 0;
    }
    len / (r * c)
}

fn run<T: Element>(
    min: bool,
    last: bool,
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> usize {
    match (min, last) {
        (false, false) => arg_blocks::<T, Max, false>(x, y, v, r, c),
        (false, true) => arg_blocks::<T, Max, true>(x, y, v, r, c),
        (true, false) => arg_blocks::<T, Min, false>(x, y, v, r, c),
        (true, true) => arg_blocks::<T, Min, true>(x, y, v, r, c),
    }
}

fn check_blocks<T: Element>(
    g: &mut Lcg,
    make: fn(&mut Lcg, bool) -> T,
    (c, r, outer): (usize, usize, usize),
    nan: bool,
) {
    let x = blocks_input(g, make, outer, r * c, nan);
    let ctx = std::format!("{:?} c {c} r {r} outer {outer} nan {nan}", T::DTYPE);
    let lane = |b: usize, j: usize| -> Vec<T> { (0..r).map(|k| x[(b * r + k) * c + j]).collect() };
    let want = taken::<T>(x.len(), r, c).min(outer);
    for min in [false, true] {
        let mut y = std::vec![T::ONE; outer * c];
        let done = if min {
            reduce_blocks::<T, Min>(&mut y, &x, r, c)
        } else {
            reduce_blocks::<T, Max>(&mut y, &x, r, c)
        };
        // Blocks of 1- and 2-byte elements of at most 32 rows only where two fit a window, a
        // half each (two rows a half or more, more rows than a half holds).
        let half = 32 / size_of::<T>() / c;
        let want = if size_of::<T>() < 4 && r <= 32 && !(half >= 2 && r > half) {
            0
        } else {
            want
        };
        assert_eq!(done, want, "{ctx} min {min}: reduce blocks taken");
        assert!(
            y[done * c..].iter().all(|&e| e == T::ONE),
            "{ctx}: reduce wrote past"
        );
        for b in 0..done {
            for j in 0..c {
                let l = lane(b, j);
                let w = if min {
                    naive_reduce::<T, Min>(&l)
                } else {
                    naive_reduce::<T, Max>(&l)
                };
                assert!(
                    same(y[b * c + j], w),
                    "{ctx} min {min} block {b} lane {j}: {l:?}"
                );
            }
        }
    }
    // Hardmax (first maximum, NaN winning), bit for bit.
    let mut y = std::vec![T::ONE; x.len()];
    let done = hardmax_blocks::<T>(&x, &mut y, r, c);
    // Every whole block of `x` (`y` as long), those past the `outer` ones too.
    assert_eq!(
        done,
        taken::<T>(x.len(), r, c),
        "{ctx}: hardmax blocks taken"
    );
    assert!(
        y[done * r * c..].iter().all(|&e| e == T::ONE),
        "{ctx}: hardmax wrote past"
    );
    for b in 0..done {
        for j in 0..c {
            let at = naive_arg::<T, Max>(&lane(b, j), false);
            for k in 0..r {
                let (mut got, mut want) = ([0u8; 8], [0u8; 8]);
                y[(b * r + k) * c + j].write_le(&mut got[..size_of::<T>()]);
                let one = if k == at { T::ONE } else { T::ZERO };
                one.write_le(&mut want[..size_of::<T>()]);
                assert_eq!(got, want, "{ctx} hardmax block {b} lane {j} row {k}");
            }
        }
    }
    for (min, last, values) in (0..8).map(|m| (m & 1 != 0, m & 2 != 0, m & 4 != 0)) {
        let mut y = std::vec![-1i64; outer * c];
        let mut v = std::vec![T::ONE; if values { outer * c } else { 0 }];
        let done = run(min, last, &x, &mut y, &mut v, r, c);
        let ctx = std::format!("{ctx} min {min} last {last} values {values}");
        assert_eq!(done, want, "{ctx}: blocks taken");
        assert!(y[done * c..].iter().all(|&i| i == -1), "{ctx}: wrote past");
        for b in 0..done {
            for j in 0..c {
                let l = lane(b, j);
                let at = if min {
                    naive_arg::<T, Min>(&l, last)
                } else {
                    naive_arg::<T, Max>(&l, last)
                };
                assert_eq!(y[b * c + j], at as i64, "{ctx} block {b} lane {j}: {l:?}");
                if values {
                    assert!(same(v[b * c + j], l[at]), "{ctx} block {b} lane {j}: value");
                }
            }
        }
    }
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    let mut g = Lcg(0x7415_0512 + size_of::<T>() as u64);
    for c in 1..=15 {
        for r in [1, 2, 3, 4, 5, 6, 7, 12, 13, 20, 33, 81] {
            // Enough blocks for the most a window packs (32 of one byte) where rows are few, and
            // for several split windows (two blocks each) and one block after them where more;
            // an even count too, whose last pair would read past `x` where a half is not whole
            // rows (left to one block a window).
            let outers: &[usize] = if r <= 8 { &[1, 3, 37] } else { &[1, 3, 8, 9] };
            for &outer in outers {
                for nan in [false, true] {
                    check_blocks(&mut g, make, (c, r, outer), nan);
                }
            }
        }
    }
    // Tall blocks: rows past what a byte holds, and the most rows taken.
    for c in [1, 2, 5, 15] {
        for r in [255, 256, 257, 1024, 1025] {
            check_blocks(&mut g, make, (c, r, 2), true);
        }
    }
}

#[test]
fn bytes_match_the_definition() {
    check::<u8>(u8s);
    check::<i8>(i8s);
    check::<bool>(bools);
}

#[test]
fn two_byte_elements_match_the_definition() {
    check::<u16>(u16s);
    check::<i16>(i16s);
    check::<f16>(f16s);
    check::<bf16>(bf16s);
}

#[test]
fn four_byte_elements_match_the_definition() {
    check::<u32>(u32s);
    check::<i32>(i32s);
    check::<f32>(f32_pool);
}

#[test]
fn eight_byte_elements_match_the_definition() {
    check::<u64>(u64s);
    check::<i64>(i64s);
    check::<f64>(f64s);
}

/// The extreme of each lane placed at every row of a block, ties with the type's extremes (the
/// keys' ends) elsewhere, -0 against +0.
#[test]
fn extremes_at_every_row() {
    fn each<T: Element>(low: T, high: T) {
        let (r, c) = (37, 3);
        for at in 0..r {
            for tie in [false, true] {
                // Three blocks: two in a split window, one after it.
                let mut x = std::vec![low; 3 * r * c];
                for b in 0..3 {
                    x[(b * r + at) * c + 1] = high;
                    if tie {
                        x[(b * r + r - 1 - at) * c + 1] = high;
                    }
                }
                for (min, last) in [(false, false), (false, true), (true, false), (true, true)] {
                    let mut y = [-1i64; 9];
                    let done = run(min, last, &x, &mut y, &mut [], r, c);
                    if done == 0 {
                        continue;
                    }
                    for b in 0..3 {
                        for j in 0..c {
                            let l: Vec<T> = (0..r).map(|k| x[(b * r + k) * c + j]).collect();
                            let want = if min {
                                naive_arg::<T, Min>(&l, last)
                            } else {
                                naive_arg::<T, Max>(&l, last)
                            };
                            assert_eq!(
                                y[b * c + j],
                                want as i64,
                                "{:?} at {at} tie {tie} min {min} last {last}",
                                T::DTYPE
                            );
                        }
                    }
                }
            }
        }
    }
    each::<u8>(0, u8::MAX);
    each::<i8>(i8::MIN, i8::MAX);
    each::<u16>(0, u16::MAX);
    each::<i16>(i16::MIN, i16::MAX);
    each::<u32>(0, u32::MAX);
    each::<i32>(i32::MIN, i32::MAX);
    each::<f32>(f32::NEG_INFINITY, f32::INFINITY);
    each::<f32>(-0.0, 0.0);
    each::<f32>(0.0, -0.0);
    each::<u64>(0, u64::MAX);
    each::<i64>(i64::MIN, i64::MAX);
    each::<f64>(f64::NEG_INFINITY, f64::INFINITY);
    each::<f64>(-0.0, 0.0);
    each::<f16>(f16::NEG_INFINITY, f16::INFINITY);
    each::<bf16>(bf16::from_f32(-0.0), bf16::from_f32(0.0));
}

#[test]
fn nothing_without_avx512() {
    isa::HERE.with(|h| h.set(Some(isa::AVX2)));
    let x = [1.0f32; 40];
    let mut y = [0i64; 8];
    assert_eq!(arg_blocks::<f32, Max, false>(&x, &mut y, &mut [], 5, 4), 0);
    isa::HERE.with(|h| h.set(None));
}
