//! Arg-reductions, Hardmax (in [`hardmax`]) and (in [`reduce`]) reductions of many short
//! blocks of few lanes ([`super::thin_blocks`]: blocks of `r` rows of `c` lanes, the middle axis
//! of `[n, r, c]`) in 64-byte AVX-512 vectors, every element type, for CPUs that have them
//! (checked at run time, [`super::isa`]).
//!
//! A block is read as windows of `q` whole rows (a masked load of `q·c` lanes: nothing read past
//! them), `q` rows apart, the last one ending at the block's last row (over the one before where
//! `q` does not divide `r`); where two blocks or more fit a vector, a window holds several whole
//! blocks instead ([`Plan`]), and blocks of 1- and 2-byte elements over half a vector and of at
//! most [`SPLIT_ROWS`] rows go two to a window, whole rows of each in a 32-byte half ([`SPLIT`],
//! reductions too: [`reduce_split`]). One pass keeps each lane's best element and its row: a
//! compare into a mask and two masked moves a window. Then, for 1- to 4-byte elements, each lane's
//! element as an order key (greater is better: Min and signed types flipped; f16, bf16 and `f32`
//! as two's complement of their sign-magnitude bits, so that -0 and +0 are one key) and its row
//! (flipped where the first row wins a tie) are interleaved into one unsigned number twice as
//! wide, so that a plain maximum picks the better element and, among equals, the row the tie
//! rule wants: the groups of each lane fold by two-vector shuffles and maxima. 8-byte elements
//! leave no room for the row: each folding step takes the other lane where it is better, or as
//! good with the row the tie keeps. Floats: the largest magnitude is kept on the side, and a
//! block holding a NaN is done by the contract's rule lane by lane.
//!
//! Hardmax of blocks of two to four rows of floats ([`shifted`]) compares each lane with the
//! other rows of its block in place, by loads shifted a row, without finding the rows first.
//! Arg-reductions of blocks of two to four rows may go the same way ([`arg_shifted`], where
//! measured faster): each lane of a first row against the rows after it. Blocks of a few rows
//! of sixteen lanes or more (the middle axis of `[n, r, c]`) are read a row's chunk at a time,
//! each against the same lanes of the rows before ([`stacked`]).

use core::arch::x86_64::{
    __m512i, _mm256_loadu_si256, _mm512_castsi256_si512, _mm512_inserti64x4, _mm512_loadu_si512,
    _mm512_mask_storeu_epi64, _mm512_permutexvar_epi64, _mm512_xor_si512,
};

use super::arg_lanes::lane_by_lane;
use super::isa;
use super::thin_blocks::MAX_ROWS;
use crate::{DType, Direction, Element};
pub(super) use arg_rows::{arg_rows, prefers as arg_rows_prefers};
pub(super) use byte_rows::{
    arg_rows as arg_byte_rows, prefers as byte_rows_prefers, reduce_rows as reduce_byte_rows,
};
pub(super) use hard_rows::{hardmax_rows, prefers as hardmax_rows_prefers};
use hardmax::hardmax_all;
use lanes::{
    add, better, equal, has_nan, key, later, load, magnitude, max, mov, perm, prep, splat, store,
    store_values, unpack_hi, unpack_lo, widest,
};
pub(super) use long_rows::{
    arg_rows as arg_long_rows, prefers as long_rows_prefers, reduce_prefers as long_reduce_prefers,
    reduce_rows as reduce_long_rows,
};
pub(super) use packed::reduce_blocks as reduce_packed;
use reduce::{expand, Halving};
pub(super) use reduce::{reduce_blocks, reduces};
pub(super) use stacked::{arg_stacked, prefers as arg_stacked_prefers};

mod arg_rows;
mod arg_shifted;
mod byte_rows;
mod hard_rows;
mod hardmax;
mod lanes;
mod long_rows;
mod packed;
mod reduce;
mod reduce_split;
mod shifted;
mod stacked;

/// Unsigned integers and bool: compared as they are.
pub(super) const UNSIGNED: u8 = 0;
/// Signed integers: their sign bit flipped.
pub(super) const SIGNED: u8 = 1;
/// f16 and bf16: order keys of their bits, NaN on the side.
pub(super) const HALF: u8 = 2;
/// `f32` and `f64`: compared as floats in the pass (and `f64` in its fold), `f32` as keys of
/// its bits in the fold; NaN on the side.
pub(super) const FLOAT: u8 = 3;

