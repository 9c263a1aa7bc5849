//! Contiguous rows of f16 and bf16 compared in their own width, on their bits (no conversion
//! pass, no buffer): a [`Summary`] per lane (the largest and smallest bits as `i16`, the largest
//! as `u16`) gives the extreme and whether a NaN occurred; order keys ([`key`]) compare the
//! extremes. Also the helpers the strided 16-bit kernels ([`super::half_lanes`]) share.

use crate::{DType, Direction, Element};

/// Lanes of the contiguous 16-bit kernels: four SSE2 registers per set.
pub(super) const KL: usize = 32;

/// Elements per part of a row in [`arg_row_half`]: each part is read twice, the second time
/// from L1.
const PART: usize = 1024;

/// Whether `T` is compared by 16-bit keys (f16 and bf16, unless the `small-code` feature asks
/// for the compact kernels).
#[inline(always)]
pub(super) fn keyed<T: Element>() -> bool {
    matches!(T::DTYPE, DType::F16 | DType::BF16) && !cfg!(feature = "small-code")
}

/// The magnitude bits of infinity: a larger magnitude is a NaN.
#[inline(always)]
pub(super) fn inf_of<T: Element>() -> i16 {
    if matches!(T::DTYPE, DType::F16) {
        0x7c00
    } else {
        0x7f80
    }
}

/// The bits of an f16 or bf16 value (0 for other types, which never call it).
#[inline(always)]
pub(super) fn bits<T: Element>(v: T) -> u16 {
    T::half_bits(core::slice::from_ref(&v))
        .and_then(|b| b.first().copied())
        .unwrap_or(0)
}

/// The f16 or bf16 value of bits `b` (`like` itself for other types, which never call it).
#[inline(always)]
pub(super) fn from_bits<T: Element>(b: u16, like: T) -> T {
    let mut v = [like];
    if let Some(o) = T::half_bits_mut(&mut v).and_then(|s| s.first_mut()) {
        *o = b;
    }
    v[0]
}

/// The magnitude of a 16-bit float's bits (a NaN's is above [`inf_of`]).
#[inline(always)]
pub(super) fn mag(b: u16) -> i16 {
    (b & 0x7fff) as i16
}

/// The order key of a 16-bit float's bits: sign-magnitude turned into two's complement, so that
/// integer order is float order and `-0`, `+0` are both 0 (meaningless for NaN, flagged apart).
#[inline(always)]
pub(super) fn key(b: u16) -> i16 {
    let s = (b as i16) >> 15;
    (mag(b) ^ s).wrapping_sub(s)
}

/// The bits of the number with key `k` (`+0` for 0).
#[inline(always)]
pub(super) fn bits_of(k: i16) -> u16 {
    let m = k.unsigned_abs();
    if k < 0 {
        0x8000 | m
    } else {
        m
    }
}

/// Whether `b` are the bits of a NaN (`inf`: [`inf_of`]).
#[inline(always)]
pub(super) fn nan_bits(b: u16, inf: i16) -> bool {
    mag(b) > inf
}

/// The first (last, with `LAST`) NaN of `x`, or 0.
#[inline(never)]
fn nan_index<const LAST: bool>(x: &[u16], inf: i16) -> usize {
    let hit = |b: &u16| nan_bits(*b, inf);
    let found = if LAST {
        x.iter().rposition(hit)
    } else {
        x.iter().position(hit)
    };
    found.unwrap_or(0)
}

/// A running summary of a set of 16-bit float bits, per lane: the largest and smallest as
/// `i16` and the largest as `u16`. Two max and one min per element (three SSE2 instructions and
/// a sign flip), and they give both extremes and whether a NaN is in the set
/// ([`Summary::extreme`]).
#[derive(Clone, Copy)]
pub(super) struct Summary<const N: usize> {
    smax: [i16; N],
    smin: [i16; N],
    umax: [u16; N],
}

impl<const N: usize> Summary<N> {
    /// The summary of one element per lane.
    #[inline(always)]
    pub(super) fn of(ch: &[u16; N]) -> Self {
        let mut s = [0i16; N];
        for (o, &b) in s.iter_mut().zip(ch) {
            *o = b as i16;
        }
        Summary {
            smax: s,
            smin: s,
            umax: *ch,
        }
    }

    /// Adds one element per lane.
    #[inline(always)]
    pub(super) fn add(&mut self, ch: &[u16; N]) {
        for (((a, b), c), &v) in self
            .smax
            .iter_mut()
            .zip(self.smin.iter_mut())
            .zip(self.umax.iter_mut())
            .zip(ch)
        {
            *a = (*a).max(v as i16);
            *b = (*b).min(v as i16);
            *c = (*c).max(v);
        }
    }

