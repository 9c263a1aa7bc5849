//! Hardmax of blocks of two to four rows ([`SHIFTED_ROWS`]) of any lanes, without finding
//! the rows first: each vector of lanes is compared with the same lanes a row, two rows, ...
//! earlier and later in their blocks (masked loads shifted by whole rows), and a lane is the
//! one of its block's column that wins where it beats every earlier row strictly and is at
//! least as good as every later one (the first maximum). The zeros and ones are then one
//! masked move and one store a vector: no row indices, no fold.
//!
//! The lanes of a vector sit at rows that repeat every `lcm(v, r·c)` lanes (`v` lanes a
//! vector), so the shifted loads' masks (which lanes have a row `d` rows away in their block)
//! are a table of one such period, and the kernel goes a group of whole periods at a time.
//! Floats compare as they are (a shifted lane outside its block loads as NaN, which every
//! compare here passes); f16 and bf16 as the order keys of their bits, written to a buffer
//! a group at a time (the keys of a lane are then computed once, not once a shift). A group
//! holding a NaN is done again by the definition, lane by lane ([`by_definition`]).

use core::arch::x86_64::{
    __m512i, _mm512_castsi512_pd, _mm512_castsi512_ps, _mm512_loadu_si512,
    _mm512_mask_cmp_epu16_mask, _mm512_mask_cmp_pd_mask, _mm512_mask_cmp_ps_mask,
    _mm512_mask_loadu_epi32, _mm512_mask_loadu_epi64, _mm512_maskz_loadu_epi16, _mm512_set1_epi32,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_storeu_si512, _CMP_NLE_UQ, _CMP_NLT_UQ,
    _MM_CMPINT_NLE, _MM_CMPINT_NLT,
};

use super::lanes::{has_nan, magnitude, mov, prep, splat, widest};
use super::HALF;
use crate::{Element, Max};

/// The most rows a block may have here: a vector is compared with `2 · (r - 1)` shifted loads,
/// which pays against finding the rows first (`super::hardmax::hardmax_in`) up to here.
pub(super) const SHIFTED_ROWS: usize = 4;

/// The shifts of a vector: rows `-(SHIFTED_ROWS - 1)` to `-1`, then `1` to `SHIFTED_ROWS - 1`.
const SHIFTS: usize = 2 * (SHIFTED_ROWS - 1);

/// The most vectors of a group: a period of `r · c / gcd(v, r · c)` vectors (45 for three
/// rows of fifteen lanes against 16 or 32 lanes; longer periods are refused), periods
/// gathered up to [`GROUP`].
pub(super) const MAX_VECTORS: usize = 45;

/// The vectors a group gathers at least (periods of one vector pay a NaN check each else).
const GROUP: usize = 16;

/// Whether this module takes blocks of `r` rows of `c` lanes of `W` bytes: 2 to
/// [`SHIFTED_ROWS`] rows (3 of 8 bytes), any lanes (a period of at most [`MAX_VECTORS`]
/// vectors, checked by [`hardmax_shifted`]). Measured on `[n, r, 5]` against
/// finding the rows first: 2 to 4 rows 0.4-0.6x the time (`f32`, f16, bf16), `f64` 2 and 3
/// rows 0.7-0.83x but 4 rows 1.03x; 5 rows 1.0x (`f32`) to 1.3x (`f64`), 6 and 8 rows up to
/// 2.2x, f16 and bf16 alone gaining there (0.8x at 5 rows).
#[inline(always)]
pub(super) fn takes(w: usize, r: usize, c: usize) -> bool {
    let most = if w == 8 { 3 } else { SHIFTED_ROWS };
    (2..=most).contains(&r) && c >= 1 && w >= 2
}

/// Hardmax of the whole groups of blocks of `r` rows of `c` lanes from the start of `x` into
/// `y` (as long): the blocks done (none where [`takes`] refuses them).
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `T` is `W` bytes (2, 4 or 8) of kind `KIND` (f16 and
/// bf16 [`HALF`], `f32` and `f64` `FLOAT`), `inf` its infinity's magnitude bits.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn hardmax_shifted<T: Element, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    if !takes(W, r, c) || y.len() < x.len() {
        return 0;
    }
    let v = 64 / W;
    let size = r * c;
    let Some((period, vectors, blocks)) = group(v, size) else {
        return 0;
    };
    let masks = Masks::new(v, r, c, period);
    // The shifts' offsets in lanes (unused ones past `r - 1` never loaded).
    let mut offsets = [0isize; SHIFTS];
    for (i, o) in offsets.iter_mut().enumerate() {
        *o = shift(i, r) * c as isize;
    }
    let mut one = [0u8; 8];
    T::ONE.write_le(&mut one[..W]);
    let one = u64::from_le_bytes(one);
    let mut keys = [0u16; MAX_VECTORS * 32];
    let mut done = 0;
    while let (Some(xg), Some(yg)) = (
        x.get(done * size..(done + blocks) * size),
        y.get_mut(done * size..(done + blocks) * size),
    ) {
        // SAFETY: as the caller's; `xg` and `yg` are `vectors` whole vectors.
        let nan = unsafe {
            // The compared lanes: f16/bf16 keys written to `keys`, or the floats themselves.
            let (src, nan): (*const u8, bool) = if KIND == HALF {
                let nan = half_keys::<W, KIND>(xg.as_ptr().cast(), &mut keys, vectors, inf);
                (keys.as_ptr().cast(), nan)
            } else {
                let src = xg.as_ptr().cast();
                (src, float_nan::<W, KIND>(src, vectors, inf))
            };
            by_rows::<W>(
                src,
                yg.as_mut_ptr().cast(),
                &masks,
                &offsets,
                r,
                vectors,
                one,
            );
            nan
        };
        if nan {
            by_definition(xg, yg, r, c);
        }
        done += blocks;
    }
    done
}

