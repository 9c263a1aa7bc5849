//! Tests of [`super`]: the strided arg passes against the definition.

extern crate std;
use super::*;
use crate::kernels::hardmax_lanes;
use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
use crate::{Max, Min};

#[test]
fn arg_tiles_are_whole_chunks_within_8_kib() {
    // One chunk for a few lanes, whole chunks above, and the cap of 8 KiB of state.
    assert_eq!(arg_tile(1, 4), LANES);
    assert_eq!(arg_tile(LANES + 1, 4), 2 * LANES);
    assert_eq!(arg_tile(4096, 4), TILE_BYTES / 8 / LANES * LANES);
    assert_eq!(arg_tile(4096, 8), TILE_BYTES / 12 / LANES * LANES);
    assert_eq!(arg_tile(4096, 1), TILE_BYTES / 5 / LANES * LANES);
    for size in [1, 2, 4, 8] {
        for inner in [1, 15, 16, 100, 1000, 5000] {
            let t = arg_tile(inner, size);
            assert!(
                t.is_multiple_of(LANES) && t >= LANES && t * (size + 4) <= TILE_BYTES,
                "{inner} {size}"
            );
        }
    }
}

#[test]
fn strided_kernels_match_the_definition() {
    let mut g = Lcg(11);
    let shapes = [
        (1, 1),
        (3, 5),
        (40, 7),
        (2, 300),
        (33, 257),
        (5, 600),
        (70, 40),
        // From GROUPED_ROWS on, the grouped fast pass (a partial last group included): for
        // tiles under sixteen lanes, and for all of them on CPUs without AVX2 (the `SSE2_ONLY`
        // test in `arg_lanes_avx2`), where `f32` otherwise takes the AVX2 pass.
        (128, 3),
        (131, 17),
        (300, 40),
        (1001, 33),
    ];
    for ((rows, inner), nan) in shapes.into_iter().flat_map(|s| [(s, true), (s, false)]) {
        // Without NaN the fast pass decides; with NaN (in most tiles) the exact pass.
        let x: std::vec::Vec<f32> = (0..rows * inner).map(|_| f32_pool(&mut g, nan)).collect();
        let mut y = std::vec![0i64; inner];
        let mut h = std::vec![9f32; rows * inner];
        for (last, tile) in [
            (false, 16),
            (true, 16),
            (false, 48),
            (true, 256),
            (false, 1024),
        ] {
            y.fill(-1);
            match (last, tile) {
                (false, 16) => arg_lanes::<f32, Min, false, 16>(&x, &mut y, inner),
                (true, 16) => arg_lanes::<f32, Min, true, 16>(&x, &mut y, inner),
                (false, 48) => arg_lanes::<f32, Min, false, 48>(&x, &mut y, inner),
                (true, _) => arg_lanes::<f32, Min, true, 256>(&x, &mut y, inner),
                (false, _) => arg_lanes::<f32, Min, false, 1024>(&x, &mut y, inner),
            }
            for j in 0..inner {
                let lane: std::vec::Vec<f32> = (0..rows).map(|r| x[r * inner + j]).collect();
                assert_eq!(
                    y[j] as usize,
                    naive_arg::<f32, Min>(&lane, last),
                    "{rows}x{inner} lane {j}, last {last}, tile {tile}, NaN {nan}"
                );
            }
        }
        // With the values: the element at each index (a NaN when the lane holds one).
        let mut v = std::vec![7f32; inner];
        arg_lanes_values::<f32, Min, true, 48>(&x, &mut y, &mut v, inner);
        for j in 0..inner {
            let lane: std::vec::Vec<f32> = (0..rows).map(|r| x[r * inner + j]).collect();
            let at = naive_arg::<f32, Min>(&lane, true);
            assert_eq!(y[j] as usize, at, "{rows}x{inner} lane {j}, values");
            assert!(v[j] == lane[at] || (v[j].is_nan() && lane[at].is_nan()));
        }
        hardmax_lanes(&x, &mut h, inner);
        for j in 0..inner {
            let lane: std::vec::Vec<f32> = (0..rows).map(|r| x[r * inner + j]).collect();
            let want = naive_arg::<f32, Max>(&lane, false);
            for r in 0..rows {
                assert_eq!(h[r * inner + j], if r == want { 1.0 } else { 0.0 });
            }
        }
    }
}

