//! Strided reductions and arg-reductions over many small blocks of few lanes: blocks of `r`
//! rows of `C` lanes, `C` under sixteen (the middle axis of `[n, r, C]`), every block in one
//! call, any element type.
//!
//! The narrow-lane kernels (`narrow`) read a block `W / C` rows at a time as wide rows of
//! `W` lanes and fold each lane's `W / C` candidates at the end, which pays over a few tall
//! blocks but not over many short ones: 2 MiB as `[5242, 20, 5]` of `f32` took 46x a streaming
//! read, of `u8` 170x. Here each row of a block is read as a window of `L` lanes from the row's
//! start (`L` the power of two from `C` up, [`window`]): its first `C` lanes are the row, the
//! others the rows after it, carried along and never written. The reductions fold the windows
//! down the block by the order alone, NaN flagged on the side; the arg-reductions do that as
//! keys (`Element::Key`; f16 and bf16 as integer keys of their bits) and then go down the rows
//! the other way for the row of each lane's extreme by equality (as `arg_few`). A block whose own lanes hold a NaN is done again lane by
//! lane by the contract's rule. The last blocks, whose last windows would reach past the end of
//! `x`, are left to the caller ([`blocks`] says how many are taken).

use super::arg_lanes::lane_by_lane;
use super::half_rows::{bits_of, inf_of, key, keyed, mag};
use super::shared::step;
use crate::{Direction, Element};

/// The most rows a block may have here: taller blocks are few for their size, and the narrow
/// kernels' wide rows pay there (measured up to 80 rows here, where this module was faster).
pub(crate) const MAX_ROWS: usize = 1024;

/// The lanes of the window that rows of `c` lanes are read in: the power of two from `c` up.
pub(crate) const fn window(c: usize) -> usize {
    c.next_power_of_two()
}

/// How many blocks of `r` rows of `c` lanes from the start of `x` (`len` elements) this module
/// takes: those whose last window of `l` lanes ends inside `x`; none where the blocks are not
/// its (`c` 0 or over fifteen, `r` 0 or over [`MAX_ROWS`], a window narrower than `c`), and
/// none with `small-code` (the narrow kernels alone: less code, and none of this module's
/// indices on the stack).
#[inline(always)]
pub(crate) fn blocks(len: usize, r: usize, c: usize, l: usize) -> usize {
    if cfg!(feature = "small-code")
        || !(1..16).contains(&c)
        || !(1..=MAX_ROWS).contains(&r)
        || l < c
    {
        return 0;
    }
    // Block `b`'s last window ends at `(b + 1) * r * c - c + l`.
    let size = r * c;
    ((len + c).saturating_sub(l) / size).min(len / size)
}

/// Each of the `C` lanes of each block reduced down its `r` rows into `y` (`C` a block,
/// NaN-propagating: the lane's first NaN), for the blocks [`blocks`] takes: their count. f16
/// and bf16 go by the order keys of their bits (a zero result is +0: the contract leaves its
/// sign open).
#[inline(always)]
pub(crate) fn reduce_blocks<T: Element, D: Direction, const C: usize, const L: usize>(
    y: &mut [T],
    x: &[T],
    r: usize,
) -> usize {
    if keyed::<T>() {
        let inf = inf_of::<T>();
        return match (T::half_bits_mut(y), T::half_bits(x)) {
            (Some(yb), Some(xb)) => {
                reduce_in::<u16, i16, D, C, L>(yb, xb, r, key, |e| mag(e) > inf, bits_of)
            }
            _ => 0,
        };
    }
    reduce_in::<T, T::Key, D, C, L>(y, x, r, T::key, T::is_nan, T::from_key)
}

/// [`reduce_blocks`] of elements `E` compared as keys `K` (`key`, and back by `back`), a NaN
/// where `nan` says.
#[inline(always)]
fn reduce_in<E: Copy, K: Element, D: Direction, const C: usize, const L: usize>(
    y: &mut [E],
    x: &[E],
    r: usize,
    key: impl Fn(E) -> K,
    nan: impl Fn(E) -> bool,
    back: impl Fn(K) -> E,
) -> usize {
    let n = blocks(x.len(), r, C, L).min(y.len() / C.max(1));
    let size = r * C;
    for (b, out) in y.chunks_exact_mut(C).take(n).enumerate() {
        let Some(xb) = x.get(b * size..) else {
            return b;
        };
        let Some(&first) = xb.first_chunk::<L>() else {
            return b;
        };
        let Some(own) = xb.get(..size) else {
            return b;
        };
        // NaN noticed over the block apart (a fold, not flags kept per lane and row: those
        // compiled to packing bool lanes each row, 4x the time for `f32` `[5242, 20, 5]`).
        let any_nan = own.iter().fold(false, |a, &e| a | nan(e));
        let mut m = [K::ZERO; L];
        for (m, &e) in m.iter_mut().zip(&first) {
            *m = key(e);
        }
        for k in 1..r {
            let Some(w) = xb.get(k * C..).and_then(|s| s.first_chunk::<L>()) else {
                return b;
            };
            for (m, &e) in m.iter_mut().zip(w) {
                *m = step::<K, D>(*m, key(e));
            }
        }
        for (j, (o, &m)) in out.iter_mut().zip(&m).enumerate() {
            *o = back(m);
            if any_nan {
                // The lane's first NaN.
                let mut lane = xb.iter().skip(j).step_by(C).take(r);
                if let Some(&v) = lane.find(|&&v| nan(v)) {
                    *o = v;
                }
            }
        }
    }
    n
}

