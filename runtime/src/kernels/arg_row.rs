//! The contiguous arg-reduction (ArgMax, ArgMin along the last axis): [`arg_row`] and its
//! parts, blocks and lanes, its clearing form for Hardmax, and the `small-code` variant.

use super::half_rows::{arg_row_half, inf_of, keyed};
use super::int_rows::{arg_row_small, small_int};
use super::mid_rows::{arg_row_mid, MID};
use super::shared::{
    fill, lane_mask, lanes_extreme, nan_pairs, row_extreme, step, take_chunk, LANES,
};
use crate::{Direction, Element};

/// Elements per block of [`arg_row`]: each block's extreme per lane is kept, and only the lanes
/// of the block that holds the answer are read again.
const BLOCK: usize = 16 * LANES;

/// Index of the extreme of a contiguous row (0 for an empty row).
///
/// ```
/// use onnx_aot::{kernels::arg_row, Max, Min};
/// let x = [1.0, 3.0, 3.0, f32::NAN, 0.0, f32::NAN];
/// assert_eq!(arg_row::<f32, Max, false>(&x), 3); // NaN wins, the first one
/// assert_eq!(arg_row::<f32, Max, true>(&x), 5); // select_last_index: the last NaN
/// assert_eq!(arg_row::<i32, Min, true>(&[2, -1, 5, -1]), 3); // the last tie
/// ```
///
/// The row is read once, in blocks of 256 elements: each block's extreme per lane comes
/// from vector lanes (one max/min per element, NaN flagged on the side; two sets of sixteen
/// lanes for elements of 4 bytes or less) and is kept, with no reduction across lanes per block.
/// Rows are taken in parts of up to 1024 elements (four blocks); at the end of a part the kept
/// lanes give its extreme, the first (last, with `LAST`) block that holds it and the lanes that
/// do, and a second look reads only those lanes of that block (sixteen elements each). The
/// parts' answers are then compared. If any NaN occurred, the answer is the first (last) NaN
/// instead, found by a search of the row. With the `small-code` feature, one pass finds the
/// extreme and a plain search its index instead: the same answers in less code.
#[cfg_attr(feature = "small-code", inline)]
#[cfg_attr(not(feature = "small-code"), inline(always))]
pub fn arg_row<T: Element, D: Direction, const LAST: bool>(x: &[T]) -> usize {
    if keyed::<T>() {
        // f16 and bf16: in their own width, on the bits.
        if let Some(b) = T::half_bits(x) {
            return arg_row_half::<D, LAST>(b, inf_of::<T>());
        }
    }
    if const { small_int::<T>() } {
        // 1- and 2-byte integers: the extreme, then a search by equality.
        return arg_row_small::<T, D, LAST>(x);
    }
    arg_row_clearing::<T, D, LAST, false>(x, &mut [])
}

/// Blocks of a part of a row in [`arg_row`], whose lane extremes are kept on the stack.
const PART_BLOCKS: usize = 4;

/// Elements per part of a row in [`arg_row`].
const PART: usize = PART_BLOCKS * BLOCK;

/// [`arg_row`], writing zeros over `y` in the same pass when `CLEAR` (for Hardmax). With the
/// `small-code` feature, [`arg_row_compact`] instead.
#[inline(always)]
pub(super) fn arg_row_clearing<T: Element, D: Direction, const LAST: bool, const CLEAR: bool>(
    x: &[T],
    y: &mut [T],
) -> usize {
    if cfg!(feature = "small-code") {
        arg_row_compact::<T, D, LAST, CLEAR>(x, y)
    } else if CLEAR && LANES < x.len() && x.len() <= MID {
        // Hardmax: measured faster than the parts for such rows, SSE2 or AVX2 (rows of 80:
        // 1.75 -> 1.35x of a read-and-write pass); the arg-reductions take it only through
        // `arg_row_wide`.
        arg_row_mid::<T, D, LAST, CLEAR>(x, y)
            .unwrap_or_else(|| arg_row_parts::<T, D, LAST, CLEAR, PART>(x, y))
    } else {
        arg_row_parts::<T, D, LAST, CLEAR, PART>(x, y)
    }
}

