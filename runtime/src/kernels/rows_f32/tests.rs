//! Tests of [`super`]: against references written here.

extern crate std;
use super::*;
#[cfg(not(feature = "small-code"))]
use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
use crate::Max;
#[cfg(not(feature = "small-code"))]
use std::vec::Vec;

#[cfg(not(feature = "small-code"))]
/// The definition: the first NaN of the accumulator and the row, else the extreme.
pub(super) fn naive_fold<D: Direction>(acc: f32, row: &[f32]) -> f32 {
    let all: Vec<f32> = core::iter::once(acc).chain(row.iter().copied()).collect();
    if let Some(&n) = all.iter().find(|v| v.is_nan()) {
        return n;
    }
    all.iter()
        .fold(acc, |a, &v| if D::better(v, a) { v } else { a })
}

#[cfg(not(feature = "small-code"))]
/// The AVX2 reduction ([`avx2::reduce_rows`]), instantiated for the lengths generated code
/// passes it as constants (rows under 32) and a few longer ones; `false` for other lengths or
/// where this CPU lacks AVX2.
fn avx2_reduce<D: Direction>(y: &mut [f32], x: &[f32], n: usize) -> bool {
    macro_rules! each {
        ($($n:literal)*) => {
            match n {
                // SAFETY: `available` found the features the kernel is compiled for.
                $($n if avx2::available() => unsafe { avx2::reduce_rows::<D, $n>(y, x) },)*
                _ => return false,
            }
        };
    }
    each!(
        8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 40 47 64 100 127 128
    );
    true
}

