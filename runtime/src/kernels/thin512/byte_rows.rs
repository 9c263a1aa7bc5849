//! ReduceMax and ReduceMin, ArgMax and ArgMin (the first index or the last, with or without the
//! best elements) of contiguous rows of 5 to 32 one-byte elements (`u8`, `i8`, bool): the last
//! axis of `[n, c]`, 64 rows at a time, folded across vectors instead of within each.
//!
//! A chunk of 64 rows is gathered by byte permutes (VBMI, checked at run time) into vectors
//! whose 16-byte lanes each hold one row (rows of 9 to 16; of 17 to 32 two such halves folded
//! first) or two (rows of 5 to 8), padded by repeating the row's last element, which changes no
//! extreme and no index. Then pairs of vectors fold together: each segment of `2g` bytes of the
//! first folded to `g` by a shift and a max into the even slots of `g` bytes, the second's into
//! the odd slots by a shift and a masked max, halving the vectors and the segments at once
//! (four folds of two shifts and two maxima for 16 vectors of 64 bytes, against one fold a
//! vector per row within a vector). The last vector holds the 64 rows' extremes in a fixed
//! order, which one permute puts right.
//!
//! The arg-reductions fold order keys twice as wide instead: each element with its index in
//! the low byte (flipped where the first index wins, so that among equal elements the wanted
//! one is the greater key), signed elements with their sign bit flipped. The folded keys give
//! the index in their low byte and the element in their high byte. Bytes have no NaN.

use core::arch::x86_64::{
    __m512i, _mm256_mask_storeu_epi8, _mm512_and_si512, _mm512_andnot_si512, _mm512_bslli_epi128,
    _mm512_bsrli_epi128, _mm512_cvtepi16_epi8, _mm512_cvtepu16_epi64, _mm512_extracti32x4_epi32,
    _mm512_loadu_si512, _mm512_mask_max_epi8, _mm512_mask_max_epu16, _mm512_mask_max_epu8,
    _mm512_mask_min_epi8, _mm512_mask_min_epu16, _mm512_mask_min_epu8, _mm512_mask_storeu_epi64,
    _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8, _mm512_max_epi8, _mm512_max_epu16,
    _mm512_max_epu8, _mm512_min_epi8, _mm512_min_epu16, _mm512_min_epu8, _mm512_permutex2var_epi16,
    _mm512_permutex2var_epi8, _mm512_permutexvar_epi8, _mm512_set1_epi16, _mm512_set1_epi8,
    _mm512_setzero_si512, _mm512_srli_epi16, _mm512_unpackhi_epi8, _mm512_unpacklo_epi8,
    _mm512_xor_si512,
};

use super::arg_shifted::low_lanes;
use super::{kind_of, SIGNED};
use crate::kernels::isa;
use crate::{Direction, Element};

/// Rows a chunk: the extremes of 64 rows fill one vector.
const CHUNK: usize = 64;

/// Rows of 5 to 8: two a lane, 8 vectors a chunk.
const EIGHTS: u8 = 0;
/// Rows of 9 to 16: two a lane after their two halves are folded, 8 vectors a chunk.
const SIXTEENS: u8 = 1;
/// Rows of 17 to 32: one a lane after its two halves are folded, 16 vectors a chunk.
const PAIRS: u8 = 2;

/// Whether [`reduce_rows`] and [`arg_rows`] take rows of `c` elements of `T` on this CPU:
/// 1-byte elements, 5 to 32 a row, AVX-512 with VBMI.
#[inline(always)]
pub(crate) fn takes<T: Element>(c: usize) -> bool {
    size_of::<T>() == 1 && kind_of::<T>().0 == 1 && (5..=32).contains(&c) && isa::vbmi()
}