/// The most folding steps (64 groups of one byte: six).
pub(super) const MAX_STEPS: usize = 7;

/// The windows of one call and the shuffles that fold their groups.
struct Plan {
    /// Blocks a window holds: several where a block of two rows or more fits, else one.
    p: usize,
    /// Rows of each block a window holds (all of them where `p` is over one).
    items: usize,
    /// The combined folding steps (1-, 2- and 4-byte elements): `steps` of them, each with
    /// `outs` (1 or 2) vectors out, each the maximum of two two-vector shuffles (the lane
    /// indices of each, a byte a lane, of lanes twice the elements' width: [`expand`]).
    steps: usize,
    outs: [usize; MAX_STEPS],
    idx: [[[u8; 64]; 2]; MAX_STEPS],
    /// The steps of 8-byte elements, lane against lane.
    halving: Halving,
    /// Whether the blocks sit in the halves of a window ([`Plan::split`]), else from its start.
    split: bool,
}

/// Windows of [`units_in`]: one block each.
const ONE: u8 = 0;
/// Windows of [`units_in`]: several whole blocks each, one after the other.
const PACKED: u8 = 1;
/// Windows of [`units_in`]: two blocks each, `items` rows of each in a half of 32 bytes.
const SPLIT: u8 = 2;

/// The tallest blocks read in [`SPLIT`] windows (arg-reductions, Hardmax and reductions): over
/// 2 MiB on an Intel Xeon (Ice Lake), blocks of 20 rows of five lanes took 0.55-0.58x the time
/// of one block a window (ArgMax `i8`, `u8`; of three lanes too), the reductions 0.70-0.79x
/// (`f16`, `bf16`, `i8`, `u8`); but blocks of 80 or 200 rows 1.1-1.2x (ArgMax `i16` and `u8`,
/// ReduceMax `f16`): a window's two half loads cost more than the fold they share.
const SPLIT_ROWS: usize = 32;

impl Plan {
    /// The plan for rows of `c` lanes of `w` bytes, blocks of `r` rows, with `pack` several
    /// blocks a window where they fit.
    fn new(w: usize, r: usize, c: usize, pack: bool) -> Self {
        let v = 64 / w;
        // At most 32 rows out of 1-byte lanes (a vector of 16-bit lanes), 16 of the others.
        let outs = if w == 1 { 32 } else { 16 };
        let p = if pack && w < 8 {
            (v / (r * c)).min(outs / c).max(1)
        } else {
            1
        };
        let items = if p > 1 { r } else { (v / c).min(r) };
        Plan::folding(w, c, p, items, items * c)
    }

    /// The plan of [`SPLIT`] windows for blocks of `r` rows of `c` lanes of `w` bytes: two
    /// blocks a window, each in a half (32 bytes) of whole rows, where a block fills more than a
    /// half and has at most [`SPLIT_ROWS`] rows, at least two rows fit a half, and both blocks'
    /// lanes fit the folded vector.
    fn split(w: usize, r: usize, c: usize) -> Option<Self> {
        let (half, outs) = (32 / w, if w == 1 { 32 } else { 16 });
        let items = half / c.max(1);
        (w <= 2 && items >= 2 && r > items && r <= SPLIT_ROWS && 2 * c <= outs).then(|| Plan {
            split: true,
            ..Plan::folding(w, c, 2, items, half)
        })
    }

