//! Tests of the reductions of [`super`] over rows longer than its short-row kernels take
//! (from [`MAX_ROW`] + 1), and of the planes' fold of reductions over two axes apart: against
//! the definition written in `tests` and here.

extern crate std;
use super::tests::naive_fold;
use super::*;
use crate::kernels::test_util::{f32_pool, Lcg};
use crate::Max;
use std::vec::Vec;

#[test]
fn long_rows_match_the_definition() {
    // The AVX2 row extreme (where this CPU has it) and the fold that takes it, on lengths about
    // the threshold and past whole blocks, NaN nowhere, once or everywhere.
    let mut g = Lcg(5);
    for n in [8, 31, 32, 33, 255, LONG_ROW, 257, 263, 300, 1000, 1031] {
        for nan_at in [None, Some(0), Some(n / 2), Some(n - 1)] {
            let mut row: Vec<f32> = (0..n).map(|_| f32_pool(&mut g, false)).collect();
            if let Some(at) = nan_at {
                row[at] = f32::NAN;
            }
            let ctx = std::format!("n={n} nan at {nan_at:?}");
            for acc in [f32::NEG_INFINITY, 0.5, f32::INFINITY, f32::NAN] {
                let want = naive_fold::<Max>(acc, &row);
                let got = crate::kernels::fold::<f32, Max>(acc, &row);
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "{ctx} acc {acc}"
                );
                let want = naive_fold::<crate::Min>(acc, &row);
                let got = crate::kernels::fold::<f32, crate::Min>(acc, &row);
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "{ctx} acc {acc}"
                );
            }
            if avx2::available() {
                // SAFETY: `available` found the features the kernel is compiled for.
                let (m, nan) = unsafe { avx2::row_extreme::<Max>(&row) };
                assert_eq!(nan, nan_at.is_some(), "{ctx}");
                if nan_at.is_none() {
                    assert_eq!(m, naive_fold::<Max>(f32::NEG_INFINITY, &row), "{ctx}");
                    // A single extreme anywhere (in each block, chain and the part past them).
                    let finite: Vec<f32> = row.iter().map(|v| v.clamp(-1e20, 1e20)).collect();
                    for peak in 0..n {
                        let mut r = finite.clone();
                        r[peak] = 1e30;
                        // SAFETY: as above.
                        let (hi, _) = unsafe { avx2::row_extreme::<Max>(&r) };
                        r[peak] = -1e30;
                        // SAFETY: as above.
                        let (lo, _) = unsafe { avx2::row_extreme::<crate::Min>(&r) };
                        assert_eq!((hi, lo), (1e30, -1e30), "{ctx} peak at {peak}");
                    }
                }
            }
        }
    }
}

#[test]
fn rows_between_the_short_and_the_long_kernels_match_the_definition() {
    // Rows of 129 to 255, four at a time in AVX2 where this CPU has it (`reduce_rows` takes
    // them only there): whole groups and the rows after them, NaN in some rows and in some
    // accumulators, the extreme planted at each end and in the middle (ties from the pool).
    let mut g = Lcg(29);
    for n in [MAX_ROW + 1, 136, 150, 196, 200, LONG_ROW - 1] {
        for rows in [1, 4, 7, 9] {
            // Finite values from the pool (its infinities would hide the planted extremes).
            let mut x: Vec<f32> = (0..rows * n)
                .map(|_| f32_pool(&mut g, false).clamp(-1e20, 1e20))
                .collect();
            for (r, row) in x.chunks_exact_mut(n).enumerate() {
                match r % 4 {
                    0 => row[n - 1] = 1e30,
                    1 => row[0] = -1e30,
                    2 if r % 8 == 2 => row[n / 2] = f32::NAN,
                    _ => {}
                }
            }
            let acc: Vec<f32> = (0..rows)
                .map(|i| {
                    if i % 5 == 3 {
                        f32::NAN
                    } else {
                        f32_pool(&mut g, false)
                    }
                })
                .collect();
            for min in [false, true] {
                let mut y = acc.clone();
                let taken = if min {
                    reduce_rows::<f32, crate::Min>(&mut y, &x, n)
                } else {
                    reduce_rows::<f32, Max>(&mut y, &x, n)
                };
                assert_eq!(taken, avx2::available(), "n={n}");
                if !taken {
                    continue;
                }
                for (i, (row, &got)) in x.chunks_exact(n).zip(&y).enumerate() {
                    let want = if min {
                        naive_fold::<crate::Min>(acc[i], row)
                    } else {
                        naive_fold::<Max>(acc[i], row)
                    };
                    assert!(
                        got.to_bits() == want.to_bits() || (got == want && got != 0.0),
                        "n={n} row {i} of {rows} min={min}: {got} want {want}"
                    );
                }
            }
        }
    }
}

/// The planes' fold of a reduction over two axes apart (`reduce::fold_planes`: AVX2, and AVX-512
/// from 64 elements where the CPU has it, in both builds there) against the definition: each
/// element the extreme of its lane over the planes, and the flag set exactly where a NaN was
/// read. Tiles of 16 to 200 elements (the last chunk overlapping), 1 to 5 planes, offsets into
/// the planes, NaN in one element of some cases.
#[test]
fn planes_fold_matches_the_definition() {
    use crate::kernels::isa;
    fn check<D: Direction>(g: &mut Lcg) {
        for len in [16, 17, 31, 63, 64, 65, 100, 128, 200] {
            for planes in 1..=5 {
                let (plane, at) = (len + 37, 11);
                let mut x: Vec<f32> = (0..planes * plane).map(|_| f32_pool(g, false)).collect();
                let nan = g.next().is_multiple_of(3);
                if nan {
                    let p = (g.next() as usize) % planes;
                    let k = (g.next() as usize) % len;
                    x[p * plane + at + k] = f32::NAN;
                }
                let mut tile = std::vec![0.5f32; len];
                let got = reduce::fold_planes::<f32, D>(&mut tile, &x, planes, plane, at);
                let ctx = std::format!("len {len} planes {planes} nan {nan}");
                assert_eq!(got, Some(nan), "{ctx}");
                if nan {
                    continue;
                }
                for (k, &t) in tile.iter().enumerate() {
                    let lane = (0..planes).map(|p| x[p * plane + at + k]);
                    let want = lane.reduce(|a, v| if D::better(v, a) { v } else { a });
                    // Of equal values either may stand (a zero's sign is unspecified).
                    assert!(Some(t) == want, "{ctx} lane {k}: {t} {want:?}");
                }
            }
        }
    }
    if !avx2::available() {
        return;
    }
    let builds = crate::kernels::test_util::vector_builds();
    let mut g = Lcg(41);
    for &build in builds {
        isa::HERE.with(|c| c.set(Some(build)));
        check::<Max>(&mut g);
        check::<crate::Min>(&mut g);
    }
    isa::HERE.with(|c| c.set(None));
}