/// Whether [`reduce_rows`] (`arg` false) or [`arg_rows`] (`arg` true) is the kernel for rows of
/// `c` elements of `T`: it [`takes`] them and measured faster than the others there.
#[inline(always)]
pub(crate) fn prefers<T: Element>(c: usize, arg: bool) -> bool {
    let _ = arg;
    takes::<T>(c)
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
    let signed = kind_of::<T>().1 == SIGNED;
    let (y8, x8) = (y.as_mut_ptr().cast::<u8>(), x.as_ptr().cast::<u8>());
    // SAFETY: `takes` found AVX-512 F, BW, VL, DQ and VBMI; `T` is one byte wide (its `rows`
    // rows of `c` bytes are in `x`, their extremes in `y`).
    unsafe {
        match (signed, layout(c)) {
            (false, EIGHTS) => reduce_in::<D, false, EIGHTS>(y8, x8, rows, c, fresh),
            (false, SIXTEENS) => reduce_in::<D, false, SIXTEENS>(y8, x8, rows, c, fresh),
            (false, _) => reduce_in::<D, false, PAIRS>(y8, x8, rows, c, fresh),
            (true, EIGHTS) => reduce_in::<D, true, EIGHTS>(y8, x8, rows, c, fresh),
            (true, SIXTEENS) => reduce_in::<D, true, SIXTEENS>(y8, x8, rows, c, fresh),
            (true, _) => reduce_in::<D, true, PAIRS>(y8, x8, rows, c, fresh),
        }
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
    let signed = kind_of::<T>().1 == SIGNED;
    let (x8, v8) = (x.as_ptr().cast::<u8>(), v.as_mut_ptr().cast::<u8>());
    let (y, values) = (y.as_mut_ptr(), !v.is_empty());
    // SAFETY: as in `reduce_rows`; `v` (when not empty) holds an element a row of `y`.
    unsafe {
        macro_rules! go {
            ($s:literal, $l:ident) => {
                if values {
                    arg_in::<D, LAST, $s, $l, true>(x8, y, v8, rows, c)
                } else {
                    arg_in::<D, LAST, $s, $l, false>(x8, y, v8, rows, c)
                }
            };
        }
        match (signed, layout(c)) {
            (false, EIGHTS) => go!(false, EIGHTS),
            (false, SIXTEENS) => go!(false, SIXTEENS),
            (false, _) => go!(false, PAIRS),
            (true, EIGHTS) => go!(true, EIGHTS),
            (true, SIXTEENS) => go!(true, SIXTEENS),
            (true, _) => go!(true, PAIRS),
        }
    }
    true
}

/// The layout of rows of `c` (5 to 32).
#[inline(always)]
fn layout(c: usize) -> u8 {
    match c {
        ..=8 => EIGHTS,
        9..=16 => SIXTEENS,
        _ => PAIRS,
    }
}

/// The constants of one row length and layout.
struct Geometry {
    /// Elements a row.
    c: usize,
    /// Rows a gathered vector (8 or 4).
    per: usize,
    /// Each gathered lane's byte of the window: the whole row, or its first (`idx[0]`) and
    /// second part (`idx[1]`) of 8 or 16 bytes, padded by its last element.
    idx: [__m512i; 2],
    /// Where the fold leaves each row (bytes for the reductions, 16-bit keys for the args).
    fix: [__m512i; 2],
    /// Each gathered lane's index in its row, flipped where the first index wins (`code[0]`,
    /// `code[1]` as `idx`).
    code: [__m512i; 2],
}

/// `i` with its lowest `bits` bits reversed (the others dropped).
const fn reversed(i: usize, bits: u32) -> usize {
    (i & ((1 << bits) - 1)).reverse_bits() >> (usize::BITS - bits)
}

impl Geometry {
    /// The constants of rows of `c` in layout `L`, indices flipped with `flip`, the fix of the
    /// byte fold (`keys` false) or of the key fold.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn new<const L: u8>(c: usize, flip: bool, keys: bool) -> Self {
        crate::kernels::shared::align_frame();
        let per = if L == PAIRS { 4 } else { 8 };
        let (mut idx, mut code, mut fix) = ([[0u8; 64]; 2], [[0u8; 64]; 2], [[0u8; 64]; 2]);
        for b in 0..64 {
            // The lane's row within its vector and its element there.
            let (row, j) = (b / (64 / per), b % (64 / per));
            for half in 0..2 {
                let e = (64 / per * half + j).min(c - 1);
                idx[half][b] = (row * c + e) as u8;
                code[half][b] = if flip { 255 - e as u8 } else { e as u8 };
            }
        }
        for q in 0..CHUNK {
            let at = if keys {
                // Key vector `t` (lane `l` a row): after three folds its key is in vector
                // `t / 8`, lane `l`, key `reversed(t % 8)`.
                let (t, l) = if L != PAIRS {
                    (2 * (q / 8) + q % 2, (q / 2) % 4)
                } else {
                    (q / 4, q % 4)
                };
                2 * (32 * (t / 8) + 8 * l + reversed(t, 3))
            } else if L != PAIRS {
                // Vector `t` (lane `l` rows `8t + 2l` and `8t + 2l + 1`): three folds.
                let (t, l, s) = (q / 8, (q / 2) % 4, q % 2);
                16 * l + 8 * s + reversed(t, 3)
            } else {
                // Vector `t` (lane `l` row `4t + l`): four folds.
                16 * (q % 4) + reversed(q / 4, 4)
            };
            if keys {
                // A 16-bit permute index, little-endian, the first 32 rows in `fix[0]`.
                fix[q / 32][2 * (q % 32)] = (at / 2) as u8;
            } else {
                fix[0][q] = at as u8;
            }
        }
        // SAFETY: 64 bytes each.
        let load = |a: &[u8; 64]| unsafe { _mm512_loadu_si512(a.as_ptr().cast()) };
        Self {
            c,
            per,
            idx: [load(&idx[0]), load(&idx[1])],
            fix: [load(&fix[0]), load(&fix[1])],
            code: [load(&code[0]), load(&code[1])],
        }
    }
}