    /// The folding steps of `p` blocks a window, `items` rows of `c` lanes of `w` bytes each,
    /// block `b`'s first lane the window's lane `b · stride`.
    fn folding(w: usize, c: usize, p: usize, items: usize, stride: usize) -> Self {
        let per = 32 / w;
        let sets = p * c;
        // Interleaving puts the low half of each 16-byte chunk into the first vector and the
        // high half into the second, as elements twice as wide (chunks of `16 / w` elements:
        // shifts, no division, as below: the plan is built at every call).
        let shift = 4 - w.trailing_zeros();
        let half = 8 / w;
        let unpacked = |j: usize| {
            let (k, i) = (j >> shift, j & (2 * half - 1));
            if i < half {
                k * half + i
            } else {
                per + k * half + i - half
            }
        };
        let mut plan = Plan {
            p,
            items,
            steps: 0,
            outs: [1; MAX_STEPS],
            idx: [[[0; 64]; 2]; MAX_STEPS],
            halving: Halving::new(w, items, c),
            split: false,
        };
        let mut left = items;
        while w < 8 && plan.steps < MAX_STEPS {
            let next = left.div_ceil(2);
            let lanes = next * sets;
            let step = plan.steps;
            plan.outs[step] = lanes.div_ceil(per);
            // Lane `t = k · sets + set` takes set `set`'s items `2k` and `2k + 1`: after the
            // first step lane `item · sets + set`; before it, block `b`'s row `item`, lane `j`
            // (`set = b · c + j`), interleaved.
            let mut t = 0;
            for k in 0..next {
                let pair = [2 * k, (2 * k + 1).min(left - 1)];
                for b in 0..p {
                    for j in 0..c {
                        for (which, &item) in pair.iter().enumerate() {
                            let from = if step == 0 {
                                unpacked(b * stride + item * c + j)
                            } else {
                                item * sets + b * c + j
                            };
                            if let Some(lane) = plan.idx[step][which].get_mut(t) {
                                *lane = from as u8;
                            }
                        }
                        t += 1;
                    }
                }
            }
            plan.steps += 1;
            left = next;
            if left == 1 {
                break;
            }
        }
        plan
    }
}

/// `T`'s width in bytes, kind, and (floats) the magnitude bits of infinity.
#[inline(always)]
fn kind_of<T: Element>() -> (usize, u8, u64) {
    match T::DTYPE {
        DType::U8 | DType::Bool => (1, UNSIGNED, 0),
        DType::I8 => (1, SIGNED, 0),
        DType::U16 => (2, UNSIGNED, 0),
        DType::I16 => (2, SIGNED, 0),
        DType::F16 => (2, HALF, 0x7c00),
        DType::BF16 => (2, HALF, 0x7f80),
        DType::U32 => (4, UNSIGNED, 0),
        DType::I32 => (4, SIGNED, 0),
        DType::F32 => (4, FLOAT, 0x7f80_0000),
        DType::U64 => (8, UNSIGNED, 0),
        DType::I64 => (8, SIGNED, 0),
        DType::F64 => (8, FLOAT, 0x7ff0_0000_0000_0000),
    }
}

/// Whether this kernel takes blocks of `r` rows of `c` lanes of `T` on this CPU: AVX-512, a
/// row of 1 to 15 lanes in one vector, 1 to `MAX_ROWS` rows (256 for 1-byte types, whose rows
/// are counted in a byte).
#[inline(always)]
pub(super) fn takes<T: Element>(r: usize, c: usize) -> bool {
    let w = kind_of::<T>().0;
    size_of::<T>() == w
        && (1..16).contains(&c)
        && c * w <= 64
        && (1..=MAX_ROWS).contains(&r)
        && (w > 1 || r <= 256)
        && isa::level() >= isa::AVX512
}

/// Calls `$f::<$g..., W, KIND>($a...)` with `T`'s width and kind.
macro_rules! by_kind {
    ($t:ty, $f:ident::<$($g:tt),*>($($a:expr),*)) => {
        match kind_of::<$t>() {
            (1, UNSIGNED, _) => $f::<$($g),*, 1, UNSIGNED>($($a),*),
            (1, _, _) => $f::<$($g),*, 1, SIGNED>($($a),*),
            (2, UNSIGNED, _) => $f::<$($g),*, 2, UNSIGNED>($($a),*),
            (2, SIGNED, _) => $f::<$($g),*, 2, SIGNED>($($a),*),
            (2, _, _) => $f::<$($g),*, 2, HALF>($($a),*),
            (4, UNSIGNED, _) => $f::<$($g),*, 4, UNSIGNED>($($a),*),
            (4, SIGNED, _) => $f::<$($g),*, 4, SIGNED>($($a),*),
            (4, _, _) => $f::<$($g),*, 4, FLOAT>($($a),*),
            (_, UNSIGNED, _) => $f::<$($g),*, 8, UNSIGNED>($($a),*),
            (_, SIGNED, _) => $f::<$($g),*, 8, SIGNED>($($a),*),
            _ => $f::<$($g),*, 8, FLOAT>($($a),*),
        }
    };
}
pub(super) use by_kind;

