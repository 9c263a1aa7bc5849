//! Strided reductions (ReduceMax, ReduceMin down the rows of a block) of 1-, 2- and 4-byte types
//! (`i8`, `u8`, `i16`, `u16`, f16 and bf16 as order keys, `i32`, `u32`) in AVX2, every
//! block of a node in one call: the shims' per-block setup cost as much as the rows of blocks of
//! twenty rows of 32 bytes.
//!
//! A block's rows are read a row at a time, the lanes across vectors (tiles of up to four, the
//! last vector of a row overlapping the one before where the row is not whole vectors); rows of
//! 16 to 31 bytes as their first and last 16 bytes; rows of 16 bytes two to a vector, the halves
//! folded at the end. f16 and bf16: a block with a NaN goes to the portable pass (which gives
//! each lane its first NaN).
//!
//! For the CPUs [`available`] finds; [`reduce_blocks`] checks.

use core::arch::x86_64::{
    __m256i, _mm256_blendv_epi8, _mm256_castsi128_si256, _mm256_castsi256_si128,
    _mm256_loadu_si256, _mm256_permute2x128_si256, _mm256_setzero_si256, _mm256_storeu_si256,
    _mm_loadu_si128, _mm_storeu_si128,
};

use super::short_rows_avx2::lanes::{
    any_nan, identity, key, load, load2, nans, pick, track, unkey, Halves, I16s, I32s, I8s, Lanes,
    U16s, U32s, U8s,
};
use super::short_rows_avx2::{self, available, bytes, WIDE_ROW};
use crate::{DType, Direction, Element};

/// Whether [`reduce_blocks`] reads blocks of `rows` rows of `row` bytes (16 or more) by tiles
/// rather than leaving them to the portable pass: [`short_rows_avx2::tiled`] with rows wide past
/// [`WIDE_ROW`] (ReduceMax `i16` `[5000, 209]` along axis 0 took 1.4x a streaming read in the
/// tiles, f16 1.7x, against 1.0x and 1.1x in the portable pass, which folds a group of rows at a
/// time; rows of 65-128 bytes lost there: `u32` `[20000, 24]` 2.4x slower, `i16` `[16384, 64]`
/// 1.2x).
const fn tiled(rows: usize, row: usize) -> bool {
    short_rows_avx2::tiled(rows, row, WIDE_ROW)
}

/// The extreme of each of `ys` lanes down the rows of each block of `xs` elements of `x` into
/// the block's `ys` elements of `y`: with `fresh` in place of them, else folded into them (a
/// NaN already there stays). `true` if done, `false` (nothing written) where this kernel does not
/// take the blocks (not one of its types (`bool` is not: the portable pass stops early), rows
/// under 16 bytes, blocks not [`tiled`], no AVX2). Blocks with a NaN are done by the portable
/// pass.
#[inline(always)]
pub(super) fn reduce_blocks<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    fresh: bool,
) -> bool {
    if !available() {
        return false;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            // bool stays with the portable pass, which stops at the first row after which every
            // lane holds the absorbing value (random bools: after a few rows).
            DType::U8 => reduce_in::<U8s, D, T>(y, x, (xs, ys), fresh),
            DType::I8 => reduce_in::<I8s, D, T>(y, x, (xs, ys), fresh),
            DType::U16 => reduce_in::<U16s, D, T>(y, x, (xs, ys), fresh),
            DType::I16 => reduce_in::<I16s, D, T>(y, x, (xs, ys), fresh),
            DType::F16 => reduce_in::<Halves<0x7c00>, D, T>(y, x, (xs, ys), fresh),
            DType::BF16 => reduce_in::<Halves<0x7f80>, D, T>(y, x, (xs, ys), fresh),
            DType::U32 => reduce_in::<U32s, D, T>(y, x, (xs, ys), fresh),
            DType::I32 => reduce_in::<I32s, D, T>(y, x, (xs, ys), fresh),
        } else false)
    }
}

/// [`reduce_blocks`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn reduce_in<K: Lanes, D: Direction, T: Element>(
    y: &mut [T],
    x: &[T],
    (xs, ys): (usize, usize),
    fresh: bool,
) -> bool {
    let Some(xb) = bytes(x) else {
        return false;
    };
    let row = ys * K::SIZE;
    let rows = xs.checked_div(ys).unwrap_or(0);
    if row < 16 || rows == 0 || xs != rows * ys || !tiled(rows, row) {
        return false;
    }
    // Rows of 17 to 31 bytes in blocks of enough of them: super-rows (decided once a node, so
    // that the other readings' loop stays as lean as without them).
    let supers = if row > 16 && row < 32 {
        super_row(row).filter(|&(k, _)| rows / k >= MIN_SUPERS)
    } else {
        None
    };
    // SAFETY: AVX2; `xb` is the bytes of `x`, blocks of `rows` rows of `row` bytes.
    unsafe {
        match supers {
            Some(sup) => blocks_in::<K, D, T, true>(y, x, xb, (xs, ys), (rows, row), sup, fresh),
            None => blocks_in::<K, D, T, false>(y, x, xb, (xs, ys), (rows, row), (1, row), fresh),
        }
    }
    true
}