    /// Merges what [`Summary::any_nan`] reads of another summary into this one, lane by lane.
    #[inline(always)]
    pub(super) fn merge_nan(&mut self, o: &Self) {
        for (a, &b) in self.smax.iter_mut().zip(&o.smax) {
            *a = (*a).max(b);
        }
        for (a, &b) in self.umax.iter_mut().zip(&o.umax) {
            *a = (*a).max(b);
        }
    }

    /// The order key ([`key`]) of each lane's extreme, straight from the summary: a negative
    /// extreme's key is `i16::MIN - bits` (meaningless for a lane whose set holds a NaN).
    #[inline(always)]
    pub(super) fn extreme_keys<D: Direction>(&self) -> [i16; N] {
        let mut k = [0i16; N];
        for (((o, &a), &b), &c) in k.iter_mut().zip(&self.smax).zip(&self.smin).zip(&self.umax) {
            *o = if D::better(1i16, 0i16) {
                if a >= 0 {
                    a
                } else {
                    i16::MIN.wrapping_sub(b)
                }
            } else if (c as i16) < 0 {
                i16::MIN.wrapping_sub(c as i16)
            } else {
                b
            };
        }
        k
    }

    /// The bits of each lane's extreme (meaningless for a lane whose set holds a NaN, which
    /// [`Summary::any_nan`] tells).
    #[inline(always)]
    pub(super) fn extremes<D: Direction>(&self) -> [u16; N] {
        // Branch-free selects (see [`extreme_of`]), so that the lanes stay vectors.
        let mut e = [0u16; N];
        for (((o, &a), &b), &c) in e.iter_mut().zip(&self.smax).zip(&self.smin).zip(&self.umax) {
            *o = if D::better(1i16, 0i16) {
                if a >= 0 {
                    a as u16
                } else {
                    b as u16
                }
            } else if (c as i16) < 0 {
                c
            } else {
                b as u16
            };
        }
        e
    }

    /// The bits of lane `l`'s extreme, or `None` if its set holds a NaN (`inf`: [`inf_of`]).
    #[inline(always)]
    pub(super) fn extreme<D: Direction>(&self, l: usize, inf: i16) -> Option<u16> {
        let (smax, smin, umax) = (*self.smax.get(l)?, *self.smin.get(l)?, *self.umax.get(l)?);
        extreme_of::<D>(smax, smin, umax, inf)
    }

    /// Whether a lane's set holds a NaN.
    #[inline(always)]
    pub(super) fn any_nan(&self, inf: i16) -> bool {
        let smax = self.smax.iter().copied().fold(i16::MIN, i16::max);
        let umax = self.umax.iter().copied().fold(0, u16::max);
        smax > inf || umax > 0x8000 | inf as u16
    }

    /// The summary of every lane together, as one.
    #[inline(always)]
    pub(super) fn total(&self) -> Summary<1> {
        Summary {
            smax: [self.smax.iter().copied().fold(i16::MIN, i16::max)],
            smin: [self.smin.iter().copied().fold(i16::MAX, i16::min)],
            umax: [self.umax.iter().copied().fold(0, u16::max)],
        }
    }
}

/// The extreme of a set summarized by its `i16` max and min and its `u16` max; `None` if it
/// holds a NaN. Non-negative numbers order as their bits; negative ones as their magnitudes,
/// reversed: the largest is the largest `i16` if any is non-negative, else the smallest `i16`;
/// the smallest is the largest `u16` if any is negative, else the smallest `i16`. A positive NaN
/// is above infinity as `i16`, a negative one above -infinity as `u16`.
#[inline(always)]
fn extreme_of<D: Direction>(smax: i16, smin: i16, umax: u16, inf: i16) -> Option<u16> {
    if smax > inf || umax > 0x8000 | inf as u16 {
        return None;
    }
    Some(if D::better(1i16, 0i16) {
        if smax >= 0 {
            smax as u16
        } else {
            smin as u16
        }
    } else if umax >= 0x8000 {
        umax
    } else {
        smin as u16
    })
}

/// [`super::fold`] of f16 or bf16 bits (`inf`: [`inf_of`]): the bits of the result (a NaN if
/// `acc` is one, otherwise the row's first NaN).
#[inline(always)]
pub(super) fn fold_half<D: Direction>(acc: u16, row: &[u16], inf: i16) -> u16 {
    if nan_bits(acc, inf) || row.is_empty() {
        return acc;
    }
    let mut t = Summary::of(&[acc]);
    match wide_summary(row) {
        Some((smax, smin, umax)) => {
            t.smax[0] = t.smax[0].max(smax);
            t.smin[0] = t.smin[0].min(smin);
            t.umax[0] = t.umax[0].max(umax);
        }
        None => {
            let (chunks, rest) = row.as_chunks::<KL>();
            let mut s = Summary::of(&[acc; KL]);
            for ch in chunks {
                s.add(ch);
            }
            t = s.total();
            for &v in rest {
                t.add(&[v]);
            }
        }
    }
    match t.extreme::<D>(0, inf) {
        Some(e) => {
            // The extreme, unless `acc` is as extreme (then `acc`, whose zero may be signed
            // otherwise).
            if D::better(key(e), key(acc)) {
                e
            } else {
                acc
            }
        }
        None => row
            .get(nan_index::<false>(row, inf))
            .copied()
            .unwrap_or(acc),
    }
}

