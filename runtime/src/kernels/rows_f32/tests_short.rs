//! Tests of the short-row kernels of [`super`] (columns, widened types): against the definition
//! written in `test_util`.

extern crate std;
use super::*;
use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
use crate::Max;
use std::vec::Vec;

#[test]
fn short_rows_in_columns_match_the_definition() {
    fn check<D: Direction, const LAST: bool>(x: &[f32], n: usize, rows: usize) {
        let ctx = std::format!("n={n} rows={rows} min={} last={LAST}", D::IS_MIN);
        // The whole groups of eight whose loads (eight elements, four for rows of up to four,
        // from each row's start) stay within `x`: counted here group by group.
        let width = if n <= 4 { 4 } else { 8 };
        let groups = (0..)
            .take_while(|q| 8 * (q + 1) <= rows && (8 * q + 7) * n + width <= x.len())
            .count();
        let mut idx = std::vec![-1i64; rows];
        let mut vals = std::vec![7.5f32; rows];
        // SAFETY: `available` was checked by the caller.
        let done = unsafe {
            columns::arg_columns::<D, LAST, true, i64, false>(
                x,
                &mut idx,
                &mut vals,
                Ones::none(),
                n,
            )
        };
        assert_eq!(done, groups * 8, "{ctx}");
        for (i, row) in x.chunks_exact(n).enumerate() {
            if i >= done {
                assert_eq!(
                    (idx[i], vals[i]),
                    (-1, 7.5),
                    "{ctx}: row {i} past the groups"
                );
                continue;
            }
            let want = naive_arg::<f32, D>(row, LAST);
            assert_eq!(idx[i] as usize, want, "{ctx}: row {i} {row:?}");
            let (got, want) = (vals[i], row[want]);
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "{ctx}: value {got} vs {want} in row {i}"
            );
        }
        // Through the entry point (the rows past the groups by the other kernels), as `u8`.
        let mut all = std::vec![0u8; rows];
        assert!(arg_rows::<f32, D, LAST, u8>(x, &mut all, n), "{ctx}");
        for (i, row) in x.chunks_exact(n).enumerate() {
            let want = naive_arg::<f32, D>(row, LAST);
            assert_eq!(usize::from(all[i]), want, "{ctx}: entry row {i} {row:?}");
        }
    }
    if !avx2::available() {
        return;
    }
    let mut g = Lcg(8);
    for n in columns::MIN_ROW..=columns::MAX_ROW {
        for rows in [0, 1, 7, 8, 9, 15, 16, 17, 24, 64, 65] {
            for nan_every in [0, 7, 1] {
                let mut x: Vec<f32> = (0..rows * n).map(|_| f32_pool(&mut g, false)).collect();
                if nan_every > 0 {
                    for row in x.chunks_exact_mut(n) {
                        if g.next().is_multiple_of(nan_every) {
                            row[(g.next() as usize) % n] = f32::NAN;
                        }
                    }
                }
                check::<Max, false>(&x, n, rows);
                check::<Max, true>(&x, n, rows);
                check::<crate::Min, false>(&x, n, rows);
                check::<crate::Min, true>(&x, n, rows);
            }
        }
    }
}

