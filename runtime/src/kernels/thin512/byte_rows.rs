//! ReduceMax and ReduceMin, ArgMax and ArgMin (the first index or the last, with or without the
//! best elements) of contiguous rows of 5 to 32 one- and two-byte elements (`u8`, `i8`, bool,
//! `u16`, `i16`, f16, bf16): the last axis of `[n, c]`, a chunk of 64 (two-byte: 32) rows at a
//! time, folded across vectors instead of within each.
//!
//! A chunk is gathered by byte permutes (VBMI, checked at run time) into vectors whose slots of
//! 8, 16 or 32 bytes each hold one row (longer rows: two such parts, folded first), padded by
//! repeating the row's last element, which changes no extreme and no index. Then pairs of
//! vectors fold together: each segment of `2g` bytes of the first folded to `g` by a shift (a
//! swap of 16-byte lanes for `g` 16) and a max into the even slots of `g` bytes, the second's
//! into the odd slots by a shift and a masked max, halving the vectors and the segments at once
//! (for 16 vectors of 64 bytes, 15 folds of four operations, against one fold a vector per row
//! within a vector). The last vector holds the chunk's extremes in an order fixed by the layout
//! ([`fix_table`], a constant), which one permute puts right.
//!
//! The arg-reductions fold order keys twice as wide instead: each element with its index in the
//! low half (flipped where the first index wins, so that among equal elements the wanted one is
//! the greater key), signed elements with their sign bit flipped. The folded keys give the
//! index in their low half and the element in their high half.
//!
//! f16 and bf16 go as signed order keys ([`halves`]). A NaN of the sign that wins in the
//! direction is its row's best and shows in the result; one of the other sign in a running
//! max of the raw bits; a chunk with either is done row by row by the contract's rule.

use core::arch::x86_64::{
    __m512i, _mm512_bslli_epi128, _mm512_bsrli_epi128, _mm512_loadu_si512, _mm512_mask_max_epi16,
    _mm512_mask_max_epi8, _mm512_mask_max_epu16, _mm512_mask_max_epu32, _mm512_mask_max_epu8,
    _mm512_mask_min_epi16, _mm512_mask_min_epi8, _mm512_mask_min_epu16, _mm512_mask_min_epu32,
    _mm512_mask_min_epu8, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8,
    _mm512_permutex2var_epi8, _mm512_permutexvar_epi8, _mm512_setzero_si512, _mm512_shuffle_i64x2,
};

use super::arg_shifted::low_lanes;
use super::reduce::best;
use super::{kind_of, HALF, SIGNED, UNSIGNED};
use crate::kernels::isa;
use crate::{Direction, Element};

/// Whether [`reduce_rows`] and [`arg_rows`] take rows of `c` elements of `T` on this CPU:
/// 1- and 2-byte elements (integers, bool, f16, bf16), 5 to 32 a row, AVX-512 with VBMI.
#[inline(always)]
pub(crate) fn takes<T: Element>(c: usize) -> bool {
    let (w, kind, _) = kind_of::<T>();
    size_of::<T>() == w
        && w <= 2
        && matches!(kind, UNSIGNED | SIGNED | HALF)
        && (5..=32).contains(&c)
        && isa::vbmi()
}

/// Whether [`reduce_rows`] (`arg` false) or [`arg_rows`] (`arg` true) is the kernel for rows
/// of `c` elements of `T`: wherever [`takes`] holds but for rows over 16 of f16 and bf16, and of
/// 2-byte integers in the arg-reductions. Over 2 MiB on an AMD EPYC (Zen 4), against the kernels
/// before it (`short_rows_avx2`, the row kernels), rows of 5 to 31: ReduceMax 0.23-0.59x the
/// time for `u8` and 0.36-0.81x for `u16`/`i16`; ArgMax 0.17-0.88x; ArgMin with the last index
/// 0.59-0.85x for `u8`, 0.75x and under for 2-byte rows up to 16. Over 16, 2-byte rows: the
/// arg-reductions of integers 0.84-1.02x in that harness but 1.01-1.06x in the matrix's
/// alternating builds; f16 and bf16 (whose keys and NaN watch cost four more operations a
/// load) ReduceMax 0.95-1.04x, the arg-reductions 1.03-1.07x (up to 16: 0.5-0.8x and 0.8x; rows
/// up to 8 go to `thin512::arg_rows` before these).
#[inline(always)]
pub(crate) fn prefers<T: Element>(c: usize, arg: bool) -> bool {
    let (w, kind, _) = kind_of::<T>();
    takes::<T>(c) && (w == 1 || c <= 16 || (!arg && kind != HALF))
}

