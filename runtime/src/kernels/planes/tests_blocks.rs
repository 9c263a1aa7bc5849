//! The blocks of rows of 2 to 16 that the AVX-512 kernel folds over the planes in registers
//! (`planes512`: every type but the 1- and 2-byte ones' rows over 11), through
//! [`reduce_planes`], against the definition; where the kernel runs, it is asserted to have
//! taken every block before the first NaN.

extern crate std;
use super::*;
use crate::kernels::test_util::{f32_pool, fold_definition, plane_rows, Lcg};
use crate::{Max, Min};
use std::vec::Vec;

/// How a test draws one type's elements.
struct Draw<T> {
    /// A value from a wide range (distinct values: a wrong lane or window shows), now and
    /// then one of the type's specials (infinities, signed zeros, the extremes).
    value: fn(&mut Lcg) -> T,
    /// A NaN for floats.
    nan: Option<T>,
    /// An accumulator that beats most of the values.
    big: T,
}

/// Whether the kernel takes rows of `n` of `T` here: optimized x86-64 builds without
/// `small-code`, on a CPU with AVX-512 (and VBMI for 1-byte types); rows of 2 to 16, of 2 to
/// 11 for 1- and 2-byte types.
fn kernel_runs<T: Element>(n: usize) -> bool {
    let taken = (2..=if size_of::<T>() <= 2 { 11 } else { 16 }).contains(&n);
    #[cfg(all(
        target_arch = "x86_64",
        not(debug_assertions),
        not(feature = "small-code")
    ))]
    return taken
        && crate::kernels::isa::level() >= crate::kernels::isa::AVX512
        && (size_of::<T>() > 1 || crate::kernels::isa::vbmi());
    #[cfg(not(all(
        target_arch = "x86_64",
        not(debug_assertions),
        not(feature = "small-code")
    )))]
    {
        let _ = taken;
        false
    }
}

fn same<T: Element>(a: T, b: T) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn check<T: Element, D: Direction, const N: usize>(g: &mut Lcg, draw: &Draw<T>) {
    for planes in [1, 2, 3, 4, 9] {
        for rows in [8, 16, 17, 47, 64, 160, 333] {
            let nans = match draw.nan {
                Some(_) => std::vec![None, Some((planes - 1, 5 * rows / 7, N / 2))],
                None => std::vec![None],
            };
            for nan_at in nans {
                let mut x: Vec<T> = (0..planes * rows * N).map(|_| (draw.value)(g)).collect();
                if let (Some((p, k, j)), Some(nan)) = (nan_at, draw.nan) {
                    x[(p * rows + k) * N + j] = nan;
                }
                let start: Vec<T> = (0..rows)
                    .map(|k| match (k % 11, draw.nan) {
                        (3, Some(nan)) => nan,
                        (5, _) => draw.big,
                        _ => D::identity::<T>(),
                    })
                    .collect();
                let ctx = std::format!("{:?} N={N} planes={planes} rows={rows}", T::DTYPE);
                let mut y = start.clone();
                reduce_planes::<T, D, N>(&mut y, &x, planes);
                for k in 0..rows {
                    let want =
                        fold_definition::<T, D>(start[k], plane_rows(&x, (planes, rows, N), k));
                    assert!(same(y[k], want), "{ctx} nan {nan_at:?} row {k}");
                }
                // The kernel alone: the blocks before the NaN's, each row as above.
                let mut z = start.clone();
                let taken =
                    crate::kernels::fold_rows_planes::<T, D, N>(&mut z, &x, planes, rows * N, 0);
                let block = 64 / size_of::<T>();
                let blocks = nan_at.map_or(rows, |(_, k, _)| k) / block * block;
                let want = kernel_runs::<T>(N).then_some(blocks);
                assert_eq!(taken, want, "{ctx} nan {nan_at:?}");
                for k in 0..taken.unwrap_or(0) {
                    assert!(same(z[k], y[k]), "{ctx} kernel row {k}");
                }
                for k in taken.unwrap_or(0)..rows {
                    assert!(
                        same(z[k], start[k]),
                        "{ctx} row {k} past the kernel's written"
                    );
                }
            }
        }
    }
}

fn every_n<T: Element>(seed: u64, draw: &Draw<T>) {
    fn both<T: Element, const N: usize>(g: &mut Lcg, draw: &Draw<T>) {
        check::<T, Min, N>(g, draw);
        check::<T, Max, N>(g, draw);
    }
    let mut g = Lcg(seed);
    both::<T, 1>(&mut g, draw);
    both::<T, 2>(&mut g, draw);
    both::<T, 3>(&mut g, draw);
    both::<T, 4>(&mut g, draw);
    both::<T, 5>(&mut g, draw);
    both::<T, 6>(&mut g, draw);
    both::<T, 7>(&mut g, draw);
    both::<T, 8>(&mut g, draw);
    both::<T, 9>(&mut g, draw);
    both::<T, 10>(&mut g, draw);
    both::<T, 11>(&mut g, draw);
    both::<T, 12>(&mut g, draw);
    both::<T, 13>(&mut g, draw);
    both::<T, 14>(&mut g, draw);
    both::<T, 15>(&mut g, draw);
    both::<T, 16>(&mut g, draw);
    both::<T, 17>(&mut g, draw);
}

