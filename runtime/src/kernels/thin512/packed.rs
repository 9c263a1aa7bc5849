//! ReduceMax and ReduceMin of blocks so small that several fit a window of two vectors (blocks
//! of `r` rows of `c` lanes, at most 128 bytes: `[n, 2, 5]`, `[n, 3, 16]` of bytes, rows of two
//! to four elements), many blocks a window instead of one.
//!
//! A window is two unmasked 64-byte loads; it holds `k` whole blocks. Row `j` of all of them is
//! gathered into one vector by one two-vector permute (lane `o` takes block `o / c`'s row `j`,
//! lane `o % c`), the `r` rows are folded lane against lane, and the window's `k · c` results
//! go out in one masked store as narrow as they allow. The kernels of a block at a time paid
//! their per-block loads, folds and store for every 10 to 64 bytes: on an AMD EPYC (Zen 4),
//! whose misaligned 64-byte stores take about four cycles each, 5 to 7 cycles a block, 3.4 to
//! 4.9 times the streaming read of f16 blocks of two and three rows.
//!
//! f16 and bf16 are folded as order keys ([`keyed`]); a window holding a NaN (in any of its
//! lanes, the next window's too) has its blocks done by the contract's rule ([`exact`]).
//! 1-byte elements need VBMI (byte permutes), checked at run time.

use core::arch::x86_64::{
    __m512i, _mm256_mask_storeu_epi8, _mm512_and_si512, _mm512_castsi512_si128,
    _mm512_castsi512_si256, _mm512_loadu_si512, _mm512_mask_storeu_epi8, _mm512_max_epi16,
    _mm512_min_epi16, _mm512_permutex2var_epi16, _mm512_permutex2var_epi32,
    _mm512_permutex2var_epi64, _mm512_permutex2var_epi8, _mm512_set1_epi16, _mm512_setzero_si512,
    _mm512_srai_epi16, _mm512_xor_si512, _mm_mask_storeu_epi8,
};

use super::lanes::{has_nan, magnitude, widest};
use super::reduce::{best, exact, pass};
use super::{by_kind, kind_of, FLOAT, HALF, SIGNED, UNSIGNED};
use crate::kernels::isa;
use crate::{Direction, Element};

/// The most rows a block may have: each row costs a permute a window.
const MAX_ROWS: usize = 4;

/// Whether [`reduce_blocks`] takes blocks of `r` rows of `c` lanes of `T` on this CPU: two to
/// [`MAX_ROWS`] rows of at most 128 bytes in all, AVX-512 (and VBMI for 1-byte elements); not
/// floats in blocks of one window whose rows are whole vectors, which the lane kernels' loop
/// (unrolled by LLVM) does faster (`f32` `[16384, 2, 16]`: 31 against 34 us on Zen 4).
#[inline(always)]
pub(crate) fn packs<T: Element>(r: usize, c: usize) -> bool {
    let (w, kind, _) = kind_of::<T>();
    let whole_rows = r * c * w > 64 && c * w >= 64;
    size_of::<T>() == w
        && (2..=MAX_ROWS).contains(&r)
        && c >= 1
        && r * c * w <= 128
        && !(whole_rows && kind == FLOAT)
        && if w == 1 {
            isa::vbmi()
        } else {
            isa::level() >= isa::AVX512
        }
}

/// The extreme of each of the `c` lanes of the blocks of `r` rows at the start of `x` into `y`
/// (NaN-propagating: the lane's first NaN): the count of blocks done, 0 where this kernel does
/// not take them ([`packs`]). The blocks after them are the caller's (fewer than two windows).
#[inline(always)]
pub(crate) fn reduce_blocks<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    r: usize,
    c: usize,
) -> usize {
    if !packs::<T>(r, c) {
        return 0;
    }
    let inf = kind_of::<T>().2;
    // SAFETY: `packs` found AVX-512 (and VBMI for 1-byte elements); `T` is of the width and
    // kind named.
    unsafe { by_kind!(T, reduce_in::<T, D>(y, x, r, c, inf)) }
}