/// Each element of `y` (one a row of `c` of `x`) the extreme of `D` of its row, or with `fresh`
/// false that of its row and itself: `true`, or `false` (nothing written) where this kernel
/// does not take the rows ([`takes`]) or `x` holds fewer rows than `y`.
#[inline(always)]
pub(crate) fn reduce_rows<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    c: usize,
    fresh: bool,
) -> bool {
    let rows = y.len();
    if !takes::<T>(c) || x.len() / c < rows {
        return false;
    }
    let (y, x) = (y.as_mut_ptr().cast::<u8>(), x.as_ptr().cast::<u8>());
    // SAFETY: `takes` found AVX-512 F, BW, VL, DQ and VBMI; `T` is of the width and kind
    // named (its `rows` rows of `c` are in `x`, their extremes in `y`).
    unsafe {
        macro_rules! go {
            ($w:literal, $s:ident, $h:literal, $slot:literal, $p:literal) => {
                reduce_in::<T, D, $w, $s, $h, $slot, $p>(y, x, rows, c, fresh)
            };
        }
        by_layout!(T, c, go)
    }
    true
}

/// The index of the first best element of `D` (with `LAST` the last) of each contiguous row of
/// `c` of `x` into `y` (one a row), and with `v` not empty that element into `v`: `true`, or
/// `false` (nothing written) where this kernel does not take the rows ([`takes`]), `x` holds
/// fewer rows than `y` or `v` is neither empty nor as long as `y`.
#[inline(always)]
pub(crate) fn arg_rows<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    c: usize,
) -> bool {
    let rows = y.len();
    if !takes::<T>(c) || x.len() / c < rows || !(v.is_empty() || v.len() == rows) {
        return false;
    }
    let (x, y, values) = (x.as_ptr().cast::<u8>(), y.as_mut_ptr(), !v.is_empty());
    let v = v.as_mut_ptr().cast::<u8>();
    // SAFETY: as in `reduce_rows`; `v` (when not empty) holds an element a row of `y`.
    unsafe {
        macro_rules! go {
            ($w:literal, $s:ident, $h:literal, $slot:literal, $p:literal) => {
                if values {
                    arg::arg_in::<T, D, LAST, $w, { 2 * $w }, $s, $h, $slot, $p, true>(
                        x,
                        (y, v),
                        rows,
                        c,
                    )
                } else {
                    arg::arg_in::<T, D, LAST, $w, { 2 * $w }, $s, $h, $slot, $p, false>(
                        x,
                        (y, v),
                        rows,
                        c,
                    )
                }
            };
        }
        by_layout!(T, c, go)
    }
    true
}

/// Calls `$go!(width, signed, half, slot, parts)` with the layout of rows of `$c` of `$t`: 1-byte
/// rows of up to 8 in 8-byte slots, of up to 16 in two, of up to 32 in two 16-byte slots; 2-byte
/// rows of up to 8, 16 and 32 in two 8-, 16- and 32-byte slots. f16 and bf16 go as signed order
/// keys (`half`).
macro_rules! by_layout {
    ($t:ty, $c:expr, $go:ident) => {
        match (kind_of::<$t>(), $c) {
            ((1, UNSIGNED, _), ..=8) => $go!(1, UNSIGNED, false, 8, 1),
            ((1, UNSIGNED, _), ..=16) => $go!(1, UNSIGNED, false, 8, 2),
            ((1, UNSIGNED, _), _) => $go!(1, UNSIGNED, false, 16, 2),
            ((1, _, _), ..=8) => $go!(1, SIGNED, false, 8, 1),
            ((1, _, _), ..=16) => $go!(1, SIGNED, false, 8, 2),
            ((1, _, _), _) => $go!(1, SIGNED, false, 16, 2),
            ((_, UNSIGNED, _), ..=8) => $go!(2, UNSIGNED, false, 8, 2),
            ((_, UNSIGNED, _), ..=16) => $go!(2, UNSIGNED, false, 16, 2),
            ((_, UNSIGNED, _), _) => $go!(2, UNSIGNED, false, 32, 2),
            ((_, SIGNED, _), ..=8) => $go!(2, SIGNED, false, 8, 2),
            ((_, SIGNED, _), ..=16) => $go!(2, SIGNED, false, 16, 2),
            ((_, SIGNED, _), _) => $go!(2, SIGNED, false, 32, 2),
            (_, ..=8) => $go!(2, SIGNED, true, 8, 2),
            (_, ..=16) => $go!(2, SIGNED, true, 16, 2),
            _ => $go!(2, SIGNED, true, 32, 2),
        }
    };
}
use by_layout;