#[test]
fn f32_blocks_match_the_definition() {
    every_n::<f32>(
        17,
        &Draw {
            value: |g| match g.next() % 16 {
                0 => f32_pool(g, false),
                _ => (g.next() % 100_000) as f32 * 0.125 - 6000.0,
            },
            nan: Some(f32::NAN),
            big: 100.0,
        },
    );
}

#[test]
fn f64_blocks_match_the_definition() {
    every_n::<f64>(
        18,
        &Draw {
            value: |g| match g.next() % 16 {
                0 => f64::from(f32_pool(g, false)),
                _ => (g.next() % 1_000_000) as f64 * 0.001 - 600.0,
            },
            nan: Some(f64::NAN),
            big: 100.0,
        },
    );
}

#[test]
fn i32_and_u32_blocks_match_the_definition() {
    every_n::<i32>(
        19,
        &Draw {
            value: |g| match g.next() % 16 {
                0 => i32::MIN,
                1 => i32::MAX,
                _ => g.next() as i32,
            },
            nan: None,
            big: 1 << 30,
        },
    );
    every_n::<u32>(
        20,
        &Draw {
            value: |g| match g.next() % 16 {
                0 => 0,
                1 => u32::MAX,
                // Over 2^31: an unsigned compare that went signed shows.
                _ => g.next() as u32,
            },
            nan: None,
            big: 3 << 30,
        },
    );
}

#[test]
fn i64_and_u64_blocks_match_the_definition() {
    every_n::<i64>(
        21,
        &Draw {
            value: |g| match g.next() % 16 {
                0 => i64::MIN,
                1 => i64::MAX,
                _ => (g.next() << 32 | g.next()) as i64,
            },
            nan: None,
            big: 1 << 62,
        },
    );
    every_n::<u64>(
        22,
        &Draw {
            value: |g| match g.next() % 16 {
                0 => 0,
                1 => u64::MAX,
                _ => g.next() << 32 | g.next(),
            },
            nan: None,
            big: 3 << 62,
        },
    );
}

#[test]
fn byte_blocks_match_the_definition() {
    every_n::<u8>(
        23,
        &Draw {
            // Over 127 half the time: a signed compare shows.
            value: |g| g.next() as u8,
            nan: None,
            big: 250,
        },
    );
    every_n::<i8>(
        24,
        &Draw {
            value: |g| g.next() as i8,
            nan: None,
            big: 120,
        },
    );
    every_n::<bool>(
        25,
        &Draw {
            value: |g| g.next().is_multiple_of(7),
            nan: None,
            big: true,
        },
    );
}

#[test]
fn i16_and_u16_blocks_match_the_definition() {
    every_n::<i16>(
        26,
        &Draw {
            value: |g| g.next() as i16,
            nan: None,
            big: 30_000,
        },
    );
    every_n::<u16>(
        27,
        &Draw {
            value: |g| g.next() as u16,
            nan: None,
            big: 60_000,
        },
    );
}

/// Any bits of a two-byte float but a NaN's (then the infinity of that sign), now and then one
/// of the specials; negative values' keys are their magnitudes reversed (a sign lost shows).
fn half_bits(g: &mut Lcg, inf: u16) -> u16 {
    let bits = match g.next() % 16 {
        0 => [
            0,
            0x8000,
            inf,
            0x8000 | inf,
            inf - 1,
            0x8000 | (inf - 1),
            1,
            0x8001,
        ][(g.next() % 8) as usize],
        _ => g.next() as u16,
    };
    if bits & 0x7fff > inf {
        bits & 0x8000 | inf
    } else {
        bits
    }
}

#[test]
fn half_blocks_match_the_definition() {
    use crate::{bf16, f16};
    every_n::<f16>(
        28,
        &Draw {
            value: |g| f16::from_bits(half_bits(g, 0x7c00)),
            // A negative NaN: the lowest key, which a fold of keys would never pick for Max.
            nan: Some(f16::from_bits(0xfe00)),
            big: f16::from_f32(30_000.0),
        },
    );
    every_n::<bf16>(
        29,
        &Draw {
            value: |g| bf16::from_bits(half_bits(g, 0x7f80)),
            nan: Some(bf16::from_bits(0x7fc1)),
            big: bf16::from_f32(1.0e30),
        },
    );
}
