//! The strided arg-reduction (ArgMax, ArgMin along an outer axis): [`arg_lanes`] takes tiles
//! of lanes down the rows, sized by [`arg_tile`].

use super::shared::{find_first, take, LANES, ROW_GROUP};
use crate::{Direction, Element};

/// The largest tile of lanes [`arg_lanes`] takes at once: its running state (one element and one
/// `u32` row number per lane) lives on the stack and stays within 8 KiB.
pub const fn arg_tile(inner: usize, elem_size: usize) -> usize {
    let cap = (8192 / (elem_size + 4)) / LANES * LANES;
    let want = inner.div_ceil(LANES) * LANES;
    if want < cap {
        want
    } else {
        cap
    }
}

/// Arg-reduction of a block of rows of `inner` lanes (`x.len() / inner` rows) into `y`
/// (`inner` indices), `TILE` lanes at a time (see [`arg_tile`], which the generator uses).
///
/// Rows are read in order; each tile's running best and row number are updated with one
/// compare and two selects per element, on local copies of sixteen lanes so that the selects
/// stay vector selects. NaN is only flagged in that pass; a tile that holds one is done again
/// with the exact rule (a NaN beats everything, the first or last NaN wins).
#[inline]
pub fn arg_lanes<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
    x: &[T],
    y: &mut [i64],
    inner: usize,
) {
    if inner == 0 {
        return;
    }
    if TILE == 0 || x.len() / inner > u32::MAX as usize {
        // More rows than the compact row counters hold: one lane at a time.
        for (j, o) in y.iter_mut().enumerate() {
            let mut lane = x.iter().skip(j).step_by(inner);
            let Some(&first) = lane.next() else { return };
            let (mut best, mut idx) = (first, 0usize);
            for (r, &v) in lane.enumerate() {
                if take::<T, D, LAST>(best, v) {
                    best = v;
                    idx = r + 1;
                }
            }
            *o = idx as i64;
        }
        return;
    }
    // Whole rows only (generated code always passes them).
    let x = x.get(..x.len() / inner * inner).unwrap_or(&[]);
    for (t, ytile) in y.chunks_mut(TILE).enumerate() {
        let start = t * TILE;
        let end = start + ytile.len();
        if !arg_tile_pass::<T, D, LAST, TILE, false>(x, ytile, inner, start, end) {
            arg_tile_pass::<T, D, LAST, TILE, true>(x, ytile, inner, start, end);
        }
    }
}

/// One pass of [`arg_lanes`] over the lanes `start..end` of every row. Without `EXACT`, the
/// order alone decides and the pass gives up (returns false, `y` untouched) if it met a NaN;
/// with `EXACT`, the contract's NaN rule decides and the pass always finishes.
#[inline(always)]
pub(super) fn arg_tile_pass<
    T: Element,
    D: Direction,
    const LAST: bool,
    const TILE: usize,
    const EXACT: bool,
>(
    x: &[T],
    y: &mut [i64],
    inner: usize,
    start: usize,
    end: usize,
) -> bool {
    let choose = |b: T, v: T| {
        if EXACT {
            take::<T, D, LAST>(b, v)
        } else if LAST {
            !D::better(b, v)
        } else {
            D::better(v, b)
        }
    };
    let mut best = [T::ZERO; TILE];
    let mut at = [0u32; TILE];
    let mut nans = [0u32; LANES];
    let Some(lanes) = x.get(start..end) else {
        return true;
    };
    if !EXACT && find_first(lanes, |v: T| v.is_nan()).is_some() {
        return false;
    }
    for (b, &v) in best.iter_mut().zip(lanes) {
        *b = v;
    }
    // The state of this tile's lanes only (the last tile may be narrower than `TILE`).
    let n = lanes.len();
    let (Some(best), Some(at)) = (best.get_mut(..n), at.get_mut(..n)) else {
        return true;
    };
    let (bchunks, btail) = best.as_chunks_mut::<LANES>();
    let (achunks, atail) = at.as_chunks_mut::<LANES>();
    let rest = x.get(inner..).unwrap_or(&[]);
    // Rows come in groups; a chunk of sixteen lanes keeps its state in registers through the
    // group (its rows are read as that many streams), then stores it back whole.
    for (g, group) in rest.chunks(ROW_GROUP * inner).enumerate() {
        let first_row = 1 + g * ROW_GROUP;
        for (c, (bch, ach)) in bchunks.iter_mut().zip(achunks.iter_mut()).enumerate() {
            let off = start + c * LANES;
            // Selects on local copies: a select stored into place would become a branch per lane.
            let (mut b, mut a) = (*bch, *ach);
            for (k, row) in group.chunks_exact(inner).enumerate() {
                let Some(vch) = row.get(off..).and_then(|r| r.first_chunk::<LANES>()) else {
                    return true;
                };
                let r = (first_row + k) as u32;
                for (((b, a), nan), &v) in
                    b.iter_mut().zip(a.iter_mut()).zip(nans.iter_mut()).zip(vch)
                {
                    let t = choose(*b, v);
                    *b = if t { v } else { *b };
                    *a = if t { r } else { *a };
                    if !EXACT {
                        *nan |= u32::from(v.is_nan()).wrapping_neg();
                    }
                }
            }
            *bch = b;
            *ach = a;
        }
        // Lanes past the last whole chunk of the tile.
        let off = start + bchunks.len() * LANES;
        for (k, row) in group.chunks_exact(inner).enumerate() {
            let r = (first_row + k) as u32;
            let vtail = row.get(off..end).unwrap_or(&[]);
            for ((b, a), &v) in btail.iter_mut().zip(atail.iter_mut()).zip(vtail) {
                if !EXACT && v.is_nan() {
                    return false;
                }
                if choose(*b, v) {
                    *b = v;
                    *a = r;
                }
            }
        }
    }
    if !EXACT && nans.iter().fold(0, |a, &n| a | n) != 0 {
        return false;
    }
    for (o, &a) in y.iter_mut().zip(at.iter()) {
        *o = i64::from(a);
    }
    true
}

#[cfg(test)]
mod tests {
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
        assert_eq!(arg_tile(1024, 4), 1024);
        assert_eq!(arg_tile(4096, 4), 1024);
        assert_eq!(arg_tile(4096, 8), 8192 / 12 / LANES * LANES);
        assert_eq!(arg_tile(4096, 1), 8192 / 5 / LANES * LANES);
        for size in [1, 2, 4, 8] {
            for inner in [1, 15, 16, 100, 1000, 5000] {
                let t = arg_tile(inner, size);
                assert!(
                    t.is_multiple_of(LANES) && t >= LANES && t * (size + 4) <= 8192,
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
}
