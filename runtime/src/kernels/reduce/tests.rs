//! Tests of [`super`]: the row and lane folds against their definitions.

extern crate std;
use super::*;
use crate::kernels::test_util::{f32_pool, same, Lcg};
use crate::{Max, Min};

#[test]
fn reductions_propagate_nan() {
    let r = fold::<f32, Max>(f32::NEG_INFINITY, &[1.0, f32::NAN, 5.0]);
    assert!(r.is_nan());
    assert_eq!(fold::<f32, Min>(f32::INFINITY, &[1.0, -2.0, 5.0]), -2.0);
    assert!(fold::<bool, Max>(false, &[false, true]));
    assert!(!fold::<bool, Min>(true, &[false, true]));
}

/// `reduce_lanes_rows` against the definition: each lane folded down the rows in order, a NaN
/// accumulator staying, otherwise the lane's first NaN (compared by bits, so the payload of
/// the NaN that wins is checked too).
#[test]
fn lane_rows_match_the_definition() {
    let mut g = Lcg(17);
    for n in [1, 5, 16, 17, 31, 33, 47, 100, 1029] {
        for rows in [0, 1, 7, 8, 9, 17, 30] {
            for trial in 0..6 {
                let mut x: std::vec::Vec<f32> =
                    (0..n * rows).map(|_| f32_pool(&mut g, false)).collect();
                if trial % 2 == 1 && !x.is_empty() {
                    for k in 0..3 {
                        let at = g.next() as usize % x.len();
                        x[at] = f32::from_bits(0x7fc0_0000 | (k as u32 + 1));
                    }
                }
                let acc0: std::vec::Vec<f32> = (0..n)
                    .map(|j| match (trial, j % 5) {
                        (4 | 5, 0) => f32::from_bits(0x7fc0_0042),
                        _ => f32::NEG_INFINITY,
                    })
                    .collect();
                for max in [true, false] {
                    let mut want = acc0.clone();
                    if !max {
                        for w in want.iter_mut().filter(|w| !w.is_nan()) {
                            *w = f32::INFINITY;
                        }
                    }
                    let mut got = want.clone();
                    for row in x.chunks_exact(n) {
                        for (w, &v) in want.iter_mut().zip(row) {
                            if w.is_nan() {
                            } else if v.is_nan() || (max && v > *w) || (!max && v < *w) {
                                *w = v;
                            }
                        }
                    }
                    if max {
                        reduce_lanes_rows::<f32, Max>(&mut got, &x);
                    } else {
                        reduce_lanes_rows::<f32, Min>(&mut got, &x);
                    }
                    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || a == b;
                    for j in 0..n {
                        assert!(same(got[j], want[j]), "n {n} rows {rows} lane {j}");
                    }
                }
            }
        }
    }
    let mut acc = [0u8; 3];
    reduce_lanes_rows::<u8, Max>(&mut acc, &[1, 9, 3, 7, 2, 8, 5]);
    assert_eq!(acc, [7, 9, 8]);
}

