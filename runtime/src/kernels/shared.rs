//! The helpers several kernel families share: `fill`, `copy` and `split2` (public), and the
//! lane constants and steps the reductions and arg-reductions are built from.

#[cfg(doc)]
use super::arg_lanes::arg_lanes;
use crate::{DType, Direction, Element};

/// Fills `y` with `v`.
#[inline]
pub fn fill<T: Copy>(y: &mut [T], v: T) {
    for o in y {
        *o = v;
    }
}

/// Copies `x` into `y` (up to the shorter length): one `memcpy`, even in an unoptimized build.
#[inline]
pub fn copy<T: Copy>(y: &mut [T], x: &[T]) {
    let n = x.len().min(y.len());
    if let (Some(y), Some(x)) = (y.get_mut(..n), x.get(..n)) {
        y.copy_from_slice(x);
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

/// A local whose 64-byte alignment the function holding it must keep ([`align_frame`]).
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[repr(C, align(64))]
struct FrameAlign([u8; 64]);

/// Makes the calling kernel realign its stack frame to 64 bytes: the vectors it spills then sit
/// at the same offsets from a cache line whatever its caller's frame. Unaligned (spills only
/// 16-byte aligned, as built), a 32-byte spill that the callers' frames happened to place across
/// two cache lines stalled every reload: ReduceMax f16 rows of 16 took 80-91 us in full builds
/// of the benchmark and 61-63 in others, the same code; with the frame realigned, 61-63 in the
/// full build. Called first by the AVX2/AVX-512 kernels that spill vectors in their loops.
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline(always)]
pub(super) fn align_frame() {
    // (A mutable local: `&FrameAlign([0; 64])` would be promoted to a constant.)
    let mut local = FrameAlign([0; 64]);
    core::hint::black_box(&mut local);
}

/// Independent accumulators used by the contiguous kernels: enough to fill several vector
/// registers, so that the loops vectorize and hide latency. (Wider settings for AVX2 and
/// AVX-512 builds were measured and were not faster overall; see the README.)
pub(super) const LANES: usize = 16;

/// Rows [`arg_lanes`] takes together while a chunk of lanes keeps its state in registers.
pub(super) const ROW_GROUP: usize = 8;

/// The lowest (highest with `LAST`) set bit of the `W` words of a row's bits (elements 0 to 63
/// in the first, 64 to 127 in the next), at least one of them not zero. The word to search is
/// chosen by selects: which word holds the answer is as random as the data, so a branch would
/// mispredict.
#[inline(always)]
pub(super) fn position<const LAST: bool, const W: usize>(words: &[u64; W]) -> usize {
    let (mut word, mut base) = (0, 0);
    for w in 0..W {
        // The first word not zero (with `LAST` the last), taken going from the other end.
        let k = if LAST { w } else { W - 1 - w };
        let take = words[k] != 0;
        word = if take { words[k] } else { word };
        base = if take { 64 * k } else { base };
    }
    base + if LAST {
        highest_bit(word)
    } else {
        lowest_bit(word)
    }
}

/// The lowest set bit of `bits`, which is not zero: `tzcnt` on x86-64 (where a CPU without
/// BMI1 runs it as `bsf`, the same for a word not zero), written out because LLVM turns several
/// rows' `trailing_zeros` into vector population counts (f32 rows of 20 by eight rows at a
/// time 1.5x slower).
#[inline(always)]
pub(super) fn lowest_bit(bits: u64) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let at: u64;
        // SAFETY: `tzcnt` reads and writes registers only.
        unsafe {
            core::arch::asm!(
                "tzcnt {at}, {b}",
                at = out(reg) at,
                b = in(reg) bits,
                options(pure, nomem, nostack)
            );
        }
        at as usize
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        bits.trailing_zeros() as usize
    }
}

/// The index of the highest set bit of `bits` (0 if none is set). On x86-64 one `bsr` into a
/// register zeroed first: `bsr` leaves its destination as it was for a zero operand, so the
/// hardware waits for that register's last writer, a dependency the compiler (which treats the
/// destination as written) does not break; in the generated nodes it chained the rows' searches
/// (ArgMin `select_last_index` over f32 rows of 20 1.18x slower than with the destination
/// zeroed; `leading_zeros` of a word known not to be zero is that plain `bsr`).
#[inline(always)]
pub(super) fn highest_bit(bits: u64) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let mut at: u64 = 0;
        // SAFETY: `bsr` reads and writes registers only. The destination starts from a zero
        // the compiler materializes; `bits | 1` is never zero, so `bsr` always writes it.
        unsafe {
            core::arch::asm!(
                "bsr {at}, {b}",
                at = inout(reg) at,
                b = in(reg) bits | 1,
                options(pure, nomem, nostack)
            );
        }
        at as usize
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        63 - (bits | 1).leading_zeros() as usize
    }
}

