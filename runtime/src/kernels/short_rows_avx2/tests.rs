//! Tests of [`super`]: every type, direction and row length it takes, against the definitions
//! written here and in `test_util`.

extern crate std;
use super::*;
use crate::kernels::test_util::{
    bf16s, bools, f16s, i16s, i32s, i8s, naive_arg, same, u16s, u32s, u8s, Lcg,
};
use crate::{bf16, f16, Max, Min};
use std::vec::Vec;

/// The definition of a fold: a NaN accumulator stays, else the row's first NaN, else the
/// extreme.
pub(super) fn naive_fold<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    if acc.is_nan() {
        return acc;
    }
    if let Some(&n) = row.iter().find(|v| v.is_nan()) {
        return n;
    }
    row.iter()
        .fold(acc, |a, &v| if D::better(v, a) { v } else { a })
}

/// Rows of `n` for `rows` rows (a partial block after whole ones), reduced both ways into
/// accumulators of every kind and searched both ways with and without values: the rows done
/// against the definitions, and whole blocks done whenever the block's reach fits.
fn check<T: Element>(g: &mut Lcg, n: usize, rows: usize, make: fn(&mut Lcg, bool) -> T) {
    let lanes = 32 / size_of::<T>();
    for nan in [false, true] {
        let x: Vec<T> = (0..n * rows + 7).map(|_| make(g, nan)).collect();
        // A block with a NaN now and then only.
        let x: Vec<T> = if nan {
            x
        } else {
            x.into_iter()
                .map(|v| if v.is_nan() { T::ZERO } else { v })
                .collect()
        };
        let whole = |lanes: usize| {
            let row = n * size_of::<T>();
            let reach = (lanes - 1) * row + row.max(16);
            let mut c = rows / lanes;
            while c > 0 && (c - 1) * lanes * row + reach > (n * rows + 7) * size_of::<T>() {
                c -= 1;
            }
            c * lanes
        };
        let bytes = n * size_of::<T>();
        // The reductions take rows up to `MAX_BYTES`.
        let want_blocks = if bytes <= MAX_BYTES { whole(lanes) } else { 0 };
        // The arg-reductions and Hardmax take rows up to `ARG_MAX_BYTES` only, except 4-byte
        // integers by columns (rows of up to 1024 elements); 1- and 2-byte elements widened to
        // twice their width, half as many rows a block, except 2-byte rows by columns (17 to
        // 22 `i16`, f16 or bf16).
        let halves = matches!(T::DTYPE, DType::F16 | DType::BF16);
        let columns = (halves || T::DTYPE == DType::I16) && (17..=22).contains(&n);
        let want_arg = match (bytes <= ARG_MAX_BYTES, size_of::<T>()) {
            (_, 4) if (9..=1024).contains(&n) => whole(lanes),
            (false, _) => 0,
            (true, 4) => whole(lanes),
            (true, 2) if columns => whole(lanes),
            (true, _) => whole(lanes / 2),
        };
        // Hardmax as the arg-reductions, but only up to `ARG_MAX_BYTES` (its rows' outputs are
        // written row by row; the columns past that limit serve the arg-reductions alone).
        let want_hardmax = if bytes <= ARG_MAX_BYTES { want_arg } else { 0 };
        let acc: Vec<T> = (0..rows)
            .map(|i| {
                if i % 9 == 4 {
                    make(g, true)
                } else {
                    make(g, false)
                }
            })
            .collect();
        // Hardmax: 1 at the first maximum (or first NaN), 0 elsewhere, in the rows done.
        let mut h = std::vec![T::ONE; n * rows];
        let done = hardmax_rows::<T>(&x, &mut h, n);
        assert_eq!(
            done,
            want_hardmax,
            "{:?} n={n} rows={rows} hardmax",
            T::DTYPE
        );
        for (o, (row, out)) in x
            .chunks_exact(n)
            .zip(h.chunks_exact(n))
            .take(done)
            .enumerate()
        {
            let at = naive_arg::<T, Max>(row, false);
            for (j, &v) in out.iter().enumerate() {
                let want = if j == at { T::ONE } else { T::ZERO };
                assert!(same(v, want), "{:?} n={n} row {o} hardmax", T::DTYPE);
            }
        }
        for min in [false, true] {
            let mut y = acc.clone();
            let done = if min {
                reduce_rows::<T, Min>(&mut y, &x, n)
            } else {
                reduce_rows::<T, Max>(&mut y, &x, n)
            };
            assert_eq!(done, want_blocks, "{:?} n={n} rows={rows}", T::DTYPE);
            for (o, row) in x.chunks_exact(n).take(done).enumerate() {
                let want = if min {
                    naive_fold::<T, Min>(acc[o], row)
                } else {
                    naive_fold::<T, Max>(acc[o], row)
                };
                assert!(same(y[o], want), "{:?} n={n} row {o} min={min}", T::DTYPE);
            }
            for last in [false, true] {
                let mut at = std::vec![-1i64; rows];
                let mut v = std::vec![T::ZERO; rows];
                let done = match (min, last) {
                    (false, false) => arg_rows::<T, Max, false, true, i64>(&x, &mut at, &mut v, n),
                    (false, true) => arg_rows::<T, Max, true, true, i64>(&x, &mut at, &mut v, n),
                    (true, false) => arg_rows::<T, Min, false, true, i64>(&x, &mut at, &mut v, n),
                    (true, true) => arg_rows::<T, Min, true, true, i64>(&x, &mut at, &mut v, n),
                };
                assert_eq!(done, want_arg);
                let mut at32 = std::vec![u32::MAX; rows];
                let done32 = if min {
                    arg_rows::<T, Min, false, false, u32>(&x, &mut at32, &mut [], n)
                } else {
                    arg_rows::<T, Max, false, false, u32>(&x, &mut at32, &mut [], n)
                };
                assert_eq!(done32, want_arg);
                for (o, row) in x.chunks_exact(n).take(done).enumerate() {
                    let want = if min {
                        naive_arg::<T, Min>(row, last)
                    } else {
                        naive_arg::<T, Max>(row, last)
                    };
                    let what = (T::DTYPE, n, o, min, last);
                    assert_eq!(at[o] as usize, want, "{what:?}");
                    assert!(same(v[o], row[want]), "{what:?} value");
                    if !last {
                        assert_eq!(at32[o] as usize, want, "{what:?} u32");
                    }
                }
            }
        }
    }
}