#[test]
fn widened_rows_match_the_definition() {
    use crate::{bf16, f16};
    fn check<T: Element, D: Direction, const LAST: bool>(x: &[T], n: usize) {
        let rows = x.len() / n;
        let mut y = std::vec![-1i64; rows];
        let taken = widened::fits::<T>(n);
        assert_eq!(arg_rows_widened::<T, D, LAST, i64>(x, &mut y, n), taken);
        if !taken {
            assert!(y.iter().all(|&i| i == -1));
            return;
        }
        for (i, row) in x.chunks_exact(n).enumerate() {
            let want = naive_arg::<T, D>(row, LAST);
            assert_eq!(y[i] as usize, want, "{:?} n={n} row {i}", T::DTYPE);
        }
    }
    fn each<T: Element>(g: &mut Lcg, of: impl Fn(f32) -> T, nan: &[T]) {
        for n in 1..=widened::MAX_ROW + 1 {
            // Past a tile of 1024 elements for every length (rows of two: 512 a tile).
            for rows in [0, 1, 7, 9, 63, 600] {
                let mut x: Vec<T> = (0..rows * n).map(|_| of(f32_pool(g, false))).collect();
                for row in x.chunks_exact_mut(n) {
                    if g.next().is_multiple_of(5) {
                        row[(g.next() as usize) % n] = nan[(g.next() as usize) % nan.len()];
                    }
                }
                check::<T, Max, false>(&x, n);
                check::<T, Max, true>(&x, n);
                check::<T, crate::Min, false>(&x, n);
                check::<T, crate::Min, true>(&x, n);
            }
        }
    }
    let mut g = Lcg(16);
    // NaN of both signs and other payloads.
    let f16_nan = [0x7e00, 0xfe00, 0x7c01, 0xffff].map(f16::from_bits);
    let bf16_nan = [0x7fc0, 0xffc0, 0x7f81].map(bf16::from_bits);
    each::<f16>(&mut g, f16::from_f32, &f16_nan);
    each::<bf16>(&mut g, bf16::from_f32, &bf16_nan);
    // u8: the pool's values shifted into range (ties, 0 and 255 included).
    each::<u8>(
        &mut g,
        |v| if v.is_finite() { (v + 6.0) as u8 } else { 255 },
        &[0],
    );
    // Types it does not take.
    let mut y = [0i64; 4];
    assert!(!arg_rows_widened::<i32, Max, false, i64>(
        &[1; 20], &mut y, 5
    ));
    assert!(!arg_rows_widened::<f64, Max, false, i64>(
        &[1.0; 20], &mut y, 5
    ));
}

/// Rows for a Hardmax test: values from the shared pool (ties, ±0, infinities), a NaN of either
/// sign in about one row in five.
fn hardmax_rows(g: &mut Lcg, rows: usize, n: usize) -> Vec<f32> {
    let mut x = Vec::with_capacity(rows * n);
    for _ in 0..rows {
        let nan = g.next().is_multiple_of(5);
        for _ in 0..n {
            let v = f32_pool(g, nan);
            x.push(if v.is_nan() && g.next().is_multiple_of(2) {
                -v
            } else {
                v
            });
        }
    }
    x
}

/// Checks `y` against the Hardmax of the first `done` rows of `n` of `x`, and that the rows past
/// them kept `y`'s first value (nothing written there).
fn check_hardmax(x: &[f32], y: &[f32], n: usize, done: usize, ctx: &str) {
    for (i, (row, out)) in x.chunks_exact(n).zip(y.chunks_exact(n)).enumerate() {
        if i >= done {
            assert!(
                out.iter().all(|&v| v == 9.0),
                "{ctx}: row {i} past the groups"
            );
            continue;
        }
        let at = naive_arg::<f32, Max>(row, false);
        for (j, &v) in out.iter().enumerate() {
            let want = if j == at { 1.0 } else { 0.0 };
            assert!(v == want, "{ctx}: row {i} {row:?}: output {j} is {v}");
        }
    }
}

#[test]
fn hardmax_groups_match_the_definition() {
    if !avx2::available() {
        return;
    }
    let mut g = Lcg(23);
    // Every length of the two kernels with the length known at run time, whole groups and a
    // part, a group's loads reaching the input's end (columns).
    for n in columns::MIN_ROW..=eights::MAX_ROW {
        for rows in [7, 8, 9, 16, 21, 64, 67] {
            let x = hardmax_rows(&mut g, rows, n);
            let mut y = std::vec![9.0f32; rows * n];
            let done = hardmax_groups::<f32, 0>(&x, &mut y, n);
            let ctx = std::format!("n={n} rows={rows}");
            assert!(
                done.is_multiple_of(8) && done <= rows && done + 16 > rows,
                "{ctx}: {done} done"
            );
            if n > columns::MAX_ROW {
                assert_eq!(done, rows / 8 * 8, "{ctx}");
            }
            check_hardmax(&x, &y, n, done, &ctx);
        }
    }
    // The instances with the length a constant (the shims of short rows), and a length that
    // does not match the constant: nothing done.
    macro_rules! constant {
        ($($n:literal)*) => {$(
            let x = hardmax_rows(&mut g, 67, $n);
            let mut y = std::vec![9.0f32; 67 * $n];
            let done = hardmax_groups::<f32, $n>(&x, &mut y, $n);
            assert_eq!(done, 64, "n={}", $n);
            check_hardmax(&x, &y, $n, done, &std::format!("constant n={}", $n));
            assert_eq!(hardmax_groups::<f32, $n>(&x, &mut y, $n + 1), 0);
        )*};
    }
    constant!(8 9 16 17 20 31 32 33 40 57 64);
    // Not f32, or too long: nothing done.
    let mut y = std::vec![0.0f64; 80];
    assert_eq!(hardmax_groups::<f64, 0>(&[1.0; 80], &mut y, 10), 0);
    let mut y = std::vec![0.0f32; 650];
    assert_eq!(hardmax_groups::<f32, 0>(&[1.0; 650], &mut y, 65), 0);
}