/// [`reduce_blocks`] for elements of `W` bytes of kind `KIND`.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ, and VBMI if `W` is 1; `T` is of width `W` and kind
/// `KIND`; [`packs`] holds.
#[inline(always)]
unsafe fn reduce_in<T: Element, D: Direction, const W: usize, const KIND: u8>(
    y: &mut [T],
    x: &[T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    let g = Geometry::new(W, r, c, x.len(), y.len());
    if g.windows == 0 {
        return 0;
    }
    // SAFETY: as the caller's.
    unsafe {
        match (W, r) {
            (1, 2) => bytes_in::<T, D, KIND, 2>(y, x, &g),
            (1, 3) => bytes_in::<T, D, KIND, 3>(y, x, &g),
            (1, _) => bytes_in::<T, D, KIND, 4>(y, x, &g),
            (_, 2) => wide_in::<T, D, W, KIND, 2>(y, x, &g, inf),
            (_, 3) => wide_in::<T, D, W, KIND, 3>(y, x, &g, inf),
            _ => wide_in::<T, D, W, KIND, 4>(y, x, &g, inf),
        }
    }
    g.windows * g.k
}

/// The windows of one call.
struct Geometry {
    /// Elements a block (`r · c`), lanes a block (`c`), blocks a window (`k`).
    size: usize,
    c: usize,
    k: usize,
    /// Windows, each two vectors read from its first block on.
    windows: usize,
    /// Bytes each window writes (`k · c` elements).
    out: usize,
    /// The permute indices of each row, `W` bytes a lane.
    idx: [[u8; 64]; MAX_ROWS],
}

impl Geometry {
    /// The windows over `x_len` elements of `w` bytes in blocks of `r` rows of `c` lanes, into
    /// `y_len` elements.
    fn new(w: usize, r: usize, c: usize, x_len: usize, y_len: usize) -> Self {
        let (v, size) = (64 / w, r * c);
        let k = (2 * v / size).max(1);
        let blocks = (x_len / size).min(y_len / c);
        // Window `i` reads elements `i · k · size` to `i · k · size + 2v`.
        let fit = if x_len >= 2 * v {
            (x_len - 2 * v) / (k * size) + 1
        } else {
            0
        };
        let windows = fit.min(blocks / k);
        let mut idx = [[0u8; 64]; MAX_ROWS];
        // (No indices for no windows: callers over small blocks try this kernel every call.)
        for (j, lanes) in idx
            .iter_mut()
            .enumerate()
            .take(if windows > 0 { r } else { 0 })
        {
            for o in 0..(k * c).min(v) {
                let from = (o / c) * size + j * c + o % c;
                lanes[o * w..(o + 1) * w].copy_from_slice(&from.to_le_bytes()[..w]);
            }
        }
        Geometry {
            size,
            c,
            k,
            windows,
            out: k * c * w,
            idx,
        }
    }

    /// Row `j`'s indices.
    ///
    /// # Safety
    /// The CPU has AVX-512 F.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn row(&self, j: usize) -> __m512i {
        // SAFETY: 64 bytes.
        unsafe { _mm512_loadu_si512(self.idx[j].as_ptr().cast()) }
    }
}

/// The window loop, with `$gather` the two-vector permute of the element width.
macro_rules! windows {
    ($y:ident, $x:ident, $g:ident, $inf:expr, $w:expr, $gather:expr) => {{
        let mut idx = [_mm512_setzero_si512(); R];
        for (j, v) in idx.iter_mut().enumerate() {
            *v = $g.row(j);
        }
        let (base, out) = ($x.as_ptr().cast::<u8>(), $y.as_mut_ptr().cast::<u8>());
        let step = $g.k * $g.size * $w;
        for i in 0..$g.windows {
            // SAFETY: window `i` reads 128 bytes inside `x` (`Geometry::windows`).
            let (a, b) = unsafe {
                let p = base.add(i * step);
                (
                    _mm512_loadu_si512(p.cast()),
                    _mm512_loadu_si512(p.add(64).cast()),
                )
            };
            let nan = widest::<$w, KIND>(magnitude::<$w, KIND>(a), magnitude::<$w, KIND>(b));
            if KIND >= HALF && has_nan::<$w>(nan, $inf) {
                by_rule::<T, D>($y, $x, $g, i);
                continue;
            }
            let (a, b) = (keyed::<D, $w, KIND>(a), keyed::<D, $w, KIND>(b));
            let mut m = $gather(a, idx[0], b);
            for &j in &idx[1..] {
                m = better::<D, $w, KIND>(m, $gather(a, j, b));
            }
            let e = keyed::<D, $w, KIND>(m);
            // SAFETY: the window's `k · c` results lie inside `y`.
            unsafe { put(out.add(i * $g.out), $g.out, e) };
        }
    }};
}