/// Bytes ahead of a column walk's loads that each row prefetches (see [`prefetch`]).
pub(super) const AHEAD_BYTES: usize = 1024;

/// Row strides (bytes) from which [`prefetch`] brings lines into L2 rather than L1: rows a page
/// apart and more are that many separate streams, whose lines `AHEAD_BYTES` ahead (1 KiB a row,
/// 21 KiB over the 21 rows of a segmentation map) crowd an L1 of 32 KiB and eight ways out before
/// they are read (AMD EPYC, Zen 4; rows 1 MiB apart all fall in the same sets of L1 and of L2).
/// Into L2 there, `--ours`, three alternating runs: ArgMax over axis 1 of `[1, 21, 512, 512]`
/// 2.1-3.1 -> 1.0-1.1 ms, `[1, 21, 500, 500]` 0.56-1.7 -> 0.53-0.71 ms, `[1, 19, 256, 256]` 164 ->
/// 146 us, `[1, 84, 8400]` 52 -> 46 us; over axis 0, `[20, 26214]` 36-47 -> 31-32 us and
/// `[80, 6553]` 40-50 -> 35-36 us. Rows closer than that are one stream the prefetch runs ahead
/// of, into L1 (into L2, `[32, 1000, 16]` over axis 1 took 4% longer).
pub(super) const FAR_ROWS_BYTES: usize = 4096;

/// Whether rows `stride` elements of `T` apart are prefetched into L2 ([`FAR_ROWS_BYTES`]).
#[inline(always)]
pub(super) fn far_rows<T>(stride: usize) -> bool {
    stride.saturating_mul(size_of::<T>()) >= FAR_ROWS_BYTES
}

/// Asks the CPU to bring the line at `p` into L1 (into L2 where `far`, see [`far_rows`]): for
/// the passes that go down many rows a chunk of lanes at a time, that many streams of lines at
/// once, which the CPU's own prefetchers did not keep fed once the block was out of L2 (figures at
/// `arg_lanes_avx2::PF`). `p` may lie outside any allocation (it is computed with
/// `wrapping_add`): a prefetch never faults and is no access the program sees. A no-op off
/// x86-64.
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T, far: bool) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of every x86-64 CPU; a prefetch reads nothing and never faults.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        if far {
            _mm_prefetch::<_MM_HINT_T1>(p.cast());
        } else {
            _mm_prefetch::<_MM_HINT_T0>(p.cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, far);
}