#[cfg(not(feature = "small-code"))]
/// Rows of `n`, NaN in about one row of `nan_every` (0: none), through the reduction (into
/// accumulators, some NaN) and the arg-reduction (as i64 and as u8), both tie rules.
fn case<D: Direction>(g: &mut Lcg, n: usize, rows: usize, nan_every: u64) {
    let mut x: Vec<f32> = (0..rows * n).map(|_| f32_pool(g, false)).collect();
    if nan_every > 0 {
        for row in x.chunks_exact_mut(n) {
            if g.next().is_multiple_of(nan_every) {
                let at = (g.next() as usize) % n;
                row[at] = f32::NAN;
            }
        }
    }
    let acc: Vec<f32> = (0..rows)
        .map(|i| {
            if i % 13 == 5 {
                f32::NAN
            } else {
                f32_pool(g, false)
            }
        })
        .collect();
    let mut y = acc.clone();
    assert!(reduce_rows::<f32, D>(&mut y, &x, n));
    // Both kernels whichever this CPU runs through `reduce_rows`: SSE2, and AVX2 of constant
    // lengths where this CPU has it.
    let mut y_sse = acc.clone();
    reduce_sse::<D>(&mut y_sse, &x, n);
    let mut y_wide = acc.clone();
    let wide_reduce = avx2_reduce::<D>(&mut y_wide, &x, n);
    let instantiated = n < 33 || [40, 47, 64, 100, 127, 128].contains(&n);
    let expected = instantiated && n >= avx2::MIN_ROW && avx2::available();
    assert_eq!(wide_reduce, expected, "n={n}");
    let mut first = std::vec![-1i64; rows];
    let mut last = std::vec![0u8; rows];
    assert!(arg_rows::<f32, D, false, i64>(&x, &mut first, n));
    assert!(arg_rows::<f32, D, true, u8>(&x, &mut last, n));
    // Both kernels of the arg-reductions, whichever this CPU runs through `arg_rows`, with the
    // values of a fused reduction.
    let mut sse = [std::vec![-1i64; rows], std::vec![-1i64; rows]];
    let mut sse_v = [std::vec![7.5f32; rows], std::vec![7.5f32; rows]];
    arg_f32::<D, false, true, i64>(&x, &mut sse[0], &mut sse_v[0], n);
    arg_f32::<D, true, true, i64>(&x, &mut sse[1], &mut sse_v[1], n);
    let (mut wide, mut wide_v) = (sse.clone(), sse_v.clone());
    if avx2::available() {
        // SAFETY: `available` found the features the kernel is compiled for.
        unsafe {
            avx2::arg_rows::<D, false, true, i64>(&x, &mut wide[0], &mut wide_v[0], n);
            avx2::arg_rows::<D, true, true, i64>(&x, &mut wide[1], &mut wide_v[1], n);
        }
    }
    let (eight, eight_v) = eight_rows::<D>(&x, n, &sse, &sse_v);
    // The debug builds' instances of constant lengths: the same results, for rows of 4-31.
    let short = (4..32).contains(&n);
    // Rows of two with their values: the AVX2 pairs, where the CPU has them
    // (`arg_wide_dynamic`; without values it declines them).
    let pairs = n == 2 && avx2::available();
    let mut y_fixed = acc.clone();
    let mut first_fixed = std::vec![-1i64; rows];
    let mut last_fixed = std::vec![-1i64; rows];
    assert_eq!(reduce_short_fixed::<D>(&mut y_fixed, &x, n), short);
    assert_eq!(arg_short_fixed::<D, false>(&x, &mut first_fixed, n), short);
    if n == 2 {
        assert!(!arg_wide_dynamic::<D, false, false>(
            &x,
            &mut first_fixed,
            &mut [],
            n
        ));
        // The same rows by the optimized builds' kernel, compared below.
        arg_f32::<D, false, false, i64>(&x, &mut first_fixed, &mut [], n);
    }
    let mut pairs_v = std::vec![7.5f32; rows];
    if pairs {
        assert!(arg_wide_dynamic::<D, true, true>(
            &x,
            &mut last_fixed,
            &mut pairs_v,
            n
        ));
    } else {
        assert_eq!(arg_short_fixed::<D, true>(&x, &mut last_fixed, n), short);
    }
    if short || pairs {
        let same = |a: f32, b: f32| a == b || (a.is_nan() && b.is_nan());
        if short {
            assert!(y_fixed.iter().zip(&y).all(|(&a, &b)| same(a, b)), "n={n}");
        }
        assert_eq!(first_fixed, first, "n={n}");
        let last_wide: Vec<i64> = last.iter().map(|&l| i64::from(l)).collect();
        assert_eq!(last_fixed, last_wide, "n={n}");
    }
    if pairs {
        for (i, row) in x.chunks_exact(2).enumerate() {
            let (got, want) = (pairs_v[i], row[last[i] as usize]);
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "pairs value row {i}"
            );
        }
    }
    for (i, row) in x.chunks_exact(n).enumerate() {
        let ctx = std::format!("n={n} min={} row {i}: {row:?}", D::IS_MIN);
        let want = naive_fold::<D>(acc[i], row);
        assert!(
            y[i] == want || (y[i].is_nan() && want.is_nan()),
            "{ctx}: {} vs {want}",
            y[i]
        );
        let got = y_sse[i];
        let ok = got == want || (got.is_nan() && want.is_nan());
        assert!(ok, "sse2 reduce {ctx}: {got} vs {want}");
        if wide_reduce {
            let got = y_wide[i];
            let ok = got == want || (got.is_nan() && want.is_nan());
            assert!(ok, "avx2 reduce {ctx}: {got} vs {want}");
        }
        assert_eq!(first[i] as usize, naive_arg::<f32, D>(row, false), "{ctx}");
        assert_eq!(last[i] as usize, naive_arg::<f32, D>(row, true), "{ctx}");
        let kernels = [
            ("sse2", &sse, &sse_v),
            ("avx2", &wide, &wide_v),
            ("eights", &eight, &eight_v),
        ];
        for (kernel, idx, vals) in kernels {
            for (rule, last) in [(0, false), (1, true)] {
                let want = naive_arg::<f32, D>(row, last);
                assert_eq!(idx[rule][i] as usize, want, "{kernel} last={last} {ctx}");
                // The extreme (a zero of either sign: the contract leaves it open; any NaN).
                let (got, want) = (vals[rule][i], row[want]);
                let ok = got == want || (got.is_nan() && want.is_nan());
                assert!(ok, "{kernel} value {got} vs {want}: {ctx}");
            }
        }
    }
}

