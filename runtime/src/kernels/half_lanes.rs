//! Strided f16 and bf16 (reduced axis not last) in their own width: [`reduce_lanes_half`] for
//! ReduceMax/ReduceMin and [`arg_tile_half`] for the arg-reductions and Hardmax, on the bits,
//! with NaN found on the side.

use super::half_rows::{bits_of, key, nan_bits, Summary};
use crate::Direction;

/// Lanes of a chunk of the strided 16-bit kernels (two SSE2 registers per set).
const HL: usize = 16;

/// Rows of a group of [`arg_tile_half`] (each lane's winning group is read again at the end).
const GROUP: usize = 16;

/// Lanes of a chunk of [`reduce_lanes_half`] (thirty-two, a whole cache line of each row, ran
/// out of registers and measured slower).
const RL: usize = 16;

/// Rows [`reduce_lanes_half`] folds while a chunk of lanes keeps its state in registers.
const ROWS: usize = 16;

/// [`super::reduce_lanes_rows`] of f16 or bf16 bits (`inf`: the magnitude of infinity): every
/// row of `x` (rows as long as `acc`) folded into `acc`. Returns false, `acc` untouched, if
/// `acc` holds a NaN (the caller's general kernel then keeps it).
///
/// Rows go in groups of sixteen; each chunk of sixteen lanes summarizes its rows and `acc`
/// ([`Summary`]: one signed max, one signed min and one unsigned max per element) and stores the
/// extreme back once per group. If a NaN occurred, each lane that met one gets its first NaN.
/// Out of line: with the lengths known (inlined into generated code), rustc unrolls the loops
/// whole and no longer vectorizes them.
#[inline(never)]
pub(super) fn reduce_lanes_half<D: Direction>(acc: &mut [u16], x: &[u16], inf: i16) -> bool {
    let n = acc.len();
    if n == 0 {
        return true;
    }
    if acc.iter().any(|&a| nan_bits(a, inf)) {
        return false;
    }
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    if n >= super::half_reduce512::LANES && super::isa::level() >= super::isa::AVX512 {
        // SAFETY: `level` found AVX-512 F, BW, VL and DQ.
        if unsafe { super::half_reduce512::reduce_lanes::<D>(acc, x, inf) } {
            first_nans(acc, x, inf);
        }
        return true;
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if n >= super::half_avx2::LANES
        && !cfg!(feature = "small-code")
        && super::rows_f32::avx2::available()
    {
        // SAFETY: `available` found AVX2.
        if unsafe { super::half_avx2::reduce_lanes::<D>(acc, x, inf) } {
            first_nans(acc, x, inf);
        }
        return true;
    }
    let mut nan = false;
    let mut seen = Summary::of(&[0; RL]);
    // Whole chunks of lanes, then the lanes past them as one more chunk that ends at `n` (it
    // overlaps the one before, which a max/min does not mind); fewer lanes than a chunk, one by
    // one.
    let full = n / RL;
    let chunks = if n < RL { 0 } else { n.div_ceil(RL) };
    let tail_start = if n < RL { 0 } else { n };
    for group in x.chunks(ROWS * n) {
        // The group's rows, counted once (a `chunks_exact` per chunk of lanes divides each time).
        let rows = group.len() / n;
        for c in 0..chunks {
            let off = if c < full { c * RL } else { n - RL };
            let Some(a) = acc.get_mut(off..).and_then(|r| r.first_chunk_mut::<RL>()) else {
                break;
            };
            let mut s = Summary::of(a);
            let lanes = group.get(off..).unwrap_or(&[]);
            for r in 0..rows {
                let Some(v) = lanes.get(r * n..).and_then(|r| r.first_chunk::<RL>()) else {
                    break;
                };
                s.add(v);
            }
            *a = s.extremes::<D>();
            seen.merge_nan(&s);
        }
        for row in group.chunks_exact(n) {
            let v = row.get(tail_start..).unwrap_or(&[]);
            let a = acc.get_mut(tail_start..).unwrap_or(&mut []);
            for (a, &v) in a.iter_mut().zip(v) {
                if nan_bits(v, inf) {
                    nan = true;
                } else if D::better(key(v), key(*a)) {
                    *a = v;
                }
            }
        }
    }
    if nan || seen.any_nan(inf) {
        first_nans(acc, x, inf);
    }
    true
}

/// After a pass of [`reduce_lanes_half`] that met a NaN: each lane of `acc` that met one (it
/// holds a number or a NaN of the pass) gets the first NaN of its lane in `x`.
#[inline(never)]
fn first_nans(acc: &mut [u16], x: &[u16], inf: i16) {
    let n = acc.len();
    if n == 0 {
        return;
    }
    for a in acc.iter_mut() {
        if nan_bits(*a, inf) {
            *a = 0;
        }
    }
    for row in x.chunks_exact(n) {
        for (a, &v) in acc.iter_mut().zip(row) {
            if nan_bits(v, inf) && !nan_bits(*a, inf) {
                *a = v;
            }
        }
    }
}

/// Where [`arg_tile_half`] writes: each lane's row into `y` and its element into `v` (when not
/// empty), and, when `h` (as long as `x`) is not empty, a Hardmax: zeros over the tile's lanes
/// as the rows are read (unless `zeroed`: `h` is already all zeros), then `one` at each lane's
/// row.
pub(super) struct Out<'a> {
    pub(super) y: &'a mut [i64],
    pub(super) v: &'a mut [u16],
    pub(super) h: &'a mut [u16],
    pub(super) one: u16,
    pub(super) zeroed: bool,
}