/// The index of the extreme of each of the `c` lanes of each block of `r` rows into `y` (the
/// first, or with `LAST` the last; a NaN beats every number), with `v` not empty the extreme
/// into `v`, for the whole blocks of `x`: their count, 0 where this kernel does not take them
/// ([`takes`]).
#[inline(always)]
pub(super) fn arg_blocks<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> usize {
    if !takes::<T>(r, c) {
        return 0;
    }
    let inf = kind_of::<T>().2;
    // SAFETY: `takes` found AVX-512 F, BW, VL and DQ and the sizes fit; `T` is of the width and
    // kind named.
    unsafe { by_kind!(T, arg_all::<T, D, LAST>(x, y, v, r, c, inf)) }
}

/// Hardmax of each block of `r` rows of `c` lanes (any number) along the rows into `y` (as
/// long) by [`shifted`] alone: `f32`, `f64`, f16 and bf16 blocks of a few rows, for the whole
/// groups of blocks from the start of `x` that it takes: their count (0 without AVX-512).
#[inline(always)]
pub(super) fn hardmax_few_rows<T: Element>(x: &[T], y: &mut [T], r: usize, c: usize) -> usize {
    let (w, kind, inf) = kind_of::<T>();
    if size_of::<T>() != w || isa::level() < isa::AVX512 {
        return 0;
    }
    // SAFETY: AVX-512 F, BW, VL and DQ found; `T` is of the width and kind named.
    unsafe {
        match (w, kind) {
            (2, HALF) => shifted::hardmax_shifted::<T, 2, HALF>(x, y, r, c, inf),
            (4, FLOAT) => shifted::hardmax_shifted::<T, 4, FLOAT>(x, y, r, c, inf),
            (8, FLOAT) => shifted::hardmax_shifted::<T, 8, FLOAT>(x, y, r, c, inf),
            _ => 0,
        }
    }
}

/// Hardmax of each block of `r` rows of `c` lanes along the rows into `y` (a 1 in each lane's
/// row of its first maximum, NaN winning, 0 elsewhere; `y` as long as `x`), for the whole
/// blocks of `x`: their count, 0 where this kernel does not take them ([`takes`]).
#[inline(always)]
pub(super) fn hardmax_blocks<T: Element>(x: &[T], y: &mut [T], r: usize, c: usize) -> usize {
    if !takes::<T>(r, c) || y.len() < x.len() {
        return 0;
    }
    let inf = kind_of::<T>().2;
    // SAFETY: as in `arg_blocks`.
    unsafe { by_kind!(T, hardmax_all::<T>(x, y, r, c, inf)) }
}

/// [`arg_blocks`] for elements of `W` bytes of kind `KIND`: blocks of a few rows by
/// [`arg_shifted`] where it is faster ([`arg_shifted::prefers`]), the others (and those after
/// its last group) by [`arg_windows`].
///
/// # Safety
/// As for [`arg_in`].
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn arg_all<T: Element, D: Direction, const LAST: bool, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    let done = if arg_shifted::prefers(W, KIND, r, c, !v.is_empty()) {
        // SAFETY: as the caller's.
        unsafe { arg_shifted::arg_shifted::<T, D, LAST, W, KIND>(x, y, v, r, c, inf) }
    } else {
        0
    };
    let (Some(x), Some(y)) = (x.get(done * r * c..), y.get_mut(done * c..)) else {
        return done;
    };
    let v = v.get_mut(done * c..).unwrap_or_default();
    // SAFETY: as the caller's.
    done + unsafe { arg_windows::<T, D, LAST, W, KIND>(x, y, v, r, c, inf) }
}

/// [`arg_blocks`] for elements of `W` bytes of kind `KIND`: several blocks a window where
/// they fit, else two a window in its halves where [`Plan::split`] takes them; the blocks
/// after the last whole window one a window.
///
/// # Safety
/// As for [`arg_in`].
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn arg_windows<
    T: Element,
    D: Direction,
    const LAST: bool,
    const W: usize,
    const KIND: u8,
>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    let packed = Plan::new(W, r, c, true);
    let (first, one) = if packed.p > 1 {
        (Some(packed), Plan::new(W, r, c, false))
    } else {
        (Plan::split(W, r, c), packed)
    };
    // SAFETY: as the caller's.
    let done = first.map_or(0, |plan| unsafe {
        arg_in::<T, D, LAST, W, KIND>(&plan, x, y, v, r, c, inf)
    });
    let (Some(x), Some(y)) = (x.get(done * r * c..), y.get_mut(done * c..)) else {
        return done;
    };
    let v = v.get_mut(done * c..).unwrap_or_default();
    // SAFETY: as the caller's.
    done + unsafe { arg_in::<T, D, LAST, W, KIND>(&one, x, y, v, r, c, inf) }
}