#[cfg(not(feature = "small-code"))]
/// The eight-row kernel ([`eights`]) over whole groups of eight, both rules, with values,
/// starting from the SSE2 results (the rows past the groups keep them); checks how many rows it
/// took.
fn eight_rows<D: Direction>(
    x: &[f32],
    n: usize,
    sse: &[Vec<i64>; 2],
    sse_v: &[Vec<f32>; 2],
) -> ([Vec<i64>; 2], [Vec<f32>; 2]) {
    let rows = x.len() / n.max(1);
    let (mut eight, mut eight_v) = (sse.clone(), sse_v.clone());
    if !avx2::available() {
        return (eight, eight_v);
    }
    for (rule, last) in [(0, false), (1, true)] {
        // SAFETY: `available` found the features the kernel is compiled for.
        let done = unsafe {
            if last {
                eights::arg_eights::<D, true, true, i64>(x, &mut eight[1], &mut eight_v[1], n)
            } else {
                eights::arg_eights::<D, false, true, i64>(x, &mut eight[0], &mut eight_v[0], n)
            }
        };
        let fits = (eights::MIN_ROW..=eights::ARG_MAX_ROW).contains(&n);
        assert_eq!(
            done,
            if fits { rows / 8 * 8 } else { 0 },
            "n={n} rule {rule}"
        );
    }
    (eight, eight_v)
}

#[cfg(not(feature = "small-code"))]
fn lengths<D: Direction>(g: &mut Lcg) {
    for n in (4..=MAX_ROW).chain([2]) {
        for rows in [0, 1, 3, 4, 5, 8, 9, 16, 63] {
            for nan_every in [0, 7, 1] {
                case::<D>(g, n, rows, nan_every);
            }
        }
    }
}

// With `small-code` these kernels are off (`fits` is false, checked below): the fallback
// kernels they would replace have their own tests.
#[cfg(not(feature = "small-code"))]
#[test]
fn f32_rows_match_the_definition() {
    // Twice where the CPU has AVX2: rows of two take it inside the SSE2 kernel's entry points
    // (`arg_f32`, `reduce_sse`), so the second time checks their SSE2 forms.
    for sse2 in [false, true] {
        avx2::SSE2_ONLY.with(|c| c.set(sse2));
        let mut g = Lcg(21);
        lengths::<Max>(&mut g);
        lengths::<crate::Min>(&mut g);
    }
    avx2::SSE2_ONLY.with(|c| c.set(false));
}

#[cfg(not(feature = "small-code"))]
#[test]
fn hardmax_of_pairs_matches_the_definition() {
    // Rows of two through the AVX2 kernel (eight rows at a time) and the rows it leaves: 1 at
    // the first maximum or the first NaN, 0 at the other, whatever the pair holds.
    let mut g = Lcg(4);
    for rows in [0, 1, 7, 8, 9, 16, 23, 64, 131] {
        for nan in [false, true] {
            let x: Vec<f32> = (0..rows * 2).map(|_| f32_pool(&mut g, nan)).collect();
            let mut y = std::vec![-1.0f32; rows * 2];
            let done = hardmax_pairs::<f32>(&x, &mut y);
            let whole = if avx2::available() { rows / 8 * 8 } else { 0 };
            assert_eq!(done, whole, "{rows} rows");
            for (i, (row, out)) in x
                .chunks_exact(2)
                .zip(y.chunks_exact(2))
                .enumerate()
                .take(done)
            {
                let at = naive_arg::<f32, Max>(row, false);
                let want = [f32::from(u8::from(at == 0)), f32::from(u8::from(at == 1))];
                assert_eq!(out, want, "row {i} of {rows}: {row:?}");
            }
            // The rows past the whole groups are left to the caller.
            assert!(y[done * 2..].iter().all(|&v| v == -1.0), "{rows} rows");
        }
    }
}

#[cfg(not(feature = "small-code"))]
#[test]
fn the_constant_lengths_are_4_to_31() {
    let x = [1.0f32; 64];
    for n in [0, 1, 2, 3, 32, 33, 64] {
        let mut y = [0.0f32; 64];
        let mut i = [0i64; 64];
        assert!(!reduce_short_fixed::<Max>(&mut y, &x, n), "{n}");
        assert!(!arg_short_fixed::<Max, false>(&x, &mut i, n), "{n}");
    }
}

#[test]
fn only_f32_and_the_lengths_it_handles_are_taken() {
    if cfg!(feature = "small-code") {
        assert!(!fits::<f32>(2) && !fits::<f32>(4) && !fits::<f32>(MAX_ROW));
        return;
    }
    assert!(fits::<f32>(2) && fits::<f32>(4) && fits::<f32>(MAX_ROW));
    assert!(!fits::<f32>(1) && !fits::<f32>(3) && !fits::<f32>(MAX_ROW + 1));
    assert!(!fits::<f64>(4) && !fits::<i32>(4));
    let mut y = [0i32; 2];
    assert!(!reduce_rows::<i32, Max>(&mut y, &[1; 8], 4));
    assert_eq!(y, [0, 0]);
}

