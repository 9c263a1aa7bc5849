//! Tests of [`super`]: against the definition, written here.

extern crate std;
use super::*;
use crate::kernels::test_util::Lcg;
use crate::{Max, Min};
use std::vec::Vec;

/// The definition: the first NaN of the accumulator and the row, else the extreme.
fn naive<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    let mut m = acc;
    for &v in core::iter::once(&acc).chain(row) {
        if v.is_nan() {
            return v;
        }
        if D::better(v, m) {
            m = v;
        }
    }
    m
}

/// `i64`s bunched around a few values (ties), with the extremes of the type among them, and
/// any 64 bits (both signs, high halves that differ, equal high halves whose low halves differ
/// across the sign bit of 32-bit lanes).
fn int(g: &mut Lcg) -> i64 {
    match g.next() % 8 {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => -1,
        3 => ((g.next() << 40) ^ (g.next() << 20) ^ g.next()) as i64,
        4 => ((g.next() % 3) as i64 - 1) << 32 | (g.next() << 1 & 0xffff_ffff) as i64,
        _ => (g.next() % 9) as i64 - 4,
    }
}

/// `f64`s with ties, zeros of both signs and infinities (NaN placed by the caller).
fn float(g: &mut Lcg) -> f64 {
    match g.next() % 8 {
        0 => f64::NEG_INFINITY,
        1 => f64::INFINITY,
        2 => -0.0,
        3 => 0.0,
        4 => f64::MIN,
        _ => (g.next() % 9) as f64 - 4.5,
    }
}

/// Rows of `N` of `T` from `draw` through the kernel, afresh and into accumulators (for `f64`
/// some NaN, and about one row in twelve with a NaN), for row counts around whole groups of
/// four; lengths the kernel does not take leave `y` as it was.
fn check<T: Element, D: Direction, const N: usize, const FRESH: bool>(
    g: &mut Lcg,
    draw: fn(&mut Lcg) -> T,
    nan: Option<T>,
) {
    for rows in [0, 1, 3, 4, 5, 8, 11, 13, 64] {
        let mut x: Vec<T> = (0..rows * N).map(|_| draw(g)).collect();
        if let Some(nan) = nan {
            for row in x.chunks_exact_mut(N) {
                if g.next().is_multiple_of(12) {
                    row[(g.next() as usize) % N] = nan;
                }
            }
        }
        let acc: Vec<T> = (0..rows)
            .map(|r| match nan {
                Some(nan) if r % 7 == 2 => nan,
                _ => draw(g),
            })
            .collect();
        let mut y = acc.clone();
        let done = reduce_rows::<T, D, N, FRESH>(&mut y, &x);
        assert_eq!(
            done,
            (MIN_ROW..=MAX_ROW).contains(&N) && isa::level() >= isa::AVX2,
            "{N}"
        );
        if !done {
            assert!(y
                .iter()
                .zip(&acc)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan())));
            continue;
        }
        for (k, (&got, &a)) in y.iter().zip(&acc).enumerate() {
            let start = if FRESH { D::identity::<T>() } else { a };
            let want = naive::<T, D>(start, &x[k * N..(k + 1) * N]);
            // Of equal values either may stand (a zero's sign is unspecified).
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "{:?} {N} fresh {FRESH} rows {rows} row {k}: {got:?} {want:?}",
                T::DTYPE
            );
        }
    }
}

#[test]
fn eight_byte_rows_match_the_definition() {
    let mut g = Lcg(41);
    macro_rules! each {
        ($($n:literal)*) => {$(
            check::<i64, Max, $n, true>(&mut g, int, None);
            check::<i64, Min, $n, false>(&mut g, int, None);
            check::<i64, Max, $n, false>(&mut g, int, None);
            check::<i64, Min, $n, true>(&mut g, int, None);
            check::<f64, Max, $n, true>(&mut g, float, Some(f64::NAN));
            check::<f64, Min, $n, false>(&mut g, float, Some(f64::NAN));
            check::<f64, Max, $n, false>(&mut g, float, Some(f64::NAN));
            check::<f64, Min, $n, true>(&mut g, float, Some(f64::NAN));
        )*};
    }
    each!(2 3 4 5 6 7 8 9 12 15 16 17 20 23 24 31 32);
}