/// [`arg_row`] that takes [`arg_row_mid`] for rows of more than sixteen and at most [`MID`]
/// elements: for the AVX2 builds of the node shims (`node/wide.rs`), where it measured faster
/// (ArgMax rows of 80: 4.0 -> 3.2-3.5x of the stream); built for SSE2 it is slower than the
/// parts (about 1.2-1.5x on rows of 33 to 96), which [`arg_row`] keeps.
#[doc(hidden)]
#[cfg_attr(feature = "small-code", inline)]
#[cfg_attr(not(feature = "small-code"), inline(always))]
pub fn arg_row_wide<T: Element, D: Direction, const LAST: bool>(x: &[T]) -> usize {
    if !keyed::<T>()
        && !const { small_int::<T>() }
        && !cfg!(feature = "small-code")
        && LANES < x.len()
        && x.len() <= MID
    {
        if let Some(i) = arg_row_mid::<T, D, LAST, false>(x, &mut []) {
            return i;
        }
    }
    arg_row::<T, D, LAST>(x)
}

/// [`arg_row_clearing`] in little code, for the `small-code` feature: one pass for the extreme
/// (and NaN), then a plain search for its first (last) occurrence, or for the first (last) NaN.
#[inline(always)]
fn arg_row_compact<T: Element, D: Direction, const LAST: bool, const CLEAR: bool>(
    x: &[T],
    y: &mut [T],
) -> usize {
    if CLEAR {
        fill(y, T::ZERO);
    }
    let (best, nan) = row_extreme::<T, D>(x);
    let hit = |v: &T| {
        if nan {
            v.is_nan()
        } else {
            !D::better(best, *v)
        }
    };
    let found = if LAST {
        x.iter().rposition(hit)
    } else {
        x.iter().position(hit)
    };
    found.unwrap_or(0)
}

/// [`arg_row_clearing`] over parts of `P` elements (at most [`PART`]; tests use small parts).
#[inline(always)]
fn arg_row_parts<T: Element, D: Direction, const LAST: bool, const CLEAR: bool, const P: usize>(
    x: &[T],
    y: &mut [T],
) -> usize {
    let p_len = if P == 0 || P > PART { PART } else { P };
    // The extreme so far, and its index.
    let mut best: Option<(T, usize)> = None;
    let mut nan = false;
    let mut outs = y.chunks_mut(p_len);
    for (p, part) in x.chunks(p_len).enumerate() {
        let found = match outs.next() {
            Some(out) if CLEAR => part_extreme::<T, D, LAST, true>(part, out),
            _ => part_extreme::<T, D, LAST, false>(part, &mut []),
        };
        let Some((v, i)) = found else {
            nan = true;
            continue;
        };
        let take = match best {
            None => true,
            Some((b, _)) if LAST => !D::better(b, v),
            Some((b, _)) => D::better(v, b),
        };
        if take {
            best = Some((v, p * p_len + i));
        }
    }
    if nan {
        // Rows with a NaN are rare: a plain search keeps this path small.
        let found = if LAST {
            x.iter().rposition(|v| v.is_nan())
        } else {
            x.iter().position(|v| v.is_nan())
        };
        return found.unwrap_or(0);
    }
    best.map_or(0, |(_, i)| i)
}

