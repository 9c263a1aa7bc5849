//! Tests of the 16-bit float helpers and row kernels: keys, summaries and folds against the
//! contract.

extern crate std;
use super::*;
use crate::{bf16, f16, Max, Min};

#[test]
fn keys_round_trip_and_keep_the_order() {
    for bits in 0..=u16::MAX {
        for (v, back) in [
            (
                f16::from_bits(bits).to_f32(),
                f16::from_bits(bits_of(key(bits))).to_f32(),
            ),
            (
                bf16::from_bits(bits).to_f32(),
                bf16::from_bits(bits_of(key(bits))).to_f32(),
            ),
        ] {
            if !v.is_nan() {
                // Every number comes back (a -0 as +0, which compares equal).
                assert_eq!(v, back, "bits {bits:#06x}");
            }
        }
        let (a, b) = (
            f16::from_bits(bits),
            f16::from_bits(bits.wrapping_mul(40503)),
        );
        if !a.is_nan() && !b.is_nan() {
            assert_eq!(key(bits) > key(b.to_bits()), a > b, "{bits:#06x}");
            assert_eq!(key(bits) == key(b.to_bits()), a == b, "{bits:#06x}");
        }
        assert_eq!(nan_bits(bits, 0x7c00), a.is_nan());
        assert_eq!(nan_bits(bits, 0x7f80), bf16::from_bits(bits).is_nan());
    }
    // The keys straight from a summary are the keys of its extremes, both directions.
    let mut g = 0x9e37_79b9_u32;
    for _ in 0..2000 {
        let mut ch = [0u16; 8];
        for c in &mut ch {
            g = g.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *c = (g >> 16) as u16;
        }
        let s = Summary::of(&ch);
        let (e, k) = (s.extremes::<Max>(), s.extreme_keys::<Max>());
        assert!(e.iter().zip(&k).all(|(&e, &k)| key(e) == k), "{ch:?}");
        let (e, k) = (s.extremes::<Min>(), s.extreme_keys::<Min>());
        assert!(e.iter().zip(&k).all(|(&e, &k)| key(e) == k), "{ch:?}");
        let mut t = Summary::of(&[ch[0]; 8]);
        for &c in &ch[1..] {
            t.add(&[c; 8]);
        }
        let nan = ch.iter().any(|&b| nan_bits(b, 0x7c00));
        assert_eq!(t.any_nan(0x7c00), nan, "{ch:?}");
        let finite: std::vec::Vec<f32> = ch.iter().map(|&b| f16::from_bits(b).to_f32()).collect();
        if !nan {
            let max = finite.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let min = finite.iter().copied().fold(f32::INFINITY, f32::min);
            assert_eq!(f16::from_bits(t.extremes::<Max>()[0]).to_f32(), max);
            assert_eq!(f16::from_bits(t.extremes::<Min>()[0]).to_f32(), min);
        }
    }
    let h = |v: f32| f16::from_f32(v).to_bits();
    let x = [h(1.0), h(f32::NAN), h(3.0), (-f16::NAN).to_bits()];
    assert_eq!(arg_row_half::<Max, false>(&x, 0x7c00), 1);
    assert_eq!(arg_row_half::<Min, true>(&x, 0x7c00), 3);
    assert_eq!(fold_half::<Max>(h(-1.0), &x, 0x7c00), x[1]);
    let y = [h(-0.0), h(0.0), h(-2.0)];
    assert_eq!(arg_row_half::<Max, true>(&y, 0x7c00), 1);
    assert_eq!(arg_row_half::<Max, false>(&y, 0x7c00), 0);
    assert_eq!(fold_half::<Min>(h(f32::INFINITY), &y, 0x7c00), h(-2.0));
}

/// A test row of `n` bits: pool values (ties, zeros, infinities) or, for odd `case`s, any
/// bits; NaN (of f16 or bf16) only with `nan`.
fn test_row(
    g: &mut crate::kernels::test_util::Lcg,
    n: usize,
    case: usize,
    nan: bool,
) -> std::vec::Vec<u16> {
    use crate::kernels::test_util::f16s;
    (0..n)
        .map(|_| match case % 2 {
            0 => f16s(g, nan).to_bits(),
            _ => g.next() as u16,
        })
        // (An f16 NaN's magnitude range holds bf16's.)
        .map(|b| if !nan && nan_bits(b, 0x7c00) { 0 } else { b })
        .collect()
}