/// The bytes `b` of a vector with `(b / g)` odd.
const fn odd(g: usize) -> u64 {
    let mut m = 0u64;
    let mut b = 0;
    while b < 64 {
        if (b / g) % 2 == 1 {
            m |= 1 << b;
        }
        b += 1;
    }
    m
}

/// The 16-bit keys `k` of a vector with `(k / g)` odd.
const fn odd_keys(g: usize) -> u32 {
    let mut m = 0u32;
    let mut k = 0;
    while k < 32 {
        if (k / g) % 2 == 1 {
            m |= 1 << k;
        }
        k += 1;
    }
    m
}

/// Byte by byte, the better of `a` and `b` in `D` (signed with `S`).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn best<D: Direction, const S: bool>(a: __m512i, b: __m512i) -> __m512i {
    match (D::IS_MIN, S) {
        (false, false) => _mm512_max_epu8(a, b),
        (false, true) => _mm512_max_epi8(a, b),
        (true, false) => _mm512_min_epu8(a, b),
        (true, true) => _mm512_min_epi8(a, b),
    }
}

/// Key by key, the better of `a` and `b` in `D`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn best_keys<D: Direction>(a: __m512i, b: __m512i) -> __m512i {
    if D::IS_MIN {
        _mm512_min_epu16(a, b)
    } else {
        _mm512_max_epu16(a, b)
    }
}

/// One fold of bytes: each segment of `2G` bytes of `a` folded into its even `G`-byte slot,
/// each of `b` into its odd slot (each against itself shifted `G` bytes within its lane, `b` by a masked max).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn fold<D: Direction, const S: bool, const G: i32>(a: __m512i, b: __m512i) -> __m512i {
    let t = best::<D, S>(a, _mm512_bsrli_epi128::<G>(a));
    let (m, b2) = (odd(G as usize), _mm512_bslli_epi128::<G>(b));
    match (D::IS_MIN, S) {
        (false, false) => _mm512_mask_max_epu8(t, m, b, b2),
        (false, true) => _mm512_mask_max_epi8(t, m, b, b2),
        (true, false) => _mm512_mask_min_epu8(t, m, b, b2),
        (true, true) => _mm512_mask_min_epi8(t, m, b, b2),
    }
}

/// [`fold`] of 16-bit keys (`G` still in bytes).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn fold_keys<D: Direction, const G: i32>(a: __m512i, b: __m512i) -> __m512i {
    let t = best_keys::<D>(a, _mm512_bsrli_epi128::<G>(a));
    let (m, b2) = (odd_keys(G as usize / 2), _mm512_bslli_epi128::<G>(b));
    if D::IS_MIN {
        _mm512_mask_min_epu16(t, m, b, b2)
    } else {
        _mm512_mask_max_epu16(t, m, b, b2)
    }
}

/// The gathered vector `k` of the chunk at `p` of `rows` rows: the first and (but in layout
/// [`EIGHTS`]) second parts of its rows, one or two a lane.
///
/// # Safety
/// The chunk's `rows` rows are readable at `p`; AVX-512 with VBMI.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn gather<const L: u8, const TAIL: bool>(
    p: *const u8,
    k: usize,
    rows: usize,
    g: &Geometry,
) -> [__m512i; 2] {
    let (start, len) = (k * g.per * g.c, g.per * g.c);
    let n = if TAIL {
        (rows * g.c).saturating_sub(start).min(len)
    } else {
        len
    };
    let p = p.wrapping_add(start);
    // SAFETY (both loads): the `n` bytes from `p` are the chunk's; masked bytes are not read.
    let a = unsafe { _mm512_maskz_loadu_epi8(low_lanes(n), p.cast()) };
    if L == EIGHTS {
        return [_mm512_permutexvar_epi8(g.idx[0], a), _mm512_setzero_si512()];
    }
    let b = unsafe { _mm512_maskz_loadu_epi8(low_lanes(n.saturating_sub(64)), p.add(64).cast()) };
    [
        _mm512_permutex2var_epi8(a, g.idx[0], b),
        _mm512_permutex2var_epi8(a, g.idx[1], b),
    ]
}

