//! Tests of [`super`]: every type, direction, tie rule, lane count and row count class it
//! takes (one row a vector lane, pairs folded in a vector, super-rows folded lane by lane; one
//! group of rows and several), against the definition in `test_util`.

extern crate std;
use super::*;
use crate::kernels::test_util::{
    bf16s, bools, f16s, i16s, i32s, i8s, naive_arg, same, u16s, u32s, u8s, Lcg,
};
use crate::{bf16, f16, Max, Min};
use core::mem::size_of;
use std::vec::Vec;

/// Blocks of `rows` rows of `inner` lanes (three, or one where large), values from `make` (now
/// and then a NaN where `nan`, mostly zeros where `sparse`), searched both ways with both tie
/// rules, with and without values, against the definition lane by lane.
fn check<T: Element>(
    g: &mut Lcg,
    inner: usize,
    rows: usize,
    make: fn(&mut Lcg, bool) -> T,
    sparse: bool,
) {
    let blocks = if inner * rows > 20_000 { 1 } else { 3 };
    let taken = Plan::of(inner * size_of::<T>(), rows, size_of::<T>()).is_some();
    for nan in [false, true] {
        let x: Vec<T> = (0..blocks * inner * rows)
            .map(|_| {
                let v = make(g, nan);
                let v = if !nan && v.is_nan() { T::ZERO } else { v };
                if sparse && !g.next().is_multiple_of(40) {
                    T::ZERO
                } else {
                    v
                }
            })
            .collect();
        for (min, last, values) in (0..8).map(|m| (m & 1 != 0, m & 2 != 0, m & 4 != 0)) {
            let mut y = std::vec![-7i64; blocks * inner];
            let mut v = std::vec![T::ONE; if values { blocks * inner } else { 0 }];
            let done = match (min, last) {
                (false, false) => arg_blocks::<T, Max, false>(&x, &mut y, &mut v, rows, inner),
                (false, true) => arg_blocks::<T, Max, true>(&x, &mut y, &mut v, rows, inner),
                (true, false) => arg_blocks::<T, Min, false>(&x, &mut y, &mut v, rows, inner),
                (true, true) => arg_blocks::<T, Min, true>(&x, &mut y, &mut v, rows, inner),
            };
            let what = (T::DTYPE, inner, rows, min, last, values, sparse, nan);
            assert_eq!(done, taken, "{what:?} taken");
            if !done {
                continue;
            }
            for (n, block) in x.chunks_exact(inner * rows).enumerate() {
                for col in 0..inner {
                    let lane: Vec<T> = block.iter().skip(col).step_by(inner).copied().collect();
                    let want = if min {
                        naive_arg::<T, Min>(&lane, last)
                    } else {
                        naive_arg::<T, Max>(&lane, last)
                    };
                    let o = n * inner + col;
                    assert_eq!(y[o], want as i64, "{what:?} block {n} lane {col}");
                    if values {
                        assert!(
                            same(v[o], lane[want]),
                            "{what:?} block {n} lane {col} value"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn strided_bytes_match_the_definition() {
    if !available() {
        return;
    }
    let mut g = Lcg(7);
    // 16 lanes: pairs of rows folded in a vector up to 256 rows, then groups; 8, 17, 20, 24 and
    // 31: super-rows folded lane by lane; 32 and more: a row a vector, tiles of up to four.
    for inner in [8, 16, 17, 20, 24, 31, 32, 33, 48, 64, 100, 129, 200, 513] {
        for rows in [2, 3, 4, 5, 20, 63, 255, 256, 257, 258, 600] {
            for sparse in [false, true] {
                check::<u8>(&mut g, inner, rows, u8s, sparse);
                check::<i8>(&mut g, inner, rows, i8s, sparse);
            }
            check::<bool>(&mut g, inner, rows, bools, false);
        }
    }
}

#[test]
fn strided_two_byte_types_match_the_definition() {
    if !available() {
        return;
    }
    let mut g = Lcg(8);
    for inner in [8, 9, 12, 15, 16, 17, 24, 40, 64, 100, 129, 257] {
        for rows in [2, 3, 4, 17, 20, 64, 300] {
            for sparse in [false, true] {
                check::<u16>(&mut g, inner, rows, u16s, sparse);
                check::<i16>(&mut g, inner, rows, i16s, sparse);
                check::<f16>(&mut g, inner, rows, f16s, sparse);
                check::<bf16>(&mut g, inner, rows, bf16s, sparse);
            }
        }
    }
    // More rows than a group of 2-byte row numbers counts.
    check::<u16>(&mut g, 16, 65536 + 40, u16s, true);
    check::<f16>(&mut g, 16, 65536 + 41, f16s, false);
}

#[test]
fn strided_four_byte_types_match_the_definition() {
    if !available() {
        return;
    }
    let mut g = Lcg(9);
    for inner in [4, 5, 7, 8, 9, 16, 25, 40] {
        for rows in [2, 3, 4, 17, 30, 64, 300] {
            for sparse in [false, true] {
                check::<u32>(&mut g, inner, rows, u32s, sparse);
                check::<i32>(&mut g, inner, rows, i32s, sparse);
            }
        }
    }
}

#[test]
fn rows_are_read_by_their_width_and_count() {
    let read = |row, rows| Plan::of(row, rows, 1).map(|p| (p.read, p.k, p.p));
    // A row a vector or more: one at a time; long rows only in blocks of few rows.
    assert_eq!(read(32, 4), Some((Read::Rows, 1, 32)));
    // Bytes up to 256 a row in blocks of many rows, wider types up to 128 bytes; wider rows
    // in blocks of up to 32 KiB.
    assert_eq!(read(256, 1000), Some((Read::Rows, 1, 256)));
    assert_eq!(read(257, 1000), None);
    assert_eq!(read(512, 64), Some((Read::Rows, 1, 512)));
    assert_eq!(read(512, 65), None);
    assert!(Plan::of(128, 1000, 2).is_some());
    assert_eq!(Plan::of(130, 1000, 2), None);
    assert!(Plan::of(400, 81, 4).is_some());
    assert_eq!(Plan::of(400, 82, 4), None);
    assert_eq!(read(2097, 32), Some((Read::Rows, 1, 2097)));
    assert_eq!(read(2097, 33), None);
    // 16 bytes: pairs folded in the vector while the rows fit one group, then super-rows.
    assert_eq!(read(16, 20), Some((Read::Pairs, 2, 32)));
    assert_eq!(read(16, 256), Some((Read::Pairs, 2, 32)));
    assert_eq!(read(16, 257), Some((Read::Supers, 2, 32)));
    // Rows of 16 bytes of wider types: super-rows where enough, else halves.
    assert_eq!(
        Plan::of(16, 20, 2).map(|p| (p.read, p.k)),
        Some((Read::Halves, 1))
    );
    assert_eq!(
        Plan::of(16, 64, 4).map(|p| (p.read, p.k)),
        Some((Read::Supers, 2))
    );
    // Under 32 bytes: super-rows of whole vectors where enough, else halves.
    assert_eq!(read(20, 600), Some((Read::Supers, 8, 160)));
    assert_eq!(read(24, 128), Some((Read::Supers, 4, 96)));
    assert_eq!(read(20, 20), Some((Read::Halves, 1, 20)));
    assert_eq!(read(8, 20), None);
    assert_eq!(read(8, 200), Some((Read::Supers, 4, 32)));
    let odd = Plan::supers(17);
    assert!(odd.p <= MAX_PERIOD && odd.p >= 32 && odd.p.is_multiple_of(17));
    // Two rows of 16 bytes and more are read; fewer rows, or rows of 8 bytes, are not.
    assert_eq!(read(64, 2), Some((Read::Rows, 1, 64)));
    assert_eq!(read(16, 2), Some((Read::Pairs, 2, 32)));
    assert_eq!(read(8, 2), None);
    assert_eq!(read(64, 1), None);
    assert_eq!(Plan::of(64, 2, 4), None);
    assert!(Plan::of(64, 3, 4).is_some());
    assert_eq!(read(0, 10), None);
}

#[test]
fn other_types_and_shapes_are_left() {
    let mut y = [0i64; 16];
    assert!(!arg_blocks::<f32, Max, false>(
        &[1.0; 64],
        &mut y,
        &mut [],
        4,
        16
    ));
    assert!(!arg_blocks::<i64, Max, false>(
        &[1; 64],
        &mut y,
        &mut [],
        4,
        16
    ));
    assert!(!arg_blocks::<u8, Max, false>(
        &[1; 16],
        &mut y,
        &mut [],
        1,
        16
    ));
}