#[test]
fn short_rows_of_every_narrow_type_match_the_definitions() {
    if !available() {
        return;
    }
    let mut g = Lcg(41);
    for n in MIN_BYTES..=MAX_BYTES {
        for rows in [33, 70] {
            check::<u8>(&mut g, n, rows, u8s);
            check::<i8>(&mut g, n, rows, i8s);
            check::<bool>(&mut g, n, rows, bools);
        }
    }
    for n in MIN_BYTES / 2..=MAX_BYTES / 2 {
        for rows in [17, 40] {
            check::<u16>(&mut g, n, rows, u16s);
            check::<i16>(&mut g, n, rows, i16s);
            check::<f16>(&mut g, n, rows, f16s);
            check::<bf16>(&mut g, n, rows, bf16s);
        }
    }
    // (Rows of two and three go by the sliding window: `tiny`'s tests.)
    for n in tiny::MAX_ROW_4 + 1..=MAX_BYTES / 4 {
        for rows in [9, 21] {
            check::<u32>(&mut g, n, rows, u32s);
            check::<i32>(&mut g, n, rows, i32s);
        }
    }
    // 4-byte integers by columns past the other kernels' rows, to 1024 elements and one more.
    for n in (MAX_BYTES / 4 + 1..1020).step_by(37).chain(1020..=1025) {
        check::<u32>(&mut g, n, 17, u32s);
        check::<i32>(&mut g, n, 17, i32s);
    }
}

#[test]
fn short_rows_outside_the_kernel_are_left() {
    let mut y = [0u8; 64];
    // Rows of one byte (nothing to fold across), and rows over 512 bytes.
    assert_eq!(reduce_rows::<u8, Max>(&mut y, &[1u8; 64 * 1024], 1), 0);
    assert_eq!(reduce_rows::<u8, Max>(&mut y, &[1u8; 64 * 513], 513), 0);
    let mut at = [0i64; 64];
    assert_eq!(
        arg_rows::<u8, Max, false, false, i64>(&[1; 64 * 257], &mut at, &mut [], 257),
        0
    );
    assert_eq!(
        arg_rows::<f32, Max, false, false, i64>(&[1.0; 64 * 8], &mut at, &mut [], 8),
        0
    );
    assert_eq!(
        arg_rows::<i64, Max, false, false, i64>(&[1; 64 * 8], &mut at, &mut [], 8),
        0
    );
    // 4-byte rows past the columns' 1024 elements.
    assert_eq!(
        arg_rows::<i32, Max, false, false, i64>(&[1; 64 * 1025], &mut at, &mut [], 1025),
        0
    );
}

/// A block whose only NaN has either sign, at a row's start, middle or end: found in both
/// directions. The rows of 17 to 22 f16 or bf16 go by columns, which see a NaN by its key past
/// an infinity's, the greatest key for one sign and the least for the other (and up to 32 the
/// widened lanes, checked alike).
#[test]
fn a_lone_nan_of_either_sign_is_found_by_columns() {
    if !available() {
        return;
    }
    fn case<T: Element>(make: fn(&mut Lcg, bool) -> T, nan: fn(bool) -> T) {
        let mut g = Lcg(7);
        for n in 17..=32 {
            for negative in [false, true] {
                for at in [0, 5 * n + 3, 9 * n + n - 1, 16 * n - 1, 16 * n + 17] {
                    let mut x: Vec<T> = (0..32 * n)
                        .map(|_| make(&mut g, false))
                        .map(|v| if v.is_nan() { T::ONE } else { v })
                        .collect();
                    x[at] = nan(negative);
                    for (min, last) in [(false, false), (false, true), (true, false), (true, true)]
                    {
                        let mut y = std::vec![-1i64; 32];
                        let done = match (min, last) {
                            (false, false) => {
                                arg_rows::<T, Max, false, false, i64>(&x, &mut y, &mut [], n)
                            }
                            (false, true) => {
                                arg_rows::<T, Max, true, false, i64>(&x, &mut y, &mut [], n)
                            }
                            (true, false) => {
                                arg_rows::<T, Min, false, false, i64>(&x, &mut y, &mut [], n)
                            }
                            (true, true) => {
                                arg_rows::<T, Min, true, false, i64>(&x, &mut y, &mut [], n)
                            }
                        };
                        assert_eq!(done, 32);
                        for (o, row) in x.chunks_exact(n).enumerate() {
                            let want = if min {
                                naive_arg::<T, Min>(row, last)
                            } else {
                                naive_arg::<T, Max>(row, last)
                            };
                            let what = (T::DTYPE, n, at, negative, min, last, o);
                            assert_eq!(y[o] as usize, want, "{what:?}");
                        }
                    }
                }
            }
        }
    }
    case::<f16>(f16s, |neg| {
        f16::from_bits(if neg { 0xfe00 } else { 0x7e00 })
    });
    case::<bf16>(bf16s, |neg| {
        bf16::from_bits(if neg { 0xffc0 } else { 0x7fc0 })
    });
}