/// [`reduce_rows`] once checked, for rows in layout `L`, signed with `S`.
///
/// # Safety
/// AVX-512 with VBMI; `rows` rows of `c` at `x` and as many elements at `y`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn reduce_in<D: Direction, const S: bool, const L: u8>(
    y: *mut u8,
    x: *const u8,
    rows: usize,
    c: usize,
    fresh: bool,
) {
    let g = Geometry::new::<L>(c, false, false);
    let mut done = 0;
    while done + CHUNK <= rows {
        // SAFETY: the chunk's rows are in `x`, their extremes in `y`.
        unsafe { reduce_chunk::<D, S, L, false>(y.add(done), x.add(done * c), CHUNK, &g, fresh) };
        done += CHUNK;
    }
    if done < rows {
        // SAFETY: as above, for the rows left.
        unsafe {
            reduce_chunk::<D, S, L, true>(y.add(done), x.add(done * c), rows - done, &g, fresh)
        };
    }
}

/// The extremes of the chunk of `rows` (64 unless `TAIL`) at `x` into `y`.
///
/// # Safety
/// As [`reduce_in`]'s, for the chunk.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn reduce_chunk<D: Direction, const S: bool, const L: u8, const TAIL: bool>(
    y: *mut u8,
    x: *const u8,
    rows: usize,
    g: &Geometry,
    fresh: bool,
) {
    // SAFETY (the gathers): as the caller's.
    let row = |k| {
        let [a, b] = unsafe { gather::<L, TAIL>(x, k, rows, g) };
        if L == EIGHTS {
            a
        } else {
            best::<D, S>(a, b)
        }
    };
    let folded = if L != PAIRS {
        let v: [__m512i; 8] = core::array::from_fn(row);
        let a: [__m512i; 4] = core::array::from_fn(|i| fold::<D, S, 4>(v[2 * i], v[2 * i + 1]));
        let b = [fold::<D, S, 2>(a[0], a[1]), fold::<D, S, 2>(a[2], a[3])];
        fold::<D, S, 1>(b[0], b[1])
    } else {
        let v: [__m512i; 16] = core::array::from_fn(row);
        let a: [__m512i; 8] = core::array::from_fn(|i| fold::<D, S, 8>(v[2 * i], v[2 * i + 1]));
        let b: [__m512i; 4] = core::array::from_fn(|i| fold::<D, S, 4>(a[2 * i], a[2 * i + 1]));
        let c = [fold::<D, S, 2>(b[0], b[1]), fold::<D, S, 2>(b[2], b[3])];
        fold::<D, S, 1>(c[0], c[1])
    };
    let mut out = _mm512_permutexvar_epi8(g.fix[0], folded);
    let m = low_lanes(rows);
    if !fresh {
        // SAFETY: the chunk's extremes are in `y`.
        out = best::<D, S>(out, unsafe { _mm512_maskz_loadu_epi8(m, y.cast()) });
    }
    // SAFETY: as above.
    unsafe { _mm512_mask_storeu_epi8(y.cast(), m, out) };
}

/// [`arg_rows`] once checked, for rows in layout `L`, signed with `S`, with `VALUES` the best
/// elements too.
///
/// # Safety
/// AVX-512 with VBMI; `rows` rows of `c` at `x`, as many indices at `y` (and with `VALUES`
/// elements at `v`).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn arg_in<D: Direction, const LAST: bool, const S: bool, const L: u8, const VALUES: bool>(
    x: *const u8,
    y: *mut i64,
    v: *mut u8,
    rows: usize,
    c: usize,
) {
    let g = Geometry::new::<L>(c, D::IS_MIN == LAST, true);
    let mut done = 0;
    while done + CHUNK <= rows {
        // SAFETY: the chunk's rows are in `x`, their indices in `y` (and elements in `v`).
        let at = (y.add(done), v.wrapping_add(done));
        unsafe { arg_chunk::<D, LAST, S, L, VALUES, false>(x.add(done * c), at, CHUNK, &g) };
        done += CHUNK;
    }
    if done < rows {
        // SAFETY: as above, for the rows left.
        let at = (y.add(done), v.wrapping_add(done));
        unsafe { arg_chunk::<D, LAST, S, L, VALUES, true>(x.add(done * c), at, rows - done, &g) };
    }
}

