//! Tests of [`super`]: every row length around the ones it takes, partial groups, both
//! directions and tie rules, with and without values, against the definition in `test_util`.

extern crate std;
use super::*;
use crate::kernels::test_util::{f64s, naive_arg, same, Lcg};
use crate::{Max, Min};
use std::vec::Vec;

/// Rows of `n` for `rows` rows, searched as `D` with `LAST` and `VALUES` by the kernel and by
/// the entry that follows it with the other kernels.
fn check<D: Direction, const LAST: bool, const VALUES: bool>(x: &[f64], n: usize, rows: usize) {
    let ctx = std::format!(
        "n={n} rows={rows} min={} last={LAST} values={VALUES}",
        D::IS_MIN
    );
    let mut idx = std::vec![-1i64; rows];
    let mut vals = std::vec![42.0f64; if VALUES { rows } else { 0 }];
    let done = arg_rows::<f64, D, LAST, VALUES, i64>(x, &mut idx, &mut vals, n);
    // Whole groups of four rows, for the lengths it takes, counted here independently.
    let want = if (4..=80).contains(&n) {
        rows / 4 * 4
    } else {
        0
    };
    assert_eq!(done, want, "{ctx}");
    for (i, row) in x.chunks_exact(n).take(rows).enumerate() {
        if i >= done {
            assert_eq!(idx[i], -1, "{ctx}: row {i} past the groups written");
            if VALUES {
                assert_eq!(vals[i], 42.0, "{ctx}: value {i} past the groups written");
            }
            continue;
        }
        let at = naive_arg::<f64, D>(row, LAST);
        assert_eq!(idx[i], at as i64, "{ctx}: row {i} {row:?}");
        if VALUES {
            assert!(
                same(vals[i], row[at]),
                "{ctx}: value {} vs {} in row {i} {row:?}",
                vals[i],
                row[at]
            );
        }
    }
    // Through the entry of the arg-reductions (the rows after the groups by the callers'
    // kernels), as `u32` indices.
    let mut all = std::vec![u32::MAX; rows];
    let done_entry =
        crate::kernels::arg_rows_narrow::<f64, D, LAST, false, u32>(x, &mut all, &mut [], n);
    assert_eq!(done_entry, want, "{ctx}: entry");
    for (i, row) in x.chunks_exact(n).take(done_entry).enumerate() {
        assert_eq!(
            all[i] as usize,
            naive_arg::<f64, D>(row, LAST),
            "{ctx}: entry row {i} {row:?}"
        );
    }
}

/// [`check`] in every mode, in each build of the kernel this CPU runs (AVX2 alone, and the
/// AVX-512 groups of eight before it).
fn all_modes(x: &[f64], n: usize, rows: usize) {
    for build in [isa::AVX2, isa::AVX512] {
        if isa::level() < build {
            continue;
        }
        isa::HERE.with(|c| c.set(Some(build)));
        check::<Max, false, false>(x, n, rows);
        check::<Max, true, true>(x, n, rows);
        check::<Min, false, true>(x, n, rows);
        check::<Min, true, false>(x, n, rows);
        isa::HERE.with(|c| c.set(None));
    }
}

#[test]
fn rows_match_the_definition() {
    if isa::level() < isa::AVX2 {
        return;
    }
    let mut g = Lcg(0xf64);
    for n in 1..=84 {
        for rows in [0, 1, 3, 4, 5, 8, 13, 17, 20] {
            for nan in [false, true] {
                let x: Vec<f64> = (0..n * rows).map(|_| f64s(&mut g, nan)).collect();
                all_modes(&x, n, rows);
            }
        }
    }
}

#[test]
fn the_extreme_anywhere_in_a_row() {
    if isa::level() < isa::AVX2 {
        return;
    }
    // Distinct values with the one extreme (and a tie of it) at every position, so that each
    // vector's bits and the tail's are placed right.
    for n in [4, 5, 7, 8, 13, 31, 63, 64, 65, 67, 79, 80] {
        for at in 0..n {
            for tie in [None, Some((at + n / 2 + 1) % n)] {
                let mut x = Vec::new();
                for r in 0..12usize {
                    for j in 0..n {
                        let mut v = ((j * 7 + r * 3) % n) as f64 * 0.5 - 4.0;
                        if j == at || Some(j) == tie {
                            v = 1e6;
                        }
                        x.push(v);
                    }
                }
                all_modes(&x, n, 12);
                let neg: Vec<f64> = x.iter().map(|v| -v).collect();
                all_modes(&neg, n, 12);
            }
        }
    }
}