#[cfg(not(feature = "small-code"))]
#[test]
fn a_zero_of_either_sign_ties() {
    // -0 and +0 are equal: the first (or last) of them is the position, whichever sign the
    // reduction returns.
    for n in [8, 40, 100] {
        let mut row = std::vec![-3.0f32; n];
        row[1] = -0.0;
        row[n / 2] = 0.0;
        row[n - 2] = -0.0;
        let x = row.repeat(4);
        let mut first = [0i64; 4];
        let mut last = [0i64; 4];
        assert!(arg_rows::<f32, Max, false, i64>(&x, &mut first, n));
        assert!(arg_rows::<f32, Max, true, i64>(&x, &mut last, n));
        assert_eq!((first, last), ([1; 4], [n as i64 - 2; 4]), "n={n}");
        let mut y = [f32::NEG_INFINITY; 4];
        assert!(reduce_rows::<f32, Max>(&mut y, &x, n));
        assert_eq!(y, [0.0; 4]);
    }
}

#[cfg(not(feature = "small-code"))]
/// The NaN-free reduction of the planes' tiles (rows of 4 to 16, eight at a time in AVX2)
/// against the definition: ties, zeros of both signs, infinities, accumulators that are NaN,
/// and rows past the last group of eight; other lengths, and CPUs without AVX2, do nothing.
#[test]
fn nan_free_rows_match_the_definition() {
    fn check<D: Direction, const N: usize>(g: &mut Lcg) {
        for rows in [0, 1, 7, 8, 9, 16, 23, 64] {
            let x: Vec<f32> = (0..rows * N).map(|_| f32_pool(g, false)).collect();
            let acc: Vec<f32> = (0..rows)
                .map(|r| {
                    if r % 5 == 3 {
                        f32::NAN
                    } else {
                        f32_pool(g, false)
                    }
                })
                .collect();
            let mut y = acc.clone();
            let done = reduce_rows_nan_free::<f32, D, N>(&mut y, &x);
            assert_eq!(done, (4..=16).contains(&N) && avx2::available(), "{N}");
            if !done {
                assert!(y.iter().zip(&acc).all(|(a, b)| a.to_bits() == b.to_bits()));
                continue;
            }
            for (k, (&got, &a)) in y.iter().zip(&acc).enumerate() {
                let want = naive_fold::<D>(a, &x[k * N..(k + 1) * N]);
                // Of equal values either may stand (a zero's sign is unspecified).
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "{N} rows {rows} row {k}: {got} {want}"
                );
            }
        }
    }
    let mut g = Lcg(11);
    macro_rules! each {
        ($($n:literal)*) => {$(
            check::<Max, $n>(&mut g);
            check::<crate::Min, $n>(&mut g);
        )*};
    }
    each!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17);
}

