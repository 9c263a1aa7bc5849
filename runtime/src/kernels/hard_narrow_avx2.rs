//! Strided Hardmax of `f32` along rows of fewer than sixteen lanes (the reduced axis before a
//! few kept elements: `[100000, 5]` over axis 0), in AVX2 (checked at run time): the block is
//! read as rows of `w` lanes (`w / c` of its rows at a time, `w` the generator's period), whose
//! chunks go down those wide rows by the tracked walk of `lane_walk_avx2` (each lane's maximum
//! and row in registers, zeros stored beside the loads); then the `w / c` answers of each lane
//! and the rows left over are combined, and the ones stored.
//!
//! The walk reads the block once, front to back, and writes its zeros in the same pass: the
//! read-and-write pass Hardmax is held to. The portable form (`hardmax_lanes_narrow`) found the
//! rows by the arg-reduction's lane kernel, then filled the block with zeros in a second pass.

use super::lane_walk_avx2::{walk_group, Saved, MAX_SAVED};
use super::narrow::MAX_PERIOD;

/// Bytes of wide rows a group takes: every chunk of lanes goes down a group's rows (from L1 for
/// all but the first) before the next group. One walk of each chunk down the whole block read
/// it from L2 or further once per chunk, 1.7-2.0x of the read-and-write pass.
const GROUP_BYTES: usize = 16 * 1024;