/// The index of the extreme of each of the `C` lanes down the `r` rows of each block into `y`
/// (`C` a block: the first, or with `LAST` the last; a NaN beats every number), with `v` not
/// empty the extreme into `v`, for the blocks [`blocks`] takes: their count.
#[inline(always)]
pub(crate) fn arg_blocks<
    T: Element,
    D: Direction,
    const LAST: bool,
    const C: usize,
    const L: usize,
>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
) -> usize {
    let mut n = blocks(x.len(), r, C, L).min(y.len() / C.max(1));
    if !v.is_empty() {
        n = n.min(v.len() / C.max(1));
    }
    let size = r * C;
    for b in 0..n {
        let (Some(xb), Some(yb)) = (x.get(b * size..), y.get_mut(b * C..(b + 1) * C)) else {
            return b;
        };
        let vb = v.get_mut(b * C..(b + 1) * C).unwrap_or_default();
        let done = if keyed::<T>() {
            let inf = inf_of::<T>();
            match (T::half_bits(xb), T::half_bits_mut(vb)) {
                (Some(xh), Some(vh)) => {
                    block::<u16, i16, D, LAST, C, L>(xh, yb, vh, r, key, |e| mag(e) > inf)
                }
                _ => false,
            }
        } else {
            block::<T, T::Key, D, LAST, C, L>(xb, yb, vb, r, T::key, T::is_nan)
        };
        if !done {
            let (Some(xs), Some(ys)) = (xb.get(..size), y.get_mut(b * C..(b + 1) * C)) else {
                return b;
            };
            let vs = v.get_mut(b * C..(b + 1) * C).unwrap_or_default();
            lane_by_lane::<T, D, LAST>(xs, ys, vs, C);
        }
    }
    n
}

/// One block of elements `E` compared as keys `K` (`x` from its start, with room for its last
/// window): `false`, with `y` and `v` possibly written, if its lanes hold an element that
/// `nan` says is a NaN.
#[inline(always)]
fn block<E: Copy, K: Element, D: Direction, const LAST: bool, const C: usize, const L: usize>(
    x: &[E],
    y: &mut [i64],
    v: &mut [E],
    r: usize,
    key: impl Fn(E) -> K,
    nan: impl Fn(E) -> bool,
) -> bool {
    let window = |k: usize| x.get(k * C..).and_then(|s| s.first_chunk::<L>());
    let Some(first) = window(0) else {
        return false;
    };
    let mut m = [K::ZERO; L];
    let mut seen = [false; L];
    for ((m, s), &e) in m.iter_mut().zip(seen.iter_mut()).zip(first) {
        *m = key(e);
        *s = nan(e);
    }
    // The extremes, by the order alone.
    for k in 1..r {
        let Some(w) = window(k) else {
            return false;
        };
        for ((m, s), &e) in m.iter_mut().zip(seen.iter_mut()).zip(w) {
            let kv = key(e);
            *m = if D::better(kv, *m) { kv } else { *m };
            *s |= nan(e);
        }
    }
    if seen.iter().take(C).any(|&s| s) {
        return false;
    }
    // The rows that hold them: the last match met wins, so the first row is met last going
    // up (with `LAST`, the last row going down).
    let mut idx = [0u32; L];
    for step in 0..r {
        let k = if LAST { step } else { r - 1 - step };
        let Some(w) = window(k) else {
            return false;
        };
        for ((i, &m), &e) in idx.iter_mut().zip(&m).zip(w) {
            *i = if key(e) == m { k as u32 } else { *i };
        }
    }
    for (o, &i) in y.iter_mut().zip(&idx) {
        *o = i64::from(i);
    }
    for (j, (o, &i)) in v.iter_mut().zip(&idx).enumerate() {
        if let Some(&e) = x.get(i as usize * C + j) {
            *o = e;
        }
    }
    true
}

