//! The inner kernels that generated loops call.
//!
//! Every kernel works on slices with iterators (`chunks_exact`, `zip`) or checked access, so
//! none can panic whatever the lengths; generated code always passes consistent lengths, and
//! after inlining the constant sizes let rustc drop the checks.
//!
//! Rules (see SEMANTICS.md): reductions propagate NaN; arg-reductions pick the first extreme
//! (the last with `LAST`), and a NaN beats every number (the first NaN, or the last with
//! `LAST`); `-0.0 == +0.0`.

use crate::{Direction, Element, Max};

/// Lanes processed together by the strided Hardmax kernel.
const TILE: usize = 256;

/// Fills `y` with `v`.
#[inline]
pub fn fill<T: Copy>(y: &mut [T], v: T) {
    for o in y {
        *o = v;
    }
}

/// Copies `x` into `y` (up to the shorter length).
#[inline]
pub fn copy<T: Copy>(y: &mut [T], x: &[T]) {
    for (o, i) in y.iter_mut().zip(x) {
        *o = *i;
    }
}

/// Splits one buffer into a shared view `[a, a + a_len)` and a disjoint mutable view
/// `[b, b + b_len)`; `None` if they overlap or fall outside (generated code passes constant,
/// disjoint ranges, which rustc checks away).
#[inline(always)]
pub fn split2<T>(
    buf: &mut [T],
    a: usize,
    a_len: usize,
    b: usize,
    b_len: usize,
) -> Option<(&[T], &mut [T])> {
    let a_end = a.checked_add(a_len)?;
    let b_end = b.checked_add(b_len)?;
    if a_end <= b {
        let (lo, hi) = buf.split_at_mut_checked(b)?;
        Some((lo.get(a..a_end)?, hi.get_mut(..b_len)?))
    } else if b_end <= a {
        let (lo, hi) = buf.split_at_mut_checked(a)?;
        Some((hi.get(..a_len)?, lo.get_mut(b..b_end)?))
    } else {
        None
    }
}

/// Accumulates every row of `x` (rows as long as `acc`, a partial last row ignored) into `acc`,
/// lane by lane, NaN-propagating: a NaN `acc[j]` stays, otherwise the first NaN of lane `j`
/// down the rows is the result.
///
/// ```
/// use onnx_aot::{kernels::reduce_lanes_rows, Max};
/// let mut acc = [f32::NEG_INFINITY; 2];
/// reduce_lanes_rows::<f32, Max>(&mut acc, &[1.0, 5.0, 3.0, f32::NAN, 2.0, 0.0]);
/// assert_eq!(acc[0], 3.0);
/// assert!(acc[1].is_nan());
/// ```
///
/// Rows are taken in groups of eight; each chunk of sixteen lanes keeps its running extreme in
/// registers through the group (so `acc` is read and written once per group, not once per
/// row), with one max/min per element and NaN flagged on the side. If a NaN occurred, the
/// lanes are fixed up exactly afterwards.
#[inline]
pub fn reduce_lanes_rows<T: Element, D: Direction>(acc: &mut [T], x: &[T]) {
    let n = acc.len();
    if n == 0 {
        return;
    }
    let mut nans = [0u32; LANES];
    let (chunks, tail) = acc.as_chunks_mut::<LANES>();
    let tail_start = chunks.len() * LANES;
    for group in x.chunks(ROW_GROUP * n) {
        for (c, a) in chunks.iter_mut().enumerate() {
            // A local copy: the lanes stay in registers through the group.
            let mut lanes = *a;
            for row in group.chunks_exact(n) {
                let Some(v) = row.get(c * LANES..).and_then(|r| r.first_chunk::<LANES>()) else {
                    break;
                };
                for ((l, f), &v) in lanes.iter_mut().zip(nans.iter_mut()).zip(v) {
                    *l = step::<T, D>(*l, v);
                    *f |= u32::from(v.is_nan()).wrapping_neg();
                }
            }
            *a = lanes;
        }
        for row in group.chunks_exact(n) {
            let v = row.get(tail_start..).unwrap_or(&[]);
            for ((a, f), &v) in tail.iter_mut().zip(nans.iter_mut()).zip(v) {
                *a = step::<T, D>(*a, v);
                *f |= u32::from(v.is_nan()).wrapping_neg();
            }
        }
    }
    if nans.iter().fold(0, |a, &f| a | f) != 0 {
        // The order-only pass never lets a NaN in nor out: give each lane its first NaN.
        for row in x.chunks_exact(n) {
            for (a, &v) in acc.iter_mut().zip(row) {
                if v.is_nan() && !a.is_nan() {
                    *a = v;
                }
            }
        }
    }
}