#[cfg(not(feature = "small-code"))]
/// The AVX2 reductions of rows of 3 to 15, eight rows to a vector, and the AVX-512 one of rows
/// of 17 to 64, eight rows at a time (in both builds where the CPU has AVX-512), folded into
/// accumulators (some NaN) and written afresh, against the definition: NaN at every place of a
/// group of eight rows and in rows past the last group, ties, zeros of both signs, infinities,
/// row counts around whole groups (rows of three read two elements past a group); other
/// lengths, and CPUs without the kernel's features, do nothing.
#[test]
fn short_reductions_match_the_definition() {
    fn check<D: Direction, const N: usize, const FRESH: bool>(g: &mut Lcg) {
        for rows in [0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 33, 64] {
            let mut x: Vec<f32> = (0..rows * N).map(|_| f32_pool(g, false)).collect();
            // About one row in sixteen has a NaN somewhere: most groups of eight have none.
            for row in x.chunks_exact_mut(N) {
                if g.next().is_multiple_of(16) {
                    row[(g.next() as usize) % N] = f32::NAN;
                }
            }
            let acc: Vec<f32> = (0..rows)
                .map(|r| {
                    if r % 7 == 4 {
                        f32::NAN
                    } else {
                        f32_pool(g, false)
                    }
                })
                .collect();
            let mut y = acc.clone();
            let done = short_reduce::reduce_short_avx2::<f32, D, N, FRESH>(&mut y, &x);
            let avx512 = crate::kernels::isa::level() >= crate::kernels::isa::AVX512;
            let takes =
                ((3..=15).contains(&N) && avx2::available()) || ((17..=64).contains(&N) && avx512);
            assert_eq!(done, takes, "{N}");
            if !done {
                assert!(y.iter().zip(&acc).all(|(a, b)| a.to_bits() == b.to_bits()));
                continue;
            }
            for (k, (&got, &a)) in y.iter().zip(&acc).enumerate() {
                let start = if FRESH { D::identity::<f32>() } else { a };
                let want = naive_fold::<D>(start, &x[k * N..(k + 1) * N]);
                // Of equal values either may stand (a zero's sign is unspecified).
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "{N} fresh {FRESH} rows {rows} row {k}: {got} {want}"
                );
            }
        }
    }
    let mut g = Lcg(29);
    macro_rules! each {
        ($($n:literal)*) => {$(
            check::<Max, $n, false>(&mut g);
            check::<Max, $n, true>(&mut g);
            check::<crate::Min, $n, false>(&mut g);
            check::<crate::Min, $n, true>(&mut g);
        )*};
    }
    // Rows of 17 to 64 take the AVX-512 kernel of eight rows where the CPU has it: both builds.
    use crate::kernels::isa;
    let builds = crate::kernels::test_util::vector_builds();
    for &build in builds {
        isa::HERE.with(|c| c.set(Some(build)));
        each!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 20 24 31 32 33 40 47 48 49 63 64 65);
    }
    isa::HERE.with(|c| c.set(None));
}

#[cfg(not(feature = "small-code"))]
/// The rows of `n` of `x` through `arg_rows` (the last index) and `arg_rows_values` (the
/// first, with values) against the definition; where the CPU lacks AVX2, that no kernel took them.
pub(super) fn check_rows<D: Direction>(x: &[f32], n: usize, ctx: &str) {
    let rows = x.len() / n;
    let mut first = std::vec![-1i64; rows];
    let mut last = std::vec![-1i64; rows];
    let mut vals = std::vec![7.5f32; rows];
    let taken = arg_rows_values::<f32, D, false, true, i64>(x, &mut first, &mut vals, n);
    assert_eq!(taken, avx2::available(), "{ctx}");
    assert_eq!(
        arg_rows::<f32, D, true, i64>(x, &mut last, n),
        taken,
        "{ctx}"
    );
    if !taken {
        return;
    }
    for (i, row) in x.chunks_exact(n).enumerate() {
        let ctx = std::format!("{ctx} min={} row {i}", D::IS_MIN);
        let want = naive_arg::<f32, D>(row, false);
        assert_eq!(first[i] as usize, want, "first {ctx}");
        assert_eq!(
            last[i] as usize,
            naive_arg::<f32, D>(row, true),
            "last {ctx}"
        );
        let (got, want) = (vals[i], row[want]);
        assert!(
            got == want || (got.is_nan() && want.is_nan()),
            "value {ctx}"
        );
    }
}

