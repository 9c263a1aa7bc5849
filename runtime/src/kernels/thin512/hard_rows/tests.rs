//! Tests of [`super`]: f16, bf16, `f32` and `f64` rows of 1 to 70 elements (two to 64 taken,
//! at most eight vectors), 0 to 70 rows and a few elements past them, values with many ties,
//! both zeros, infinities and the types' ends, NaN of either sign in some rows (so in some
//! windows and not others), against the definition row by row (`test_util::naive_arg`: the
//! first maximum, a NaN winning); the elements past the last row left alone; integers and CPUs
//! without AVX-512 not taken.

extern crate std;
use core::mem::size_of;

use super::*;
use crate::kernels::test_util::{bf16s, f16s, f32_ends, f64s, naive_arg, rows_input, Lcg};
use crate::{bf16, f16};

/// Whether [`hardmax_rows`] should take rows of `c` of `T` here.
fn taken<T>(c: usize) -> bool {
    let parts = c.div_ceil(64 / size_of::<T>());
    (2..=64).contains(&c) && parts <= 8 && isa::level() >= isa::AVX512
}

/// Runs `x` (rows of `c` and `extra` elements past them) and checks each row's 1 and 0s.
fn check_rows<T: Element>(x: &[T], c: usize, extra: usize, ctx: &str) {
    let sentinel = T::ONE;
    let mut y = std::vec![sentinel; x.len()];
    let took = hardmax_rows(x, &mut y, c);
    assert_eq!(took, taken::<T>(c), "{ctx}: taken");
    if !took {
        assert!(y.iter().all(|&e| e == sentinel), "{ctx}: wrote, not taken");
        return;
    }
    let rows = (x.len() - extra) / c;
    for row in 0..rows {
        let xs = &x[row * c..(row + 1) * c];
        let at = naive_arg::<T, Max>(xs, false);
        for (j, &e) in y[row * c..(row + 1) * c].iter().enumerate() {
            let want = if j == at { T::ONE } else { T::ZERO };
            assert!(
                e == want,
                "{ctx} row {row} lane {j}: {xs:?} gave {e:?}, first maximum at {at}"
            );
        }
    }
    assert!(
        y[rows * c..].iter().all(|&e| e == sentinel),
        "{ctx}: wrote past the last row"
    );
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    let mut g = Lcg(0x4a7d_0e55 + size_of::<T>() as u64);
    for c in 1..=70 {
        for rows in [0, 1, 2, 3, 5, 8, 17, 33, 70] {
            let extra = if c > 1 { g.next() as usize % c } else { 0 };
            let x = rows_input(&mut g, make, rows, c, extra);
            let ctx = std::format!("{:?} c {c} rows {rows}", T::DTYPE);
            check_rows(&x, c, extra, &ctx);
        }
    }
}

#[test]
fn halves_match_the_definition() {
    check::<f16>(f16s);
    check::<bf16>(bf16s);
}

#[test]
fn f32_matches_the_definition() {
    check::<f32>(f32_ends);
}

#[test]
fn f64_matches_the_definition() {
    check::<f64>(f64s);
}

/// The maximum at every lane of its row, every other element the lowest (or the zero of the
/// other sign, which ties: the first of them wins), each row's maximum somewhere else.
#[test]
fn maximum_at_every_lane() {
    fn each<T: Element>(low: T, high: T) {
        for c in (2..=33).chain([48, 63, 64]) {
            let rows = 2 * c + 5;
            let mut x = std::vec![low; rows * c];
            for row in 0..rows {
                x[row * c + (row * 7) % c] = high;
            }
            let ctx = std::format!("{:?} low {low:?} high {high:?} c {c}", T::DTYPE);
            check_rows(&x, c, 0, &ctx);
        }
    }
    each::<f32>(f32::NEG_INFINITY, f32::INFINITY);
    each::<f32>(f32::MIN, f32::MAX);
    each::<f32>(-0.0, 0.0);
    each::<f64>(f64::NEG_INFINITY, f64::INFINITY);
    each::<f64>(0.0, -0.0);
    each::<f16>(f16::NEG_INFINITY, f16::INFINITY);
    each::<f16>(f16::from_f32(-1.5), f16::from_f32(-0.5));
    each::<f16>(f16::from_f32(-0.0), f16::from_f32(0.0));
    each::<bf16>(bf16::MIN, bf16::MAX);
    each::<bf16>(bf16::from_f32(0.0), bf16::from_f32(-0.0));
}

/// A NaN anywhere in a row wins over an infinity before it; rows of one NaN sign or the other.
#[test]
fn first_nan_wins() {
    fn each<T: Element>(nan: T) {
        for c in [2, 3, 5, 8, 12, 16, 17, 31, 32, 40, 64] {
            let rows = 40;
            let mut x = std::vec![T::ONE; rows * c];
            for row in 0..rows {
                let at = row % c;
                x[row * c + at] = nan;
                x[row * c + (at + 1) % c] = nan;
                x[row * c + (at + c - 1) % c] = T::ONE;
            }
            // Rows without NaN among them, with the maximum the first element.
            for row in (0..rows).step_by(3) {
                x[row * c..(row + 1) * c].fill(T::ZERO);
                x[row * c] = T::ONE;
            }
            let ctx = std::format!("{:?} NaN {nan:?} c {c}", T::DTYPE);
            check_rows(&x, c, 0, &ctx);
        }
    }
    each::<f32>(f32::NAN);
    each::<f32>(-f32::NAN);
    each::<f64>(-f64::NAN);
    each::<f16>(f16::NAN);
    each::<f16>(-f16::NAN);
    each::<bf16>(bf16::NAN);
}

#[test]
fn integers_and_narrow_cpus_not_taken() {
    let mut y = [7i32; 64];
    assert!(!hardmax_rows(&[1i32; 64], &mut y, 8));
    assert!(y.iter().all(|&e| e == 7));
    isa::HERE.with(|h| h.set(Some(isa::AVX2)));
    let mut y = [2.0f32; 64];
    let took = hardmax_rows(&[1.0f32; 64], &mut y, 8);
    isa::HERE.with(|h| h.set(None));
    assert!(!took);
    assert!(y.iter().all(|&e| e == 2.0));
}