/// Independent accumulators used by the contiguous kernels: enough to fill several vector
/// registers, so that the loops vectorize and hide latency. (Wider settings for AVX2 and
/// AVX-512 builds were measured and were not faster overall; see the README.)
const LANES: usize = 16;

/// Rows [`arg_lanes`] takes together while a chunk of lanes keeps its state in registers.
const ROW_GROUP: usize = 8;

/// ```
/// use onnx_aot::{kernels::fold, Max, Min};
/// assert!(fold::<f32, Max>(f32::NEG_INFINITY, &[1.0, f32::NAN, 5.0]).is_nan());
/// assert_eq!(fold::<u8, Min>(u8::MAX, &[7, 3, 9]), 3);
/// assert_eq!(fold::<f32, Max>(f32::NEG_INFINITY, &[]), f32::NEG_INFINITY); // empty: identity
/// ```
///
/// Folds a contiguous row into `acc` (NaN-propagating: a NaN `acc` stays, otherwise the first
/// NaN of the row is the result), with sixteen lanes of one max/min per element and NaN flagged
/// on the side, so that the loop vectorizes.
#[inline]
pub fn fold<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    if acc.is_nan() {
        return acc;
    }
    let (m, nan) = row_extreme::<T, D>(row);
    if nan {
        return find_first(row, |v: T| v.is_nan())
            .and_then(|i| row.get(i).copied())
            .unwrap_or(acc);
    }
    if row.is_empty() {
        acc
    } else {
        step::<T, D>(acc, m)
    }
}

/// For each element of `y`, folds the matching row of `n` elements of `x` into it.
#[inline]
pub fn reduce_rows<T: Element, D: Direction>(y: &mut [T], x: &[T], n: usize) {
    if n == 0 {
        return;
    }
    for (o, row) in y.iter_mut().zip(x.chunks_exact(n)) {
        *o = fold::<T, D>(*o, row);
    }
}

/// Whether `v` (later along the axis) replaces the current choice `best`.
#[inline(always)]
fn take<T: Element, D: Direction, const LAST: bool>(best: T, v: T) -> bool {
    // Non-short-circuit `&` and `|` keep this branch-free, so lanes vectorize into selects.
    if LAST {
        v.is_nan() | (!best.is_nan() & !D::better(best, v))
    } else {
        !best.is_nan() & (v.is_nan() | D::better(v, best))
    }
}

/// One step of an extreme that ignores NaN: `v` if it is strictly more extreme than `acc`.
/// For floats this is exactly one `maxps`/`minps` on x86 (and `fmax`-free selects elsewhere);
/// callers track NaN separately.
#[inline(always)]
fn step<T: Element, D: Direction>(acc: T, v: T) -> T {
    if D::better(v, acc) {
        v
    } else {
        acc
    }
}

/// Elements per block of [`arg_row`]: each block's extreme per lane is kept, and only the lanes
/// of the block that holds the answer are read again.
const BLOCK: usize = 16 * LANES;

/// The extreme of a row by the order alone (NaN never replaces a number here), and whether the
/// row holds a NaN. `(ZERO, false)` for an empty row.
#[inline(always)]
fn row_extreme<T: Element, D: Direction>(x: &[T]) -> (T, bool) {
    let Some(&first) = x.first() else {
        return (T::ZERO, false);
    };
    let (chunks, tail) = x.as_chunks::<LANES>();
    let mut m = first;
    let mut nan = false;
    // Lanes start as a splat of the first element (which the fold includes anyway): this shape
    // keeps the lanes in vector registers.
    let mut lanes = [first; LANES];
    let mut nans = [0u32; LANES / 2];
    for ch in chunks {
        take_chunk::<T, D>(&mut lanes, ch, &mut nans);
    }
    if !chunks.is_empty() {
        for &l in &lanes {
            m = step::<T, D>(m, l);
        }
        nan = nans.iter().fold(0, |a, &n| a | n) != 0;
    }
    for &v in tail {
        m = step::<T, D>(m, v);
        nan |= v.is_nan();
    }
    (m, nan)
}

