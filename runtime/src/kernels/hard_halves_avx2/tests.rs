//! Tests of [`super`]: f16 and bf16, rows of 16 to 100 lanes (whole chunks and not), one to 65
//! rows, one to three blocks, against the definition lane by lane (`test_util`): ties and zeros
//! of both signs from a small pool, NaN of either sign in some blocks.

extern crate std;
use std::vec::Vec;

use super::*;
use crate::kernels::test_util::{bf16s, f16s, naive_arg, Lcg};

fn bits<T: Element>(v: T) -> [u8; 2] {
    let mut b = [0u8; 2];
    v.write_le(&mut b);
    b
}

fn check<T: Element>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    for inner in [1, 15, 16, 17, 20, 31, 32, 33, 48, 100] {
        for r in [1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 64, 65] {
            for (outer, nan) in [(1, false), (3, false), (3, true)] {
                let size = r * inner;
                let x: Vec<T> = (0..outer * size)
                    .map(|i| make(g, nan && i / size == 1))
                    .collect();
                let mut y = std::vec![make(g, true); x.len()];
                let done = hardmax_blocks(&x, &mut y, r, inner);
                let ctx = std::format!("{:?} inner {inner} r {r} outer {outer}", T::DTYPE);
                let takes = available() && inner >= 16 && (2..=64).contains(&r);
                assert_eq!(done, takes, "{ctx} taken");
                if !done {
                    continue;
                }
                for b in 0..outer {
                    for j in 0..inner {
                        let lane: Vec<T> = (0..r).map(|k| x[(b * r + k) * inner + j]).collect();
                        let at = naive_arg::<T, Max>(&lane, false);
                        for k in 0..r {
                            let want = if k == at { T::ONE } else { T::ZERO };
                            let got = y[(b * r + k) * inner + j];
                            assert_eq!(bits(got), bits(want), "{ctx} block {b} lane {j} row {k}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn blocks_match_the_definition() {
    let mut g = Lcg(53);
    check::<crate::f16>(&mut g, f16s);
    check::<crate::bf16>(&mut g, bf16s);
}

/// Rows whose lines meet four times or more at one offset in a page, and rows that do not.
#[test]
fn crowded_sets_are_strides_near_a_multiple_of_a_set_cycle() {
    // Every row at one offset (4 KiB apart and multiples), or 4 bytes on from the row before.
    for stride in [4096, 8192, 1 << 18, 4100] {
        assert!(crowded_sets(4, stride), "{stride}");
        assert!(!crowded_sets(3, stride), "{stride}");
    }
    // 2 KiB apart: two offsets, the fourth row at the first one is row 6.
    assert!(crowded_sets(7, 2048) && !crowded_sets(6, 2048));
    assert!(crowded_sets(7, 6144) && !crowded_sets(6, 6144));
    // 16 bytes back each row: rows 1 to 4 in the page's last line.
    assert!(crowded_sets(5, 4080) && !crowded_sets(4, 4080));
    // A line or more apart in the page: one row a set until the offsets wrap.
    for stride in [3968, 4000, 2000, 64, 4160] {
        assert!(!crowded_sets(16, stride), "{stride}");
    }
    // A page's 64 lines, one row each (the rows after the 64th are not counted).
    assert!(!crowded_sets(64, 4160) && !crowded_sets(1000, 4160));
}

#[test]
fn other_types_and_shapes_are_left() {
    let x = [1.0f32; 64];
    let mut y = [0.0f32; 64];
    assert!(!hardmax_blocks(&x, &mut y, 2, 32));
    let x = [crate::f16::ONE; 64];
    let mut y = [crate::f16::ZERO; 64];
    // Not whole blocks; outputs of another length.
    assert!(!hardmax_blocks(&x[..60], &mut y[..60], 2, 16));
    assert!(!hardmax_blocks(&x, &mut y[..32], 2, 16));
}

fn check_pairs<T: Element>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    for rows in [0, 1, 7, 8, 9, 16, 40, 123] {
        for nan in [false, true] {
            // NaN only in some vectors' rows.
            let x: Vec<T> = (0..rows * 2)
                .map(|i| make(g, nan && (i / 16) % 2 == 1))
                .collect();
            let mut y = std::vec![make(g, true); x.len()];
            let done = hardmax_pairs(&x, &mut y);
            let ctx = std::format!("{:?} rows {rows} nan {nan}", T::DTYPE);
            assert_eq!(done, if available() { rows / 8 * 8 } else { 0 }, "{ctx}");
            for (i, row) in x.chunks_exact(2).enumerate().take(done) {
                let at = naive_arg::<T, Max>(row, false);
                for k in 0..2 {
                    let want = if k == at { T::ONE } else { T::ZERO };
                    assert_eq!(bits(y[i * 2 + k]), bits(want), "{ctx} row {i} element {k}");
                }
            }
        }
    }
}

#[test]
fn pairs_match_the_definition() {
    let mut g = Lcg(59);
    check_pairs::<crate::f16>(&mut g, f16s);
    check_pairs::<crate::bf16>(&mut g, bf16s);
    assert_eq!(hardmax_pairs(&[1.0f32; 32], &mut [0.0f32; 32]), 0);
}

fn check_triples<T: Element>(g: &mut Lcg, make: fn(&mut Lcg, bool) -> T) {
    for rows in [0, 1, 16, 47, 48, 49, 50, 64, 65, 100, 333] {
        for nan in [false, true] {
            // NaN only in some groups' rows.
            let x: Vec<T> = (0..rows * 3)
                .map(|i| make(g, nan && (i / 48) % 3 == 1))
                .collect();
            let mut y = std::vec![make(g, true); x.len()];
            let done = hardmax_triples(&x, &mut y);
            let ctx = std::format!("{:?} rows {rows} nan {nan}", T::DTYPE);
            // Every row, from three groups of sixteen rows on.
            let takes = available() && rows >= 48;
            assert_eq!(done, if takes { rows } else { 0 }, "{ctx}");
            for (i, row) in x.chunks_exact(3).enumerate().take(done) {
                let at = naive_arg::<T, Max>(row, false);
                for k in 0..3 {
                    let want = if k == at { T::ONE } else { T::ZERO };
                    assert_eq!(
                        bits(y[i * 3 + k]),
                        bits(want),
                        "{ctx} row {i} {row:?} element {k}"
                    );
                }
            }
        }
    }
    // A row's maximum (and a tie of it) at each place, with a smaller row on each side.
    for at in 0..3 {
        for tie in [None, Some((at + 1) % 3), Some((at + 2) % 3)] {
            let mut x = std::vec![T::ZERO; 3 * 60];
            for (r, row) in x.chunks_exact_mut(3).enumerate() {
                for (k, v) in row.iter_mut().enumerate() {
                    let big = k == at || Some(k) == tie;
                    *v = make(g, false);
                    if big && !v.is_nan() {
                        *v = T::HIGHEST;
                    } else if v.is_nan() || r % 2 == 0 {
                        *v = T::LOWEST;
                    }
                }
            }
            let mut y = std::vec![T::ONE; x.len()];
            assert_eq!(
                hardmax_triples(&x, &mut y),
                if available() { 60 } else { 0 }
            );
            for (i, row) in x
                .chunks_exact(3)
                .enumerate()
                .take(if available() { 60 } else { 0 })
            {
                let want = naive_arg::<T, Max>(row, false);
                for k in 0..3 {
                    let w = if k == want { T::ONE } else { T::ZERO };
                    assert_eq!(
                        bits(y[i * 3 + k]),
                        bits(w),
                        "place {at} tie {tie:?} row {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn triples_match_the_definition() {
    let mut g = Lcg(61);
    check_triples::<crate::f16>(&mut g, f16s);
    check_triples::<crate::bf16>(&mut g, bf16s);
    assert_eq!(hardmax_triples(&[1.0f32; 300], &mut [0.0f32; 300]), 0);
}