/// Calls `$f::<..., C, L>($args)` with `L` the window of `C` lanes ([`window`]); 0 past
/// sixteen lanes.
macro_rules! by_window {
    ($c:expr, $f:ident::<$($g:ty),*>($($a:expr),*)) => {
        match window($c) {
            1 => $f::<$($g),*, 1>($($a),*),
            2 => $f::<$($g),*, 2>($($a),*),
            4 => $f::<$($g),*, 4>($($a),*),
            8 => $f::<$($g),*, 8>($($a),*),
            16 => $f::<$($g),*, 16>($($a),*),
            _ => 0,
        }
    };
}

/// How many blocks of `r` rows of `C` lanes at the start of `len` elements the kernels below
/// take, the window [`window`]`(C)` ([`blocks`]).
#[inline(always)]
pub(crate) fn blocks_of<const C: usize>(len: usize, r: usize) -> usize {
    blocks(len, r, C, window(C))
}

/// [`reduce_blocks`] with the window of `C` lanes.
#[inline(always)]
pub(crate) fn reduce_blocks_of<T: Element, D: Direction, const C: usize>(
    y: &mut [T],
    x: &[T],
    r: usize,
) -> usize {
    let done = vectors::reduce::<T, D>(y, x, r, C);
    let (Some(y), Some(x)) = (y.get_mut(done * C..), x.get(done * r * C..)) else {
        return done;
    };
    done + by_window!(C, reduce_blocks::<T, D, C>(y, x, r))
}

/// The blocks of `r` rows of `c` lanes at the start of `x` reduced into `y` by the AVX-512
/// kernel of many blocks a window (`thin512::packed`: two to four rows of at most 128 bytes), as
/// many as it takes: their count (none with `small-code`, off x86-64, without AVX-512, or where
/// it does not take them). Writes only the blocks it counts.
#[inline(always)]
pub(crate) fn reduce_packed<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    r: usize,
    c: usize,
) -> usize {
    vectors::reduce_packed::<T, D>(y, x, r, c)
}

/// Whether the AVX-512 kernel of masked windows (`thin512`) reduces blocks of `r` rows of `c`
/// lanes of `T` on this CPU ([`reduce_blocks_of`] then takes every whole block).
#[inline(always)]
pub(crate) fn reduces_wide<T: Element>(r: usize, c: usize) -> bool {
    vectors::reduces::<T>(r, c)
}

/// Every whole block of `r` rows of `c` lanes of `x` by the AVX-512 kernel of masked windows
/// (`thin512`): each lane's index into `y` and its extreme into `v` (as long), `true`; `false`
/// (nothing written) where that kernel does not take them (not built, no AVX-512, sizes it
/// does not take, `y` or `v` not one lane each a block).
#[inline(always)]
pub(crate) fn arg_values_wide<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> bool {
    // Every type and row count. Blocks of two or three rows of 4- and 8-byte elements were once
    // left to the generated tiles' second pass (this kernel took 1.1-1.5x its time on an Intel
    // Xeon, Emerald Rapids, before `arg_shifted`); on an AMD EPYC (Zen 4) it takes 0.26-0.51x
    // the tiles' time for ReduceMax+ArgMax of `f32`, `f64`, `i32` and `i64` `[n, 2..3, 5]`.
    let blocks = x.len().checked_div(r * c).unwrap_or(0);
    blocks > 0
        && y.len() == blocks * c
        && v.len() == y.len()
        && vectors::takes::<T>(r, c)
        && vectors::arg_only_wide::<T, D, LAST>(x, y, v, r, c) == blocks
}

/// [`arg_blocks`] with the window of `C` lanes.
#[inline(always)]
pub(crate) fn arg_blocks_of<T: Element, D: Direction, const LAST: bool, const C: usize>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
) -> usize {
    let done = vectors::arg::<T, D, LAST>(x, y, v, r, C);
    let (Some(x), Some(y)) = (x.get(done * r * C..), y.get_mut(done * C..)) else {
        return done;
    };
    let v = v.get_mut(done * C..).unwrap_or_default();
    done + by_window!(C, arg_blocks::<T, D, LAST, C>(x, y, v, r))
}

/// Hardmax of the blocks of `r` rows of `C` lanes at the start of `x` that the AVX2 kernel of
/// whole-vector windows (`thin_avx2`) takes, into `y` (as long as `x`; the first rows after
/// them may be written too, to be written again by the caller): their count (none with
/// `small-code`, off x86-64, without AVX2, or where it does not take them).
#[inline(always)]
pub(crate) fn hardmax_blocks_of<T: Element, const C: usize>(
    x: &[T],
    y: &mut [T],
    r: usize,
) -> usize {
    vectors::hardmax::<T>(x, y, r, C)
}