/// `fold_half` of f16 and bf16 rows of every length class (under and over the AVX2
/// summary's sixteen and [`WIDE_FROM`], a tail past whole chains), by the AVX2 summary and
/// by SSE2 alone, against the contract: NaN-propagating (a NaN accumulator stays, else the
/// row's first NaN), otherwise the extreme (either zero for a zero).
#[test]
fn fold_half_matches_the_contract() {
    use crate::kernels::rows_f32::avx2::SSE2_ONLY;
    use crate::kernels::test_util::{f16s, naive_reduce, same, Lcg};
    let mut g = Lcg(7);
    for sse2 in [false, true] {
        SSE2_ONLY.with(|c| c.set(sse2));
        for n in [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200, 1000, 1001] {
            for case in 0..12 {
                let row = test_row(&mut g, n, case, case % 3 == 0);
                let acc = f16s(&mut g, case == 6).to_bits();
                check(acc, &row, sse2);
            }
        }
    }
    SSE2_ONLY.with(|c| c.set(false));

    fn check(acc: u16, row: &[u16], sse2: bool) {
        let all: std::vec::Vec<u16> = core::iter::once(acc).chain(row.iter().copied()).collect();
        let hs: std::vec::Vec<f16> = all.iter().map(|&b| f16::from_bits(b)).collect();
        let bs: std::vec::Vec<bf16> = all.iter().map(|&b| bf16::from_bits(b)).collect();
        let (f, bf) = (f16::from_bits, bf16::from_bits);
        let results = [
            same(
                f(fold_half::<Max>(acc, row, 0x7c00)),
                naive_reduce::<f16, Max>(&hs),
            ),
            same(
                f(fold_half::<Min>(acc, row, 0x7c00)),
                naive_reduce::<f16, Min>(&hs),
            ),
            same(
                bf(fold_half::<Max>(acc, row, 0x7f80)),
                naive_reduce::<bf16, Max>(&bs),
            ),
            same(
                bf(fold_half::<Min>(acc, row, 0x7f80)),
                naive_reduce::<bf16, Min>(&bs),
            ),
        ];
        assert_eq!(
            results,
            [true; 4],
            "f16 max, min, bf16 max, min: acc {acc:#06x}, {} elements, sse2 {sse2}",
            row.len()
        );
    }
}

/// `arg_row_half` over rows of one part and several ([`PART`]), under and over [`WIDE_FROM`],
/// by the AVX2 summary and search and by SSE2 alone, against the definition (`naive_arg`):
/// the first (last) extreme, ties of either zero, a NaN winning (the first or the last).
#[test]
fn arg_row_half_matches_the_definition() {
    use crate::kernels::rows_f32::avx2::SSE2_ONLY;
    use crate::kernels::test_util::{naive_arg, Lcg};
    let mut g = Lcg(11);
    for sse2 in [false, true] {
        SSE2_ONLY.with(|c| c.set(sse2));
        for n in [1, 17, 63, 64, 65, 100, 1000, 1024, 1025, 2049, 3000] {
            for case in 0..8 {
                let row = test_row(&mut g, n, case, case % 4 == 0);
                let hs: std::vec::Vec<f16> = row.iter().map(|&b| f16::from_bits(b)).collect();
                let bs: std::vec::Vec<bf16> = row.iter().map(|&b| bf16::from_bits(b)).collect();
                let ctx = std::format!("{n} elements, case {case}, sse2 {sse2}");
                let (f, b) = (0x7c00, 0x7f80);
                let got = [
                    arg_row_half::<Max, false>(&row, f),
                    arg_row_half::<Max, true>(&row, f),
                    arg_row_half::<Min, false>(&row, f),
                    arg_row_half::<Min, true>(&row, f),
                    arg_row_half::<Max, false>(&row, b),
                    arg_row_half::<Min, true>(&row, b),
                ];
                let want = [
                    naive_arg::<f16, Max>(&hs, false),
                    naive_arg::<f16, Max>(&hs, true),
                    naive_arg::<f16, Min>(&hs, false),
                    naive_arg::<f16, Min>(&hs, true),
                    naive_arg::<bf16, Max>(&bs, false),
                    naive_arg::<bf16, Min>(&bs, true),
                ];
                assert_eq!(
                    got, want,
                    "f16 max/last/min/last, bf16 max, min-last: {ctx}"
                );
            }
        }
        // Placed extremes: one, or two tied (either zero, or the same bits), at the start, the
        // middle, the last whole sixteen and the elements past it.
        let h = |v: f32| f16::from_f32(v).to_bits();
        for n in [17, 40, 64, 65, 79, 1000, 1030] {
            for (top, twin) in [(h(2.0), h(2.0)), (h(0.0), h(-0.0)), (h(-0.0), h(0.0))] {
                for (i, j) in [
                    (0, 0),
                    (n / 2, n - 1),
                    (n - 17, n - 2),
                    (n - 1, n - 1),
                    (1, n - 3),
                ] {
                    let mut row = std::vec![h(-1.0); n];
                    row[i] = top;
                    row[j] = twin;
                    let ctx = std::format!("{n} elements, at {i} and {j}, sse2 {sse2}");
                    assert_eq!(arg_row_half::<Max, false>(&row, 0x7c00), i, "{ctx}");
                    assert_eq!(arg_row_half::<Max, true>(&row, 0x7c00), j, "{ctx}");
                    let neg: std::vec::Vec<u16> = row.iter().map(|b| b ^ 0x8000).collect();
                    assert_eq!(arg_row_half::<Min, false>(&neg, 0x7f80), i, "{ctx}");
                    assert_eq!(arg_row_half::<Min, true>(&neg, 0x7f80), j, "{ctx}");
                }
            }
        }
    }
    SSE2_ONLY.with(|c| c.set(false));
}
