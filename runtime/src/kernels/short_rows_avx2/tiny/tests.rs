//! Tests of [`super`]: every type, direction, tie rule and row length it takes, against the
//! definitions in `test_util` and the kernel of short rows' tests (rows with NaN now and then for
//! f16 and bf16, zeros of both signs, ties).

extern crate std;
use super::*;
use crate::kernels::short_rows_avx2::tests::naive_fold;
use crate::kernels::short_rows_avx2::{available, hardmax_rows};
use crate::kernels::test_util::{
    bf16s, bools, f16s, i16s, i32s, i8s, naive_arg, same, u16s, u32s, u8s, Lcg,
};
use crate::{bf16, f16, Max, Min};
use std::vec::Vec;

/// How many rows of `rows` the kernel must do at least: all but the last two tiles' worth.
fn enough(done: usize, rows: usize, tile: usize) -> bool {
    done.is_multiple_of(tile) && done <= rows && done + 2 * tile > rows
}

/// `rows` rows of `n` (and a few elements after), NaN in one tile of three when `nan`.
fn rows_of<T: Element>(
    g: &mut Lcg,
    n: usize,
    rows: usize,
    make: fn(&mut Lcg, bool) -> T,
) -> Vec<T> {
    let tile = tile_rows(n * size_of::<T>());
    (0..n * rows + 5)
        .map(|i| make(g, (i / n / tile) % 3 == 1))
        .collect()
}

/// The rows folded both ways into accumulators (a NaN one now and then): every row done (the
/// rows after the whole tiles, NaN among them in a tile of three, by a tile over their copy),
/// matching the definition.
fn check_reduce<T: Element>(g: &mut Lcg, n: usize, rows: usize, make: fn(&mut Lcg, bool) -> T) {
    let x = rows_of(g, n, rows, make);
    let acc: Vec<T> = (0..rows).map(|i| make(g, i % 50 == 7)).collect();
    for min in [false, true] {
        let mut y = acc.clone();
        // SAFETY: the caller found AVX2.
        let done = unsafe {
            if min {
                reduce_rows::<T, Min>(&mut y, &x, n)
            } else {
                reduce_rows::<T, Max>(&mut y, &x, n)
            }
        };
        let what = (T::DTYPE, n, rows, min);
        // Every row: the whole tiles in place, the rows after them over a copy.
        assert_eq!(done, rows, "{what:?}");
        for (o, row) in x.chunks_exact(n).take(rows).enumerate() {
            let want = match (o < done, min) {
                (false, _) => acc[o],
                (true, false) => naive_fold::<T, Max>(acc[o], row),
                (true, true) => naive_fold::<T, Min>(acc[o], row),
            };
            assert!(same(y[o], want), "{what:?} row {o}");
        }
    }
}

/// The rows searched every way, with and without values and into `u32`: the rows done match
/// the definition (position and value), the rows after are untouched.
fn check_arg<T: Element>(g: &mut Lcg, n: usize, rows: usize, make: fn(&mut Lcg, bool) -> T) {
    let x = rows_of(g, n, rows, make);
    let tile = tile_rows(n * size_of::<T>());
    for (min, last) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut at = std::vec![-1i64; rows];
        let mut v = std::vec![T::ZERO; rows];
        let mut at32 = std::vec![u32::MAX; rows];
        // SAFETY: the caller found AVX2.
        let (done, done32) = unsafe {
            match (min, last) {
                (false, false) => (
                    arg_rows::<T, Max, false, true, i64>(&x, &mut at, &mut v, n),
                    arg_rows::<T, Max, false, false, u32>(&x, &mut at32, &mut [], n),
                ),
                (false, true) => (
                    arg_rows::<T, Max, true, true, i64>(&x, &mut at, &mut v, n),
                    arg_rows::<T, Max, true, false, u32>(&x, &mut at32, &mut [], n),
                ),
                (true, false) => (
                    arg_rows::<T, Min, false, true, i64>(&x, &mut at, &mut v, n),
                    arg_rows::<T, Min, false, false, u32>(&x, &mut at32, &mut [], n),
                ),
                (true, true) => (
                    arg_rows::<T, Min, true, true, i64>(&x, &mut at, &mut v, n),
                    arg_rows::<T, Min, true, false, u32>(&x, &mut at32, &mut [], n),
                ),
            }
        };
        let what = (T::DTYPE, n, rows, min, last);
        assert!(
            enough(done, rows, tile) && done32 == done,
            "{what:?}: {done}, {done32}"
        );
        for (o, row) in x.chunks_exact(n).take(rows).enumerate() {
            if o >= done {
                assert!(
                    at[o] == -1 && at32[o] == u32::MAX,
                    "{what:?} row {o} written"
                );
                continue;
            }
            let want = if min {
                naive_arg::<T, Min>(row, last)
            } else {
                naive_arg::<T, Max>(row, last)
            };
            assert_eq!(
                (at[o] as usize, at32[o] as usize),
                (want, want),
                "{what:?} row {o}"
            );
            assert!(same(v[o], row[want]), "{what:?} row {o} value");
        }
    }
}