/// Hardmax of the blocks of `r` rows of `c` lanes of `x` into `y` by the definition, lane by
/// lane (a group holding a NaN): a one at each lane's first NaN, else at its first maximum.
fn by_definition<T: Element>(x: &[T], y: &mut [T], r: usize, c: usize) {
    for (xb, yb) in x.chunks_exact(r * c).zip(y.chunks_exact_mut(r * c)) {
        yb.fill(T::ZERO);
        for j in 0..c {
            let mut best: Option<(usize, T)> = None;
            for (k, &e) in xb.iter().skip(j).step_by(c).enumerate() {
                let wins = match best {
                    None => true,
                    Some((_, b)) => !b.is_nan() && (e.is_nan() || e.gt(b)),
                };
                if wins {
                    best = Some((k, e));
                }
            }
            if let Some(o) = best.and_then(|(k, _)| yb.get_mut(k * c + j)) {
                *o = T::ONE;
            }
        }
    }
}

/// Shift `i`'s distance in rows for blocks of `r` rows: `-(r - 1)..=-1`, then `1..r`.
const fn shift(i: usize, r: usize) -> isize {
    let back = r as isize - 1;
    let i = i as isize;
    if i < back {
        i - back
    } else {
        i - back + 1
    }
}

/// The group of blocks of `size` lanes in vectors of `v` lanes: its period (the vectors after
/// which the lanes' rows repeat), its vectors (whole periods, at least [`GROUP`] where the
/// table holds them) and its blocks; none where a period is over [`MAX_VECTORS`].
pub(super) fn group(v: usize, size: usize) -> Option<(usize, usize, usize)> {
    let period = size / gcd(v, size);
    if period > MAX_VECTORS {
        return None;
    }
    let vectors = period * GROUP.div_ceil(period).min(MAX_VECTORS / period);
    Some((period, vectors, vectors * v / size))
}

/// The greatest common divisor.
const fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The lanes of each vector of a period that have a row each shift away in their block.
struct Masks {
    period: usize,
    bits: [[u32; SHIFTS]; MAX_VECTORS],
}

impl Masks {
    /// The masks of `period` vectors of `v` lanes over blocks of `r` rows of `c` lanes.
    fn new(v: usize, r: usize, c: usize, period: usize) -> Self {
        let mut bits = [[0u32; SHIFTS]; MAX_VECTORS];
        // The lane's row and lane in its block, counted along.
        let (mut row, mut lane) = (0usize, 0usize);
        for at in bits.iter_mut().take(period) {
            for l in 0..v {
                for (i, m) in at.iter_mut().enumerate().take(2 * (r - 1)) {
                    let to = row as isize + shift(i, r);
                    if (0..r as isize).contains(&to) {
                        *m |= 1 << l;
                    }
                }
                lane += 1;
                if lane == c {
                    lane = 0;
                    row += 1;
                    if row == r {
                        row = 0;
                    }
                }
            }
        }
        Masks { period, bits }
    }
}

/// The order keys of `vectors` vectors of f16 or bf16 bits from `x` into `keys` (greater
/// better, -0 and +0 one key): whether one is a NaN.
///
/// # Safety
/// As for [`hardmax_shifted`], `x` holds `vectors` vectors, `keys` at least as many.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn half_keys<const W: usize, const KIND: u8>(
    x: *const u8,
    keys: &mut [u16],
    vectors: usize,
    inf: u64,
) -> bool {
    let mut widest_seen = _mm512_setzero_si512();
    for (j, out) in keys.chunks_exact_mut(32).take(vectors).enumerate() {
        // SAFETY: as the caller's; `out` holds a vector.
        unsafe {
            let raw = _mm512_loadu_si512(x.add(j * 64).cast());
            widest_seen = widest::<W, KIND>(widest_seen, magnitude::<W, KIND>(raw));
            _mm512_storeu_si512(out.as_mut_ptr().cast(), prep::<Max, W, KIND>(raw));
        }
    }
    has_nan::<W>(widest_seen, inf)
}