/// The end of the AVX2 and AVX-512 passes of keys (`half_lanes_avx2`, `half_lanes512`): each
/// of a chunk's lanes from `lane0` (of the tile, which starts at lane `start` of rows of `inner`
/// of `x`), its row from `rows`, into the outputs `y`, `v` (its element) and `h` (its `one`),
/// each where not empty.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
#[inline]
pub(super) fn place(
    rows: &[u16],
    lane0: usize,
    (x, inner, start): (&[u16], usize, usize),
    (y, v, h, one): (&mut [i64], &mut [u16], &mut [u16], u16),
) {
    for (k, &wk) in rows.iter().enumerate() {
        let j = lane0 + k;
        let r = usize::from(wk);
        let at = r * inner + start + j;
        if let Some(o) = y.get_mut(j) {
            *o = r as i64;
        }
        if let (Some(o), Some(&e)) = (v.get_mut(j), x.get(at)) {
            *o = e;
        }
        if let Some(o) = h.get_mut(at) {
            *o = one;
        }
    }
}

/// The fast pass of the strided arg-reduction over lanes `start..end` of every row, for f16 or
/// bf16 bits, into `out`. Returns false, `y`, `v` untouched (`h` partly zeroed), if the lanes hold
/// a NaN or the rows are too many for its 16-bit group numbers (the caller's exact pass then
/// decides).
///
/// Rows go in groups of sixteen: each group's extreme per lane comes from a [`Summary`] (three
/// instructions per element), and the running best key and its group are updated once per
/// group; at the end each lane reads its winning group again for the first (last) row. Out of
/// line, as [`reduce_lanes_half`]. Where the CPU has AVX2, tiles of 16 to 1536 lanes over at
/// most 65536 rows take `half_lanes_avx2::arg_tile_keys` instead, which keeps each lane's row
/// as it reads and reads nothing again; where it has AVX-512, tiles of 32 lanes or more take
/// its twin of 32 lanes a vector, `half_lanes512::arg_tile_keys`.
#[inline(never)]
pub(super) fn arg_tile_half<D: Direction, const LAST: bool, const TILE: usize>(
    x: &[u16],
    out: Out<'_>,
    inner: usize,
    start: usize,
    end: usize,
    inf: i16,
) -> bool {
    // (Not referenced with `small-code`, which keeps one copy of each kernel.)
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    {
        if !super::rows_f32::avx2::available() {
            return arg_tile_half_sse2::<D, LAST, TILE>(x, out, inner, start, end, inf);
        }
        let n = end.saturating_sub(start);
        let rows = x.len().checked_div(inner).unwrap_or(0);
        if n >= super::half_lanes512::L
            && n.div_ceil(super::half_lanes512::L) <= super::half_lanes512::CHUNKS
            && rows <= usize::from(u16::MAX) + 1
            && super::isa::level() >= super::isa::AVX512
        {
            // SAFETY: `level` found AVX-512 F, BW, VL and DQ.
            return unsafe {
                if D::IS_MIN {
                    super::half_lanes512::arg_tile_keys::<true, LAST>(
                        x, out, inner, start, end, inf,
                    )
                } else {
                    super::half_lanes512::arg_tile_keys::<false, LAST>(
                        x, out, inner, start, end, inf,
                    )
                }
            };
        }
        if n >= 16
            && n.div_ceil(16) <= super::half_lanes_avx2::CHUNKS
            && rows <= usize::from(u16::MAX) + 1
        {
            // SAFETY: `available` found AVX2.
            return unsafe {
                if D::IS_MIN {
                    super::half_lanes_avx2::arg_tile_keys::<true, LAST>(
                        x, out, inner, start, end, inf,
                    )
                } else {
                    super::half_lanes_avx2::arg_tile_keys::<false, LAST>(
                        x, out, inner, start, end, inf,
                    )
                }
            };
        }
        // SAFETY: `available` found AVX2.
        unsafe { arg_tile_half_avx2::<D, LAST, TILE>(x, out, inner, start, end, inf) }
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    )))]
    arg_tile::<D, LAST, TILE>(x, out, inner, start, end, inf)
}