/// f16 and bf16 along the rows, by the kernel on their bits in both builds (SSE2, and AVX2
/// where the CPU has it): against the definition on the values.
fn strided_half<T: Element + core::fmt::Debug>(from: fn(f32) -> T, one: T) {
    let mut g = Lcg(13);
    let shapes = [
        (1, 16),
        (3, 17),
        (40, 33),
        (17, 300),
        (100, 64),
        (131, 40),
        (1001, 48),
    ];
    for ((rows, inner), nan) in shapes.into_iter().flat_map(|s| [(s, false), (s, true)]) {
        let x: std::vec::Vec<T> = (0..rows * inner)
            .map(|_| {
                let v = f32_pool(&mut g, nan);
                from(if v.is_nan() && g.next().is_multiple_of(2) {
                    -v
                } else {
                    v
                })
            })
            .collect();
        let lane = |j: usize| -> std::vec::Vec<T> { (0..rows).map(|r| x[r * inner + j]).collect() };
        let ctx = std::format!("{:?} {rows}x{inner} NaN {nan}", T::DTYPE);
        let mut y = std::vec![-1i64; inner];
        arg_lanes::<T, Max, false, 256>(&x, &mut y, inner);
        for (j, &at) in y.iter().enumerate() {
            assert_eq!(
                at as usize,
                naive_arg::<T, Max>(&lane(j), false),
                "{ctx} max {j}"
            );
        }
        let mut v = std::vec![one; inner];
        arg_lanes_values::<T, Min, true, 1024>(&x, &mut y, &mut v, inner);
        for j in 0..inner {
            let at = naive_arg::<T, Min>(&lane(j), true);
            assert_eq!(y[j] as usize, at, "{ctx} min last {j}");
            assert!(
                v[j] == lane(j)[at] || (v[j].is_nan() && lane(j)[at].is_nan()),
                "{ctx}"
            );
        }
        arg_lanes::<T, Min, false, 1024>(&x, &mut y, inner);
        for (j, &at) in y.iter().enumerate() {
            let want = naive_arg::<T, Min>(&lane(j), false);
            assert_eq!(at as usize, want, "{ctx} min {j}");
        }
        arg_lanes::<T, Max, true, 64>(&x, &mut y, inner);
        for (j, &at) in y.iter().enumerate() {
            let want = naive_arg::<T, Max>(&lane(j), true);
            assert_eq!(at as usize, want, "{ctx} max last {j}");
        }
        let mut h = std::vec![one; rows * inner];
        hardmax_lanes(&x, &mut h, inner);
        for j in 0..inner {
            let want = naive_arg::<T, Max>(&lane(j), false);
            for r in 0..rows {
                let o = h[r * inner + j];
                assert!(
                    o == if r == want { one } else { T::ZERO },
                    "{ctx} hardmax {j}"
                );
            }
        }
    }
    // Two NaNs of one sign in a lane of a tile that holds no other, the later with the larger
    // payload (whose key is further out): the fast passes must see them, the first wins.
    for (rows, inner) in [(40, 33), (300, 70)] {
        for neg in [false, true] {
            let mut x: std::vec::Vec<T> = (0..rows * inner)
                .map(|_| from(f32_pool(&mut g, false)))
                .collect();
            let at = (rows / 2) * inner + inner / 3;
            let sign = if neg { 0x8000_0000 } else { 0 };
            x[at] = from(f32::from_bits(sign | 0x7fc0_0000));
            x[at + 3 * inner] = from(f32::from_bits(sign | 0x7fff_e000));
            let mut y = std::vec![-1i64; inner];
            for min in [false, true] {
                if min {
                    arg_lanes::<T, Min, false, 1024>(&x, &mut y, inner);
                } else {
                    arg_lanes::<T, Max, false, 1024>(&x, &mut y, inner);
                }
                let ctx =
                    std::format!("{:?} {rows}x{inner} NaN negative {neg} min {min}", T::DTYPE);
                assert_eq!(y[inner / 3], (rows / 2) as i64, "{ctx}");
            }
        }
    }
    // Extremes that are zeros of either sign, which tie: the first (last) zero wins,
    // whatever its sign.
    for (rows, inner) in [(40, 33), (300, 70)] {
        for min in [false, true] {
            let pool = if min {
                [-0.0, 0.0, 1.0, 2.0]
            } else {
                [-0.0, 0.0, -1.0, -2.0]
            };
            let x: std::vec::Vec<T> = (0..rows * inner)
                .map(|_| from(pool[(g.next() % 4) as usize]))
                .collect();
            both_ties(&x, rows, inner, min, "zeros");
        }
    }
}