/// The first index where `hit` holds: whole chunks are tested with a vectorizable fold, then
/// the chunk that hits is searched in order.
#[inline(always)]
fn find_first<T: Element>(x: &[T], hit: impl Fn(T) -> bool) -> Option<usize> {
    let (chunks, tail) = x.as_chunks::<LANES>();
    for (c, ch) in chunks.iter().enumerate() {
        if ch.iter().fold(false, |h, &v| h | hit(v)) {
            return ch.iter().position(|&v| hit(v)).map(|i| c * LANES + i);
        }
    }
    tail.iter()
        .position(|&v| hit(v))
        .map(|i| chunks.len() * LANES + i)
}

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
#[inline]
pub fn arg_row<T: Element, D: Direction, const LAST: bool>(x: &[T]) -> usize {
    arg_row_clearing::<T, D, LAST, false>(x, &mut [])
}

/// Blocks of a part of a row in [`arg_row`], whose lane extremes are kept on the stack.
const PART_BLOCKS: usize = 4;

/// Elements per part of a row in [`arg_row`].
const PART: usize = PART_BLOCKS * BLOCK;

/// [`arg_row`], writing zeros over `y` in the same pass when `CLEAR` (for Hardmax). With the
/// `small-code` feature, [`arg_row_compact`] instead.
#[inline(always)]
fn arg_row_clearing<T: Element, D: Direction, const LAST: bool, const CLEAR: bool>(
    x: &[T],
    y: &mut [T],
) -> usize {
    if cfg!(feature = "small-code") {
        arg_row_compact::<T, D, LAST, CLEAR>(x, y)
    } else {
        arg_row_parts::<T, D, LAST, CLEAR, PART>(x, y)
    }
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

/// Bit `l` set where lane `l` holds an element for which `hit` holds.
#[inline(always)]
fn lane_mask<T: Element>(lanes: &[T; LANES], hit: impl Fn(T) -> bool) -> u32 {
    let mut m = 0u32;
    for (l, &v) in lanes.iter().enumerate() {
        m |= u32::from(hit(v)) << l;
    }
    m
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

/// The extreme of sixteen lanes by the order alone, by halving (independent steps rather than
/// one chain). Kept out of line: inlined, it changes how the lanes are laid out in registers in
/// the loops before it.
#[inline(never)]
fn lanes_extreme<T: Element, D: Direction>(l: &[T; LANES]) -> T {
    let mut h = *l;
    let mut n = LANES / 2;
    while n > 0 {
        let (a, b) = h.split_at_mut(n);
        for (a, &b) in a.iter_mut().zip(b.iter()) {
            *a = step::<T, D>(*a, b);
        }
        n /= 2;
    }
    h[0]
}

/// Steps each lane with the matching element of `ch` and flags its NaN.
#[inline(always)]
fn take_chunk<T: Element, D: Direction>(
    lanes: &mut [T; LANES],
    ch: &[T; LANES],
    nans: &mut [u32; LANES / 2],
) {
    for (l, &v) in lanes.iter_mut().zip(ch) {
        *l = step::<T, D>(*l, v);
    }
    nan_pairs(nans, ch);
}

/// Flags NaN in pairs of elements of a chunk: `is_nan(a) | is_nan(b)` is one unordered compare.
#[inline(always)]
fn nan_pairs<T: Element>(nans: &mut [u32; LANES / 2], ch: &[T; LANES]) {
    let (a, b) = ch.split_at(LANES / 2);
    for ((n, &v), &w) in nans.iter_mut().zip(a).zip(b) {
        *n |= u32::from(v.is_nan() | w.is_nan()).wrapping_neg();
    }
}

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
fn arg_tile_pass<
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

/// Hardmax of a contiguous row: 1 at the first maximum (or first NaN), 0 elsewhere.
#[inline(always)]
pub fn hardmax_row<T: Element>(x: &[T], y: &mut [T]) {
    let idx = if x.len() == y.len() {
        arg_row_clearing::<T, Max, false, true>(x, y)
    } else {
        fill(y, T::ZERO);
        arg_row::<T, Max, false>(x)
    };
    if let Some(o) = y.get_mut(idx) {
        *o = T::ONE;
    }
}

/// Hardmax of a block of rows of `inner` lanes, along the rows, tile by tile: the passes of
/// [`arg_lanes`] find each lane's row, then one pass writes the block.
#[inline]
pub fn hardmax_lanes<T: Element>(x: &[T], y: &mut [T], inner: usize) {
    if inner == 0 {
        return;
    }
    let rows = x.len() / inner;
    if rows > u32::MAX as usize {
        // More rows than the compact row counters hold: the general kernel.
        hardmax_general(x, y, &[(inner, 1)], &[(rows, inner)]);
        return;
    }
    // Whole rows only (generated code always passes them).
    let x = x.get(..rows * inner).unwrap_or(&[]);
    let mut start = 0;
    while start < inner {
        let end = inner.min(start + TILE);
        // The row of each lane's first maximum, by the passes of `arg_lanes`.
        let mut rows_of = [0i64; TILE];
        let Some(rows_of) = rows_of.get_mut(..end - start) else {
            return;
        };
        if !arg_tile_pass::<T, Max, false, TILE, false>(x, rows_of, inner, start, end) {
            arg_tile_pass::<T, Max, false, TILE, true>(x, rows_of, inner, start, end);
        }
        for (r, row) in y.chunks_exact_mut(inner).enumerate() {
            let Some(outs) = row.get_mut(start..end) else {
                return;
            };
            for (o, &i) in outs.iter_mut().zip(rows_of.iter()) {
                *o = if i == r as i64 { T::ONE } else { T::ZERO };
            }
        }
        start = end;
    }
}

/// The offset of the `i`-th position (row-major) of runs given as (size, stride).
#[inline]
fn offset(mut i: usize, runs: &[(usize, usize)]) -> usize {
    let mut off = 0;
    for &(size, stride) in runs.iter().rev() {
        let (q, r) = match (i.checked_div(size), i.checked_rem(size)) {
            (Some(q), Some(r)) => (q, r),
            _ => return 0,
        };
        off += r * stride;
        i = q;
    }
    off
}

/// Hardmax over reduced axes that are not contiguous: for every position of the `kept` runs,
/// a 1 at the first maximum in row-major order over the `reduced` runs. Runs are
/// (size, stride in elements).
pub fn hardmax_general<T: Element>(
    x: &[T],
    y: &mut [T],
    kept: &[(usize, usize)],
    reduced: &[(usize, usize)],
) {
    fill(y, T::ZERO);
    let kept_n: usize = kept.iter().map(|r| r.0).product();
    let reduced_n: usize = reduced.iter().map(|r| r.0).product();
    for k in 0..kept_n {
        let base = offset(k, kept);
        let mut best: Option<(T, usize)> = None;
        for r in 0..reduced_n {
            let off = base + offset(r, reduced);
            let Some(&v) = x.get(off) else {
                return;
            };
            best = match best {
                Some((b, _)) if !take::<T, Max, false>(b, v) => best,
                _ => Some((v, off)),
            };
        }
        if let Some(o) = best.and_then(|(_, off)| y.get_mut(off)) {
            *o = T::ONE;
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::Min;

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

    #[test]
    fn reductions_propagate_nan() {
        let r = fold::<f32, Max>(f32::NEG_INFINITY, &[1.0, f32::NAN, 5.0]);
        assert!(r.is_nan());
        assert_eq!(fold::<f32, Min>(f32::INFINITY, &[1.0, -2.0, 5.0]), -2.0);
        assert!(fold::<bool, Max>(false, &[false, true]));
        assert!(!fold::<bool, Min>(true, &[false, true]));
    }

    /// A tiny deterministic generator for test data.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    /// The obvious definition: first (or last) index of the extreme, NaN winning.
    fn naive_arg<T: Element, D: Direction>(x: &[T], last: bool) -> usize {
        let nan: std::vec::Vec<usize> = (0..x.len()).filter(|&i| x[i].is_nan()).collect();
        if !nan.is_empty() {
            return if last { nan[nan.len() - 1] } else { nan[0] };
        }
        let mut best = 0;
        for i in 1..x.len() {
            let better = D::better(x[i], x[best]);
            let tie = !better && !D::better(x[best], x[i]);
            if better || (last && tie) {
                best = i;
            }
        }
        best
    }

    fn f32_pool(g: &mut Lcg, nan: bool) -> f32 {
        match g.next() % 9 {
            0 if nan => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => -0.0,
            4 => 0.0,
            k => k as f32 - 6.0,
        }
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

    /// `reduce_lanes_rows` against the definition: each lane folded down the rows in order, a NaN
    /// accumulator staying, otherwise the lane's first NaN (compared by bits, so the payload of
    /// the NaN that wins is checked too).
    #[test]
    fn lane_rows_match_the_definition() {
        let mut g = Lcg(17);
        for n in [1, 5, 16, 17, 33, 100, 1029] {
            for rows in [0, 1, 7, 8, 9, 17, 30] {
                for trial in 0..6 {
                    let mut x: std::vec::Vec<f32> =
                        (0..n * rows).map(|_| f32_pool(&mut g, false)).collect();
                    if trial % 2 == 1 && !x.is_empty() {
                        for k in 0..3 {
                            let at = g.next() as usize % x.len();
                            x[at] = f32::from_bits(0x7fc0_0000 | (k as u32 + 1));
                        }
                    }
                    let acc0: std::vec::Vec<f32> = (0..n)
                        .map(|j| match (trial, j % 5) {
                            (4 | 5, 0) => f32::from_bits(0x7fc0_0042),
                            _ => f32::NEG_INFINITY,
                        })
                        .collect();
                    for max in [true, false] {
                        let mut want = acc0.clone();
                        if !max {
                            for w in want.iter_mut().filter(|w| !w.is_nan()) {
                                *w = f32::INFINITY;
                            }
                        }
                        let mut got = want.clone();
                        for row in x.chunks_exact(n) {
                            for (w, &v) in want.iter_mut().zip(row) {
                                if w.is_nan() {
                                } else if v.is_nan() || (max && v > *w) || (!max && v < *w) {
                                    *w = v;
                                }
                            }
                        }
                        if max {
                            reduce_lanes_rows::<f32, Max>(&mut got, &x);
                        } else {
                            reduce_lanes_rows::<f32, Min>(&mut got, &x);
                        }
                        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || a == b;
                        for j in 0..n {
                            assert!(same(got[j], want[j]), "n {n} rows {rows} lane {j}");
                        }
                    }
                }
            }
        }
        let mut acc = [0u8; 3];
        reduce_lanes_rows::<u8, Max>(&mut acc, &[1, 9, 3, 7, 2, 8, 5]);
        assert_eq!(acc, [7, 9, 8]);
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

    /// The reference step of a NaN-propagating reduction, written out.
    fn naive_pick(acc: f32, v: f32, max: bool) -> f32 {
        if acc.is_nan() {
            acc
        } else if v.is_nan() || (max && v > acc) || (!max && v < acc) {
            v
        } else {
            acc
        }
    }

    #[test]
    fn reductions_match_the_definition_lane_by_lane() {
        let mut g = Lcg(5);
        for len in [0, 1, 3, 16, 17, 64, 100, 300, 1000] {
            for _ in 0..30 {
                let acc0: std::vec::Vec<f32> = (0..len).map(|_| f32_pool(&mut g, true)).collect();
                let x: std::vec::Vec<f32> = (0..len).map(|_| f32_pool(&mut g, true)).collect();
                let same = |a: f32, b: f32| a == b || (a.is_nan() && b.is_nan());
                let mut acc = acc0.clone();
                reduce_lanes_rows::<f32, Max>(&mut acc, &x);
                for j in 0..len {
                    assert!(
                        same(acc[j], naive_pick(acc0[j], x[j], true)),
                        "max lane {j}"
                    );
                }
                let mut acc = acc0.clone();
                reduce_lanes_rows::<f32, Min>(&mut acc, &x);
                for j in 0..len {
                    assert!(
                        same(acc[j], naive_pick(acc0[j], x[j], false)),
                        "min lane {j}"
                    );
                }
                for start in [f32::NEG_INFINITY, 0.0, f32::NAN] {
                    let want = x.iter().fold(start, |a, &v| naive_pick(a, v, true));
                    assert!(
                        same(fold::<f32, Max>(start, &x), want),
                        "fold {len} {start}"
                    );
                    let want = x.iter().fold(start, |a, &v| naive_pick(a, v, false));
                    assert!(
                        same(fold::<f32, Min>(start, &x), want),
                        "fold min {len} {start}"
                    );
                }
            }
        }
    }

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