/// The blocks of [`arg_blocks`] in whole windows of `plan`: their count.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `T` is `W` bytes of kind `KIND`; `c` is 1 to 15 and
/// at most `64 / W`, `r` at least 1 (at most 256 for one byte); `plan` is for `W`, `r`, `c`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn arg_in<T: Element, D: Direction, const LAST: bool, const W: usize, const KIND: u8>(
    plan: &Plan,
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    crate::kernels::shared::align_frame();
    let size = r * c;
    let mut n = (x.len() / size).min(y.len() / c);
    if !v.is_empty() {
        n = n.min(v.len() / c);
    }
    let mut units = n / plan.p;
    // A split window's second half reads a half from its block's last window of rows: past
    // the block's end by the rest of the half (the next block's, or past `x` for the last).
    if plan.split && units * plan.p * size + 32 / W - plan.items * c > x.len() {
        units = units.saturating_sub(1);
    }
    // SAFETY: as the caller's; `units` windows of `plan.p` blocks lie in `x`, `y` and `v`
    // (split windows read no further than `x`, above).
    unsafe {
        match (plan.split, plan.p > 1) {
            (true, _) => units_in::<T, D, LAST, W, KIND, SPLIT>(plan, x, y, v, units, r, c, inf),
            (_, true) => units_in::<T, D, LAST, W, KIND, PACKED>(plan, x, y, v, units, r, c, inf),
            _ => units_in::<T, D, LAST, W, KIND, ONE>(plan, x, y, v, units, r, c, inf),
        }
    }
    units * plan.p
}

/// `units` windows of `plan.p` blocks each from the start of `x`, laid out as `LAYOUT` says
/// ([`ONE`] block, [`PACKED`] blocks or [`SPLIT`] halves).
///
/// # Safety
/// As for [`arg_in`], and `x`, `y` (and `v` if not empty) hold `units · plan.p` blocks; with
/// `LAYOUT` [`SPLIT`], `x` holds the 32 bytes from the last window of rows of each block.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
#[allow(clippy::too_many_arguments)]
unsafe fn units_in<
    T: Element,
    D: Direction,
    const LAST: bool,
    const W: usize,
    const KIND: u8,
    const LAYOUT: u8,