/// The reductions that write their outputs ([`reduce_lane_blocks_fresh`], [`afresh`] and, in
/// optimized builds, `reduce_rows_short_fresh`) against the definition from the identity,
/// over outputs that start with the value that would win if they were read (and NaN for
/// floats): every type, lane counts about the chunk widths, row counts about the groups,
/// more outputs than a piece.
#[test]
fn fresh_reductions_ignore_what_the_output_held() {
    fn check<T: Element>(mut gen: impl FnMut(u64) -> T) {
        fn definition<T: Element, D: Direction>(
            x: &[T],
            rows: usize,
            n: usize,
        ) -> std::vec::Vec<T> {
            (0..n)
                .map(|j| {
                    (0..rows).fold(D::identity::<T>(), |w, r| {
                        let v = x[r * n + j];
                        if w.is_nan() || !(v.is_nan() || D::better(v, w)) {
                            w
                        } else {
                            v
                        }
                    })
                })
                .collect()
        }
        fn same<T: Element>(a: &[T], b: &[T]) -> bool {
            a.iter()
                .zip(b)
                .all(|(&a, &b)| a == b || (a.is_nan() && b.is_nan()))
        }
        let mut g = Lcg(29);
        for n in [1, 2, 5, 7, 9, 15, 16, 17, 31, 33, 64, 65, 100, 1029] {
            for rows in [0, 1, 2, 7, 8, 9, 17, 30] {
                let x: std::vec::Vec<T> = (0..n * rows).map(|_| gen(g.next())).collect();
                // Lanes: rows of `n` lanes.
                let mut got = std::vec![T::HIGHEST; n];
                reduce_lane_blocks_fresh::<T, Max>(&mut got, &x, (n * rows, n));
                assert!(
                    same(&got, &definition::<T, Max>(&x, rows, n)),
                    "lanes {n}x{rows}"
                );
                let mut got = std::vec![T::LOWEST; n];
                reduce_lane_blocks_fresh::<T, Min>(&mut got, &x, (n * rows, n));
                assert!(
                    same(&got, &definition::<T, Min>(&x, rows, n)),
                    "lanes {n}x{rows}"
                );
                // Rows: `n · rows / r` rows of `r`, pieces of the lane kernel.
                for r in [1, 2, 3] {
                    let m = x.len() / r;
                    let x = &x[..m * r];
                    let mut got = std::vec![T::HIGHEST; m];
                    let want = definition::<T, Max>(&transpose(x, r), r, m);
                    afresh::<T, Max>(&mut got, x, (r, 1), |y, x| {
                        for (o, row) in y.iter_mut().zip(x.chunks_exact(r)) {
                            *o = fold::<T, Max>(*o, row);
                        }
                    });
                    assert!(same(&got, &want), "pieces {m}x{r}");
                    #[cfg(not(debug_assertions))]
                    {
                        let mut got = std::vec![T::LOWEST; m];
                        let want = want_min(x, r);
                        match r {
                            1 => reduce_rows_short_fresh::<T, Min, 1>(&mut got, x),
                            2 => reduce_rows_short_fresh::<T, Min, 2>(&mut got, x),
                            _ => reduce_rows_short_fresh::<T, Min, 3>(&mut got, x),
                        }
                        assert!(same(&got, &want), "short rows {m}x{r}");
                        let mut got = std::vec![T::HIGHEST; m];
                        if r == 2 {
                            reduce_rows_short_fresh::<T, Max, 2>(&mut got, x);
                            let w = definition::<T, Max>(&transpose(x, r), r, m);
                            assert!(same(&got, &w), "pairs {m}");
                        }
                    }
                }
            }
        }
        // Rows of `r` as lanes: element `i` of row `k` at `i · rows + k`.
        fn transpose<T: Element>(x: &[T], r: usize) -> std::vec::Vec<T> {
            let m = x.len() / r;
            (0..r * m).map(|i| x[(i % m) * r + i / m]).collect()
        }
        #[cfg(not(debug_assertions))]
        fn want_min<T: Element>(x: &[T], r: usize) -> std::vec::Vec<T> {
            definition::<T, Min>(&transpose(x, r), r, x.len() / r)
        }
        // Rows of two past a piece (and the AVX2 pairs' groups of eight) with NaN.
        let x: std::vec::Vec<T> = (0..2 * 5003).map(|_| gen(g.next())).collect();
        let mut got = std::vec![T::HIGHEST; 5003];
        afresh::<T, Max>(&mut got, &x, (2, 1), |y, x| {
            for (o, row) in y.iter_mut().zip(x.chunks_exact(2)) {
                *o = fold::<T, Max>(*o, row);
            }
        });
        assert!(same(
            &got,
            &definition::<T, Max>(&transpose(&x, 2), 2, 5003)
        ));
        #[cfg(not(debug_assertions))]
        {
            let mut got = std::vec![T::LOWEST; 5003];
            reduce_rows_short_fresh::<T, Min, 2>(&mut got, &x);
            assert!(same(&got, &want_min(&x, 2)), "pairs past a piece");
        }
    }
    check::<f32>(|k| match k % 7 {
        0 => f32::from_bits(0x7fc0_0000 | (k as u32 & 0xff)),
        1 => -0.0,
        2 => 0.0,
        _ => (k % 23) as f32 - 11.0,
    });
    check::<f64>(|k| {
        if k % 11 == 0 {
            f64::NAN
        } else {
            (k % 19) as f64 - 9.0
        }
    });
    check::<half::f16>(|k| {
        let v = if k % 13 == 0 {
            f32::NAN
        } else {
            (k % 21) as f32 - 10.0
        };
        half::f16::from_f32(v)
    });
    check::<half::bf16>(|k| half::bf16::from_f32((k % 21) as f32 - 10.0));
    check::<u8>(|k| k as u8);
    check::<i8>(|k| k as i8);
    check::<i16>(|k| k as i16);
    check::<i32>(|k| k as i32);
    check::<u64>(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    check::<i64>(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) as i64);
    check::<bool>(|k| k % 5 == 0);
}