/// Every block of `x` (bytes `xb`) into `y`: with `SUPERS` by super-rows `sup` (`k` rows, `p`
/// bytes).
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `xb` is the bytes of `x`; rows of 16 bytes or more;
/// with `SUPERS`, `sup` is [`super_row`]'s for `row` and every block holds `MIN_SUPERS` of them.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn blocks_in<K: Lanes, D: Direction, T: Element, const SUPERS: bool>(
    y: &mut [T],
    x: &[T],
    xb: &[u8],
    (xs, ys): (usize, usize),
    (rows, row): (usize, usize),
    sup: (usize, usize),
    fresh: bool,
) {
    let blocks = (x.len() / xs).min(y.len() / ys);
    for n in 0..blocks {
        let (Some(xbs), Some(yb)) = (
            xb.get(n * xs * K::SIZE..(n + 1) * xs * K::SIZE),
            y.get_mut(n * ys..(n + 1) * ys),
        ) else {
            break;
        };
        // SAFETY: AVX2; `xbs` is `rows` rows of `row` bytes, `yb` `row` bytes of `T`.
        if !unsafe { block::<K, D, T, SUPERS>(xbs, yb, (rows, row), sup, fresh) } {
            let xs = x.get(n * xs..(n + 1) * xs).unwrap_or_default();
            if fresh {
                super::reduce::reduce_lanes_fresh::<T, D>(yb, xs);
            } else {
                super::reduce::reduce_lanes_rows::<T, D>(yb, xs);
            }
        }
    }
}

/// One block: `false` if it holds a NaN (then `y` is untouched).
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `x` is `rows` rows of `row` bytes (at least 16), `y`
/// one row of `T`; with `SUPERS`, `sup` is as [`short`] needs.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn block<K: Lanes, D: Direction, T: Element, const SUPERS: bool>(
    x: &[u8],
    y: &mut [T],
    (rows, row): (usize, usize),
    sup: (usize, usize),
    fresh: bool,
) -> bool {
    let mut nan = _mm256_setzero_si256();
    if row < 32 {
        // SAFETY: as this function's.
        let m = unsafe { short::<K, D, SUPERS>(x, (rows, row), sup, &mut nan) };
        if any_nan::<K>(nan) {
            return false;
        }
        // SAFETY: AVX2; `y` is one row of `row` bytes (16 to 31): the low half to its first 16
        // bytes, the high half to its last 16.
        unsafe {
            let y = bytes_mut(y);
            put::<K, D, true>(y, m, 0, fresh);
            put::<K, D, true>(y, _mm256_permute2x128_si256::<0x01>(m, m), row - 16, fresh);
        }
        return true;
    }
    let vectors = row.div_ceil(32);
    let mut t = 0;
    while t < vectors {
        let n = (vectors - t).min(4);
        let at = |i: usize| (32 * (t + i)).min(row - 32);
        // SAFETY: AVX2; every offset is 32 bytes before the row's end or less.
        let ms =
            unsafe { tiles::<K, D>(x, [at(0), at(1), at(2), at(3)], n, (row, rows), &mut nan) };
        if any_nan::<K>(nan) {
            // Tiles before this one may be written: the portable pass does the block again,
            // and folding the same rows twice changes nothing.
            return false;
        }
        // SAFETY: `T` is `K`'s type.
        let yb = unsafe { bytes_mut(y) };
        for (i, &m) in ms.iter().take(n).enumerate() {
            // SAFETY: AVX2; the vector's lanes are the row's bytes from `at(i) <= row - 32`.
            unsafe { put::<K, D, false>(yb, m, at(i), fresh) };
        }
        t += n;
    }
    true
}

