//! Tests of [`super`]: every element type against the definition.

extern crate std;
use std::vec::Vec;

use super::*;
use crate::kernels::test_util::{
    bf16s, bools, f16s, f32_pool, i16s, i32s, i8s, naive_arg, u16s, u32s, u8s, Lcg,
};
use crate::{Max, Min};

/// Whether `a` and `b` are the same value: NaN both, or equal in order (either zero for a
/// zero).
fn same<T: Element>(a: T, b: T) -> bool {
    (a.is_nan() && b.is_nan()) || (!a.is_nan() && !b.is_nan() && !a.gt(b) && !a.lt(b))
}

/// Blocks of 3 to 16 rows of 16 to 256 lanes (the last chunk overlapping when the lanes are
/// not whole chunks), one to three blocks, NaN in the second block only or in every block, the
/// pools' ties, extremes and zeros of both signs: each direction and tie rule against the
/// definition, with the values for two of them; shapes outside the module's say so and write
/// nothing.
fn check<T: Element>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    for (r, inner) in [
        (3, 16),
        (4, 17),
        (5, 24),
        (7, 31),
        (16, 40),
        (3, 100),
        (6, 256),
        (2, 16),
        (17, 16),
        (3, 15),
        (3, 257),
    ] {
        for outer in [1, 3] {
            for all_nan in [false, true] {
                let x: Vec<T> = (0..outer * r * inner)
                    .map(|i| make(g, all_nan || i / (r * inner) == 1))
                    .collect();
                for mode in 0..4 {
                    let (max, last) =
                        [(true, false), (false, true), (true, true), (false, false)][mode];
                    let mut y = std::vec![-1i64; outer * inner];
                    let mut v = std::vec![T::ZERO; if mode < 2 { outer * inner } else { 0 }];
                    let done = match mode {
                        0 => arg_blocks_few::<T, Max, false>(&x, &mut y, &mut v, r, inner),
                        1 => arg_blocks_few::<T, Min, true>(&x, &mut y, &mut v, r, inner),
                        2 => arg_blocks_few::<T, Max, true>(&x, &mut y, &mut v, r, inner),
                        _ => arg_blocks_few::<T, Min, false>(&x, &mut y, &mut v, r, inner),
                    };
                    let ctx = std::format!(
                        "{:?} {outer}x{r}x{inner} mode {mode} all_nan {all_nan}",
                        T::DTYPE
                    );
                    assert_eq!(done, fits::<T>(r, inner), "{ctx}");
                    if !done {
                        assert!(y.iter().all(|&i| i == -1), "{ctx}: written");
                        continue;
                    }
                    for b in 0..outer {
                        for j in 0..inner {
                            let lane: Vec<T> = (0..r).map(|k| x[(b * r + k) * inner + j]).collect();
                            let want = if max {
                                naive_arg::<T, Max>(&lane, last)
                            } else {
                                naive_arg::<T, Min>(&lane, last)
                            };
                            let at = b * inner + j;
                            assert_eq!(y[at] as usize, want, "{ctx} block {b} lane {j}");
                            if let Some(&got) = v.get(at) {
                                assert!(same(got, lane[want]), "{ctx} block {b} lane {j} value");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn blocks_of_every_type_match_the_definition() {
    let mut g = Lcg(97);
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

/// NaN-free blocks take the pass by keys, not the lane-by-lane rule (which would give the same
/// answers, slower).
#[test]
fn nan_free_blocks_take_the_pass_by_keys() {
    let mut g = Lcg(3);
    let (r, inner) = (5, 40);
    let mut y = std::vec![0i64; inner];
    let f: Vec<f64> = (0..r * inner)
        .map(|_| f64::from(f32_pool(&mut g, false)))
        .collect();
    assert!(block::<f64, f64, Min, true, false>(
        &f,
        &mut y,
        &mut [],
        inner,
        |e| e,
        f64::is_nan
    ));
    let mut n = f.clone();
    n[77] = f64::NAN;
    assert!(!block::<f64, f64, Min, true, false>(
        &n,
        &mut y,
        &mut [],
        inner,
        |e| e,
        f64::is_nan
    ));
}