/// Blocks of one to six rows (ReduceMax/ReduceMin over a short middle axis), several blocks a
/// call, through every path (a few rows of sixteen lanes or more, the lane-chunk passes, rows
/// under sixteen): each lane of each block is its first NaN down the rows, else the first of
/// its most extreme values (checked by bits: the NaN payload, and ±0 where the first of two
/// equal zeros stays).
#[test]
fn blocks_of_few_rows_reduce_block_by_block() {
    fn check<T: Element + PartialOrd>(gen: impl Fn(u64) -> T, bits: impl Fn(T) -> u64) {
        let mut g = Lcg(31);
        for n in [1, 3, 5, 15, 16, 17, 31, 33, 64, 100] {
            for rows in 1..=6 {
                for blocks in [1, 2, 3, 8] {
                    let x: std::vec::Vec<T> =
                        (0..rows * n * blocks).map(|_| gen(g.next())).collect();
                    for min in [false, true] {
                        let mut got = std::vec![T::ZERO; n * blocks];
                        if min {
                            reduce_lane_blocks_fresh::<T, Min>(&mut got, &x, (rows * n, n));
                        } else {
                            reduce_lane_blocks_fresh::<T, Max>(&mut got, &x, (rows * n, n));
                        }
                        for (k, (block, got)) in
                            x.chunks_exact(rows * n).zip(got.chunks(n)).enumerate()
                        {
                            for (j, &v) in got.iter().enumerate() {
                                let mut want = block[j];
                                for r in 1..rows {
                                    let b = block[r * n + j];
                                    let more = if min { b < want } else { b > want };
                                    if !want.is_nan() && (b.is_nan() || more) {
                                        want = b;
                                    }
                                }
                                assert_eq!(
                                    bits(v),
                                    bits(want),
                                    "{:?} min {min}, {rows} rows of {n}, block {k} lane {j}",
                                    T::DTYPE
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    // Few distinct values (ties), ±0 and NaN with payloads.
    check::<f32>(
        |k| match k % 9 {
            0 => f32::from_bits(0x7fc0_0000 | (k as u32 >> 8 & 0xff)),
            1 => -0.0,
            2 => 0.0,
            _ => ((k >> 4) % 13) as f32 - 6.0,
        },
        |v| u64::from(v.to_bits()),
    );
    check::<f64>(
        |k| match k % 9 {
            0 => f64::from_bits(0x7ff8_0000_0000_0000 | (k >> 8 & 0xff)),
            1 => -0.0,
            2 => 0.0,
            _ => ((k >> 4) % 13) as f64 - 6.0,
        },
        f64::to_bits,
    );
    check::<i64>(|k| ((k >> 4) % 13) as i64 - 6, |v| v as u64);
    check::<u16>(|k| ((k >> 4) % 13) as u16, u64::from);
    check::<bool>(|k| (k >> 4) % 3 == 0, u64::from);
}

/// The reference step of a NaN-propagating reduction, written out.
fn naive_pick(acc: f32, v: f32, max: bool) -> f32 {
    if acc.is_nan() {
        acc
    } else if v.is_nan() || (max && v > acc) || (!max && v < acc) {
        v
    } else {
        acc
    }
}

#[test]
fn reductions_match_the_definition_lane_by_lane() {
    let mut g = Lcg(5);
    for len in [0, 1, 3, 16, 17, 64, 100, 300, 1000] {
        for _ in 0..30 {
            let acc0: std::vec::Vec<f32> = (0..len).map(|_| f32_pool(&mut g, true)).collect();
            let x: std::vec::Vec<f32> = (0..len).map(|_| f32_pool(&mut g, true)).collect();
            let same = |a: f32, b: f32| a == b || (a.is_nan() && b.is_nan());
            let mut acc = acc0.clone();
            reduce_lanes_rows::<f32, Max>(&mut acc, &x);
            for j in 0..len {
                assert!(
                    same(acc[j], naive_pick(acc0[j], x[j], true)),
                    "max lane {j}"
                );
            }
            let mut acc = acc0.clone();
            reduce_lanes_rows::<f32, Min>(&mut acc, &x);
            for j in 0..len {
                assert!(
                    same(acc[j], naive_pick(acc0[j], x[j], false)),
                    "min lane {j}"
                );
            }
            for start in [f32::NEG_INFINITY, 0.0, f32::NAN] {
                let want = x.iter().fold(start, |a, &v| naive_pick(a, v, true));
                assert!(
                    same(fold::<f32, Max>(start, &x), want),
                    "fold {len} {start}"
                );
                let want = x.iter().fold(start, |a, &v| naive_pick(a, v, false));
                assert!(
                    same(fold::<f32, Min>(start, &x), want),
                    "fold min {len} {start}"
                );
            }
        }
    }
}

/// [`afresh_rows`]: each piece's fold sees the piece's rows and at most [`READ_SLACK`] bytes
/// past them (as far as `x` goes), every output is its row's extreme whatever it held, over
/// several pieces, for the types whose kernels of short rows read past their last rows.
#[test]
fn pieces_of_rows_see_a_little_past_them() {
    fn check<T: Element>(n: usize, rows: usize, gen: impl Fn(u64) -> T) {
        let mut g = Lcg(n as u64 * 31 + rows as u64);
        let x: std::vec::Vec<T> = (0..n * rows).map(|_| gen(g.next())).collect();
        let slack = READ_SLACK.div_ceil(size_of::<T>());
        let mut got = std::vec![T::ZERO; rows];
        let (mut pieces, mut covered) = (0, 0);
        afresh_rows::<T, Max>(&mut got, &x, n, |y, xs| {
            // The piece's rows from its first, on to the slack or the input's end.
            let start = covered * n;
            assert_eq!(
                xs.as_ptr(),
                x[start..].as_ptr(),
                "piece {pieces} starts at its row"
            );
            let want = (start + y.len() * n + slack).min(x.len()) - start;
            assert_eq!(xs.len(), want, "piece {pieces} of {} rows", y.len());
            covered += y.len();
            pieces += 1;
            reduce_rows::<T, Max>(y, xs, n);
        });
        assert_eq!(covered, rows);
        if rows * size_of::<T>() > PIECE_BYTES {
            assert!(pieces > 1, "{rows} rows in one piece");
        }
        for (i, row) in x.chunks_exact(n).enumerate() {
            let want = row.iter().fold(None::<T>, |m, &v| match m {
                Some(m) if m.is_nan() => Some(m),
                _ if v.is_nan() => Some(v),
                Some(m) if !v.gt(m) => Some(m),
                _ => Some(v),
            });
            let (got, want) = (got[i], want.unwrap_or(T::LOWEST));
            assert!(
                same(got, want),
                "n={n} row {i}: {got:?} vs {want:?} in {row:?}"
            );
        }
    }
    for n in [2, 3, 5, 7, 12] {
        for rows in [0, 1, 511, 8192, 8193, 3 * 8192 + 37] {
            check::<u8>(n, rows, |k| k as u8);
            check::<i8>(n, rows, |k| (k % 7) as i8 - 3);
            check::<crate::f16>(n, rows / 2, |k| match k % 97 {
                0 => crate::f16::from_bits(0x7e01),
                1 => crate::f16::from_bits(0xfe00),
                k => crate::f16::from_f32(k as f32 - 50.0),
            });
        }
    }
}