/// Where the folds of a chunk leave its rows, for elements of `w` bytes in slots of `s`:
/// `keys` false, the permute (bytes) that puts the rows' extremes in order; `keys` true, the
/// two permutes (of keys `2w` bytes wide, their indices as wide, from the two folded vectors)
/// that put the first and the second half of the rows' keys in order. Found by following each
/// byte's row through the gather and the folds.
const fn fix_table(w: usize, s: usize, keys: bool) -> [[u8; 64]; 2] {
    let (per, vectors) = (64 / s, s / w);
    // The chunk's row of each byte of each vector.
    let mut tags = [[0u8; 64]; 16];
    let mut v = 0;
    while v < vectors {
        let mut b = 0;
        while b < 64 {
            // Keys: each lane's low (or high) eight bytes widened, key `k` from element `k`.
            let from = 16 * (b / 16) + (b % 16) / (2 * w) * w;
            if !keys {
                tags[v][b] = (v * per + b / s) as u8;
            } else if s == 8 {
                tags[2 * v][b] = (v * per + from / s) as u8;
                tags[2 * v + 1][b] = (v * per + (from + 8) / s) as u8;
            } else {
                tags[v][b] = (v * per + from / s) as u8;
            }
            b += 1;
        }
        v += 1;
    }
    let mut n = if keys && s == 8 { 2 * vectors } else { vectors };
    let unit = if keys { 2 * w } else { w };
    let mut g = if keys && s == 8 { 8 } else { s / 2 };
    while g >= unit {
        let mut i = 0;
        while i < n / 2 {
            let mut b = 0;
            while b < 64 {
                let from = if (b / g) % 2 == 0 { 2 * i } else { 2 * i + 1 };
                tags[i][b] = tags[from][b];
                b += 1;
            }
            i += 1;
        }
        (n, g) = (n / 2, g / 2);
    }
    let mut fix = [[0u8; 64]; 2];
    let mut q = 0;
    while q < 64 / w {
        let mut at = 0;
        while tags[at / 64][at % 64] as usize != q {
            at += unit;
        }
        if keys {
            // Keys a vector: `64 / unit`; an index `unit` bytes wide, little-endian.
            let out = 64 / unit;
            fix[q / out][q % out * unit] = (at / unit) as u8;
        } else {
            let mut k = 0;
            while k < w {
                fix[0][q * w + k] = (at + k) as u8;
                k += 1;
            }
        }
        q += 1;
    }
    fix
}

/// The constants of one call: the row length and the gather's permutes.
struct Geometry {
    /// Elements a row.
    c: usize,
    /// Each gathered byte's byte of the window: its row's first (`idx[0]`) and second part
    /// (`idx[1]`), padded by the row's last element.
    idx: [__m512i; 2],
    /// Each gathered element's index in its row (`W` bytes), flipped where the first index
    /// wins (`code[0]`, `code[1]` as `idx`).
    code: [__m512i; 2],
}

impl Geometry {
    /// The constants of rows of `c` of `W`-byte elements in slots of `SLOT` bytes, indices
    /// flipped with `flip`.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn new<const W: usize, const SLOT: usize>(c: usize, flip: bool) -> Self {
        crate::kernels::shared::align_frame();
        let (mut idx, mut code) = ([[0u8; 64]; 2], [[0u8; 64]; 2]);
        for b in 0..64 {
            let (row, j) = (b / SLOT, b % SLOT);
            for part in 0..2 {
                let e = (part * SLOT / W + j / W).min(c - 1);
                idx[part][b] = (row * c * W + e * W + j % W) as u8;
                let e = if flip { (1 << (8 * W)) - 1 - e } else { e };
                code[part][b] = (e >> (8 * (j % W))) as u8;
            }
        }
        // SAFETY: 64 bytes each.
        let load = |a: &[u8; 64]| unsafe { _mm512_loadu_si512(a.as_ptr().cast()) };
        Self {
            c,
            idx: [load(&idx[0]), load(&idx[1])],
            code: [load(&code[0]), load(&code[1])],
        }
    }
}

/// The lanes `k` (of `b` bytes) of a vector with `(k * b / g)` odd.
const fn odd(b: usize, g: usize) -> u64 {
    let mut m = 0u64;
    let mut k = 0;
    while k < 64 / b {
        if (k * b / g) % 2 == 1 {
            m |= 1 << k;
        }
        k += 1;
    }
    m
}