/// The arg-reduction of `x` (`rows` rows of `inner` lanes) along the rows in one direction
/// (`min`), first and last index, against the definition lane by lane.
fn both_ties<T: Element + core::fmt::Debug>(
    x: &[T],
    rows: usize,
    inner: usize,
    min: bool,
    what: &str,
) {
    let lane = |j: usize| -> std::vec::Vec<T> { (0..rows).map(|r| x[r * inner + j]).collect() };
    for last in [false, true] {
        let mut y = std::vec![-1i64; inner];
        match (min, last) {
            (false, false) => arg_lanes::<T, Max, false, 1024>(x, &mut y, inner),
            (false, true) => arg_lanes::<T, Max, true, 1024>(x, &mut y, inner),
            (true, false) => arg_lanes::<T, Min, false, 1024>(x, &mut y, inner),
            (true, true) => arg_lanes::<T, Min, true, 1024>(x, &mut y, inner),
        }
        for (j, &at) in y.iter().enumerate() {
            let want = if min {
                naive_arg::<T, Min>(&lane(j), last)
            } else {
                naive_arg::<T, Max>(&lane(j), last)
            };
            let ctx = std::format!("{:?} {rows}x{inner} {what}", T::DTYPE);
            assert_eq!(at as usize, want, "{ctx} min {min} last {last} lane {j}");
        }
    }
}

/// Zero extremes met late, each sign once, the other rows of the lane further from the
/// extreme: the lanes read again must go down to them (the keys of the AVX-512 walk tell -0
/// from +0).
fn late_zeros<T: Element + core::fmt::Debug>(from: fn(f32) -> T) {
    for (rows, inner) in [(40, 33), (300, 70)] {
        for min in [false, true] {
            let far = from(if min { 1.0 } else { -1.0 });
            let mut x = std::vec![far; rows * inner];
            for j in (0..inner).step_by(3) {
                let (a, b) = (rows - 1 - (j % 7), rows - 9 - (j % 5));
                let (first, second) = if j % 2 == 0 { (-0.0, 0.0) } else { (0.0, -0.0) };
                x[a.min(b) * inner + j] = from(first);
                x[a.max(b) * inner + j] = from(second);
            }
            both_ties(&x, rows, inner, min, "late zeros");
        }
    }
}

#[test]
fn strided_half_kernels_match_the_definition() {
    for sse2_only in [false, true] {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        crate::kernels::rows_f32::avx2::SSE2_ONLY.with(|c| c.set(sse2_only));
        strided_half::<crate::f16>(crate::f16::from_f32, crate::f16::ONE);
        strided_half::<crate::bf16>(crate::bf16::from_f32, crate::bf16::ONE);
        late_zeros::<crate::f16>(crate::f16::from_f32);
        late_zeros::<crate::bf16>(crate::bf16::from_f32);
    }
}