/// The summary of `row` across its elements (`smax`, `smin`, `umax` of [`Summary`]) by the
/// AVX2 kernel, where the CPU has it and the row is long enough to gain ([`WIDE_FROM`]);
/// `None` otherwise (off x86-64 and with `small-code` always).
#[inline(always)]
fn wide_summary(row: &[u16]) -> Option<(i16, i16, u16)> {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    if row.len() >= WIDE_FROM && super::rows_f32::avx2::available() {
        // SAFETY: `available` found AVX2.
        return unsafe { super::half_avx2::row_summary(row) };
    }
    let _ = row;
    None
}

/// Rows from which [`fold_half`] takes the AVX2 summary.
#[cfg_attr(feature = "small-code", allow(dead_code))]
const WIDE_FROM: usize = 64;

/// Rows of the short-row reduction of f16 or bf16 ([`reduce_rows_short_half`]) whose keys are
/// kept together before their results are written.
const SHORT_TILE: usize = 64;

/// [`super::reduce_rows_short`] of f16 or bf16 bits (`inf`: [`inf_of`]): each contiguous row of
/// `R` of `x` folded into the matching element of `y` (a NaN there stays, otherwise the row's
/// first NaN). Rows are folded by their order keys, one integer max/min per element, so that the
/// loop runs across rows in vectors; NaN is only flagged, and a tile of rows that held one is
/// done again by the exact fold. (Stepping through each element's key and NaN rule instead,
/// one element at a time, read rows of 20 at about 80x a streaming read.)
#[inline(always)]
pub(super) fn reduce_rows_short_half<D: Direction, const R: usize>(
    y: &mut [u16],
    x: &[u16],
    inf: i16,
) {
    let (rows, _) = x.as_chunks::<R>();
    for (ys, rs) in y.chunks_mut(SHORT_TILE).zip(rows.chunks(SHORT_TILE)) {
        let mut nan = false;
        let mut out = [0i16; SHORT_TILE];
        for ((o, &acc), row) in out.iter_mut().zip(ys.iter()).zip(rs) {
            let mut m = key(acc);
            nan |= nan_bits(acc, inf);
            for &v in row {
                let k = key(v);
                m = if D::IS_MIN { m.min(k) } else { m.max(k) };
                nan |= nan_bits(v, inf);
            }
            *o = m;
        }
        if nan {
            for (y, row) in ys.iter_mut().zip(rs) {
                *y = fold_half::<D>(*y, row, inf);
            }
            continue;
        }
        for (y, &o) in ys.iter_mut().zip(&out) {
            // The accumulator's own bits when it is as extreme (its zero may be signed).
            if key(*y) != o {
                *y = bits_of(o);
            }
        }
    }
}

/// [`super::arg_row()`] of f16 or bf16 bits: the same index (a NaN wins, the first or the last).
///
/// The row goes in parts of up to 1024 elements ([`part_best`]), whose answers are then
/// compared.
#[inline(always)]
pub(super) fn arg_row_half<D: Direction, const LAST: bool>(x: &[u16], inf: i16) -> usize {
    arg_row_clearing::<D, LAST, false>(x, &mut [], inf)
}

/// [`arg_row_half`], writing zeros over `y` (as long as `x`) in the same pass when `CLEAR`.
#[inline(always)]
fn arg_row_clearing<D: Direction, const LAST: bool, const CLEAR: bool>(
    x: &[u16],
    y: &mut [u16],
    inf: i16,
) -> usize {
    // For Hardmax, the length hidden from the optimizer: where it is known and the loop around
    // this runs once (Hardmax-11 over a whole tensor), the generated code took 4.5 times as long.
    let x = if CLEAR {
        x.get(..core::hint::black_box(x.len())).unwrap_or(x)
    } else {
        x
    };
    let mut best: Option<(i16, usize)> = None;
    let mut outs = y.chunks_mut(PART);
    for (p, part) in x.chunks(PART).enumerate() {
        let found = match outs.next() {
            Some(out) if CLEAR => part_best::<D, LAST, true>(part, out, inf),
            _ => part_best::<D, LAST, false>(part, &mut [], inf),
        };
        let Some((k, i)) = found else {
            if CLEAR {
                // The parts after this one are not cleared yet.
                super::shared::fill(y, 0);
            }
            return nan_index::<LAST>(x, inf);
        };
        let take = match best {
            None => true,
            Some((b, _)) if LAST => !D::better(b, k),
            Some((b, _)) => D::better(k, b),
        };
        if take {
            best = Some((k, p * PART + i));
        }
    }
    best.map_or(0, |(_, i)| i)
}