/// Lanes as the fold compares them: f16 and bf16 as signed order keys (sign-magnitude bits with
/// the magnitude inverted where the sign is set: three operations, their own inverse; -0 is
/// one key under +0, and the contract leaves a zero result's sign open), the others as they
/// are ([`pass`]).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn keyed<D: Direction, const W: usize, const KIND: u8>(v: __m512i) -> __m512i {
    if KIND == HALF {
        let flip = _mm512_and_si512(_mm512_srai_epi16::<15>(v), _mm512_set1_epi16(0x7fff));
        _mm512_xor_si512(v, flip)
    } else {
        pass::<D, W, KIND>(v)
    }
}

/// The better of each lane of `a` and `b` as [`keyed`] left them.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn better<D: Direction, const W: usize, const KIND: u8>(a: __m512i, b: __m512i) -> __m512i {
    match (KIND, D::IS_MIN) {
        (HALF, true) => _mm512_min_epi16(a, b),
        (HALF, false) => _mm512_max_epi16(a, b),
        _ => best::<D, W, KIND>(a, b),
    }
}

/// The blocks of window `i` by the contract's rule ([`exact`]): a window holding a NaN.
#[cold]
#[inline(never)]
fn by_rule<T: Element, D: Direction>(y: &mut [T], x: &[T], g: &Geometry, i: usize) {
    let (c, size) = (g.c, g.size);
    for n in i * g.k..(i + 1) * g.k {
        if let (Some(xb), Some(yb)) = (
            x.get(n * size..(n + 1) * size),
            y.get_mut(n * c..(n + 1) * c),
        ) {
            exact::<T, D>(xb, yb);
        }
    }
}

/// The windows of 2- to 8-byte elements.
///
/// # Safety
/// As [`reduce_in`]'s; `g` is [`Geometry::new`]'s for `x` and `y`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn wide_in<T: Element, D: Direction, const W: usize, const KIND: u8, const R: usize>(
    y: &mut [T],
    x: &[T],
    g: &Geometry,
    inf: u64,
) {
    windows!(y, x, g, inf, W, gather::<W>);
}

/// The windows of 1-byte elements (integers: no NaN).
///
/// # Safety
/// As [`reduce_in`]'s, VBMI too; `g` is [`Geometry::new`]'s for `x` and `y`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn bytes_in<T: Element, D: Direction, const KIND: u8, const R: usize>(
    y: &mut [T],
    x: &[T],
    g: &Geometry,
) {
    windows!(y, x, g, 0, 1, gather_bytes);
}

/// The bytes of `a` then `b` that `idx` names.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
fn gather_bytes(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
    _mm512_permutex2var_epi8(a, idx, b)
}

/// The lanes (`W` bytes wide, 2 to 8) of `a` then `b` that `idx` names.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn gather<const W: usize>(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
    match W {
        2 => _mm512_permutex2var_epi16(a, idx, b),
        4 => _mm512_permutex2var_epi32(a, idx, b),
        _ => _mm512_permutex2var_epi64(a, idx, b),
    }
}

/// The first `n` bytes (1 to 64) of `v` into `p`, by the narrowest masked store that holds
/// them (a 64-byte store costs about twice a 32-byte one where it is misaligned).
///
/// # Safety
/// The CPU has AVX-512 F, BW and VL; `n` bytes from `p` are writable.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn put(p: *mut u8, n: usize, v: __m512i) {
    let mask = u64::MAX >> (64 - n);
    // SAFETY: as the caller's; bytes past `n` are not written.
    unsafe {
        if n <= 16 {
            _mm_mask_storeu_epi8(p.cast(), mask as u16, _mm512_castsi512_si128(v));
        } else if n <= 32 {
            _mm256_mask_storeu_epi8(p.cast(), mask as u32, _mm512_castsi512_si256(v));
        } else {
            _mm512_mask_storeu_epi8(p.cast(), mask, v);
        }
    }
}

#[cfg(test)]
mod tests;