/// [`arg_blocks_f32`] (every block in one call) over blocks of 3 to 33 rows of 16 to 100 lanes
/// (three rows from 64 lanes),
/// one to five blocks, NaN in some blocks only (the call stops at each and the exact pass takes
/// it, then the call goes on), ties and zeros of both signs from the pool: each tie rule and
/// direction against the definition, with the values. Lanes over the tile, fewer than sixteen
/// or fewer than three rows are not its: it says so and writes nothing. Off AVX2 (and with
/// `SSE2_ONLY`) it takes nothing.
#[test]
fn f32_blocks_in_one_call_match_the_definition() {
    const TILE: usize = 128;
    let mut g = Lcg(41);
    let avx2 = cfg!(all(target_arch = "x86_64", not(feature = "small-code")))
        && crate::kernels::rows_f32::avx2::available();
    for (r, inner) in [
        (3, 16),
        (4, 17),
        (5, 24),
        (7, 31),
        (3, 32),
        (3, 64),
        (6, 40),
        (8, 100),
        (33, 16),
        (20, 20),
        (64, 17),
        (2, 16),
        (5, 15),
        (3, 129),
    ] {
        // Three rows only over 64 lanes or more.
        let takes = avx2 && (r >= 4 || (r == 3 && inner >= 64)) && (16..=TILE).contains(&inner);
        for outer in [1, 2, 5] {
            // Block `b` holds a NaN where `b % 3 == 1` (every block in the last round).
            for all_nan in [false, true] {
                let x: std::vec::Vec<f32> = (0..outer * r * inner)
                    .map(|i| {
                        let b = i / (r * inner);
                        f32_pool(&mut g, all_nan || b % 3 == 1)
                    })
                    .collect();
                let lane = |b: usize, j: usize| -> std::vec::Vec<f32> {
                    (0..r).map(|k| x[(b * r + k) * inner + j]).collect()
                };
                for mode in 0..4 {
                    let (mut y, mut v) = (
                        std::vec![-1i64; outer * inner],
                        std::vec![0f32; outer * inner],
                    );
                    let mut none: [f32; 0] = [];
                    let done = match mode {
                        0 => arg_blocks_f32::<f32, Max, false, TILE>(&x, &mut y, &mut v, r, inner),
                        1 => arg_blocks_f32::<f32, Min, true, TILE>(&x, &mut y, &mut v, r, inner),
                        2 => {
                            arg_blocks_f32::<f32, Max, true, TILE>(&x, &mut y, &mut none, r, inner)
                        }
                        _ => {
                            arg_blocks_f32::<f32, Min, false, TILE>(&x, &mut y, &mut none, r, inner)
                        }
                    };
                    let ctx = std::format!("{outer}x{r}x{inner} mode {mode} all_nan {all_nan}");
                    assert_eq!(done, takes, "{ctx}");
                    if !done {
                        assert!(y.iter().all(|&i| i == -1), "{ctx}: written");
                        continue;
                    }
                    for b in 0..outer {
                        for j in 0..inner {
                            let l = lane(b, j);
                            let (max, last) =
                                [(true, false), (false, true), (true, true), (false, false)][mode];
                            let want = if max {
                                naive_arg::<f32, Max>(&l, last)
                            } else {
                                naive_arg::<f32, Min>(&l, last)
                            };
                            let at = b * inner + j;
                            assert_eq!(y[at] as usize, want, "{ctx} block {b} lane {j}");
                            if mode < 2 {
                                let w = l[want];
                                assert!(
                                    v[at] == w || (v[at].is_nan() && w.is_nan()),
                                    "{ctx} block {b} lane {j} value"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Hardmax of `f32` blocks filled with zeros before their ones are found (`hardmax::filled_f32`:
/// from 128 rows, or 48 where the AVX2 walk would not track the lanes, of 32 lanes or more on a
/// CPU with AVX-512): `hardmax_blocks_f32` leaves them (nothing written), and `hardmax_lanes`,
/// which the node then calls, finds each lane's first maximum (NaN first) by the AVX-512 arg
/// pass: every output against the definition, with and without NaN (either sign), ties and
/// signed zeros from the pool, a partial last group, tiles of lanes that are not whole chunks,
/// several tiles of 1024 lanes; and blocks on either side of the row thresholds.
#[test]
fn hardmax_of_filled_blocks_matches_the_definition() {
    let mut g = Lcg(31);
    let shapes = [
        (300, 1000),
        (1001, 300),
        (130, 2100),
        (128, 32),
        (127, 40),
        (48, 170),
        (47, 170),
        (60, 2100),
        (200, 1030),
    ];
    for (rows, inner) in shapes {
        for nan in [false, true] {
            let mut x: std::vec::Vec<f32> =
                (0..rows * inner).map(|_| f32_pool(&mut g, false)).collect();
            if nan {
                x[(rows - 3) * inner + inner / 2] = f32::NAN;
                x[5 * inner + 7] = -f32::NAN;
            }
            let mut h = std::vec![9f32; rows * inner];
            #[cfg(all(target_arch = "x86_64", not(feature = "small-code")))]
            if super::super::hardmax::filled_f32::<f32>(rows, inner) {
                assert!(!crate::kernels::hardmax_blocks_f32(&x, &mut h, rows, inner));
                assert!(h.iter().all(|&o| o == 9.0), "{rows}x{inner}: written");
            }
            hardmax_lanes(&x, &mut h, inner);
            for j in 0..inner {
                let lane: std::vec::Vec<f32> = (0..rows).map(|r| x[r * inner + j]).collect();
                let want = naive_arg::<f32, Max>(&lane, false);
                for r in 0..rows {
                    let o = h[r * inner + j];
                    assert_eq!(
                        o,
                        if r == want { 1.0 } else { 0.0 },
                        "{rows}x{inner} {j} {nan}"
                    );
                }
            }
        }
    }
}