/// Lane by lane (`B` bytes: elements of 1 or 2 of kind `S`, or unsigned keys of 2 or 4), the
/// better of `a` and `b` in `D` ([`best`]) in the lanes of `m`, `src`'s in the others.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn best_in<D: Direction, const B: usize, const S: u8>(
    src: __m512i,
    m: u64,
    a: __m512i,
    b: __m512i,
) -> __m512i {
    match (B, D::IS_MIN, S == SIGNED) {
        (1, false, false) => _mm512_mask_max_epu8(src, m, a, b),
        (1, false, true) => _mm512_mask_max_epi8(src, m, a, b),
        (1, true, false) => _mm512_mask_min_epu8(src, m, a, b),
        (1, true, true) => _mm512_mask_min_epi8(src, m, a, b),
        (2, false, false) => _mm512_mask_max_epu16(src, m as u32, a, b),
        (2, false, true) => _mm512_mask_max_epi16(src, m as u32, a, b),
        (2, true, false) => _mm512_mask_min_epu16(src, m as u32, a, b),
        (2, true, true) => _mm512_mask_min_epi16(src, m as u32, a, b),
        (_, false, _) => _mm512_mask_max_epu32(src, m as u16, a, b),
        _ => _mm512_mask_min_epu32(src, m as u16, a, b),
    }
}

/// One fold: each segment of `2G` bytes of `a` folded into its even `G`-byte slot, each of `b`
/// into its odd slot (each against itself shifted `G` bytes within its 16-byte lanes, or its
/// lanes swapped for `G` 16; `b` by a masked max).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn fold<D: Direction, const B: usize, const S: u8, const G: i32>(
    a: __m512i,
    b: __m512i,
) -> __m512i {
    let (a2, b2) = if G == 16 {
        (
            _mm512_shuffle_i64x2::<0b1011_0001>(a, a),
            _mm512_shuffle_i64x2::<0b1011_0001>(b, b),
        )
    } else {
        (_mm512_bsrli_epi128::<G>(a), _mm512_bslli_epi128::<G>(b))
    };
    best_in::<D, B, S>(best::<D, B, S>(a, a2), odd(B, G as usize), b, b2)
}

/// Folds the first `$n` vectors of `$v` (4, 8 or 16) pair by pair, segments of `2 $g` bytes
/// down to `$b`, into `$v[0]` (and `$v[1]` where `$n` runs out first). A macro, so that it is
/// always inlined: every count a constant, each level's loop unrolled, `$v` in registers.
macro_rules! fold_down {
    ($d:ty, $b:expr, $s:expr, $v:expr, $n:expr, $g:expr) => {{
        let (v, mut n, g): (&mut [__m512i; 16], usize, usize) = (&mut $v, $n, $g);
        macro_rules! level {
            ($l:literal) => {
                if $l <= g && $l >= $b && n >= 2 {
                    n /= 2;
                    for i in 0..n {
                        v[i] = fold::<$d, { $b }, { $s }, $l>(v[2 * i], v[2 * i + 1]);
                    }
                }
            };
        }
        level!(16);
        level!(8);
        level!(4);
        level!(2);
        level!(1);
    }};
}

/// The gathered vector `k` of the chunk at `p` of `rows` rows: its rows' first and (with `P`
/// 2) second parts, `64 / SLOT` rows a vector.
///
/// # Safety
/// The chunk's `rows` rows are readable at `p`; AVX-512 with VBMI.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn gather<const W: usize, const SLOT: usize, const P: usize, const TAIL: bool>(
    p: *const u8,
    k: usize,
    rows: usize,
    g: &Geometry,
) -> [__m512i; 2] {
    let len = 64 / SLOT * g.c * W;
    let n = if TAIL {
        (rows * g.c * W).saturating_sub(k * len).min(len)
    } else {
        len
    };
    let p = p.wrapping_add(k * len);
    // SAFETY (both loads): the `n` bytes from `p` are the chunk's; masked bytes are not read.
    let a = unsafe { _mm512_maskz_loadu_epi8(low_lanes(n), p.cast()) };
    if P == 1 {
        return [_mm512_permutexvar_epi8(g.idx[0], a), _mm512_setzero_si512()];
    }
    let b = unsafe { _mm512_maskz_loadu_epi8(low_lanes(n.saturating_sub(64)), p.add(64).cast()) };
    [
        _mm512_permutex2var_epi8(a, g.idx[0], b),
        _mm512_permutex2var_epi8(a, g.idx[1], b),
    ]
}

