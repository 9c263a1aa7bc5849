//! The f16 and bf16 rows of [`super`]: their bits as signed order keys, the NaN watch of a
//! chunk, and the contract's rule row by row for a chunk that holds a NaN.

use core::arch::x86_64::{
    __m512i, _mm512_cmpgt_epi16_mask, _mm512_cmpgt_epu16_mask, _mm512_mask_cmpgt_epi16_mask,
    _mm512_mask_cmplt_epi16_mask, _mm512_max_epi16, _mm512_max_epu16, _mm512_set1_epi16,
    _mm512_srai_epi16, _mm512_ternarylogic_epi32,
};

use super::super::HALF;
use crate::{Direction, Element};

/// The extreme of each of the `rows` rows of `c` at `x` into `y` (with `fresh` false, of its
/// row and itself) by the contract's rule, element by element ([`crate::kernels::fold`]).
///
/// # Safety
/// `rows` rows of `c` at `x`, as many elements at `y`.
#[cold]
pub(super) unsafe fn exact_rows<T: Element, D: Direction>(
    y: *mut T,
    x: *const T,
    rows: usize,
    c: usize,
    fresh: bool,
) {
    for i in 0..rows {
        // SAFETY: row `i` is in `x`, its extreme at `y + i`.
        unsafe {
            let row = core::slice::from_raw_parts(x.add(i * c), c);
            let acc = if fresh { D::identity::<T>() } else { *y.add(i) };
            *y.add(i) = crate::kernels::fold::<T, D>(acc, row);
        }
    }
}

/// The index of the best element of `D` (the first, with `LAST` the last; a NaN beats every
/// number) of each of the `rows` rows of `c` at `x` into `out.0`, and with `VALUES` that element
/// into `out.1`, by the contract's rule ([`crate::kernels::arg_row`]).
///
/// # Safety
/// `rows` rows of `c` at `x`, as many indices at `out.0` (and elements at `out.1`).
#[cold]
pub(super) unsafe fn exact_args<T: Element, D: Direction, const LAST: bool, const VALUES: bool>(
    x: *const T,
    out: (*mut i64, *mut T),
    rows: usize,
    c: usize,
) {
    for i in 0..rows {
        // SAFETY: row `i` is in `x`, its index at `out.0 + i` (and element at `out.1 + i`).
        unsafe {
            let row = core::slice::from_raw_parts(x.add(i * c), c);
            let at = crate::kernels::arg_row::<T, D, LAST>(row);
            *out.0.add(i) = at as i64;
            if VALUES {
                *out.1.add(i) = row[at];
            }
        }
    }
}

/// f16 or bf16 bits as signed order keys for the arg-reductions (the magnitude, negated where
/// the sign is set: -0 and +0 both 0; [`super::super::hard_rows::keys`]), and such keys back to
/// bits: the same map.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn half_keys(raw: __m512i) -> __m512i {
    super::super::hard_rows::keys::<2, HALF>(raw)
}

/// f16 or bf16 bits as signed order keys for the reductions (the bits, their magnitude
/// inverted where the sign is set: -0 just below +0, the sign of a zero result being free), and
/// such keys back to bits: the same map, two operations.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(in crate::kernels::thin512) fn sign_keys(raw: __m512i) -> __m512i {
    let s = _mm512_srai_epi16::<15>(raw);
    _mm512_ternarylogic_epi32::<0x78>(raw, s, _mm512_set1_epi16(0x7fff))
}

/// [`sign_keys`] of the infinities whose bits are `inf` and `0x8000 | inf`.
pub(in crate::kernels::thin512) const fn sign_keys_of(inf: u64) -> (i16, i16) {
    (inf as i16, ((0x8000 | inf) ^ 0x7fff) as u16 as i16)
}

/// The largest of `seen` and `raw` (f16 or bf16 bits): as unsigned for a Max (a negative NaN,
/// which no Max picks, is over `0x8000 | inf`), as signed for a Min (a positive NaN is over
/// `inf`).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(in crate::kernels::thin512) fn watch<D: Direction>(seen: __m512i, raw: __m512i) -> __m512i {
    if D::IS_MIN {
        _mm512_max_epi16(seen, raw)
    } else {
        _mm512_max_epu16(seen, raw)
    }
}

/// Whether [`watch`] saw a NaN (of the sign that loses in `D`).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(in crate::kernels::thin512) fn watched<D: Direction>(seen: __m512i, inf: u64) -> bool {
    if D::IS_MIN {
        _mm512_cmpgt_epi16_mask(seen, _mm512_set1_epi16(inf as i16)) != 0
    } else {
        _mm512_cmpgt_epu16_mask(seen, _mm512_set1_epi16((0x8000 | inf) as i16)) != 0
    }
}

/// Whether the signed keys `k` (in the lanes of `m`) hold a NaN of the sign that wins in `D`:
/// over the key of +inf for a Max, under that of -inf for a Min (`infs`: both keys).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(in crate::kernels::thin512) fn best_nan<D: Direction>(
    k: __m512i,
    m: u32,
    infs: (i16, i16),
) -> bool {
    if D::IS_MIN {
        _mm512_mask_cmplt_epi16_mask(m, k, _mm512_set1_epi16(infs.1)) != 0
    } else {
        _mm512_mask_cmpgt_epi16_mask(m, k, _mm512_set1_epi16(infs.0)) != 0
    }
}