/// The extremes (keys) of rows of 16 to 31 bytes: the row's first 16 bytes in the low half, its
/// last 16 in the high half; rows of exactly 16 bytes two to a vector, folded; with `SUPERS`
/// the rows in super-rows of `k` rows (`p` bytes) of whole vectors, the rows left over as halves.
///
/// # Safety
/// The CPU has AVX2; `x` is `rows` rows of `row` bytes, `16 <= row < 32`; with `SUPERS`, `(k, p)`
/// is [`super_row`]'s for `row`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn short<K: Lanes, D: Direction, const SUPERS: bool>(
    x: &[u8],
    (rows, row): (usize, usize),
    (k, p): (usize, usize),
    nan: &mut __m256i,
) -> __m256i {
    let mut m = identity::<K, D>();
    let mut r = 0;
    if row == 16 {
        while r + 2 <= rows {
            // SAFETY: rows `r` and `r + 1` are the 32 bytes from `16 r`.
            let v = unsafe { load(x, 16 * r) };
            if K::INF != 0 {
                *nan = track::<K>(*nan, v);
            }
            m = pick::<K, D>(m, key::<K>(v));
            r += 2;
        }
        // Row 2s in the low half, 2s + 1 in the high: both halves the extremes of the row.
        m = pick::<K, D>(m, _mm256_permute2x128_si256::<0x01>(m, m));
    } else if SUPERS {
        // SAFETY: as this function's; `k` rows of `row` bytes are `p` bytes, `rows / k` of them.
        m = unsafe { by_supers::<K, D>(x, (rows / k, k, row, p), nan) };
        r = rows / k * k;
    }
    while r < rows {
        // SAFETY: the row's first and last 16 bytes.
        let v = unsafe { load2(x, r * row, r * row + row - 16) };
        if K::INF != 0 {
            *nan = track::<K>(*nan, v);
        }
        m = pick::<K, D>(m, key::<K>(v));
        r += 1;
    }
    m
}

/// Super-rows of at most this many bytes.
const MAX_SUPER: usize = 256;

/// Super-rows a block needs for [`short`] to read it by them (the rows of their extremes are
/// folded once a block).
const MIN_SUPERS: usize = 8;

/// The super-row of rows of `row` bytes (17 to 31): `k` rows, `p` bytes, the `k` (2 or more,
/// `p` at most [`MAX_SUPER`]) that wastes least of the vectors read, then the fewest rows.
fn super_row(row: usize) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for k in 2..=MAX_SUPER / row.max(1) {
        let p = k * row;
        // p / loaded(p) above the best's, in integers.
        if best.is_none_or(|(_, q)| p * q.div_ceil(32) > q * p.div_ceil(32)) {
            best = Some((k, p));
        }
    }
    best
}

/// The extremes (keys) of the first `s` super-rows of `k` rows of `row` bytes (`p` bytes) of
/// `x`: whole vectors down the super-rows (the last overlapping the one before), then the `k`
/// rows of their extremes folded as halves. Out of line: its buffer and setup stay out of the
/// block's loop.
///
/// # Safety
/// The CPU has AVX2; `x` holds `s` super-rows; `16 < row < 32`, `32 < p <= MAX_SUPER`.
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn by_supers<K: Lanes, D: Direction>(
    x: &[u8],
    (s, k, row, p): (usize, usize, usize, usize),
    nan: &mut __m256i,
) -> __m256i {
    let mut buf = [0u8; MAX_SUPER];
    // SAFETY: AVX2; `x` holds `s` super-rows of `p` bytes, `p <= MAX_SUPER`.
    unsafe {
        match p.div_ceil(32) {
            2 => fold_supers::<K, D, 2>(x, (s, p), &mut buf, nan),
            3 => fold_supers::<K, D, 3>(x, (s, p), &mut buf, nan),
            4 => fold_supers::<K, D, 4>(x, (s, p), &mut buf, nan),
            5 => fold_supers::<K, D, 5>(x, (s, p), &mut buf, nan),
            6 => fold_supers::<K, D, 6>(x, (s, p), &mut buf, nan),
            7 => fold_supers::<K, D, 7>(x, (s, p), &mut buf, nan),
            _ => fold_supers::<K, D, 8>(x, (s, p), &mut buf, nan),
        }
    }
    let mut m = identity::<K, D>();
    for i in 0..k {
        // SAFETY: row `i` of the super-row's extremes (keys), inside `buf`'s first `p`.
        m = pick::<K, D>(m, unsafe { load2(&buf, i * row, i * row + row - 16) });
    }
    m
}