/// Hardmax of the blocks of `r` rows of `inner` lanes (any number) at the start of `x` into `y`
/// (as long) that the AVX-512 kernel of shifted rows (`thin512::shifted`) takes: floats, two to
/// four rows (three of `f64`), where the CPU has AVX-512; their count (none with `small-code`
/// or off x86-64).
#[inline(always)]
pub(crate) fn hardmax_few_rows<T: Element>(x: &[T], y: &mut [T], r: usize, inner: usize) -> usize {
    vectors::hardmax_few_rows::<T>(x, y, r, inner)
}

/// The AVX2 kernel of whole-vector windows (`thin_avx2`) where it is built: the blocks it did.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
mod vectors {
    use crate::{Direction, Element};

    pub(super) use super::super::thin512::{
        arg_blocks as arg_only_wide, hardmax_few_rows, reduce_packed, reduces, takes,
    };

    /// The AVX-512 kernel of masked windows (`thin512`) where the CPU has it and it takes the
    /// blocks, else the AVX2 one.
    #[inline(always)]
    pub(super) fn hardmax<T: Element>(x: &[T], y: &mut [T], r: usize, c: usize) -> usize {
        let done = super::super::thin512::hardmax_blocks::<T>(x, y, r, c);
        if done > 0 {
            return done;
        }
        super::super::thin_avx2::hardmax_blocks::<T>(x, y, r, c)
    }

    /// The AVX-512 kernel of masked windows (`thin512`) where the CPU has it and it takes the
    /// blocks, else the AVX2 one.
    #[inline(always)]
    pub(super) fn reduce<T: Element, D: Direction>(
        y: &mut [T],
        x: &[T],
        r: usize,
        c: usize,
    ) -> usize {
        let packed = reduce_packed::<T, D>(y, x, r, c);
        let (Some(y), Some(x)) = (y.get_mut(packed * c..), x.get(packed * r * c..)) else {
            return packed;
        };
        let done = super::super::thin512::reduce_blocks::<T, D>(y, x, r, c);
        if done > 0 {
            return packed + done;
        }
        packed + super::super::thin_avx2::reduce_blocks::<T, D>(y, x, r, c)
    }

    /// The AVX-512 kernel of masked windows (`thin512`) where the CPU has it and it takes the
    /// blocks, else the AVX2 one.
    #[inline(always)]
    pub(super) fn arg<T: Element, D: Direction, const LAST: bool>(
        x: &[T],
        y: &mut [i64],
        v: &mut [T],
        r: usize,
        c: usize,
    ) -> usize {
        let done = super::super::thin512::arg_blocks::<T, D, LAST>(x, y, v, r, c);
        if done > 0 {
            return done;
        }
        super::super::thin_avx2::arg_blocks::<T, D, LAST>(x, y, v, r, c)
    }
}

/// None where the AVX2 kernel is not built (other targets, `small-code`): the kernel's
/// signatures, its type parameters unused.
#[allow(clippy::extra_unused_type_parameters)]
#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
)))]
mod vectors {
    use crate::{Direction, Element};

    /// No blocks.
    #[inline(always)]
    pub(super) fn reduce<T: Element, D: Direction>(
        _: &mut [T],
        _: &[T],
        _: usize,
        _: usize,
    ) -> usize {
        0
    }

    /// No blocks.
    #[inline(always)]
    pub(super) fn reduce_packed<T: Element, D: Direction>(
        _: &mut [T],
        _: &[T],
        _: usize,
        _: usize,
    ) -> usize {
        0
    }

    /// None.
    #[inline(always)]
    pub(super) fn reduces<T: Element>(_: usize, _: usize) -> bool {
        false
    }

    /// None.
    #[inline(always)]
    pub(super) fn takes<T: Element>(_: usize, _: usize) -> bool {
        false
    }

    /// No blocks.
    #[inline(always)]
    pub(super) fn arg_only_wide<T: Element, D: Direction, const LAST: bool>(
        _: &[T],
        _: &mut [i64],
        _: &mut [T],
        _: usize,
        _: usize,
    ) -> usize {
        0
    }

    /// No blocks.
    #[inline(always)]
    pub(super) fn hardmax<T: Element>(_: &[T], _: &mut [T], _: usize, _: usize) -> usize {
        0
    }

    /// No blocks.
    #[inline(always)]
    pub(super) fn hardmax_few_rows<T: Element>(_: &[T], _: &mut [T], _: usize, _: usize) -> usize {
        0
    }

    /// No blocks.
    #[inline(always)]
    pub(super) fn arg<T: Element, D: Direction, const LAST: bool>(
        _: &[T],
        _: &mut [i64],
        _: &mut [T],
        _: usize,
        _: usize,
    ) -> usize {
        0
    }
}

#[cfg(test)]
mod tests;