/// Hardmax along the rows of `c` lanes of the block `x` (its `x.len() / c` rows) into `y`, read
/// as rows of `w` lanes (`w` a multiple of `c`, from 16 to [`MAX_PERIOD`]): 1 in the row of
/// each lane's first maximum, 0 in its other rows. False if a lane holds a NaN (some outputs
/// written: the caller's exact kernel then writes them all) or the sizes do not fit (nothing
/// written).
///
/// # Safety
/// The CPU must have AVX2 (`rows_f32::avx2::available` checks it and more).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn hardmax_narrow(x: &[f32], y: &mut [f32], c: usize, w: usize) -> bool {
    crate::kernels::shared::align_frame();
    let k = w.checked_div(c).unwrap_or(0);
    if k == 0
        || !w.is_multiple_of(c)
        || !(16..=MAX_PERIOD).contains(&w)
        || c > 16
        || x.len() != y.len()
        || !x.len().is_multiple_of(c)
    {
        return false;
    }
    let rows = x.len() / c;
    // The wide rows (whole groups of `k` rows), counted in the walk's `i32` lanes.
    let groups = rows / k;
    if groups == 0 || groups > i32::MAX as usize {
        return false;
    }
    let wide = groups * w;
    let (Some(xw), Some(yw)) = (x.get(..wide), y.get_mut(..wide)) else {
        return false;
    };
    // Each wide lane's maximum, its wide row and its sum (NaN: a NaN, or both infinities).
    let mut saved = Saved {
        max: [0.0; MAX_SAVED],
        row: [0; MAX_SAVED],
        sum: [0.0; MAX_SAVED],
    };
    let group = (GROUP_BYTES / 4 / w).max(1);
    let mut from = 0;
    while from < groups {
        let to = groups.min(from + group);
        let mut at = 0;
        while at < w {
            // Chunks of 32 lanes, then of sixteen, the last one ending at the last lane.
            let wide = at + 32 <= w;
            let (base, n) = if wide { (at, 32) } else { (at.min(w - 16), 16) };
            let walked = if wide {
                walk_group::<4>(xw, yw, w, base, (from, to), &mut saved)
            } else {
                walk_group::<2>(xw, yw, w, base, (from, to), &mut saved)
            };
            if !walked {
                return false;
            }
            at = base + n;
        }
        from = to;
    }
    if saved.sum.iter().take(w).any(|s| s.is_nan()) {
        return false;
    }
    let (best, row) = (&saved.max, &saved.row);
    // Each lane of the `c`: the best of its `k` wide lanes (wide lane `i * c + l` holds the
    // rows `q * k + i`), the first row of a tie; then the rows left over, after all of them.
    let mut lane_best = [0f32; 16];
    let mut lane_row = [0usize; 16];
    for (l, (lb, lr)) in lane_best.iter_mut().zip(&mut lane_row).take(c).enumerate() {
        for i in 0..k {
            let j = i * c + l;
            let (Some(&v), Some(&q)) = (best.get(j), row.get(j)) else {
                return false;
            };
            let r = q as usize * k + i;
            if i == 0 || v > *lb || (v == *lb && r < *lr) {
                (*lb, *lr) = (v, r);
            }
        }
    }
    for r in groups * k..rows {
        for (l, (lb, lr)) in lane_best.iter_mut().zip(&mut lane_row).take(c).enumerate() {
            let i = r * c + l;
            let (Some(&v), Some(o)) = (x.get(i), y.get_mut(i)) else {
                return false;
            };
            if v.is_nan() {
                return false;
            }
            *o = 0.0;
            if v > *lb {
                (*lb, *lr) = (v, r);
            }
        }
    }
    for (l, &r) in lane_row.iter().take(c).enumerate() {
        if let Some(o) = y.get_mut(r * c + l) {
            *o = 1.0;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::hardmax_narrow;
    use crate::kernels::narrow::narrow_period;
    use crate::kernels::rows_f32::avx2::available;
    use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
    use crate::Max;

    /// `y` against the definition (NaN of any sign first) for every output.
    fn check(x: &[f32], y: &[f32], c: usize, ctx: &str) {
        let rows = x.len() / c;
        for l in 0..c {
            let lane: Vec<f32> = (0..rows).map(|r| x[r * c + l]).collect();
            let want = naive_arg::<f32, Max>(&lane, false);
            for r in 0..rows {
                assert_eq!(
                    y[r * c + l].to_bits(),
                    if r == want { 1f32 } else { 0f32 }.to_bits(),
                    "{ctx}: lane {l} row {r} (want {want})"
                );
            }
        }
    }

    /// Every lane count under sixteen with the generator's period and another, rows from under
    /// one wide row (refused) to thousands, whole wide rows and rows left over; values from the
    /// pool (ties, ±0, infinities; no lane holding both infinities, whose sum the walk takes for
    /// a NaN), the output starting as garbage; a NaN in a wide row or a row left over refused.
    #[test]
    fn narrow_f32_hardmax_matches_the_definition() {
        if !available() {
            std::eprintln!("no AVX2 on this CPU: the kernel is never called");
            return;
        }
        let mut g = Lcg(41);
        for c in 1..16 {
            for w in [narrow_period(c), 16 / c * c * 2] {
                if w < 16 || !w.is_multiple_of(c) {
                    continue;
                }
                let k = w / c;
                for rows in [k - 1, k, k + 1, 3 * k - 1, 40 * k + 3, 3000] {
                    let len = rows * c;
                    let flip = g.next().is_multiple_of(2);
                    let x: Vec<f32> = (0..len)
                        .map(|_| match f32_pool(&mut g, false) {
                            v if flip && v == f32::INFINITY => 1e30,
                            v if !flip && v == f32::NEG_INFINITY => -1e30,
                            v => v,
                        })
                        .collect();
                    let mut y = std::vec![9f32; len];
                    let ctx = std::format!("c {c} w {w} rows {rows}");
                    // SAFETY: `available` found AVX2.
                    let done = unsafe { hardmax_narrow(&x, &mut y, c, w) };
                    if rows < k {
                        assert!(!done, "{ctx}");
                        assert!(y.iter().all(|&v| v == 9.0), "{ctx}");
                        continue;
                    }
                    assert!(done, "{ctx}");
                    check(&x, &y, c, &ctx);
                    // A NaN in a wide row, then in a row left over (if any): refused.
                    for at in [len / 2, len - 1] {
                        let mut xn = x.clone();
                        xn[at] = if at.is_multiple_of(2) {
                            f32::NAN
                        } else {
                            -f32::NAN
                        };
                        // SAFETY: as above.
                        assert!(
                            !unsafe { hardmax_narrow(&xn, &mut y, c, w) },
                            "{ctx} nan {at}"
                        );
                    }
                }
            }
        }
        // Maxima equal across the `k` rows of a wide row and across wide rows: the first row;
        // -0 before +0 and the reverse: the first.
        let c = 3;
        let w = narrow_period(c);
        let mut x = std::vec![0f32; 200 * c];
        for r in 0..200 {
            x[r * c] = 1.0;
            x[r * c + 1] = -1.0;
            x[r * c + 2] = -1.0;
        }
        // Lane 0: 5 in rows 7 and 150 (row 7); lane 1: 2 in rows 0 and 50 (row 0); lane 2: -0
        // in row 2, +0 in row 10 (row 2).
        x[7 * c] = 5.0;
        x[150 * c] = 5.0;
        x[1] = 2.0;
        x[50 * c + 1] = 2.0;
        x[2 * c + 2] = -0.0;
        x[10 * c + 2] = 0.0;
        let mut y = std::vec![9f32; x.len()];
        // SAFETY: as above.
        assert!(unsafe { hardmax_narrow(&x, &mut y, c, w) });
        check(&x, &y, c, "ties");
        assert_eq!((y[7 * c], y[1], y[2 * c + 2]), (1.0, 1.0, 1.0));
        // Sizes that do not fit: nothing written.
        let mut y = std::vec![9f32; 40];
        // SAFETY: as above.
        unsafe {
            assert!(!hardmax_narrow(&[0.0; 40], &mut y, 0, 16));
            assert!(!hardmax_narrow(&[0.0; 40], &mut y, 3, 16));
            assert!(!hardmax_narrow(&[0.0; 40], &mut y, 4, 8));
            assert!(!hardmax_narrow(&[0.0; 39], &mut y[..39], 4, 16));
        }
        assert!(y.iter().all(|&v| v == 9.0));
    }
}
