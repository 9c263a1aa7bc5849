//! Tests of [`super`]: the Hardmax of f16 and bf16 lanes, every way of writing its zeros.

extern crate std;
use std::vec::Vec;

use super::super::hardmax::hardmax_lanes;
use super::super::test_util::{naive_arg, Lcg};
use crate::{Element, Max};
use half::{bf16, f16};

/// Hardmax along the rows of `x` (`inner` lanes) by the definition, column by column.
fn definition<T: Element>(x: &[T], inner: usize) -> Vec<T> {
    let rows = x.len() / inner;
    let mut y = std::vec![T::ZERO; x.len()];
    for j in 0..inner {
        let column: Vec<T> = (0..rows).map(|r| x[r * inner + j]).collect();
        y[naive_arg::<T, Max>(&column, false) * inner + j] = T::ONE;
    }
    y
}

fn pool(g: &mut Lcg, nan: bool, ties: bool) -> f32 {
    match g.next() % 10 {
        0 if nan => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        k if ties => k as f32 - 6.0,
        _ => (g.next() % 4001) as f32 / 64.0 - 30.0,
    }
}

/// Every way of writing the zeros (first in a pass of their own, over few rows, rows 2 KiB
/// apart or many rows where the AVX-512 kernel takes the tiles; row by row with the ones
/// over fewer rows there; beside the loads elsewhere), against the definition: output slices that start
/// full of ones, values with and without NaN (the general kernel then writes the output
/// again), ties and zeros of both signs.
fn both_zeroings<T: Element>(of: fn(f32) -> T, back: fn(T) -> f32) {
    let mut g = Lcg(17);
    for (rows, inner) in [
        (1, 16),
        (2, 24),
        (5, 40),
        (16, 33),
        (17, 33),
        (40, 1024),
        (9, 2048),
        (20, 1040),
        (3, 3072),
        (40, 24),
        (300, 20),
    ] {
        #[cfg(all(target_arch = "x86_64", not(feature = "small-code")))]
        let avx512 = super::super::isa::level() >= super::super::isa::AVX512;
        #[cfg(not(all(target_arch = "x86_64", not(feature = "small-code"))))]
        let avx512 = false;
        assert_eq!(
            super::zeros_first(rows, inner),
            cfg!(not(feature = "small-code"))
                && super::super::rows_f32::avx2::available()
                && if inner >= 32 && avx512 {
                    rows >= 32
                } else {
                    rows <= 16 || (inner * 2) % 2048 == 0
                }
        );
        for (nan, ties) in [(false, false), (false, true), (true, true)] {
            let x: Vec<T> = (0..rows * inner)
                .map(|_| of(pool(&mut g, nan, ties)))
                .collect();
            let mut y = std::vec![T::ONE; x.len()];
            hardmax_lanes(&x, &mut y, inner);
            let want = definition(&x, inner);
            let bits = |v: &[T]| v.iter().map(|&e| back(e).to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&y),
                bits(&want),
                "{rows}x{inner} nan {nan} ties {ties}"
            );
        }
    }
}

#[test]
fn f16_both_zeroings() {
    both_zeroings(f16::from_f32, f16::to_f32);
}

#[test]
fn bf16_both_zeroings() {
    both_zeroings(bf16::from_f32, bf16::to_f32);
}