>(
    plan: &Plan,
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    units: usize,
    r: usize,
    c: usize,
    inf: u64,
) {
    // One block a window known when compiling: none of the packed windows' arithmetic.
    let (p, q) = (if LAYOUT == ONE { 1 } else { plan.p }, plan.items);
    let size = r * c;
    let used = p * q * c;
    let mask = if used >= 64 {
        u64::MAX
    } else {
        (1u64 << used) - 1
    };
    // Each lane's row in its block: `j / c % q` for lane `j`, counted (no division).
    let mut groups = [0u8; 64];
    let (mut row, mut col) = (0, 0);
    for (i, g) in groups.chunks_exact_mut(W).enumerate() {
        if LAYOUT == SPLIT && i == 32 / W {
            (row, col) = (0, 0);
        }
        g[0] = row as u8;
        col += 1;
        if col == c {
            col = 0;
            row = if row + 1 == q { 0 } else { row + 1 };
        }
    }
    // SAFETY (loads of the plan): 64-byte arrays.
    let gvec = unsafe { _mm512_loadu_si512(groups.as_ptr().cast()) };
    let step = splat::<W>(q as u64);
    let lastv = add::<W>(gvec, splat::<W>((r - q) as u64));
    let (full, extra) = (r / q, !r.is_multiple_of(q));
    // Each step's indices: [out][which of the pair].
    let mut idx = [[[gvec; 2]; 2]; MAX_STEPS];
    for (to, [a, b]) in idx.iter_mut().zip(&plan.idx).take(plan.steps) {
        *to = [
            [expand(a, 2 * W, 0), expand(b, 2 * W, 0)],
            [expand(a, 2 * W, 1), expand(b, 2 * W, 1)],
        ];
    }
    let halves = plan.halving.vectors();
    let base = x.as_ptr().cast::<u8>();
    for u in 0..units {
        let block = u * p * size;
        // SAFETY (the loads): every window lies in the unit's blocks, inside `x`; lanes past
        // `used` are not read.
        let raw = unsafe { window::<W, LAYOUT>(base.add(block * W), size * W, mask) };
        let mut nan = magnitude::<W, KIND>(raw);
        let mut m = prep::<D, W, KIND>(raw);
        let (mut rows, mut cur) = (gvec, gvec);
        for k in 1..full + usize::from(extra) {
            let row = if k < full { k * q } else { r - q };
            let raw =
                unsafe { window::<W, LAYOUT>(base.add((block + row * c) * W), size * W, mask) };
            cur = if k < full { add::<W>(cur, step) } else { lastv };
            nan = widest::<W, KIND>(nan, magnitude::<W, KIND>(raw));
            let e = prep::<D, W, KIND>(raw);
            let better = better::<D, LAST, W, KIND>(e, m);
            m = mov::<W>(m, better, e);
            rows = mov::<W>(rows, better, cur);
        }
        let (Some(yu), Some(xu)) = (
            y.get_mut(u * p * c..(u + 1) * p * c),
            x.get(block..block + p * size),
        ) else {
            return;
        };
        let vu = v.get_mut(u * p * c..(u + 1) * p * c);
        if KIND >= HALF && has_nan::<W>(nan, inf) {
            let mut vu = vu.unwrap_or_default().chunks_exact_mut(c);
            for (xb, yb) in xu.chunks_exact(size).zip(yu.chunks_exact_mut(c)) {
                lane_by_lane::<T, D, LAST>(xb, yb, vu.next().unwrap_or_default(), c);
            }
            continue;
        }
        // The folded lanes: the extremes (as `prep` left them) for 8-byte elements, else
        // their keys above their rows, in lanes twice as wide, `lo` then `hi`.
        let (lo, hi) = if W == 8 {
            // One lane a row's element, no room for the row beside it: each step takes the
            // other lane's where it is better, or as good and its row the one a tie keeps.
            for i in halves.iter().take(plan.halving.steps).map(|s| s[0]) {
                let (pm, pr) = (
                    _mm512_permutexvar_epi64(i, m),
                    _mm512_permutexvar_epi64(i, rows),
                );
                let take = better::<D, false, W, KIND>(pm, m)
                    | (equal::<KIND>(pm, m) & later::<LAST>(pr, rows));
                m = mov::<W>(m, take, pm);
                rows = mov::<W>(rows, take, pr);
            }
            // SAFETY: `yu` holds `c` (at most 8) lanes.
            unsafe { _mm512_mask_storeu_epi64(yu.as_mut_ptr(), ((1u32 << c) - 1) as u8, rows) };
            (m, m)
        } else {
            let key = key::<D, W, KIND>(m);
            let tie = if LAST {
                rows
            } else {
                _mm512_xor_si512(rows, splat::<W>(u64::MAX))
            };
            let (mut lo, mut hi) = (unpack_lo::<W>(tie, key), unpack_hi::<W>(tie, key));
            for (s, outs) in plan.outs.iter().enumerate().take(plan.steps) {
                let [first, second] = idx[s];
                let a = max::<W>(perm::<W>(lo, first[0], hi), perm::<W>(lo, first[1], hi));
                hi = if *outs > 1 {
                    max::<W>(perm::<W>(lo, second[0], hi), perm::<W>(lo, second[1], hi))
                } else {
                    a
                };
                lo = a;
            }
            // SAFETY: `yu` holds `p · c` lanes.
            unsafe { store::<W, LAST>(lo, hi, yu.as_mut_ptr(), p * c) };
            (lo, hi)
        };
        if let Some(vu) = vu.filter(|vu| vu.len() == p * c) {
            // The extremes from their keys (a zero's sign is not kept: either zero is the
            // contract's). SAFETY: `vu` holds `p · c` lanes of `T`, `W` bytes each.
            unsafe { store_values::<D, W, KIND>(lo, hi, vu.as_mut_ptr().cast(), p * c) };
        }
    }
}

/// The window at `p`: with `LAYOUT` [`SPLIT`] the 32 bytes at `p` then the 32 at `p + gap`,
/// else the lanes of `mask` from `p` ([`load`]).
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; the bytes read lie in one allocation.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn window<const W: usize, const LAYOUT: u8>(p: *const u8, gap: usize, mask: u64) -> __m512i {
    // SAFETY: as the caller's.
    unsafe {
        if LAYOUT == SPLIT {
            let low = _mm256_loadu_si256(p.cast());
            let high = _mm256_loadu_si256(p.add(gap).cast());
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
        } else {
            load::<W>(p, mask)
        }
    }
}

#[cfg(test)]
mod tests;