#[test]
fn hardmax_rows_one_at_a_time_match_the_definition() {
    if !avx2::available() {
        return;
    }
    let mut g = Lcg(29);
    // Every length of the lanes that keep their positions (16 to 128) and of the fold and
    // search below and past them, parts of the long rows (1024 elements, the last part up to
    // 1031) and their edges; one row (a small model's), a few, and more than a group.
    let lengths = (8..=140).chain([255, 256, 1000, 1031, 1032, 1033, 2055, 2056, 2057, 3000]);
    for n in lengths {
        for rows in [1, 2, 7, 9] {
            let x = hardmax_rows(&mut g, rows, n);
            let mut y = std::vec![9.0f32; rows * n];
            let ctx = std::format!("n={n} rows={rows}");
            assert!(hardmax_rows_one::<f32, 0>(&x, &mut y, n), "{ctx}");
            check_hardmax(&x, &y, n, rows, &ctx);
        }
    }
    // A long row whose maximum repeats in a later part (the first part's is the one), and
    // whose NaN sits in the last part only.
    let mut x = std::vec![1.0f32; 3000];
    x[5] = 2.0;
    x[2500] = 2.0;
    let mut y = std::vec![9.0f32; 3000];
    assert!(hardmax_rows_one::<f32, 0>(&x, &mut y, 3000));
    check_hardmax(&x, &y, 3000, 1, "repeated maximum");
    x[2999] = f32::NAN;
    assert!(hardmax_rows_one::<f32, 0>(&x, &mut y, 3000));
    check_hardmax(&x, &y, 3000, 1, "NaN in the last part");
    // The instances with the length a constant (a small model's rows), and a length that does
    // not match the constant: nothing done.
    macro_rules! constant {
        ($($n:literal)*) => {$(
            for rows in [1, 3, 11] {
                let x = hardmax_rows(&mut g, rows, $n);
                let mut y = std::vec![9.0f32; rows * $n];
                assert!(hardmax_rows_one::<f32, $n>(&x, &mut y, $n));
                check_hardmax(&x, &y, $n, rows, &std::format!("constant n={} rows={rows}", $n));
                assert!(!hardmax_rows_one::<f32, $n>(&x, &mut y, $n + 1));
            }
        )*};
    }
    constant!(8 15 16 20 33 80 128 129 1000);
    // Not f32, too short, or outputs not as long as the input: nothing done.
    let mut y = std::vec![0.0f64; 80];
    assert!(!hardmax_rows_one::<f64, 0>(&[1.0; 80], &mut y, 10));
    let mut y = std::vec![0.0f32; 70];
    assert!(!hardmax_rows_one::<f32, 0>(&[1.0; 70], &mut y, 7));
    assert!(!hardmax_rows_one::<f32, 0>(&[1.0; 80], &mut y, 10));
}