/// The extreme of a part of a row (at most [`PART`] elements) by the order alone, and the index
/// of its first (last, with `LAST`) occurrence; `None` if the part holds a NaN or is
/// empty. With `CLEAR`, writes zeros over `y` (as long as `x`) in the same pass.
#[inline(always)]
fn part_extreme<T: Element, D: Direction, const LAST: bool, const CLEAR: bool>(
    x: &[T],
    y: &mut [T],
) -> Option<(T, usize)> {
    let &first = x.first()?;
    let (blocks, tail) = x.as_chunks::<BLOCK>();
    // Each block's extreme per lane (slots past the last block are never read), and the running
    // extreme per lane.
    let mut kept = [[first; LANES]; PART_BLOCKS];
    let mut run = [first; LANES];
    let mut nans = [0u32; LANES / 2];
    // Zeros for Hardmax's output, as a value the optimizer cannot see: stores of a known zero
    // are merged into one `memset` after each block's loads, and the stores then wait on their
    // own instead of overlapping the loads.
    let zero = if CLEAR {
        core::hint::black_box(T::ZERO)
    } else {
        T::ZERO
    };
    let (yblocks, ytail) = y.as_chunks_mut::<BLOCK>();
    let mut yblocks = yblocks.iter_mut();
    let mut slots = kept.iter_mut();
    for block in blocks {
        let cur = block_lanes::<T, D, CLEAR>(block, yblocks.next(), &mut nans, zero);
        for (r, &c) in run.iter_mut().zip(&cur) {
            *r = step::<T, D>(*r, c);
        }
        if let Some(k) = slots.next() {
            *k = cur;
        }
    }
    // The tail, a shorter last block: its lanes end with a chunk of the elements left over,
    // padded with the tail's first element (a max/min does not mind an element twice).
    if let Some(&t0) = tail.first() {
        let (chunks, rest) = tail.as_chunks::<LANES>();
        let mut pad = [t0; LANES];
        for (p, &v) in pad.iter_mut().zip(rest) {
            *p = v;
        }
        let cur = if CLEAR {
            let (outs, _) = ytail.as_chunks_mut::<LANES>();
            chunks_lanes::<T, D, true>(chunks, outs, pad, &mut nans, zero)
        } else {
            chunks_lanes::<T, D, false>(chunks, &mut [], pad, &mut nans, zero)
        };
        if CLEAR && !rest.is_empty() {
            if let Some(o) = y.last_chunk_mut::<LANES>() {
                // The elements left over, by one whole-chunk store over zeros already written.
                *o = [zero; LANES];
            } else {
                fill(y, T::ZERO);
            }
        }
        for (r, &c) in run.iter_mut().zip(&cur) {
            *r = step::<T, D>(*r, c);
        }
        if let Some(k) = slots.next() {
            *k = cur;
        }
    }
    if nans.iter().fold(0, |a, &n| a | n) != 0 {
        return None;
    }
    let best = lanes_extreme::<T, D>(&run);
    // No NaN: the elements (and lanes) that hold the extreme are exactly those not worse than
    // it. The first (last) block whose kept lanes hold it, and which of its lanes do.
    let hit = |v: T| !D::better(best, v);
    let used = blocks.len() + usize::from(!tail.is_empty());
    let kept = kept.get(..used).unwrap_or(&kept);
    let holds = |(b, k): (usize, &[T; LANES])| Some((b, lane_mask(k, hit))).filter(|f| f.1 != 0);
    let found = if LAST {
        kept.iter().enumerate().rev().find_map(holds)
    } else {
        kept.iter().enumerate().find_map(holds)
    };
    let found = found.unwrap_or((0, 0));
    let (block, mut lanes) = found;
    let start = block * BLOCK;
    let region = x.get(start..).unwrap_or(&[]);
    let region = region.get(..BLOCK).unwrap_or(region);
    // Element `i` of the block went to lane `i % LANES` (a padded tail lane holds the tail's
    // first element, lane 0's): search only the lanes that hold the extreme, one element per
    // chunk, for the first (last) chunk that holds it.
    let mut at: Option<usize> = None;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let mut column = region.get(l..).unwrap_or(&[]).iter().step_by(LANES);
        let k = if LAST {
            column.rposition(|&v| hit(v))
        } else {
            column.position(|&v| hit(v))
        };
        let Some(k) = k else { continue };
        let i = k * LANES + l;
        at = Some(match at {
            Some(a) if LAST => a.max(i),
            Some(a) => a.min(i),
            None => i,
        });
    }
    Some((best, start + at.unwrap_or(0)))
}

/// The extreme per lane of a chunk `start` (a block's first chunk, or a tail's padded last one)
/// and of some more chunks, by the order alone, with their NaN flagged in `nans`. With `CLEAR`,
/// also writes zeros over the matching chunks of `outs` in the same loop.
#[inline(always)]
fn chunks_lanes<T: Element, D: Direction, const CLEAR: bool>(
    chunks: &[[T; LANES]],
    outs: &mut [[T; LANES]],
    start: [T; LANES],
    nans: &mut [u32; LANES / 2],
    zero: T,
) -> [T; LANES] {
    let mut cur = start;
    nan_pairs(nans, &start);
    if CLEAR {
        for (ch, o) in chunks.iter().zip(outs) {
            take_chunk::<T, D>(&mut cur, ch, nans);
            *o = [zero; LANES];
        }
    } else {
        for ch in chunks {
            take_chunk::<T, D>(&mut cur, ch, nans);
        }
    }
    cur
}

