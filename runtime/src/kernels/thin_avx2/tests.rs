//! Tests of [`super`]: every type it takes, rows of 1 to 33 bytes, blocks of 1 to 81 rows, one
//! to seven blocks, against the definitions lane by lane (`test_util`), NaN in some blocks,
//! ties from small pools; the blocks taken counted independently.

extern crate std;
use core::mem::size_of;
use std::vec::Vec;

use super::*;
use crate::kernels::test_util::{
    bf16s, blocks_input, bools, f16s, i16s, i32s, i8s, naive_arg, naive_reduce, same, u16s, u32s,
    u8s, Lcg,
};
use crate::{Max, Min};

/// The blocks taken, counted independently: whole blocks, of two rows or more of up to 16
/// bytes (32 under eight rows), whose last window (a vector of as many whole rows as it
/// holds, at most the block's, ending at the block's last row) lies inside `len` elements.
fn fitting<T>(len: usize, r: usize, c: usize) -> usize {
    let row = c * size_of::<T>();
    if !available() || r < 2 || row > 32 || (row > 16 && r >= 8) {
        return 0;
    }
    let held = (32 / row).min(r);
    (0..len / (r * c))
        .take_while(|b| (b * r + r - held) * row + 32 <= len * size_of::<T>())
        .count()
}

fn check<T: Element>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    for c in 1..=32 / size_of::<T>() + 1 {
        for r in [1, 2, 3, 4, 5, 7, 8, 13, 20, 33, 81, 256, 257] {
            for outer in [1, 2, 7] {
                for nan in [false, true] {
                    check_blocks(g, make, (c, r, outer), nan);
                }
            }
        }
    }
}

fn check_blocks<T: Element>(
    g: &mut Lcg,
    make: fn(&mut Lcg, bool) -> T,
    (c, r, outer): (usize, usize, usize),
    nan: bool,
) {
    let x = blocks_input(g, make, outer, r * c, nan);
    let want = fitting::<T>(x.len(), r, c);
    let ctx = std::format!("{:?} c {c} r {r} outer {outer} nan {nan}", T::DTYPE);
    let lane = |b: usize, j: usize| -> Vec<T> { (0..r).map(|k| x[(b * r + k) * c + j]).collect() };
    for min in [false, true] {
        let mut y = std::vec![T::ONE; outer * c];
        let done = if min {
            reduce_blocks::<T, Min>(&mut y, &x, r, c)
        } else {
            reduce_blocks::<T, Max>(&mut y, &x, r, c)
        };
        assert_eq!(done, want.min(outer), "{ctx} reduce taken");
        assert!(
            y[done * c..].iter().all(|&v| v == T::ONE),
            "{ctx}: wrote past"
        );
        for b in 0..done {
            for j in 0..c {
                let w = if min {
                    naive_reduce::<T, Min>(&lane(b, j))
                } else {
                    naive_reduce::<T, Max>(&lane(b, j))
                };
                assert!(same(y[b * c + j], w), "{ctx} min {min} block {b} lane {j}");
            }
        }
    }
    // Hardmax (first maximum, NaN winning), bit for bit.
    let mut y = std::vec![T::ONE; x.len()];
    let done = hardmax_blocks::<T>(&x, &mut y, r, c);
    let want_hard = if size_of::<T>() == 1 && r > 256 {
        0
    } else {
        want
    };
    assert_eq!(done, want_hard.min(outer), "{ctx} hardmax taken");
    for b in 0..done {
        for j in 0..c {
            let at = naive_arg::<T, Max>(&lane(b, j), false);
            for k in 0..r {
                let got = y[(b * r + k) * c + j];
                let want = if k == at { T::ONE } else { T::ZERO };
                let (mut gb, mut wb) = ([0u8; 4], [0u8; 4]);
                got.write_le(&mut gb[..size_of::<T>()]);
                want.write_le(&mut wb[..size_of::<T>()]);
                assert_eq!(gb, wb, "{ctx} hardmax block {b} lane {j} row {k}");
            }
        }
    }
    for (min, last, values) in (0..8).map(|m| (m & 1 != 0, m & 2 != 0, m & 4 != 0)) {
        let mut y = std::vec![-1i64; outer * c];
        let mut v = std::vec![T::ONE; if values { outer * c } else { 0 }];
        let done = match (min, last) {
            (false, false) => arg_blocks::<T, Max, false>(&x, &mut y, &mut v, r, c),
            (false, true) => arg_blocks::<T, Max, true>(&x, &mut y, &mut v, r, c),
            (true, false) => arg_blocks::<T, Min, false>(&x, &mut y, &mut v, r, c),
            (true, true) => arg_blocks::<T, Min, true>(&x, &mut y, &mut v, r, c),
        };
        // Rows numbered in the lanes' width: blocks of bytes up to 256 rows.
        let want = if size_of::<T>() == 1 && r > 256 {
            0
        } else {
            want
        };
        assert_eq!(done, want.min(outer), "{ctx} arg taken");
        assert!(y[done * c..].iter().all(|&i| i == -1), "{ctx}: wrote past");
        for b in 0..done {
            for j in 0..c {
                let l = lane(b, j);
                let w = if min {
                    naive_arg::<T, Min>(&l, last)
                } else {
                    naive_arg::<T, Max>(&l, last)
                };
                let what = std::format!("{ctx} min {min} last {last} block {b} lane {j}");
                assert_eq!(y[b * c + j], w as i64, "{what}");
                if values {
                    assert!(same(v[b * c + j], l[w]), "{what} value");
                }
            }
        }
    }
}

#[test]
fn blocks_of_every_type_match_the_definitions() {
    let mut g = Lcg(47);
    check::<u8>(&mut g, u8s);
    check::<i8>(&mut g, i8s);
    check::<bool>(&mut g, bools);
    check::<u16>(&mut g, u16s);
    check::<i16>(&mut g, i16s);
    check::<crate::f16>(&mut g, f16s);
    check::<crate::bf16>(&mut g, bf16s);
    check::<u32>(&mut g, u32s);
    check::<i32>(&mut g, i32s);
}

#[test]
fn other_types_and_wide_rows_are_left() {
    let x = [0.5f32; 4096];
    let mut y = [0.0f32; 16];
    assert_eq!(reduce_blocks::<f32, Max>(&mut y, &x, 8, 2), 0);
    let x = [1u8; 4096];
    let mut y = [0i64; 512];
    // Rows of 17 bytes in blocks of 8 rows, of 33 in blocks of 2; blocks of one row.
    assert_eq!(arg_blocks::<u8, Max, false>(&x, &mut y, &mut [], 8, 17), 0);
    assert_eq!(arg_blocks::<u8, Max, false>(&x, &mut y, &mut [], 2, 33), 0);
    assert_eq!(arg_blocks::<u8, Max, false>(&x, &mut y, &mut [], 1, 4), 0);
    if available() {
        // 341 blocks of 3 rows of 4 bytes; the window of the 340th (from byte 4068) ends past
        // the input.
        let mut y = [0i64; 4096];
        assert_eq!(arg_blocks::<u8, Max, false>(&x, &mut y, &mut [], 3, 4), 339);
        assert_eq!(arg_blocks::<u8, Max, false>(&x, &mut y, &mut [], 8, 16), 32);
    }
}