/// Rows of 65 to past [`eights::ARG_MAX_ROW`] through the entry points, whole groups of eight
/// rows (the kernel of eight rows at a time, bits in two or three words) and the rows left over
/// (the one-row kernels): spread values, the small pool (ties, zeros of both signs, infinities),
/// the extreme at either end of a row and about the words' bounds, and a NaN in one row of a
/// group (the group then by the exact rule).
#[cfg(not(feature = "small-code"))]
#[test]
fn eight_rows_of_up_to_three_words_match_the_definition() {
    use super::tests::check_rows;
    let mut g = Lcg(29);
    for n in [65, 72, 80, 127, 128, 129, 136, 137, 150, 159, 160, 161] {
        for rows in [8, 9, 16, 19] {
            let spread: Vec<f32> = (0..rows * n)
                .map(|_| (g.next() % 100_000) as f32 - 50_000.0)
                .collect();
            let pool: Vec<f32> = (0..rows * n).map(|_| f32_pool(&mut g, false)).collect();
            for (what, x) in [("spread", &spread), ("pool", &pool)] {
                let ctx = std::format!("n={n} rows={rows} {what}");
                check_rows::<Max>(x, n, &ctx);
                check_rows::<crate::Min>(x, n, &ctx);
            }
            // The extreme planted at a row's ends and about the bounds of its 64-bit words,
            // once alone and once twice (the tie rules then choose).
            let mut x = spread.clone();
            for (r, row) in x.chunks_exact_mut(n).enumerate() {
                let spots = [0, 63, 64, 127, 128, n - 9, n - 8, n - 1];
                let a = spots[r % spots.len()].min(n - 1);
                row[a] = 1e30;
                if r % 2 == 1 {
                    row[spots[(r + 3) % spots.len()].min(n - 1)] = 1e30;
                }
            }
            check_rows::<Max>(&x, n, &std::format!("n={n} rows={rows} planted"));
            let mut w = x.clone();
            let at = (g.next() as usize) % w.len();
            w[at] = f32::NAN;
            check_rows::<Max>(&w, n, &std::format!("n={n} rows={rows} one NaN"));
            check_rows::<crate::Min>(&w, n, &std::format!("n={n} rows={rows} one NaN"));
        }
    }
}

/// The AVX-512 kernel of eight rows of 16 to 64 (`eights512`), where the CPU has it, and the
/// AVX2 one on the same rows against the definition through the entry points: every length from
/// 15 to 66 (each side of the AVX-512 kernel's bounds and of its vectors'), whole groups and the
/// rows after them, spread values, the small pool (ties, zeros of both signs, infinities), the
/// extreme planted about the vectors' bounds and the overlapping last vector, once and twice,
/// and a NaN in one row of a group.
#[cfg(not(feature = "small-code"))]
#[test]
fn eight_rows_in_avx512_match_the_definition() {
    use super::tests::check_rows;
    use crate::kernels::isa;
    let builds = crate::kernels::test_util::vector_builds();
    for &build in builds {
        isa::HERE.with(|c| c.set(Some(build)));
        let mut g = Lcg(31);
        for n in 15..=66 {
            for rows in [8, 11, 16] {
                let spread: Vec<f32> = (0..rows * n)
                    .map(|_| (g.next() % 100_000) as f32 - 50_000.0)
                    .collect();
                let pool: Vec<f32> = (0..rows * n).map(|_| f32_pool(&mut g, false)).collect();
                for (what, x) in [("spread", &spread), ("pool", &pool)] {
                    let ctx = std::format!("build {build} n={n} rows={rows} {what}");
                    check_rows::<Max>(x, n, &ctx);
                    check_rows::<crate::Min>(x, n, &ctx);
                }
                let mut x = spread.clone();
                for (r, row) in x.chunks_exact_mut(n).enumerate() {
                    let spots = [
                        0,
                        15,
                        16,
                        31,
                        32,
                        47,
                        48,
                        63,
                        n.saturating_sub(17),
                        n.saturating_sub(16),
                        n - 1,
                    ];
                    let a = spots[r % spots.len()].min(n - 1);
                    row[a] = -1e30;
                    if r % 2 == 1 {
                        row[spots[(r + 4) % spots.len()].min(n - 1)] = -1e30;
                    }
                }
                let ctx = std::format!("build {build} n={n} rows={rows}");
                check_rows::<crate::Min>(&x, n, &std::format!("{ctx} planted"));
                let mut w = x.clone();
                let at = (g.next() as usize) % w.len();
                w[at] = f32::NAN;
                check_rows::<Max>(&w, n, &std::format!("{ctx} one NaN"));
                check_rows::<crate::Min>(&w, n, &std::format!("{ctx} one NaN"));
            }
        }
    }
    isa::HERE.with(|c| c.set(None));
}