/// [`arg_tile_half`] as built for the target (SSE2), out of line: where the kernels have AVX2
/// builds, [`arg_tile_half`] only chooses one, so that the stack it takes is the largest build's
/// (each keeps its tile's state), not their sum.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
#[inline(never)]
fn arg_tile_half_sse2<D: Direction, const LAST: bool, const TILE: usize>(
    x: &[u16],
    out: Out<'_>,
    inner: usize,
    start: usize,
    end: usize,
    inf: i16,
) -> bool {
    arg_tile::<D, LAST, TILE>(x, out, inner, start, end, inf)
}

/// [`arg_tile_half`] compiled for AVX2: a chunk's sixteen lanes in one register.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(feature = "small-code")
))]
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn arg_tile_half_avx2<D: Direction, const LAST: bool, const TILE: usize>(
    x: &[u16],
    out: Out<'_>,
    inner: usize,
    start: usize,
    end: usize,
    inf: i16,
) -> bool {
    crate::kernels::shared::align_frame();
    arg_tile::<D, LAST, TILE>(x, out, inner, start, end, inf)
}

/// The body of [`arg_tile_half`], inlined into each build of it.
#[inline(always)]
fn arg_tile<D: Direction, const LAST: bool, const TILE: usize>(
    x: &[u16],
    out: Out<'_>,
    inner: usize,
    start: usize,
    end: usize,
    inf: i16,
) -> bool {
    let Out {
        y,
        v,
        h,
        one,
        zeroed,
    } = out;
    let rows = x.len() / inner;
    let Some(lanes0) = x.get(start..end) else {
        return true;
    };
    if rows.div_ceil(GROUP) > usize::from(u16::MAX) + 1 {
        return false;
    }
    let n = lanes0.len();
    // Whole chunks of lanes, and the lanes past them as one more chunk that ends at `end` (it
    // overlaps the one before, with a state of its own); fewer than a chunk of lanes, one by
    // one (`btail`).
    let full = n / HL;
    let slots = if n < HL { n } else { n.div_ceil(HL) * HL };
    let mut best = [0i16; TILE];
    let mut group_of = [0u16; TILE];
    let (Some(best), Some(group_of)) = (best.get_mut(..slots), group_of.get_mut(..slots)) else {
        // A tile that is not whole chunks (generated code never passes one): the exact pass.
        return false;
    };
    let (bchunks, btail) = best.as_chunks_mut::<HL>();
    let (gchunks, gtail) = group_of.as_chunks_mut::<HL>();
    let tail_off = start + bchunks.len() * HL;
    let mut seen = Summary::of(&[0; HL]);
    // Across groups: the strictly better extreme wins (the first group holding it), or with
    // `LAST` a tie too (the last group holding it).
    let choose = |b: i16, m: i16| {
        if LAST {
            !D::better(b, m)
        } else {
            D::better(m, b)
        }
    };
    // The zeros as the rows are read, unless `h` holds them already.
    let mut hgroups = h
        .get_mut(..if zeroed { 0 } else { h.len() })
        .unwrap_or(&mut [])
        .chunks_mut(GROUP * inner);
    for (g, group) in x.chunks(GROUP * inner).enumerate() {
        let g16 = g as u16;
        let mut hg = hgroups.next();
        for (c, (bch, gch)) in bchunks.iter_mut().zip(gchunks.iter_mut()).enumerate() {
            let off = if c < full { start + c * HL } else { end - HL };
            let mut rows_of = group.chunks_exact(inner);
            let Some(m0) = rows_of
                .next()
                .and_then(|r| r.get(off..))
                .and_then(|r| r.first_chunk::<HL>())
            else {
                return true;
            };
            let mut s = Summary::of(m0);
            for row in rows_of {
                let Some(v) = row.get(off..).and_then(|r| r.first_chunk::<HL>()) else {
                    return true;
                };
                s.add(v);
            }
            if let Some(hg) = hg.as_deref_mut() {
                for o in hg.chunks_exact_mut(inner) {
                    if let Some(o) = o.get_mut(off..).and_then(|r| r.first_chunk_mut::<HL>()) {
                        *o = [0; HL];
                    }
                }
            }
            seen.merge_nan(&s);
            let m = s.extreme_keys::<D>();
            if g == 0 {
                *bch = m;
                continue;
            }
            // Selects on local copies: a select stored into place would become a branch.
            let (mut b, mut a) = (*bch, *gch);
            for ((b, a), &m) in b.iter_mut().zip(a.iter_mut()).zip(&m) {
                let t = choose(*b, m);
                *b = if t { m } else { *b };
                *a = if t { g16 } else { *a };
            }
            *bch = b;
            *gch = a;
        }
        if let Some(hg) = hg {
            for o in hg.chunks_exact_mut(inner) {
                super::shared::fill(o.get_mut(tail_off..end).unwrap_or(&mut []), 0);
            }
        }
        for (k, row) in group.chunks_exact(inner).enumerate() {
            let vtail = row.get(tail_off..end).unwrap_or(&[]);
            for ((b, a), &v) in btail.iter_mut().zip(gtail.iter_mut()).zip(vtail) {
                if nan_bits(v, inf) {
                    return false;
                }
                if (g == 0 && k == 0) || choose(*b, key(v)) {
                    *b = key(v);
                    *a = g16;
                }
            }
        }
    }
    if seen.any_nan(inf) {
        return false;
    }
    // The row of each lane's extreme within its winning group: the first (last) equal one.
    for j in 0..n {
        // The state of lane `j`: in the last chunk, which ends at `end`, past the whole ones.
        let at_state = if j < full * HL { j } else { j + slots - n };
        let (Some(&b), Some(&g)) = (best.get(at_state), group_of.get(at_state)) else {
            break;
        };
        let first = usize::from(g) * GROUP;
        let last = rows.min(first + GROUP);
        let at = |r: usize| x.get(r * inner + start + j).copied();
        let equal = |r: &usize| at(*r).is_some_and(|e| key(e) == b);
        let found = if LAST {
            (first..last).rev().find(equal)
        } else {
            (first..last).find(equal)
        };
        let r = found.unwrap_or(first);
        if let Some(o) = y.get_mut(j) {
            *o = r as i64;
        }
        if let Some(o) = h.get_mut(r * inner + start + j) {
            *o = one;
        }
        if let Some(out) = v.get_mut(j) {
            *out = at(r).unwrap_or(bits_of(b));
        }
    }
    true
}