/// Whether `v` (later along the axis) replaces the current choice `best`.
#[inline(always)]
pub(crate) fn take<T: Element, D: Direction, const LAST: bool>(best: T, v: T) -> bool {
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
pub(crate) fn step<T: Element, D: Direction>(acc: T, v: T) -> T {
    if D::better(v, acc) {
        v
    } else {
        acc
    }
}

/// The extreme of a row by the order alone (NaN never replaces a number here), and whether the
/// row holds a NaN. `(ZERO, false)` for an empty row.
#[inline(always)]
pub(super) fn row_extreme<T: Element, D: Direction>(x: &[T]) -> (T, bool) {
    let Some(&first) = x.first() else {
        return (T::ZERO, false);
    };
    // Long f32 rows in AVX2 vectors where the CPU has them (no code for other types).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if const { matches!(T::DTYPE, crate::DType::F32) } {
        if let Some((m, nan)) = super::rows_f32::row_extreme::<T, D>(x) {
            // `m` back as a `T` (an f32).
            let mut out = [first];
            if let Some(o) = T::f32s_mut(&mut out).and_then(|o| o.first_mut()) {
                *o = m;
            }
            let [m] = out;
            return (m, nan);
        }
    }
    let (chunks, tail) = x.as_chunks::<LANES>();
    let mut m = first;
    let mut nan = false;
    let mut nans = [0u32; LANES / 2];
    // Lanes start as a splat of the first element (which the fold includes anyway): this shape
    // keeps the lanes in vector registers. For i8 and bool they hold keys (`Element::Key`).
    if const { rekeyed::<T>() } {
        let mut lanes = [first.key(); LANES];
        for ch in chunks {
            take_keys::<T, D>(&mut lanes, ch, &mut nans);
        }
        if !chunks.is_empty() {
            for &l in &lanes {
                m = step::<T, D>(m, T::from_key(l));
            }
        }
    } else {
        let mut lanes = [first; LANES];
        for ch in chunks {
            take_chunk::<T, D>(&mut lanes, ch, &mut nans);
        }
        if !chunks.is_empty() {
            for &l in &lanes {
                m = step::<T, D>(m, l);
            }
        }
    }
    if !chunks.is_empty() {
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
pub(super) fn find_first<T: Element>(x: &[T], hit: impl Fn(T) -> bool) -> Option<usize> {
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

/// Bit `l` set where lane `l` holds an element for which `hit` holds.
#[inline(always)]
pub(super) fn lane_mask<T: Element>(lanes: &[T; LANES], hit: impl Fn(T) -> bool) -> u32 {
    let mut m = 0u32;
    for (l, &v) in lanes.iter().enumerate() {
        m |= u32::from(hit(v)) << l;
    }
    m
}

/// The extreme of sixteen lanes by the order alone, by halving (independent steps rather than
/// one chain). Kept out of line: inlined, it changes how the lanes are laid out in registers in
/// the loops before it.
#[inline(never)]
pub(super) fn lanes_extreme<T: Element, D: Direction>(l: &[T; LANES]) -> T {
    lanes_extreme_inline::<T, D>(l)
}

/// [`lanes_extreme`] inlined, for paths that must not call out (the AVX2 builds of the shims
/// inline their kernels whole).
#[inline(always)]
pub(super) fn lanes_extreme_inline<T: Element, D: Direction>(l: &[T; LANES]) -> T {
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
pub(super) fn take_chunk<T: Element, D: Direction>(
    lanes: &mut [T; LANES],
    ch: &[T; LANES],
    nans: &mut [u32; LANES / 2],
) {
    for (l, &v) in lanes.iter_mut().zip(ch) {
        *l = step::<T, D>(*l, v);
    }
    nan_pairs(nans, ch);
}

/// Whether `T` keeps its running extremes as keys of another type (`Element::Key`: i8 and
/// bool, as `u8`).
#[inline(always)]
pub(super) const fn rekeyed<T: Element>() -> bool {
    matches!(T::DTYPE, DType::I8 | DType::Bool)
}

/// Whether `T` is a float type (whose lane kernels keep their measured forms and widths).
#[inline(always)]
pub(super) const fn is_float<T: Element>() -> bool {
    matches!(T::DTYPE, DType::F32 | DType::F64 | DType::F16 | DType::BF16)
}

/// The keys (`Element::Key`) of a chunk. A plain loop: `array::map` is not always inlined for
/// wider chunks.
#[inline(always)]
pub(super) fn keys_of<T: Element, const W: usize>(ch: &[T; W]) -> [T::Key; W] {
    let mut k = [T::ZERO.key(); W];
    for (k, &v) in k.iter_mut().zip(ch) {
        *k = v.key();
    }
    k
}

/// [`take_chunk`] on lanes of keys (`Element::Key`): each element is turned into its key as it
/// is loaded, so that the steps are those of the key type (for `i8` and `bool`, `u8`'s).
#[inline(always)]
pub(super) fn take_keys<T: Element, D: Direction>(
    lanes: &mut [T::Key; LANES],
    ch: &[T; LANES],
    nans: &mut [u32; LANES / 2],
) {
    let keys = keys_of(ch);
    for (l, &v) in lanes.iter_mut().zip(&keys) {
        *l = step::<T::Key, D>(*l, v);
    }
    nan_pairs(nans, ch);
}

/// Flags NaN in pairs of elements of a chunk: `is_nan(a) | is_nan(b)` is one unordered compare.
#[inline(always)]
pub(super) fn nan_pairs<T: Element>(nans: &mut [u32; LANES / 2], ch: &[T; LANES]) {
    let (a, b) = ch.split_at(LANES / 2);
    for ((n, &v), &w) in nans.iter_mut().zip(a).zip(b) {
        *n |= u32::from(v.is_nan() | w.is_nan()).wrapping_neg();
    }
}

/// [`nan_pairs`] over every sixteen elements of a chunk of `W`.
#[inline(always)]
pub(super) fn flag_nan<T: Element, const W: usize>(nans: &mut [u32; LANES / 2], ch: &[T; W]) {
    let (subs, _) = ch.as_chunks::<LANES>();
    for sub in subs {
        nan_pairs(nans, sub);
    }
}

#[cfg(test)]
mod tests {
    use super::highest_bit;

    #[test]
    fn highest_bits() {
        for i in 0..64 {
            assert_eq!(highest_bit(1 << i), i);
            assert_eq!(highest_bit((1 << i) | 1), i);
            assert_eq!(highest_bit(u64::MAX >> (63 - i)), i);
        }
        assert_eq!(highest_bit(0), 0);
    }
}