/// Whether one of `vectors` vectors of floats from `x` is a NaN.
///
/// # Safety
/// As for [`hardmax_shifted`], `x` holds `vectors` vectors.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn float_nan<const W: usize, const KIND: u8>(
    x: *const u8,
    vectors: usize,
    inf: u64,
) -> bool {
    let mut widest_seen = _mm512_setzero_si512();
    for j in 0..vectors {
        // SAFETY: as the caller's.
        let raw = unsafe { _mm512_loadu_si512(x.add(j * 64).cast()) };
        widest_seen = widest::<W, KIND>(widest_seen, magnitude::<W, KIND>(raw));
    }
    has_nan::<W>(widest_seen, inf)
}

/// [`one_hot`] for blocks of `r` rows (2 to [`SHIFTED_ROWS`]), its shifts unrolled.
///
/// # Safety
/// As for [`one_hot`].
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn by_rows<const W: usize>(
    src: *const u8,
    y: *mut u8,
    masks: &Masks,
    offsets: &[isize; SHIFTS],
    r: usize,
    vectors: usize,
    one: u64,
) {
    // SAFETY: as the caller's.
    unsafe {
        match r {
            2 => one_hot::<W, 2>(src, y, masks, offsets, vectors, one),
            3 => one_hot::<W, 3>(src, y, masks, offsets, vectors, one),
            _ => one_hot::<W, 4>(src, y, masks, offsets, vectors, one),
        }
    }
}

/// The zeros and ones (`one` the bits of a one) of `vectors` vectors of `src` (keys of f16 and
/// bf16, or floats) to `y`: a one where a lane beats the earlier rows of its block and is as
/// good as the later ones.
///
/// # Safety
/// As for [`hardmax_shifted`]; `src` and `y` hold `vectors` vectors, a whole number of periods
/// of `masks`, from the start of a block; `offsets` are the shifts in lanes for blocks of `r`
/// rows.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn one_hot<const W: usize, const R: usize>(
    src: *const u8,
    y: *mut u8,
    masks: &Masks,
    offsets: &[isize; SHIFTS],
    vectors: usize,
    one: u64,
) {
    let one = splat::<W>(one);
    let zero = _mm512_setzero_si512();
    let mut j = 0;
    while j < vectors {
        for at in masks.bits.iter().take(masks.period) {
            let p = src.wrapping_add(j * 64);
            // SAFETY: as the caller's.
            let own = unsafe { _mm512_loadu_si512(p.cast()) };
            let mut win = u32::MAX;
            for (i, (&m, &o)) in at.iter().zip(offsets).enumerate().take(2 * (R - 1)) {
                // SAFETY: the lanes of `m` are in their blocks, inside `src`.
                let other = unsafe { shifted::<W>(p.wrapping_offset(o * W as isize), m) };
                win = if shift(i, R) < 0 {
                    beats::<W, false>(win, own, other)
                } else {
                    beats::<W, true>(win, own, other)
                };
            }
            // SAFETY: as the caller's.
            unsafe { _mm512_storeu_si512(y.add(j * 64).cast(), mov::<W>(zero, win.into(), one)) };
            j += 1;
        }
    }
}

/// The lanes of `m` from `p`, the others a loser every compare of [`beats`] passes (a NaN for
/// floats, zero for keys).
///
/// # Safety
/// The CPU has AVX-512 F and BW; the lanes of `m` are readable.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn shifted<const W: usize>(p: *const u8, m: u32) -> __m512i {
    // SAFETY: as the caller's; masked lanes are not read.
    unsafe {
        match W {
            2 => _mm512_maskz_loadu_epi16(m, p.cast()),
            4 => _mm512_mask_loadu_epi32(_mm512_set1_epi32(-1), m as u16, p.cast()),
            _ => _mm512_mask_loadu_epi64(_mm512_set1_epi64(-1), m as u8, p.cast()),
        }
    }
}

/// The lanes of `win` where `own` beats `other` (with `TIE`, at least ties it); a NaN in
/// `other` loses.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn beats<const W: usize, const TIE: bool>(win: u32, own: __m512i, other: __m512i) -> u32 {
    match (W, TIE) {
        (2, false) => _mm512_mask_cmp_epu16_mask::<_MM_CMPINT_NLE>(win, own, other),
        (2, true) => _mm512_mask_cmp_epu16_mask::<_MM_CMPINT_NLT>(win, own, other),
        (4, false) => u32::from(_mm512_mask_cmp_ps_mask::<_CMP_NLE_UQ>(
            win as u16,
            _mm512_castsi512_ps(own),
            _mm512_castsi512_ps(other),
        )),
        (4, true) => u32::from(_mm512_mask_cmp_ps_mask::<_CMP_NLT_UQ>(
            win as u16,
            _mm512_castsi512_ps(own),
            _mm512_castsi512_ps(other),
        )),
        (_, false) => u32::from(_mm512_mask_cmp_pd_mask::<_CMP_NLE_UQ>(
            win as u8,
            _mm512_castsi512_pd(own),
            _mm512_castsi512_pd(other),
        )),
        (_, true) => u32::from(_mm512_mask_cmp_pd_mask::<_CMP_NLT_UQ>(
            win as u8,
            _mm512_castsi512_pd(own),
            _mm512_castsi512_pd(other),
        )),
    }
}

#[cfg(test)]
mod tests;
