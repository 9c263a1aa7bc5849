//! Tests of [`super`]: f16, bf16, `f32` and `f64` rows of 1 to 40 elements (those of two rows a
//! vector or more taken), 0 to 70 rows and a few elements past them, ArgMax and ArgMin (the
//! first index and the last), values with many ties, both zeros, infinities and the types'
//! ends, NaN of either sign in some rows, against the definition row by row
//! (`test_util::naive_arg`: the first best or the last, a NaN winning), with and without the
//! best elements (bit for bit the row's element at that index); nothing written past the rows'
//! indices and values; integers and CPUs without AVX-512 not taken.

extern crate std;
use core::mem::size_of;

use super::*;
use crate::kernels::test_util::{bf16s, f16s, f32_ends, f64s, naive_arg, rows_input, Lcg};
use crate::{bf16, f16, Max, Min};

/// Whether [`arg_rows`] should take rows of `c` of `T` here.
fn taken<T>(c: usize) -> bool {
    c >= 2 && 2 * c * size_of::<T>() <= 64 && isa::vbmi2()
}

/// Runs rows of `c` of `x` (and `extra` elements past them) and checks each row's index.
fn check_rows<T: Element, D: Direction, const LAST: bool>(x: &[T], c: usize, ctx: &str) {
    let rows = x.len() / c.max(1);
    for values in [false, true] {
        let ctx = std::format!("{ctx} values {values}");
        let mut y = std::vec![-7i64; rows + 3];
        let mut v = std::vec![T::ONE; if values { rows + 3 } else { 0 }];
        let vs = if values { &mut v[..rows] } else { &mut v[..] };
        let took = arg_rows::<T, D, LAST>(x, &mut y[..rows], vs, c);
        assert_eq!(took, taken::<T>(c), "{ctx}: taken");
        if took {
            for row in 0..rows {
                let xs = &x[row * c..(row + 1) * c];
                let want = naive_arg::<T, D>(xs, LAST);
                assert_eq!(y[row], want as i64, "{ctx} row {row}: {xs:?}");
                if values {
                    // The element itself: its bits (the sign of a zero, a NaN's payload).
                    let (mut got, mut at) = ([0u8; 8], [0u8; 8]);
                    v[row].write_le(&mut got);
                    xs[want].write_le(&mut at);
                    assert_eq!(got, at, "{ctx} row {row}: value of {xs:?}");
                }
            }
        }
        let untouched = if took { rows } else { 0 };
        let past = if took && values { rows } else { 0 };
        assert!(
            y[untouched..].iter().all(|&e| e == -7),
            "{ctx}: wrote past the indices"
        );
        assert!(
            v[past..].iter().all(|&e| e == T::ONE),
            "{ctx}: wrote past the values"
        );
    }
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    let mut g = Lcg(0x51de_aa17 + size_of::<T>() as u64);
    for c in 1..=40 {
        for rows in [0, 1, 2, 3, 5, 8, 17, 33, 70] {
            let extra = g.next() as usize % c;
            let x = rows_input(&mut g, make, rows, c, extra);
            let ctx = std::format!("{:?} c {c} rows {rows}", T::DTYPE);
            check_rows::<T, Max, false>(&x, c, &std::format!("{ctx} max"));
            check_rows::<T, Min, false>(&x, c, &std::format!("{ctx} min"));
            check_rows::<T, Max, true>(&x, c, &std::format!("{ctx} max last"));
            check_rows::<T, Min, true>(&x, c, &std::format!("{ctx} min last"));
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

/// The best at every lane of its row, every other element the worst of the direction (or the
/// zero of the other sign, which ties: the first of them wins).
#[test]
fn best_at_every_lane() {
    fn each<T: Element>(low: T, high: T) {
        for c in 2..=16 {
            let rows = 2 * c + 5;
            let mut up = std::vec![low; rows * c];
            let mut down = std::vec![high; rows * c];
            for row in 0..rows {
                up[row * c + (row * 7) % c] = high;
                down[row * c + (row * 7) % c] = low;
            }
            let ctx = std::format!("{:?} low {low:?} high {high:?} c {c}", T::DTYPE);
            check_rows::<T, Max, false>(&up, c, &std::format!("{ctx} max"));
            check_rows::<T, Min, false>(&down, c, &std::format!("{ctx} min"));
            check_rows::<T, Max, true>(&up, c, &std::format!("{ctx} max last"));
            check_rows::<T, Min, true>(&down, c, &std::format!("{ctx} min last"));
        }
    }
    each::<f32>(f32::NEG_INFINITY, f32::INFINITY);
    each::<f32>(-0.0, 0.0);
    each::<f64>(f64::MIN, f64::MAX);
    each::<f64>(0.0, -0.0);
    each::<f16>(f16::NEG_INFINITY, f16::INFINITY);
    each::<f16>(f16::from_f32(-1.5), f16::from_f32(-0.5));
    each::<f16>(f16::from_f32(-0.0), f16::from_f32(0.0));
    each::<bf16>(bf16::MIN, bf16::MAX);
    each::<bf16>(bf16::from_f32(0.0), bf16::from_f32(-0.0));
}

#[test]
fn integers_and_narrow_cpus_not_taken() {
    let mut y = [7i64; 8];
    assert!(!arg_rows::<i32, Max, false>(
        &[1i32; 64],
        &mut y,
        &mut [],
        8
    ));
    assert!(y.iter().all(|&e| e == 7));
    isa::HERE.with(|h| h.set(Some(isa::AVX2)));
    let took = arg_rows::<f32, Max, false>(&[1.0f32; 64], &mut y, &mut [], 8);
    isa::HERE.with(|h| h.set(None));
    assert!(!took);
    assert!(y.iter().all(|&e| e == 7));
}
