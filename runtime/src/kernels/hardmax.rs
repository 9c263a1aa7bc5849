//! Hardmax: contiguous rows, strided lanes (by the passes of the arg-reductions) and any other
//! reduced axes.

#[cfg(doc)]
use super::arg_lanes::arg_lanes;
use super::arg_lanes::arg_tile_pass;
use super::arg_row::{arg_row, arg_row_clearing};
use super::half_lanes::hardmax_lanes_half;
use super::half_rows::{bits, hardmax_row_half, inf_of, keyed};
use super::shared::{fill, take, LANES};
use crate::{Element, Max};

/// Lanes processed together by the strided Hardmax kernel (their rows as `i64` on the stack:
/// 2 KiB, or 128 bytes with the `small-code` feature).
const TILE: usize = if cfg!(feature = "small-code") {
    16
} else {
    256
};

/// Hardmax of a contiguous row: 1 at the first maximum (or first NaN), 0 elsewhere.
#[inline(always)]
pub fn hardmax_row<T: Element>(x: &[T], y: &mut [T]) {
    if keyed::<T>() && x.len() == y.len() {
        // f16 and bf16: in their own width, on the bits.
        if let (Some(a), Some(b)) = (T::half_bits(x), T::half_bits_mut(y)) {
            // (Not referenced with `small-code`: even dead, a kernel's call can cost firmware
            // entry points a copy of their inputs.)
            #[cfg(all(
                target_arch = "x86_64",
                target_feature = "sse2",
                not(feature = "small-code")
            ))]
            if a.len() >= 16
                && super::rows_f32::avx2::available()
                // SAFETY: `available` found AVX2.
                && unsafe { super::half_avx2::hardmax_row(a, b, inf_of::<T>(), bits(T::ONE)) }
            {
                return;
            }
            hardmax_row_half(a, b, inf_of::<T>(), bits(T::ONE));
            return;
        }
    }
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
#[cfg_attr(feature = "small-code", inline)]
#[cfg_attr(not(feature = "small-code"), inline(always))]
pub fn hardmax_lanes<T: Element>(x: &[T], y: &mut [T], inner: usize) {
    if inner == 0 {
        return;
    }
    if keyed::<T>() {
        // f16 and bf16: in their own width, on the bits (the general kernel if a NaN occurred).
        let one = bits(T::ONE);
        if let (Some(a), Some(b)) = (T::half_bits(x), T::half_bits_mut(y)) {
            if hardmax_lanes_half(a, b, inner, inf_of::<T>(), one) {
                return;
            }
        }
    }
    let rows = x.len() / inner;
    if rows > u32::MAX as usize {
        // More rows than the compact row counters hold: the general kernel.
        hardmax_general(x, y, &[(inner, 1)], &[(rows, inner)]);
        return;
    }
    // Whole rows only (generated code always passes them).
    let x = x.get(..rows * inner).unwrap_or(&[]);
    if rows == 2 && !cfg!(feature = "small-code") {
        // Two rows: each lane's one is in the second row exactly where it replaces the first
        // (`take`), so the block is written in the same pass that reads it.
        let (x0, x1) = x.split_at(inner);
        let Some((y0, y1)) = y.get_mut(..2 * inner).map(|y| y.split_at_mut(inner)) else {
            return;
        };
        for (((&a, &b), o0), o1) in x0.iter().zip(x1).zip(y0).zip(y1) {
            let t = take::<T, Max, false>(a, b);
            *o0 = if t { T::ZERO } else { T::ONE };
            *o1 = if t { T::ONE } else { T::ZERO };
        }
        return;
    }
    let filled = filled_f32::<T>(rows, inner);
    if !cfg!(feature = "small-code") && (rows >= SPAN_ROWS || filled) {
        // The block filled with zeros in one pass, then each tile's rows found and its ones
        // stored (tiles sized to the lanes, so that a small block does not clear a large
        // tile's state).
        fill(y, T::ZERO);
        if inner <= LANES {
            store_ones::<T, LANES, LANES>(x, y, inner);
        } else if filled {
            store_ones::<T, SPAN, TILE>(x, y, inner);
        } else {
            store_ones::<T, TILE, TILE>(x, y, inner);
        }
        return;
    }
    let mut start = 0;
    while start < inner {
        let end = inner.min(start + TILE);
        // A tile of at most sixteen lanes keeps sixteen lanes of state: clearing and carrying
        // a whole tile's would cost more than the block itself (`[16384, 2, 16]`: 2 KiB cleared
        // per block of 32 elements).
        if end - start <= LANES {
            hardmax_tile::<T, LANES>(x, y, inner, start, end);
        } else {
            hardmax_tile::<T, TILE>(x, y, inner, start, end);
        }
        start = end;
    }
}