#[test]
fn other_types_are_left_alone() {
    let x = [3i32; 40];
    let mut y = [0i32; 8];
    assert!(!reduce_rows::<i32, Max, 5, true>(&mut y, &x));
    assert_eq!(y, [0; 8]);
}

/// Rows of every length from 0 to 70 and a long one through [`row_extreme`]: `None` under
/// eight elements (and without AVX2), otherwise whether the row holds a NaN and, when it does
/// not, its extreme.
fn check_row<T: Element, D: Direction>(g: &mut Lcg, draw: fn(&mut Lcg) -> T, nan: Option<T>) {
    for len in (0..=70).chain([1000, 1003]) {
        for round in 0..4 {
            let mut row: Vec<T> = (0..len).map(|_| draw(g)).collect();
            if let (Some(nan), true) = (nan, round % 2 == 1 && len > 0) {
                row[(g.next() as usize) % len] = nan;
            }
            let got = row_extreme::<T, D>(&row);
            let taken = len >= 8 && isa::level() >= isa::AVX2;
            assert_eq!(got.is_some(), taken, "{len}");
            let Some((m, has_nan)) = got else {
                continue;
            };
            let want = naive::<T, D>(D::identity::<T>(), &row);
            assert_eq!(has_nan, want.is_nan(), "{:?} {len}", T::DTYPE);
            if !has_nan {
                assert!(m == want, "{:?} {len}: {m:?} {want:?}", T::DTYPE);
            }
        }
    }
}

#[test]
fn the_extreme_of_a_row_matches_the_definition() {
    let mut g = Lcg(43);
    check_row::<i64, Max>(&mut g, int, None);
    check_row::<i64, Min>(&mut g, int, None);
    check_row::<f64, Max>(&mut g, float, Some(f64::NAN));
    check_row::<f64, Min>(&mut g, float, Some(f64::NAN));
    assert!(row_extreme::<i32, Max>(&[1; 40]).is_none());
}

/// Planes' parts of every tile length around the kernel's sixteen and four lanes through
/// [`fold_planes`]: whether they hold a NaN and, when they do not, each lane's extreme down the
/// planes; `None` for tiles under four, and for parts past the end of `x`.
fn check_planes<T: Element, D: Direction>(g: &mut Lcg, draw: fn(&mut Lcg) -> T, nan: Option<T>) {
    for planes in [1, 2, 3, 7] {
        for len in [0, 3, 4, 5, 7, 15, 16, 17, 20, 33, 64, 255, 256] {
            let (plane, at) = (len + 9, 5);
            let mut x: Vec<T> = (0..planes * plane).map(|_| draw(g)).collect();
            let with_nan = nan.is_some() && g.next().is_multiple_of(3) && len > 0;
            if let (Some(nan), true) = (nan, with_nan) {
                let p = (g.next() as usize) % planes;
                x[p * plane + at + (g.next() as usize) % len] = nan;
            }
            let mut tile = std::vec![draw(g); len];
            let got = fold_planes::<T, D>(&mut tile, &x, planes, plane, at);
            let taken = len >= 4 && isa::level() >= isa::AVX2;
            assert_eq!(got.is_some(), taken, "{len}");
            let Some(has_nan) = got else {
                continue;
            };
            assert_eq!(
                has_nan,
                with_nan,
                "{:?} planes {planes} len {len}",
                T::DTYPE
            );
            if has_nan {
                continue;
            }
            for (k, &t) in tile.iter().enumerate() {
                let column: Vec<T> = (0..planes).map(|p| x[p * plane + at + k]).collect();
                let want = naive::<T, D>(D::identity::<T>(), &column);
                assert!(
                    t == want,
                    "{:?} planes {planes} len {len} lane {k}",
                    T::DTYPE
                );
            }
        }
    }
    // Parts that would run past the end of `x`: nothing done.
    let x: Vec<T> = (0..40).map(|_| draw(g)).collect();
    let mut tile = std::vec![draw(g); 8];
    assert!(fold_planes::<T, D>(&mut tile, &x, 2, 30, 5).is_none());
}

#[test]
fn planes_fold_matches_the_definition() {
    let mut g = Lcg(47);
    check_planes::<i64, Max>(&mut g, int, None);
    check_planes::<i64, Min>(&mut g, int, None);
    check_planes::<f64, Max>(&mut g, float, Some(f64::NAN));
    check_planes::<f64, Min>(&mut g, float, Some(f64::NAN));
}