/// One block's extreme per lane, by the order alone, with its NaN flagged in `nans`. With
/// `CLEAR`, also writes zeros over `out` chunk by chunk in the same loop.
///
/// For elements of 4 bytes or less, chunks are taken in pairs into two sets of lanes: each
/// max/min chain is bound by the latency of one instruction, and twice the chains (still within
/// the vector registers) keep up with the loads.
#[inline(always)]
fn block_lanes<T: Element, D: Direction, const CLEAR: bool>(
    block: &[T; BLOCK],
    out: Option<&mut [T; BLOCK]>,
    nans: &mut [u32; LANES / 2],
    zero: T,
) -> [T; LANES] {
    let (chunks, _) = block.as_chunks::<LANES>();
    let outs = match out {
        Some(out) if CLEAR => out.as_chunks_mut::<LANES>().0,
        _ => &mut [],
    };
    if core::mem::size_of::<T>() <= 4 {
        let (pairs, _) = chunks.as_chunks::<2>();
        let (opairs, _) = outs.as_chunks_mut::<2>();
        let Some(([h0, h1], rest)) = pairs.split_first() else {
            return [block[0]; LANES];
        };
        let (mut a, mut b) = (*h0, *h1);
        nan_pairs(nans, h0);
        nan_pairs(nans, h1);
        if let (true, Some((ohead, orest))) = (CLEAR, opairs.split_first_mut()) {
            *ohead = [[zero; LANES]; 2];
            for ([c0, c1], o) in rest.iter().zip(orest) {
                take_chunk::<T, D>(&mut a, c0, nans);
                take_chunk::<T, D>(&mut b, c1, nans);
                *o = [[zero; LANES]; 2];
            }
        } else {
            for [c0, c1] in rest {
                take_chunk::<T, D>(&mut a, c0, nans);
                take_chunk::<T, D>(&mut b, c1, nans);
            }
        }
        for (l, &v) in a.iter_mut().zip(&b) {
            *l = step::<T, D>(*l, v);
        }
        return a;
    }
    let Some((head, rest)) = chunks.split_first() else {
        return [block[0]; LANES];
    };
    let orest = match outs.split_first_mut() {
        Some((ohead, orest)) => {
            *ohead = [zero; LANES];
            orest
        }
        None => &mut [],
    };
    chunks_lanes::<T, D, CLEAR>(rest, orest, *head, nans, zero)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
    use crate::kernels::{fold, hardmax_row};
    use crate::{Max, Min};

    #[test]
    fn arg_row_ties_and_nan() {
        let x = [1.0f32, 3.0, 3.0, f32::NAN, 0.0, f32::NAN];
        assert_eq!(arg_row::<f32, Max, false>(&x), 3);
        assert_eq!(arg_row::<f32, Max, true>(&x), 5);
        assert_eq!(arg_row::<f32, Min, false>(&x), 3);
        let y = [2i8, -1, 2, -1];
        assert_eq!(arg_row::<i8, Max, false>(&y), 0);
        assert_eq!(arg_row::<i8, Max, true>(&y), 2);
        assert_eq!(arg_row::<i8, Min, true>(&y), 3);
        assert_eq!(arg_row::<f32, Max, false>(&[-0.0, 0.0]), 0);
        assert_eq!(arg_row::<f32, Max, true>(&[-0.0, 0.0]), 1);
    }

    /// Both contiguous kernels (the default one and the `small-code` one, whichever `arg_row`
    /// picks) against the definition, in all four modes, and the clearing forms of both (which
    /// must also zero every element).
    fn check_arg<T: Element>(x: &[T]) {
        macro_rules! mode {
            ($d:ty, $last:literal) => {{
                let want = naive_arg::<T, $d>(x, $last);
                let what = (stringify!($d), $last, x);
                assert_eq!(arg_row::<T, $d, $last>(x), want, "{what:?}");
                assert_eq!(arg_row_wide::<T, $d, $last>(x), want, "wide {what:?}");
                let mut y = std::vec![T::ONE; x.len()];
                let got = arg_row_clearing::<T, $d, $last, true>(x, &mut y);
                assert_eq!(got, want, "clearing {what:?}");
                assert!(y.iter().all(|&v| v == T::ZERO), "not cleared {what:?}");
                let got = arg_row_parts::<T, $d, $last, false, PART>(x, &mut []);
                assert_eq!(got, want, "parts {what:?}");
                let mut y = std::vec![T::ONE; x.len()];
                let got = arg_row_parts::<T, $d, $last, true, PART>(x, &mut y);
                assert_eq!(got, want, "parts, clearing {what:?}");
                assert!(y.iter().all(|&v| v == T::ZERO), "parts: not cleared {what:?}");
                let got = arg_row_compact::<T, $d, $last, false>(x, &mut []);
                assert_eq!(got, want, "compact {what:?}");
                let mut y = std::vec![T::ONE; x.len()];
                let got = arg_row_compact::<T, $d, $last, true>(x, &mut y);
                assert_eq!(got, want, "compact, clearing {what:?}");
                assert!(y.iter().all(|&v| v == T::ZERO), "compact: not cleared {what:?}");
            }};
        }
        mode!(Max, false);
        mode!(Max, true);
        mode!(Min, false);
        mode!(Min, true);
    }

    #[test]
    fn long_rows_match_the_definition() {
        let mut g = Lcg(7);
        let mut buf = [0f32; 300];
        let mut ints = [0i8; 300];
        let mut bools = [false; 300];
        for len in 0..300 {
            for trial in 0..4 {
                let nan = trial % 2 == 0 && len % 3 == 0;
                for v in buf.iter_mut().take(len) {
                    *v = f32_pool(&mut g, nan);
                }
                for v in ints.iter_mut().take(len) {
                    *v = match g.next() % 5 {
                        0 => i8::MIN,
                        1 => i8::MAX,
                        k => k as i8,
                    };
                }
                for v in bools.iter_mut().take(len) {
                    *v = g.next().is_multiple_of(7);
                }
                check_arg(&buf[..len]);
                check_arg(&ints[..len]);
                check_arg(&bools[..len]);

                let naive_max = buf[..len].iter().fold(f32::NEG_INFINITY, |a, &v| {
                    if a.is_nan() || v.is_nan() {
                        f32::NAN
                    } else {
                        a.max(v)
                    }
                });
                let got = fold::<f32, Max>(f32::NEG_INFINITY, &buf[..len]);
                assert!(
                    got == naive_max || (got.is_nan() && naive_max.is_nan()),
                    "fold {len}"
                );
                let naive_min = ints[..len].iter().copied().min().unwrap_or(i8::MAX);
                assert_eq!(fold::<i8, Min>(i8::MAX, &ints[..len]), naive_min);
            }
        }
    }

    /// Rows of several blocks: ties between blocks, the extreme in the first, middle or last
    /// block, a NaN before or after it, a lone NaN in the tail.
    #[test]
    fn multi_block_rows_match_the_definition() {
        let mut g = Lcg(3);
        let mut buf = std::vec![0f32; 1100];
        let mut ints = std::vec![0i16; 1100];
        for len in [255, 256, 257, 511, 512, 513, 777, 1000, 1100] {
            for trial in 0..40 {
                for v in buf.iter_mut().take(len) {
                    *v = (g.next() % 7) as f32 - 3.0;
                }
                for v in ints.iter_mut().take(len) {
                    *v = (g.next() % 5) as i16 - 2;
                }
                // Plant one extreme (or several equal ones) somewhere.
                for _ in 0..trial % 3 {
                    let at = g.next() as usize % len;
                    buf[at] = 9.0;
                    ints[at] = i16::MIN;
                }
                if trial % 4 == 1 {
                    let at = g.next() as usize % len;
                    buf[at] = f32::NAN;
                }
                if trial % 8 == 2 {
                    buf[len - 1] = f32::NAN;
                }
                if trial % 8 == 3 {
                    buf[0] = -0.0;
                    buf[len - 1] = 0.0;
                    for v in buf.iter_mut().take(len - 1).skip(1) {
                        *v = -1.0;
                    }
                }
                check_arg(&buf[..len]);
                check_arg(&ints[..len]);
                let mut y = std::vec![7f32; len];
                hardmax_row(&buf[..len], &mut y);
                let want = naive_arg::<f32, Max>(&buf[..len], false);
                for (i, &o) in y.iter().enumerate() {
                    assert_eq!(o, if i == want { 1.0 } else { 0.0 }, "hardmax {len} at {i}");
                }
            }
        }
    }

    /// `arg_row_parts` with parts of `P` elements against the definition, in all four modes,
    /// and its clearing form (for Hardmax) zeroing every element.
    fn check_parts<const P: usize>(x: &[f32]) {
        macro_rules! mode {
            ($d:ty, $last:literal) => {{
                let want = naive_arg::<f32, $d>(x, $last);
                let got = arg_row_parts::<f32, $d, $last, false, P>(x, &mut []);
                assert_eq!(got, want, "P {} len {} last {}", P, x.len(), $last);
                let mut y = std::vec![5f32; x.len()];
                let got = arg_row_parts::<f32, $d, $last, true, P>(x, &mut y);
                assert_eq!(got, want, "clearing, P {} len {}", P, x.len());
                assert!(y.iter().all(|&v| v == 0.0), "P {} len {}: not cleared", P, x.len());
            }};
        }
        mode!(Max, false);
        mode!(Max, true);
        mode!(Min, false);
        mode!(Min, true);
    }

    /// Rows cut into parts (the kernels' own parts, and small ones here so that every part
    /// boundary case is reached): the extreme in any part, ties across parts, tails of every
    /// length, NaN in one part only.
    #[test]
    fn rows_in_parts_match_the_definition() {
        let mut g = Lcg(11);
        let mut buf = std::vec![0f32; 4200];
        for len in [
            1, 15, 16, 17, 31, 33, 255, 300, 1023, 1024, 1025, 2100, 4113,
        ] {
            for trial in 0..12 {
                for v in buf.iter_mut().take(len) {
                    *v = (g.next() % 5) as f32 - 2.0;
                }
                for _ in 0..trial % 4 {
                    let at = g.next() as usize % len;
                    buf[at] = if trial % 2 == 0 { 8.0 } else { -8.0 };
                }
                if trial == 7 {
                    let at = g.next() as usize % len;
                    buf[at] = f32::NAN;
                }
                if trial == 9 {
                    buf[len - 1] = f32::NAN;
                    buf[0] = f32::NAN;
                }
                let x = &buf[..len];
                check_parts::<1>(x);
                check_parts::<7>(x);
                check_parts::<16>(x);
                check_parts::<100>(x);
                check_parts::<256>(x);
                check_parts::<300>(x);
                check_parts::<PART>(x);
                check_arg(x);
            }
        }
    }

    /// Rows of 8-byte and 1-byte elements take other paths (one set of lanes; sixteen lanes in
    /// one register): the same definition holds.
    #[test]
    fn wide_and_narrow_elements_match_the_definition() {
        let mut g = Lcg(13);
        for len in [1, 16, 17, 300, 1000, 1100, 2049] {
            for _ in 0..10 {
                let x: std::vec::Vec<f64> = (0..len)
                    .map(|_| match g.next() % 40 {
                        0 => f64::NAN,
                        k => (k % 6) as f64,
                    })
                    .collect();
                check_arg(&x);
                // A lone NaN in the first chunk of a block (the chunk that starts its lanes).
                let mut lone: std::vec::Vec<f64> = (0..len).map(|i| (i % 7) as f64).collect();
                let at = (g.next() as usize % len) / BLOCK * BLOCK + g.next() as usize % LANES;
                if let Some(v) = lone.get_mut(at) {
                    *v = f64::NAN;
                }
                check_arg(&lone);
                let y: std::vec::Vec<u8> = (0..len).map(|_| (g.next() % 4) as u8 * 60).collect();
                check_arg(&y);
                let z: std::vec::Vec<i64> = (0..len).map(|_| (g.next() % 3) as i64 - 1).collect();
                check_arg(&z);
            }
        }
    }
}