/// The extremes (keys) of `s` super-rows of `p` bytes (`V` vectors, the last overlapping the one
/// before) into the first `p` bytes of `buf`.
///
/// # Safety
/// The CPU has AVX2; `x` holds `s` super-rows of `p` bytes; `V == p.div_ceil(32)`,
/// `p <= buf.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn fold_supers<K: Lanes, D: Direction, const V: usize>(
    x: &[u8],
    (s, p): (usize, usize),
    buf: &mut [u8; MAX_SUPER],
    nan: &mut __m256i,
) {
    let at: [usize; V] = core::array::from_fn(|j| (32 * j).min(p - 32));
    // SAFETY: AVX2; every offset is 32 bytes before the super-row's end or less.
    let ms = unsafe { tile::<K, D, V>(x, at, p, s, nan) };
    for (&m, &a) in ms.iter().zip(&at) {
        debug_assert!(a + 32 <= buf.len());
        // SAFETY: `a + 32 <= p <= MAX_SUPER`.
        unsafe { _mm256_storeu_si256(buf.as_mut_ptr().wrapping_add(a).cast(), m) };
    }
}

/// [`tile`] of the first `n` (1 to 4) offsets of `at`: the first `n` vectors of the result.
///
/// # Safety
/// As [`tile`]'s for the first `n` offsets.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn tiles<K: Lanes, D: Direction>(
    x: &[u8],
    at: [usize; 4],
    n: usize,
    (row, rows): (usize, usize),
    nan: &mut __m256i,
) -> [__m256i; 4] {
    let mut ms = [_mm256_setzero_si256(); 4];
    let [a, b, c, _] = at;
    // SAFETY: as this function's.
    unsafe {
        match n {
            1 => ms[..1].copy_from_slice(&tile::<K, D, 1>(x, [a], row, rows, nan)),
            2 => ms[..2].copy_from_slice(&tile::<K, D, 2>(x, [a, b], row, rows, nan)),
            3 => ms[..3].copy_from_slice(&tile::<K, D, 3>(x, [a, b, c], row, rows, nan)),
            _ => ms.copy_from_slice(&tile::<K, D, 4>(x, at, row, rows, nan)),
        }
    }
    ms
}

/// The extremes (keys) of `N` vectors of lanes at byte offsets `at` of each row, down the rows.
///
/// # Safety
/// The CPU has AVX2; `x` is `rows` rows of `row` bytes; `at[i] + 32 <= row`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn tile<K: Lanes, D: Direction, const N: usize>(
    x: &[u8],
    at: [usize; N],
    row: usize,
    rows: usize,
    nan: &mut __m256i,
) -> [__m256i; N] {
    let mut m = [identity::<K, D>(); N];
    let mut top = *nan;
    for r in 0..rows {
        for i in 0..N {
            // SAFETY: `r · row + at[i] + 32 <= rows · row`.
            let v = unsafe { load(x, r * row + at[i]) };
            if K::INF != 0 {
                top = track::<K>(top, v);
            }
            m[i] = pick::<K, D>(m[i], key::<K>(v));
        }
    }
    *nan = top;
    m
}

/// The extremes `m` (keys of `K`; the low 16 bytes with `HALF`) into the bytes of `y` from
/// `at`: in place of them with `fresh`, else folded into them (a NaN there stays).
///
/// # Safety
/// The CPU has AVX2; `y` is elements of `K`'s type; `at + 32` (`at + 16` with `HALF`) is at
/// most `y.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn put<K: Lanes, D: Direction, const HALF: bool>(
    y: &mut [u8],
    m: __m256i,
    at: usize,
    fresh: bool,
) {
    debug_assert!(at + if HALF { 16 } else { 32 } <= y.len());
    let out = y.as_mut_ptr().wrapping_add(at);
    // SAFETY: the caller keeps the 16 or 32 bytes inside `y`.
    unsafe {
        let acc = if fresh {
            m
        } else if HALF {
            _mm256_castsi128_si256(_mm_loadu_si128(out.cast()))
        } else {
            _mm256_loadu_si256(out.cast())
        };
        let v = match (fresh, K::INF != 0) {
            (true, true) => unkey(m),
            (true, false) => m,
            (false, true) => {
                _mm256_blendv_epi8(unkey(pick::<K, D>(m, key::<K>(acc))), acc, nans::<K>(acc))
            }
            (false, false) => pick::<K, D>(m, acc),
        };
        if HALF {
            _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(v));
        } else {
            _mm256_storeu_si256(out.cast(), v);
        }
    }
}

/// The bytes of `y`, elements of one of this module's types.
///
/// # Safety
/// `T` is one of the types of [`reduce_blocks`] (no padding, every byte initialized, any bytes
/// an element: f16 and bf16 bits, `bool` written only as 0 or 1 by a max or min of bools).
pub(super) unsafe fn bytes_mut<T>(y: &mut [T]) -> &mut [u8] {
    // SAFETY: as the caller's; the bytes cover the same memory, borrowed as long.
    unsafe { core::slice::from_raw_parts_mut(y.as_mut_ptr().cast::<u8>(), size_of_val(y)) }
}

pub(super) mod planes;
#[cfg(test)]
mod tests;