/// Blocks of at least this many rows take [`store_ones`] over a block filled with zeros: over
/// fewer, the tile's own write pass right after its arg pass was faster (rows of 20 and 80:
/// 12–16%), over more, slower (rows of 1000 along the leading axis of `[1000, 524]`: 19%).
/// Writing the zeros and ones after each tile of 256 lanes (a strided pass per tile) made that
/// Hardmax cost the arg pass plus 1.9x a plain write of the block.
const SPAN_ROWS: usize = 256;

/// `f32` blocks of at least this many rows take [`store_ones`] where the CPU has AVX-512, and
/// from [`FILLED_F32_FEW_ROWS`] rows those `hard_lanes_avx2` would not take by its tracked form:
/// see [`filled_f32`].
#[cfg_attr(feature = "small-code", allow(dead_code))]
const FILLED_F32_ROWS: usize = 128;

/// See [`FILLED_F32_ROWS`].
#[cfg_attr(feature = "small-code", allow(dead_code))]
const FILLED_F32_FEW_ROWS: usize = 48;

/// Lanes a tile of [`store_ones`] has for [`filled_f32`] blocks (their rows as `i64`: 8 KiB of
/// stack): the widest tile the AVX-512 arg pass takes in one pass down the rows.
const SPAN: usize = 1024;

/// Whether a block of `rows` rows of `inner` lanes of `T` is `f32` of [`FILLED_F32_ROWS`] rows
/// or more (or [`FILLED_F32_FEW_ROWS`] where `hard_lanes_avx2` would not track its lanes), whose
/// tiles the AVX-512 arg pass takes (32 lanes or more on a CPU with AVX-512): Hardmax then fills
/// the block with zeros and stores the ones of tiles of [`SPAN`] lanes (`hardmax_f32`'s AVX2
/// walk leaves it these blocks). Against that walk (Intel Xeon, Ice Lake, about 2 MiB, medians,
/// time over the read-and-write fold, old and new builds in turn): `[1000, 524]` 1.26 -> 1.06,
/// `[2000, 262]` 1.21 -> 1.08, `[200, 2621]` 1.43 -> 1.15, `[300, 1747]` (by tiles of 256 lanes
/// before) 1.35 -> 1.13, `[10, 500, 104]` 1.38 -> 1.20, `[64, 128, 64]` 1.53 -> 1.13,
/// `[2, 1000, 256]` 1.43 -> 1.07, `[4, 256, 512]` 1.45 -> 1.27; under 128 rows `[16, 96, 341]`
/// 1.55 -> 1.25, `[64, 48, 170]` 1.44 -> 1.29, `[64, 8192]` 1.63 -> 1.37, but wide rows the walk
/// tracks lost (`[40, 13107]` 1.17 -> 1.49, `[80, 6553]` 1.10 -> 1.28) and keep it.
#[inline(always)]
pub(super) fn filled_f32<T: Element>(rows: usize, inner: usize) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    return matches!(T::DTYPE, crate::DType::F32)
        && (rows >= FILLED_F32_ROWS
            || (rows >= FILLED_F32_FEW_ROWS && !super::hard_lanes_avx2::tracks(rows, inner)))
        && super::arg_lanes512::runs(inner.min(SPAN));
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    {
        let _ = (rows, inner, T::DTYPE);
        false
    }
}

/// The ones of a block of rows of `inner` lanes whose outputs are all zeros already: each tile
/// of `N` lanes' rows found by [`first_maxima`] (`E` at a time by the exact rule), then a 1
/// stored in each of them.
#[inline(always)]
fn store_ones<T: Element, const N: usize, const E: usize>(x: &[T], y: &mut [T], inner: usize) {
    let mut rows = [0i64; N];
    let mut start = 0;
    while start < inner {
        let end = inner.min(start + N);
        let Some(out) = rows.get_mut(..end - start) else {
            return;
        };
        first_maxima::<T, N, E>(x, inner, start, end, out);
        for (l, &r) in (start..end).zip(out.iter()) {
            if let Some(o) = (r as usize)
                .checked_mul(inner)
                .and_then(|i| y.get_mut(i + l))
            {
                *o = T::ONE;
            }
        }
        start = end;
    }
}

