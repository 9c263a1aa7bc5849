//! Tests of [`super`] (the Hardmax of f32 rows by equality): against the definition written
//! here.

extern crate std;
use std::vec::Vec;

use super::{hardmax_rows_equal, FEW_FROM, MAX_ROW, MIN_ROW};
use crate::kernels::rows_f32::avx2::available;
use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
use crate::Max;

/// `y` against the definition (1 at the first maximum or first NaN, +0 elsewhere), bit for
/// bit.
fn check(x: &[f32], y: &[f32], n: usize, ctx: &str) {
    for (r, (row, out)) in x.chunks_exact(n).zip(y.chunks_exact(n)).enumerate() {
        let want = naive_arg::<f32, Max>(row, false);
        for (j, o) in out.iter().enumerate() {
            let expected = if j == want { 1f32 } else { 0f32 };
            assert_eq!(
                o.to_bits(),
                expected.to_bits(),
                "{ctx}: row {r} element {j} (want {want})"
            );
        }
    }
}

/// The kernel with the length at run time (each instance of a number of vectors, and the
/// general one past sixteen) and, for the lengths listed, as a constant.
fn run(x: &[f32], y: &mut [f32], n: usize) -> bool {
    macro_rules! constant {
        ($($c:literal)*) => {
            match n {
                // SAFETY: the callers checked `available`.
                $($c => unsafe { hardmax_rows_equal::<$c>(x, y, n) },)*
                // SAFETY: as above.
                _ => unsafe { hardmax_rows_equal::<0>(x, y, n) },
            }
        };
    }
    // SAFETY: as above.
    let dynamic = {
        let mut y2 = y.to_vec();
        let done = unsafe { hardmax_rows_equal::<0>(x, &mut y2, n) };
        (done, y2)
    };
    let done = constant!(13 16 20 33 64 80 129 1000 1024);
    assert_eq!(done, dynamic.0, "n {n}");
    assert!(
        y.iter()
            .zip(&dynamic.1)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "n {n}: constant and run-time lengths differ"
    );
    done
}

/// Distinct values (the path without mending), then ties of the maximum before and after
/// it, ±0 as the maximum, infinities, NaN (two payloads, either sign) early, late and in
/// the last vector's overlap, rows all NaN or all -inf; every length the kernel takes up to
/// 140 and longer ones around the powers of two, group sizes whole and partial, the output
/// starting as garbage.
#[test]
fn rows_by_equality_match_the_definition() {
    if !available() {
        std::eprintln!("no AVX2 on this CPU: the kernel is never called");
        return;
    }
    let mut g = Lcg(97);
    let lengths = (MIN_ROW..=140).chain([200, 255, 256, 257, 500, 1000, 1023, MAX_ROW]);
    for n in lengths {
        for rows in [1, 7, 8, 9, 17, 40] {
            let len = rows * n;
            // Distinct values: a shuffled ramp.
            let mut x: Vec<f32> = (0..len).map(|i| i as f32 * 0.25 - 100.0).collect();
            for i in (1..len).rev() {
                x.swap(i, (g.next() as usize) % (i + 1));
            }
            let mut y = std::vec![7f32; len];
            let ctx = std::format!("n {n} rows {rows}");
            if n > FEW_FROM && rows < 8 {
                // A few long rows: refused, nothing written.
                assert!(!run(&x, &mut y, n), "{ctx}");
                assert!(y.iter().all(|&v| v == 7.0), "{ctx}");
                continue;
            }
            assert!(run(&x, &mut y, n), "{ctx}");
            check(&x, &y, n, &ctx);
            // One row at a time, something that needs mending.
            for case in 0..9 {
                let mut xs = x.clone();
                let r = (g.next() as usize) % rows;
                let row = &mut xs[r * n..(r + 1) * n];
                let top = naive_arg::<f32, Max>(row, false);
                let other = (top + 1 + (g.next() as usize) % (n - 1)) % n;
                match case {
                    // A tie of the maximum, before or after it.
                    0 => row[other] = row[top],
                    // ±0 as the maximum, in either order.
                    1 | 2 => {
                        row.iter_mut().for_each(|v| *v = -v.abs() - 1.0);
                        let (a, b) = if case == 1 { (-0.0, 0.0) } else { (0.0, -0.0) };
                        row[top.min(other)] = a;
                        row[top.max(other)] = b;
                    }
                    // A NaN anywhere, then two NaNs with payloads (the first wins).
                    3 => row[other] = f32::NAN,
                    4 => {
                        row[other] = f32::from_bits(0xffc0_0001);
                        row[top] = f32::from_bits(0x7fc0_0002);
                    }
                    // A NaN in the last vector's overlap with the whole vectors, or last.
                    5 => row[(n - 8).max(8 * ((n - 1) / 8) - 1).min(n - 1)] = -f32::NAN,
                    6 => row[n - 1] = f32::NAN,
                    // Every element NaN; every element -inf.
                    7 => row.iter_mut().for_each(|v| *v = f32::NAN),
                    _ => row.iter_mut().for_each(|v| *v = f32::NEG_INFINITY),
                }
                let mut y = std::vec![7f32; len];
                let ctx = std::format!("n {n} rows {rows} case {case} row {r}");
                assert!(run(&xs, &mut y, n), "{ctx}");
                check(&xs, &y, n, &ctx);
            }
            // Values from the pool: many ties, ±0, infinities, NaN.
            let xp: Vec<f32> = (0..len).map(|_| f32_pool(&mut g, true)).collect();
            let mut y = std::vec![7f32; len];
            assert!(run(&xp, &mut y, n), "{ctx} pool");
            check(&xp, &y, n, &std::format!("{ctx} pool"));
        }
    }
}

/// Lengths outside the kernel's, and outputs not as long as the input: refused, nothing
/// written.
#[test]
fn other_lengths_are_refused() {
    if !available() {
        return;
    }
    for n in [1, 8, MIN_ROW - 1, MAX_ROW + 1, 4096] {
        let x = std::vec![1f32; 3 * n];
        let mut y = std::vec![7f32; 3 * n];
        // SAFETY: `available` found AVX2.
        assert!(!unsafe { hardmax_rows_equal::<0>(&x, &mut y, n) }, "n {n}");
        assert!(y.iter().all(|&v| v == 7.0), "n {n}");
    }
    let x = std::vec![1f32; 40];
    let mut y = std::vec![7f32; 39];
    // SAFETY: as above.
    assert!(!unsafe { hardmax_rows_equal::<20>(&x, &mut y, 20) });
    assert!(y.iter().all(|&v| v == 7.0));
}
