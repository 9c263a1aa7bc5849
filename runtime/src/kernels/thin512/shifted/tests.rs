//! Tests of [`super`]: `f32`, `f64`, f16 and bf16 blocks of two to five rows of 1 to 17 lanes
//! and some wider (a period of lanes over its table refused), several groups, NaN in some
//! blocks; each result bit for bit against the definition (a one at each lane's first maximum,
//! NaN winning: `test_util::naive_arg`), the blocks after the last group left alone, and groups
//! taken wherever the input holds a few.

extern crate std;
use core::mem::size_of;
use std::vec::Vec;

use super::super::{isa, kind_of, FLOAT, HALF};
use super::hardmax_shifted;
use crate::kernels::test_util::{bf16s, f16s, f32_pool, f64s, naive_arg, Lcg};
use crate::{Element, Max};

/// [`hardmax_shifted`] for `T`.
fn run<T: Element>(x: &[T], y: &mut [T], r: usize, c: usize) -> usize {
    let (w, kind, inf) = kind_of::<T>();
    assert!(isa::level() >= isa::AVX512);
    // SAFETY: AVX-512 checked above; `T` is of the width and kind named.
    unsafe {
        match (w, kind) {
            (2, HALF) => hardmax_shifted::<T, 2, HALF>(x, y, r, c, inf),
            (4, FLOAT) => hardmax_shifted::<T, 4, FLOAT>(x, y, r, c, inf),
            (8, FLOAT) => hardmax_shifted::<T, 8, FLOAT>(x, y, r, c, inf),
            _ => unreachable!("{:?} is not a Hardmax type", T::DTYPE),
        }
    }
}

/// `blocks` blocks of `size` from `make` (NaN only in the blocks `nan` names) and a few
/// elements past them.
fn input<T: Element>(
    g: &mut Lcg,
    make: fn(&mut Lcg, bool) -> T,
    blocks: usize,
    size: usize,
    nan: impl Fn(usize) -> bool,
) -> Vec<T> {
    (0..blocks * size + 3)
        .map(|i| make(g, nan(i / size)))
        .collect()
}

/// The blocks' zeros and ones against the definition, bit for bit, and nothing written past
/// the blocks done.
fn check_one<T: Element>(x: &[T], r: usize, c: usize, ctx: &str) -> usize {
    let size = r * c;
    let sentinel = T::from_key(T::Key::ZERO);
    let mut y = std::vec![sentinel; x.len()];
    let done = run(x, &mut y, r, c);
    assert!(
        done <= x.len() / size,
        "{ctx}: {done} blocks of {}",
        x.len() / size
    );
    let bits = |e: T| {
        let mut b = [0u8; 8];
        e.write_le(&mut b[..size_of::<T>()]);
        b
    };
    assert!(
        y[done * size..].iter().all(|&e| bits(e) == bits(sentinel)),
        "{ctx}: wrote past the {done} blocks done"
    );
    for b in 0..done {
        for j in 0..c {
            let lane: Vec<T> = (0..r).map(|k| x[(b * r + k) * c + j]).collect();
            let at = naive_arg::<T, Max>(&lane, false);
            for (k, _) in lane.iter().enumerate() {
                let want = if k == at { T::ONE } else { T::ZERO };
                assert_eq!(
                    bits(y[(b * r + k) * c + j]),
                    bits(want),
                    "{ctx}: block {b} lane {j} row {k} of {lane:?}"
                );
            }
        }
    }
    done
}

fn check<T: Element>(make: fn(&mut Lcg, bool) -> T) {
    if isa::level() < isa::AVX512 {
        return;
    }
    let mut g = Lcg(0x5417_f7ed + size_of::<T>() as u64);
    // Rows this module takes, counted apart from it: 2 to 4, 3 of 8 bytes; one row more is
    // refused.
    let most = if size_of::<T>() == 8 { 3 } else { 4 };
    for r in 2..=most + 1 {
        for c in (1..=17).chain([24, 29, 31, 40]) {
            let size = r * c;
            // A period of lanes (the least multiple of both a vector's lanes and a block's)
            // of at most 45 vectors: the table this module keeps.
            let v = 64 / size_of::<T>();
            let period = (1..=45).find(|k| (k * v).is_multiple_of(size));
            // More than three groups of the largest (45 vectors of 32 lanes), and an odd tail.
            let blocks = 3 * 45 * 32 / size + 7;
            for nan_every in [0, 97, 5] {
                let nan = |b: usize| nan_every > 0 && b % nan_every == 3;
                let x = input(&mut g, make, blocks, size, nan);
                let ctx = std::format!("{:?} r {r} c {c} NaN every {nan_every}", T::DTYPE);
                let done = check_one(&x, r, c, &ctx);
                if r > most || period.is_none() {
                    assert_eq!(done, 0, "{ctx}: taken");
                    continue;
                }
                assert!(done >= blocks / 2, "{ctx}: {done} of {blocks} blocks taken");
                // Short inputs: whatever whole groups they hold.
                for few in [1, 2, 9] {
                    let part = &x[..few * size];
                    check_one(part, r, c, &std::format!("{ctx}, {few} blocks"));
                }
            }
        }
    }
}

#[test]
fn f32_blocks_match_the_definition() {
    check::<f32>(f32_pool);
}

#[test]
fn f64_blocks_match_the_definition() {
    check::<f64>(f64s);
}

#[test]
fn f16_blocks_match_the_definition() {
    check::<crate::f16>(f16s);
}

#[test]
fn bf16_blocks_match_the_definition() {
    check::<crate::bf16>(bf16s);
}