/// Hardmax of f16 or bf16 bits along the rows of `x` (`inner` lanes; `one`: the bits of 1), in
/// tiles of up to 1024 lanes, each in one pass that reads `x` and writes the zeros, then the
/// ones. Returns false if a NaN occurred (the caller's general kernel then writes `y` again).
#[inline(never)]
pub(super) fn hardmax_lanes_half(
    x: &[u16],
    y: &mut [u16],
    inner: usize,
    inf: i16,
    one: u16,
) -> bool {
    // Few lanes: a small tile, whose state is quick to set up.
    const SMALL: usize = 64;
    const TILE: usize = 1024;
    let zeroed = zeros_first(x.len().checked_div(inner).unwrap_or(0), inner);
    if zeroed {
        super::shared::fill(y, 0);
    }
    let mut start = 0;
    while start < inner {
        let end = inner.min(start + TILE);
        let out = Out {
            y: &mut [],
            v: &mut [],
            h: &mut *y,
            one,
            zeroed,
        };
        let done = if end - start <= SMALL {
            arg_tile_half::<crate::Max, false, SMALL>(x, out, inner, start, end, inf)
        } else {
            arg_tile_half::<crate::Max, false, TILE>(x, out, inner, start, end, inf)
        };
        if !done {
            return false;
        }
        start = end;
    }
    true
}

/// Whether [`hardmax_lanes_half`] writes its zeros in one linear pass before the tiles, the AVX2
/// kernel then only reading down the rows (and writing the ones): over a few rows, where the
/// kernel's stores down the rows are as many as its loads, and over rows a multiple of 2 KiB
/// apart, where the stores alias the loads of the rows after them (4 KiB aliasing). Elsewhere
/// the zeros stored beside the loads cost less than a pass of their own (1.1-1.3x faster over
/// 80 to 16000 rows, in the AVX2 kernel). Where the AVX-512 kernel takes the tiles, whose walk
/// only loads, over `half_lanes512::ZEROS_FIRST_ROWS` rows or more (the others have each tile
/// written row by row at its end).
fn zeros_first(rows: usize, inner: usize) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    if super::rows_f32::avx2::available() {
        // At most this many rows, or rows this many bytes apart (or a multiple).
        const FEW_ROWS: usize = 16;
        const ALIASING_STRIDE: usize = 2048;
        if inner >= super::half_lanes512::L && super::isa::level() >= super::isa::AVX512 {
            return rows >= super::half_lanes512::ZEROS_FIRST_ROWS;
        }
        return rows <= FEW_ROWS || (inner * 2).is_multiple_of(ALIASING_STRIDE);
    }
    let _ = (rows, inner);
    false
}

#[cfg(test)]
mod tests;