/// The order keys of the gathered vector `r` (code `code`): its lanes' low and high halves.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn keys<const S: bool>(r: __m512i, code: __m512i) -> [__m512i; 2] {
    let r = if S {
        _mm512_xor_si512(r, _mm512_set1_epi8(i8::MIN))
    } else {
        r
    };
    [_mm512_unpacklo_epi8(code, r), _mm512_unpackhi_epi8(code, r)]
}

/// The indices (and with `VALUES` the best elements) of the chunk of `rows` (64 unless `TAIL`)
/// at `x` into `out.0` (and `out.1`).
///
/// # Safety
/// As [`arg_in`]'s, for the chunk.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn arg_chunk<
    D: Direction,
    const LAST: bool,
    const S: bool,
    const L: u8,
    const VALUES: bool,
    const TAIL: bool,
>(
    x: *const u8,
    out: (*mut i64, *mut u8),
    rows: usize,
    g: &Geometry,
) {
    // Sixteen key vectors, each lane one row's keys (eight).
    let mut k = [_mm512_setzero_si512(); 16];
    if L != PAIRS {
        for i in 0..8 {
            // SAFETY: as the caller's.
            let [a, b] = unsafe { gather::<L, TAIL>(x, i, rows, g) };
            let [mut lo, mut hi] = keys::<S>(a, g.code[0]);
            if L == SIXTEENS {
                let [lo2, hi2] = keys::<S>(b, g.code[1]);
                (lo, hi) = (best_keys::<D>(lo, lo2), best_keys::<D>(hi, hi2));
            }
            [k[2 * i], k[2 * i + 1]] = [lo, hi];
        }
    } else {
        for (i, k) in k.iter_mut().enumerate() {
            // SAFETY: as the caller's.
            let [a, b] = unsafe { gather::<L, TAIL>(x, i, rows, g) };
            let [lo, hi] = keys::<S>(a, g.code[0]);
            let [lo2, hi2] = keys::<S>(b, g.code[1]);
            *k = best_keys::<D>(best_keys::<D>(lo, hi), best_keys::<D>(lo2, hi2));
        }
    }
    let a: [__m512i; 8] = core::array::from_fn(|i| fold_keys::<D, 8>(k[2 * i], k[2 * i + 1]));
    let b: [__m512i; 4] = core::array::from_fn(|i| fold_keys::<D, 4>(a[2 * i], a[2 * i + 1]));
    let c = [fold_keys::<D, 2>(b[0], b[1]), fold_keys::<D, 2>(b[2], b[3])];
    let low = _mm512_set1_epi16(0xff);
    for half in 0..2 {
        let n = rows.saturating_sub(32 * half).min(32);
        if n == 0 {
            break;
        }
        let folded = _mm512_permutex2var_epi16(c[0], g.fix[half], c[1]);
        // The low bytes: the indices, flipped where the first index wins.
        let idx = if D::IS_MIN == LAST {
            _mm512_andnot_si512(folded, low)
        } else {
            _mm512_and_si512(folded, low)
        };
        let y = out.0.wrapping_add(32 * half);
        for q in 0..4 {
            let m = low_lanes(n.saturating_sub(8 * q).min(8)) as u8;
            let wide = _mm512_cvtepu16_epi64(extract(idx, q));
            // SAFETY: the chunk's rows have their indices at `y`.
            unsafe { _mm512_mask_storeu_epi64(y.wrapping_add(8 * q), m, wide) };
        }
        if VALUES {
            let mut e = _mm512_srli_epi16::<8>(folded);
            if S {
                e = _mm512_xor_si512(e, _mm512_set1_epi16(0x80));
            }
            let e = _mm512_cvtepi16_epi8(e);
            // SAFETY: with `VALUES`, the chunk's rows have their elements at `out.1`.
            unsafe {
                _mm256_mask_storeu_epi8(
                    out.1.wrapping_add(32 * half).cast(),
                    low_lanes(n) as u32,
                    e,
                )
            };
        }
    }
}

/// The 128-bit lane `q` (0 to 3) of `v`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn extract(v: __m512i, q: usize) -> core::arch::x86_64::__m128i {
    match q {
        0 => _mm512_extracti32x4_epi32::<0>(v),
        1 => _mm512_extracti32x4_epi32::<1>(v),
        2 => _mm512_extracti32x4_epi32::<2>(v),
        _ => _mm512_extracti32x4_epi32::<3>(v),
    }
}

#[cfg(test)]
mod tests;