/// The extreme key of a non-empty part of a row (at most [`PART`] elements, in L1) and the index
/// of its first (last) occurrence; `None` if the part holds a NaN. One [`Summary`] pass for the
/// extreme, then a search of the bits for it (from the start, or from the end with `LAST`)
/// that stops at the chunk holding it. With `CLEAR`, writes zeros over `y` (as long as `x`) in
/// the first pass.
#[inline(always)]
fn part_best<D: Direction, const LAST: bool, const CLEAR: bool>(
    x: &[u16],
    y: &mut [u16],
    inf: i16,
) -> Option<(i16, usize)> {
    if !CLEAR {
        if let Some(found) = wide_part_best::<D, LAST>(x, inf) {
            return found;
        }
    }
    let (chunks, rest) = x.as_chunks::<KL>();
    let mut pad = [*x.first()?; KL];
    for (p, &v) in pad.iter_mut().zip(rest) {
        *p = v;
    }
    let mut s = Summary::of(&pad);
    if CLEAR {
        // Zeros the optimizer cannot see: stores of a known zero would be merged into one
        // `memset` after the loads instead of overlapping them.
        let zero = core::hint::black_box(0u16);
        let (outs, orest) = y.as_chunks_mut::<KL>();
        for (ch, o) in chunks.iter().zip(outs) {
            s.add(ch);
            *o = [zero; KL];
        }
        super::shared::fill(orest, zero);
    } else {
        for ch in chunks {
            s.add(ch);
        }
    }
    let e = s.total().extreme::<D>(0, inf)?;
    let best = key(e);
    let (want, mask) = equal_bits(e);
    let hit = |b: u16| b & mask == want;
    let any = |ch: &[u16; KL]| ch.iter().fold(false, |h, &b| h | hit(b));
    let found = if LAST {
        rest.iter()
            .rposition(|&b| hit(b))
            .map(|i| chunks.len() * KL + i)
            .or_else(|| {
                let c = chunks.iter().rposition(any)?;
                let i = chunks.get(c)?.iter().rposition(|&b| hit(b))?;
                Some(c * KL + i)
            })
    } else {
        let c = chunks.iter().position(any);
        match c {
            Some(c) => chunks
                .get(c)?
                .iter()
                .position(|&b| hit(b))
                .map(|i| c * KL + i),
            None => rest
                .iter()
                .position(|&b| hit(b))
                .map(|i| chunks.len() * KL + i),
        }
    };
    Some((best, found.unwrap_or(0)))
}

/// [`part_best`] (without clearing) by the AVX2 summary ([`wide_summary`]) and search, where
/// that summary applies: `None` where it does not.
#[inline(always)]
fn wide_part_best<D: Direction, const LAST: bool>(
    x: &[u16],
    inf: i16,
) -> Option<Option<(i16, usize)>> {
    let (smax, smin, umax) = wide_summary(x)?;
    let Some(e) = extreme_of::<D>(smax, smin, umax, inf) else {
        return Some(None);
    };
    let (want, mask) = equal_bits(e);
    // SAFETY: `wide_summary` answers only where the CPU has AVX2.
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    let at = unsafe { super::half_avx2::find_bits::<LAST>(x, want, mask) };
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    // (Never reached: `wide_summary` answers nothing off x86-64 and with `small-code`.)
    let at: Option<usize> = {
        let _ = (want, mask);
        None
    };
    Some(Some((key(e), at.unwrap_or(0))))
}

/// The bits and mask that pick the elements equal to an extreme whose bits are `e`: `b & mask
/// == want` holds for `e` itself, or for either zero when `e` is one.
#[inline(always)]
pub(super) fn equal_bits(e: u16) -> (u16, u16) {
    if mag(e) == 0 {
        (0, 0x7fff)
    } else {
        (e, 0xffff)
    }
}

/// Hardmax of an f16 or bf16 row (`one`: the bits of 1): zeros, then a 1 at the first maximum
/// (or the first NaN).
#[inline(always)]
pub(super) fn hardmax_row_half(x: &[u16], y: &mut [u16], inf: i16, one: u16) {
    let at = arg_row_clearing::<crate::Max, false, true>(x, y, inf);
    if let Some(o) = y.get_mut(at) {
        *o = one;
    }
}

#[cfg(test)]
mod tests;
