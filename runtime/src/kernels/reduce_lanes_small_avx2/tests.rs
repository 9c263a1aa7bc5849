//! Tests of [`super`]: every type, direction, row width class (pairs of 16-byte rows, halves of
//! 17 to 31 and super-rows of them, tiles of one to four vectors and more) and row count, fresh
//! and folded into accumulators (some NaN), blocks with NaN, against the definition
//! (`test_util::fold_definition`).

extern crate std;
use super::*;
use crate::kernels::test_util::{
    bf16s, bools, f16s, fold_definition, i16s, i32s, i8s, same, u16s, u32s, u8s, Lcg,
};
use crate::{bf16, f16, Max, Min};
use core::mem::size_of;
use std::vec::Vec;

/// Three blocks of `rows` rows of `lanes` lanes from `make` (a NaN now and then where `nan`),
/// reduced fresh and folded into accumulators, both ways.
fn check<T: Element>(g: &mut Lcg, lanes: usize, rows: usize, make: fn(&mut Lcg, bool) -> T) {
    let blocks = 3;
    let row = lanes * size_of::<T>();
    let taken = T::DTYPE != DType::Bool && row >= 16 && tiled(rows, row);
    for nan in [false, true] {
        let x: Vec<T> = (0..blocks * rows * lanes)
            .map(|_| {
                let rare = nan && g.next().is_multiple_of(7);
                let v = make(g, rare);
                if !nan && v.is_nan() {
                    T::ZERO
                } else {
                    v
                }
            })
            .collect();
        let acc: Vec<T> = (0..blocks * lanes).map(|i| make(g, i % 11 == 3)).collect();
        for (min, fresh) in (0..4).map(|m| (m & 1 != 0, m & 2 != 0)) {
            let mut y = if fresh {
                std::vec![T::ONE; blocks * lanes]
            } else {
                acc.clone()
            };
            let done = if min {
                reduce_blocks::<T, Min>(&mut y, &x, (rows * lanes, lanes), fresh)
            } else {
                reduce_blocks::<T, Max>(&mut y, &x, (rows * lanes, lanes), fresh)
            };
            let what = (T::DTYPE, lanes, rows, min, fresh, nan);
            assert_eq!(done, taken, "{what:?} taken");
            if !done {
                continue;
            }
            for (n, block) in x.chunks_exact(rows * lanes).enumerate() {
                for col in 0..lanes {
                    let o = n * lanes + col;
                    let start = if fresh {
                        if min {
                            Min::identity::<T>()
                        } else {
                            Max::identity::<T>()
                        }
                    } else {
                        acc[o]
                    };
                    let lane = block.iter().skip(col).step_by(lanes).copied();
                    let want = if min {
                        fold_definition::<T, Min>(start, lane)
                    } else {
                        fold_definition::<T, Max>(start, lane)
                    };
                    assert!(
                        same(y[o], want),
                        "{what:?} block {n} lane {col}: {:?}",
                        (y[o].is_nan(), want.is_nan())
                    );
                }
            }
        }
    }
}

#[test]
fn strided_reductions_of_narrow_types_match_the_definition() {
    if !available() {
        return;
    }
    let mut g = Lcg(12);
    // 300 rows: super-rows of every row of 17 to 31 bytes (up to fifteen rows each).
    for rows in [1, 2, 3, 20, 33, 100, 300] {
        for lanes in [8, 15, 16, 17, 20, 31, 32, 33, 48, 64, 100, 129, 513] {
            check::<u8>(&mut g, lanes, rows, u8s);
            check::<i8>(&mut g, lanes, rows, i8s);
            check::<bool>(&mut g, lanes, rows, bools);
        }
        for lanes in [7, 8, 9, 15, 16, 24, 40, 64, 257] {
            check::<u16>(&mut g, lanes, rows, u16s);
            check::<i16>(&mut g, lanes, rows, i16s);
            check::<f16>(&mut g, lanes, rows, f16s);
            check::<bf16>(&mut g, lanes, rows, bf16s);
        }
        for lanes in [3, 4, 5, 8, 9, 20, 129] {
            check::<u32>(&mut g, lanes, rows, u32s);
            check::<i32>(&mut g, lanes, rows, i32s);
        }
    }
}

#[test]
fn other_types_are_left() {
    let mut y = [0f32; 16];
    assert!(!reduce_blocks::<f32, Max>(
        &mut y,
        &[1.0; 64],
        (64, 16),
        true
    ));
    let mut y = [0i64; 16];
    assert!(!reduce_blocks::<i64, Max>(&mut y, &[1; 64], (64, 16), true));
}

/// The blocks left to the portable pass, by literal cases at each boundary (so that a moved
/// threshold fails here, not only where the routing is read back through `tiled`): many rows
/// (over 32), wide rows (over 128 bytes) and big blocks (over 32 KiB) together.
#[test]
fn blocks_are_tiled_below_each_boundary() {
    assert!(tiled(32, 4096));
    assert!(!tiled(33, 4096));
    assert!(tiled(1000, 128));
    assert!(!tiled(1000, 129));
    assert!(tiled(64, 512));
    assert!(!tiled(65, 512));
    assert!(!tiled(5000, 418));
}