/// Hardmax of f16 and bf16 rows through `hardmax_rows`: 1 at the first maximum (or first NaN).
fn check_hardmax<T: Element>(g: &mut Lcg, n: usize, rows: usize, make: fn(&mut Lcg, bool) -> T) {
    let x = rows_of(g, n, rows, make);
    let mut h = std::vec![T::ONE; n * rows];
    let done = hardmax_rows::<T>(&x, &mut h, n);
    assert!(
        enough(done, rows, tile_rows(n * size_of::<T>())),
        "{:?} {n} {rows}: {done}",
        T::DTYPE
    );
    for (o, (row, out)) in x.chunks_exact(n).zip(h.chunks_exact(n)).enumerate() {
        let at = naive_arg::<T, Max>(row, false);
        for (j, &e) in out.iter().enumerate() {
            let want = match (o < done, j == at) {
                (false, _) => T::ONE,
                (true, true) => T::ONE,
                (true, false) => T::ZERO,
            };
            assert!(same(e, want), "{:?} n={n} row {o} hardmax", T::DTYPE);
        }
    }
}

#[test]
fn rows_of_a_few_bytes_by_the_definitions() {
    if !available() {
        return;
    }
    let mut g = Lcg(77);
    for n in 2..=MAX_ROW {
        let tile = tile_rows(n);
        for rows in [0, 1, tile - 1, tile, tile + 1, 3 * tile + 17] {
            check_reduce::<u8>(&mut g, n, rows, u8s);
            check_reduce::<i8>(&mut g, n, rows, i8s);
            check_reduce::<bool>(&mut g, n, rows, bools);
            check_arg::<u8>(&mut g, n, rows, u8s);
            check_arg::<i8>(&mut g, n, rows, i8s);
            check_arg::<bool>(&mut g, n, rows, bools);
        }
    }
    for n in 2..=MAX_ROW / 2 {
        let tile = tile_rows(2 * n);
        for rows in [tile - 1, tile, 2 * tile + 3, 5 * tile] {
            check_reduce::<u16>(&mut g, n, rows, u16s);
            check_reduce::<i16>(&mut g, n, rows, i16s);
            check_reduce::<f16>(&mut g, n, rows, f16s);
            check_reduce::<bf16>(&mut g, n, rows, bf16s);
            check_arg::<u16>(&mut g, n, rows, u16s);
            check_arg::<i16>(&mut g, n, rows, i16s);
            check_arg::<f16>(&mut g, n, rows, f16s);
            check_arg::<bf16>(&mut g, n, rows, bf16s);
            check_hardmax::<f16>(&mut g, n, rows, f16s);
            check_hardmax::<bf16>(&mut g, n, rows, bf16s);
        }
    }
    for n in 2..=MAX_ROW_4 {
        let tile = tile_rows(4 * n);
        for rows in [tile - 1, tile, 2 * tile + 3, 5 * tile] {
            check_reduce::<u32>(&mut g, n, rows, u32s);
            check_reduce::<i32>(&mut g, n, rows, i32s);
            check_arg::<u32>(&mut g, n, rows, u32s);
            check_arg::<i32>(&mut g, n, rows, i32s);
        }
    }
}

#[test]
fn only_rows_of_a_few_bytes_of_narrow_types_fit() {
    assert!(fits::<u8>(2) && fits::<bool>(7) && fits::<i16>(3) && fits::<f16>(2));
    assert!(!fits::<u8>(1) && !fits::<u8>(8) && !fits::<u16>(4) && !fits::<bf16>(1));
    assert!(fits::<i32>(2) && fits::<u32>(3) && !fits::<i32>(4) && !fits::<u32>(1));
    assert!(!fits::<f32>(2) && !fits::<i64>(2) && !fits::<f64>(2));
    let tiles = [2, 5, 7, 8, 12, 13].map(tile_rows);
    assert_eq!(tiles, [512, 192, 128, 128, 64, 0]);
}