/// The row of the first maximum (or first NaN) of each lane `start..end` (at most `N`) into
/// `rows`, by the passes of `arg_lanes`: the order alone, then the exact rule if the lanes held
/// a NaN, `E` lanes at a time (its state on the stack: 8 KiB for 1024 `f32` lanes, which the
/// order's AVX-512 pass keeps in registers and 8 KiB of its own); with `small-code`, the exact
/// pass alone.
#[inline(always)]
fn first_maxima<T: Element, const N: usize, const E: usize>(
    x: &[T],
    inner: usize,
    start: usize,
    end: usize,
    rows: &mut [i64],
) {
    if cfg!(feature = "small-code")
        || !arg_tile_pass::<T, Max, false, N, false, false>(x, rows, &mut [], inner, start, end)
    {
        if E >= N {
            arg_tile_pass::<T, Max, false, E, true, false>(x, rows, &mut [], inner, start, end);
            return;
        }
        let mut from = start;
        while from < end {
            let to = end.min(from + E);
            if let Some(out) = rows.get_mut(from - start..to - start) {
                arg_tile_pass::<T, Max, false, E, true, false>(x, out, &mut [], inner, from, to);
            }
            from = to;
        }
    }
}

/// [`first_maxima`] of the lanes `start..end` (at most `N`) into `out`, as `u32` (fewer than
/// 2^32 rows: `hardmax_lanes` checked).
#[inline(always)]
fn lane_rows<T: Element, const N: usize>(
    x: &[T],
    inner: usize,
    start: usize,
    end: usize,
    out: &mut [u32],
) {
    let mut rows = [0i64; N];
    let Some(rows) = rows.get_mut(..end - start) else {
        return;
    };
    first_maxima::<T, N, N>(x, inner, start, end, rows);
    for (o, &r) in out.iter_mut().zip(rows.iter()) {
        *o = r as u32;
    }
}

/// The lanes `start..end` (at most `N`) of [`hardmax_lanes`].
#[inline(always)]
fn hardmax_tile<T: Element, const N: usize>(
    x: &[T],
    y: &mut [T],
    inner: usize,
    start: usize,
    end: usize,
) {
    // The row of each lane's first maximum, as `u32`, which SSE2 compares four at a time in
    // the write pass (it has no 64-bit compare).
    // (The whole array is zipped below: its constant length lets the write pass vectorize,
    // which a slice of the tile's lanes did not, 1.3x slower over `[1638,20,16]`.)
    let mut rows32 = [0u32; N];
    let Some(out) = rows32.get_mut(..end - start) else {
        return;
    };
    lane_rows::<T, N>(x, inner, start, end, out);
    for (r, row) in y.chunks_exact_mut(inner).enumerate() {
        let Some(outs) = row.get_mut(start..end) else {
            return;
        };
        for (o, &i) in outs.iter_mut().zip(rows32.iter()) {
            *o = if i == r as u32 { T::ONE } else { T::ZERO };
        }
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
    use super::filled_f32;
    use crate::{bf16, f16};

    /// The blocks [`filled_f32`] takes, by literal cases at each boundary (so that a moved
    /// threshold fails here): `f32` only, 128 rows, 48 where the walk would not track the lanes
    /// (rows of 2048 lanes from 32 rows, of 256 from 160, not of a multiple of 128), 32 lanes
    /// (and only on a CPU with AVX-512, never with `small-code`).
    #[test]
    fn filled_blocks_are_f32_of_many_rows() {
        #[cfg(all(target_arch = "x86_64", not(feature = "small-code")))]
        let wide = crate::kernels::isa::level() >= crate::kernels::isa::AVX512;
        #[cfg(not(all(target_arch = "x86_64", not(feature = "small-code"))))]
        let wide = false;
        let cases = [
            (128, 32, true),
            (127, 32, true),
            (48, 32, true),
            (47, 32, false),
            (1000, 31, false),
            (1000, 524, true),
            (127, 2100, false),
            (128, 2100, true),
            (100, 2048, true),
            (80, 6553, false),
            (48, 170, true),
        ];
        for (rows, inner, want) in cases {
            assert_eq!(
                filled_f32::<f32>(rows, inner),
                want && wide,
                "{rows}x{inner}"
            );
            assert!(!filled_f32::<f64>(rows, inner), "f64 {rows}x{inner}");
            assert!(!filled_f32::<f16>(rows, inner), "f16 {rows}x{inner}");
            assert!(!filled_f32::<bf16>(rows, inner), "bf16 {rows}x{inner}");
        }
    }
}