/// [`reduce_rows`] once checked, for `W`-byte elements of `T` (signed with `S`, f16 or bf16
/// with `H`) in slots of `SLOT` bytes, `P` parts a row.
///
/// # Safety
/// AVX-512 with VBMI; `rows` rows of `c` at `x` and as many elements at `y`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn reduce_in<
    T: Element,
    D: Direction,
    const W: usize,
    const S: u8,
    const H: bool,
    const SLOT: usize,
    const P: usize,
>(
    y: *mut u8,
    x: *const u8,
    rows: usize,
    c: usize,
    fresh: bool,
) {
    let g = Geometry::new::<W, SLOT>(c, false);
    let chunk = 64 / W;
    let mut done = 0;
    while done + chunk <= rows {
        let (y, x) = (y.wrapping_add(done * W), x.wrapping_add(done * c * W));
        // SAFETY: the chunk's rows are in `x`, their extremes in `y`.
        unsafe { reduce_chunk::<T, D, W, S, H, SLOT, P, false>(y, x, chunk, &g, fresh) };
        done += chunk;
    }
    if done < rows {
        let (y, x) = (y.wrapping_add(done * W), x.wrapping_add(done * c * W));
        // SAFETY: as above, for the rows left.
        unsafe { reduce_chunk::<T, D, W, S, H, SLOT, P, true>(y, x, rows - done, &g, fresh) };
    }
}

/// The extremes of the chunk of `rows` (a whole chunk unless `TAIL`) at `x` into `y`; a chunk
/// of f16 or bf16 holding a NaN (in `x`, or in `y` where it folds into `y`) row by row by the
/// contract's rule.
///
/// # Safety
/// As [`reduce_in`]'s, for the chunk.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn reduce_chunk<
    T: Element,
    D: Direction,
    const W: usize,
    const S: u8,
    const H: bool,
    const SLOT: usize,
    const P: usize,
    const TAIL: bool,
>(
    y: *mut u8,
    x: *const u8,
    rows: usize,
    g: &Geometry,
    fresh: bool,
) {
    let inf = kind_of::<T>().2;
    let (mut stale, mut seen) = (false, _mm512_setzero_si512());
    let mut v = [_mm512_setzero_si512(); 16];
    for (k, v) in v.iter_mut().enumerate().take(SLOT / W) {
        // SAFETY: as the caller's.
        let [mut a, mut b] = unsafe { gather::<W, SLOT, P, TAIL>(x, k, rows, g) };
        if H {
            seen = watch::<D>(watch::<D>(seen, a), b);
            (a, b) = (sign_keys(a), sign_keys(b));
        }
        *v = if P == 2 { best::<D, W, S>(a, b) } else { a };
    }
    fold_down!(D, W, S, v, SLOT / W, SLOT / 2);
    let fix = const { fix_table(W, SLOT, false) };
    // SAFETY: 64 bytes.
    let mut out = _mm512_permutexvar_epi8(unsafe { load(&fix[0]) }, v[0]);
    let m = low_lanes(rows * W);
    if !fresh {
        // SAFETY: the chunk's extremes are in `y`.
        let mut old = unsafe { _mm512_maskz_loadu_epi8(m, y.cast()) };
        if H {
            stale = has_nan::<2>(magnitude::<2, HALF>(old), inf);
            old = sign_keys(old);
        }
        out = best::<D, W, S>(out, old);
    }
    // A NaN of the sign that wins in `D` is its row's best, in `out`; one of the other sign is
    // in `seen`.
    if H && (stale || watched::<D>(seen, inf) || best_nan::<D>(out, m as u32, sign_keys_of(inf))) {
        // SAFETY: as the caller's; `T` is `W` bytes wide.
        unsafe { exact_rows::<T, D>(y.cast(), x.cast(), rows, g.c, fresh) };
        return;
    }
    if H {
        out = sign_keys(out);
    }
    // SAFETY: as above.
    unsafe { _mm512_mask_storeu_epi8(y.cast(), m, out) };
}

/// The 64 bytes of `a`.
///
/// # Safety
/// AVX-512 F.
#[inline(always)]
unsafe fn load(a: &[u8; 64]) -> __m512i {
    // SAFETY: 64 readable bytes; as the caller's.
    unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
}

mod arg;
mod halves;

use super::lanes::{has_nan, magnitude};
pub(super) use halves::{best_nan, sign_keys, sign_keys_of, watch, watched};
use halves::{exact_args, exact_rows, half_keys};

#[cfg(test)]
mod tests;
