//! Tests of [`super`]: every element type, blocks of 1 to 5 rows (two to four taken) of 1 to 33
//! lanes, 0 to 300 blocks and a few elements past them, both directions, NaN in every fifth
//! block (so in some windows and not others), against the contract lane by lane
//! (`test_util::naive_reduce`: a lane's first NaN, else its extreme); the blocks taken checked
//! against what a window may read, and nothing written past them; none without AVX-512.

extern crate std;
use core::mem::size_of;
use std::vec::Vec;

use super::*;
use crate::kernels::test_util::{
    bf16s, bools, f16s, f32_pool, f64s, i16s, i32s, i64s, i8s, naive_reduce, same, u16s, u32s,
    u64s, u8s, Lcg,
};
use crate::{bf16, f16, DType, Max, Min};

/// Whether the CPU runs the build these tests check (1-byte elements need VBMI too).
fn runs<T>() -> bool {
    if size_of::<T>() == 1 {
        isa::vbmi()
    } else {
        isa::level() >= isa::AVX512
    }
}

/// Checks `done` blocks of `r` rows of `c` lanes taken from `len` elements into `out` lanes:
/// whole windows of two vectors read inside `x`, and no window more that would fit.
fn check_taken<T: Element>(done: usize, (len, out): (usize, usize), r: usize, c: usize, ctx: &str) {
    let (size, lanes) = (r * c, 128 / size_of::<T>());
    let w = size_of::<T>();
    let float = matches!(T::DTYPE, DType::F32 | DType::F64);
    let one_window_of_vectors = float && size * w > 64 && c * w >= 64;
    let takes = (2..=4).contains(&r) && size * w <= 128 && !one_window_of_vectors && runs::<T>();
    if !takes {
        assert_eq!(done, 0, "{ctx}: taken where it should not be");
        return;
    }
    let k = (lanes / size).max(1);
    let blocks = (len / size).min(out / c);
    assert_eq!(
        done % k,
        0,
        "{ctx}: {done} blocks, not whole windows of {k}"
    );
    assert!(done <= blocks, "{ctx}: {done} blocks of {blocks}");
    if done > 0 {
        assert!(
            (done - k) * size + lanes <= len,
            "{ctx}: last window past `x`"
        );
    }
    let another = done + k <= blocks && done * size + lanes <= len;
    assert!(!another, "{ctx}: {done} blocks, another window fits");
}

/// [`reduce_blocks`] of ReduceMin (`min`) or ReduceMax.
fn run<T: Element>(min: bool, y: &mut [T], x: &[T], r: usize, c: usize) -> usize {
    if min {
        reduce_blocks::<T, Min>(y, x, r, c)
    } else {
        reduce_blocks::<T, Max>(y, x, r, c)
    }
}

fn check_one<T: Element>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T, r: usize, c: usize) {
    for outer in [0, 1, 2, 3, 7, 13, 31, 64, 300] {
        let size = r * c;
        let x: Vec<T> = (0..outer * size + g.next() as usize % 3)
            .map(|i| make(g, (i / size) % 5 == 1))
            .collect();
        let ctx = std::format!("{:?} r {r} c {c} outer {outer}", T::DTYPE);
        for min in [false, true] {
            let mut y = std::vec![T::ONE; outer * c + 2];
            let done = run(min, &mut y[..outer * c], &x, r, c);
            let ctx = std::format!("{ctx} min {min}");
            check_taken::<T>(done, (x.len(), outer * c), r, c, &ctx);
            assert!(
                y[done * c..].iter().all(|&e| e == T::ONE),
                "{ctx}: wrote past the blocks taken"
            );
            for b in 0..done {
                for j in 0..c {
                    let lane: Vec<T> = (0..r).map(|k| x[(b * r + k) * c + j]).collect();
                    let want = if min {
                        naive_reduce::<T, Min>(&lane)
                    } else {
                        naive_reduce::<T, Max>(&lane)
                    };
                    let got = y[b * c + j];
                    assert!(
                        same(got, want),
                        "{ctx} block {b} lane {j}: {lane:?} gave {got:?}"
                    );
                }
            }
        }
    }
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    let mut g = Lcg(0x9ac4_ed00 + size_of::<T>() as u64);
    for r in 1..=5 {
        for c in (1..=20).chain([31, 32, 33]) {
            check_one(&mut g, make, r, c);
        }
    }
}

#[test]
fn one_byte_elements_match_the_definition() {
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

/// Each lane's extreme at every row of its block, the type's ends (the keys' ends) against
/// each other, -0 against +0.
#[test]
fn extremes_at_every_row() {
    fn each<T: Element>(low: T, high: T) {
        for r in 2..=4 {
            let c = 3;
            let outer = 200;
            for at in 0..r {
                let mut x = std::vec![low; outer * r * c];
                for b in 0..outer {
                    x[(b * r + at) * c + b % c] = high;
                }
                for min in [false, true] {
                    let mut y = std::vec![T::ONE; outer * c];
                    let done = run(min, &mut y, &x, r, c);
                    for b in 0..done {
                        for j in 0..c {
                            let hit = j == b % c;
                            let want = if hit && !min { high } else { low };
                            assert!(
                                same(y[b * c + j], want),
                                "{:?} r {r} at {at} min {min} block {b} lane {j}",
                                T::DTYPE
                            );
                        }
                    }
                    assert!(done > 0 || !runs::<T>(), "{:?} r {r}: none taken", T::DTYPE);
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
    each::<u64>(0, u64::MAX);
    each::<i64>(i64::MIN, i64::MAX);
    each::<f64>(f64::NEG_INFINITY, f64::INFINITY);
    each::<f16>(f16::NEG_INFINITY, f16::INFINITY);
    each::<bf16>(bf16::NEG_INFINITY, bf16::INFINITY);
    each::<f16>(f16::from_f32(-1.5), f16::from_f32(-0.5));
    each::<bf16>(bf16::from_f32(-0.0), bf16::from_f32(1.0));
}

#[test]
fn nothing_without_avx512() {
    isa::HERE.with(|h| h.set(Some(isa::AVX2)));
    let x = [1.0f32; 400];
    let mut y = [0.0f32; 100];
    assert_eq!(reduce_blocks::<f32, Max>(&mut y, &x, 4, 1), 0);
    assert_eq!(
        reduce_blocks::<u8, Max>(&mut [0u8; 100], &[1u8; 400], 4, 1),
        0
    );
    isa::HERE.with(|h| h.set(None));
}