#[cfg(not(feature = "small-code"))]
/// The arg-reduction of rows longer than [`MAX_ROW`] (part by part, where this CPU has AVX2,
/// through `arg_rows` and `arg_rows_values`) against the definition: lengths about the parts'
/// bounds, the extreme in any part, equal extremes in several parts (the first or last of them
/// by the tie rule), zeros of both signs, infinities and NaN anywhere.
#[test]
fn long_arg_rows_match_the_definition() {
    let mut g = Lcg(11);
    let part = long::PART;
    for n in [
        MAX_ROW + 1,
        200,
        part - 1,
        part,
        part + 7,
        part + 8,
        part + 9,
        2 * part + 8,
        3 * part + 100,
    ] {
        // Three rows of spread values, three of the small pool (many ties, infinities, zeros).
        let mut x: Vec<f32> = (0..3 * n)
            .map(|_| (g.next() % 100_000) as f32 - 50_000.0)
            .collect();
        x.extend((0..3 * n).map(|_| f32_pool(&mut g, false)));
        check_rows::<Max>(&x, n, &std::format!("n={n} drawn"));
        check_rows::<crate::Min>(&x, n, &std::format!("n={n} drawn"));
        // The extreme planted at the parts' bounds and at random places, twice (the copy in
        // another part, or the same one), and as zeros of both signs over negative rows.
        let spots = [0, 7, part - 1, part, part + 7, n / 2, n - 9, n - 8, n - 1];
        for (k, &a) in spots.iter().enumerate() {
            let a = a.min(n - 1);
            // A second copy in every other case; otherwise the extreme is alone.
            let b = if k % 2 == 0 {
                (g.next() as usize) % n
            } else {
                a
            };
            let mut x: Vec<f32> = (0..n).map(|_| (g.next() % 1000) as f32 - 2000.0).collect();
            x[a] = 1e30;
            x[b] = 1e30;
            let mut y: Vec<f32> = x.iter().map(|&v| -v).collect();
            y[a] = -1e30;
            y[b] = -1e30;
            let ctx = std::format!("n={n} peaks at {a} and {b}");
            check_rows::<Max>(&x, n, &ctx);
            check_rows::<crate::Min>(&y, n, &ctx);
            let mut z: Vec<f32> = (0..n).map(|_| -1.0 - (g.next() % 1000) as f32).collect();
            z[a] = if k % 4 == 0 { -0.0 } else { 0.0 };
            z[b] = if k % 4 == 0 { 0.0 } else { -0.0 };
            check_rows::<Max>(&z, n, &std::format!("n={n} zeros at {a} and {b}"));
            // NaN at a spot: the first (last) NaN whatever the values.
            let mut w = x.clone();
            w[a] = f32::NAN;
            w[b] = f32::NAN;
            check_rows::<Max>(&w, n, &std::format!("n={n} NaN at {a} (and {b})"));
            check_rows::<crate::Min>(&w, n, &std::format!("n={n} NaN at {a} (and {b})"));
        }
    }
}

#[cfg(not(feature = "small-code"))]
#[test]
fn two_rows_match_the_definition() {
    // Blocks of two rows through the AVX2 kernel (lanes eight at a time, the last eight of a
    // block overlapping), both directions and tie rules, with the fused values.
    fn check<D: Direction, const LAST: bool>(x: &[f32], blocks: usize, inner: usize) {
        let (mut y, mut v) = (
            std::vec![-1i64; blocks * inner],
            std::vec![7.5f32; blocks * inner],
        );
        let mut y_only = y.clone();
        // SAFETY: `available` found AVX2.
        let (done, done_only) = unsafe {
            (
                pairs::arg_two_rows::<D, LAST, true>(x, &mut y, &mut v, inner),
                pairs::arg_two_rows::<D, LAST, false>(x, &mut y_only, &mut [], inner),
            )
        };
        assert_eq!(
            (done, done_only),
            (inner >= 8, inner >= 8),
            "{blocks}x2x{inner}"
        );
        if inner < 8 {
            assert!(y.iter().chain(&y_only).all(|&i| i == -1));
            return;
        }
        for b in 0..blocks {
            for j in 0..inner {
                let pair = [x[2 * b * inner + j], x[(2 * b + 1) * inner + j]];
                let want = naive_arg::<f32, D>(&pair, LAST);
                let ctx = std::format!("{blocks}x2x{inner} lane {j} last={LAST}: {pair:?}");
                assert_eq!(y[b * inner + j] as usize, want, "{ctx}");
                assert_eq!(y_only[b * inner + j] as usize, want, "{ctx}");
                let (got, want) = (v[b * inner + j], pair[want]);
                assert!(got == want || (got.is_nan() && want.is_nan()), "{ctx}");
            }
        }
    }
    if !avx2::available() {
        return;
    }
    let mut g = Lcg(8);
    // 8, 16, 24 and 32 lanes take the constant-width loop; the others the general one.
    for inner in [1, 7, 8, 9, 15, 16, 24, 32, 40, 64, 100] {
        for blocks in [0, 1, 3, 5] {
            for nan in [false, true] {
                let x: Vec<f32> = (0..blocks * 2 * inner)
                    .map(|_| f32_pool(&mut g, nan))
                    .collect();
                check::<Max, false>(&x, blocks, inner);
                check::<Max, true>(&x, blocks, inner);
                check::<crate::Min, false>(&x, blocks, inner);
                check::<crate::Min, true>(&x, blocks, inner);
            }
        }
    }
}
