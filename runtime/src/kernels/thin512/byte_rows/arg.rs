//! The arg-reductions of [`super`]: each gathered element and its index as one order key twice
//! as wide, the keys folded as the elements are for the reductions, the index and the element
//! taken out of the two folded vectors.

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_mask_storeu_epi16, _mm256_mask_storeu_epi8, _mm512_and_si512,
    _mm512_andnot_si512, _mm512_cvtepi16_epi8, _mm512_cvtepi32_epi16, _mm512_cvtepu16_epi64,
    _mm512_cvtepu32_epi64, _mm512_extracti32x4_epi32, _mm512_extracti64x4_epi64,
    _mm512_mask_cmpgt_epu32_mask, _mm512_mask_cmplt_epu32_mask, _mm512_mask_storeu_epi64,
    _mm512_permutex2var_epi16, _mm512_permutex2var_epi32, _mm512_set1_epi16, _mm512_set1_epi32,
    _mm512_set1_epi8, _mm512_setzero_si512, _mm512_srli_epi16, _mm512_srli_epi32,
    _mm512_unpackhi_epi16, _mm512_unpackhi_epi8, _mm512_unpacklo_epi16, _mm512_unpacklo_epi8,
    _mm512_xor_si512,
};

use super::super::{SIGNED, UNSIGNED};
use super::{
    best, exact_args, fix_table, fold, gather, half_keys, kind_of, load, low_lanes, watch, watched,
    Geometry,
};
use crate::{Direction, Element};

/// [`super::arg_rows`] once checked, for `W`-byte elements of `T` (signed with `S`, f16 or bf16
/// with `H`; keys of `K` bytes, twice `W`) in slots of `SLOT` bytes, `P` parts a row, with
/// `VALUES` the best elements too.
///
/// # Safety
/// AVX-512 with VBMI; `rows` rows of `c` at `x`, as many indices at `out.0` (and with `VALUES`
/// elements at `out.1`).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
pub(super) unsafe fn arg_in<
    T: Element,
    D: Direction,
    const LAST: bool,
    const W: usize,
    const K: usize,
    const S: u8,
    const H: bool,
    const SLOT: usize,
    const P: usize,
    const VALUES: bool,
>(
    x: *const u8,
    out: (*mut i64, *mut u8),
    rows: usize,
    c: usize,
) {
    let g = Geometry::new::<W, SLOT>(c, D::IS_MIN == LAST);
    let chunk = 64 / W;
    let mut done = 0;
    while done + chunk <= rows {
        let at = (out.0.wrapping_add(done), out.1.wrapping_add(done * W));
        let x = x.wrapping_add(done * c * W);
        // SAFETY: the chunk's rows are in `x`, their indices at `at.0` (and elements at `at.1`).
        unsafe { arg_chunk::<T, D, LAST, W, K, S, H, SLOT, P, VALUES, false>(x, at, chunk, &g) };
        done += chunk;
    }
    if done < rows {
        let at = (out.0.wrapping_add(done), out.1.wrapping_add(done * W));
        let x = x.wrapping_add(done * c * W);
        // SAFETY: as above, for the rows left.
        unsafe {
            arg_chunk::<T, D, LAST, W, K, S, H, SLOT, P, VALUES, true>(x, at, rows - done, &g)
        };
    }
}

/// The order keys of the gathered vector `r` (indices `code`): its lanes' low and high halves.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn keys<const W: usize, const S: u8>(r: __m512i, code: __m512i) -> [__m512i; 2] {
    if W == 1 {
        let r = if S == SIGNED {
            _mm512_xor_si512(r, _mm512_set1_epi8(i8::MIN))
        } else {
            r
        };
        [_mm512_unpacklo_epi8(code, r), _mm512_unpackhi_epi8(code, r)]
    } else {
        let r = if S == SIGNED {
            _mm512_xor_si512(r, _mm512_set1_epi16(i16::MIN))
        } else {
            r
        };
        [
            _mm512_unpacklo_epi16(code, r),
            _mm512_unpackhi_epi16(code, r),
        ]
    }
}

/// The indices (and with `VALUES` the best elements) of the chunk of `rows` (a whole chunk
/// unless `TAIL`) at `x` into `out.0` (and `out.1`).
///
/// # Safety
/// As [`arg_in`]'s, for the chunk.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn arg_chunk<
    T: Element,
    D: Direction,
    const LAST: bool,
    const W: usize,
    const K: usize,
    const S: u8,
    const H: bool,
    const SLOT: usize,
    const P: usize,
    const VALUES: bool,
    const TAIL: bool,
>(
    x: *const u8,
    out: (*mut i64, *mut u8),
    rows: usize,
    g: &Geometry,
) {
    // Key vectors: each slot one row's keys (slots of 8 bytes: each half of a lane a row).
    let mut k = [_mm512_setzero_si512(); 16];
    let (mut n, mut seen) = (0, _mm512_setzero_si512());
    for i in 0..SLOT / W {
        // SAFETY: as the caller's.
        let [mut a, mut b] = unsafe { gather::<W, SLOT, P, TAIL>(x, i, rows, g) };
        if H {
            seen = watch::<D>(watch::<D>(seen, a), b);
            (a, b) = (half_keys(a), half_keys(b));
        }
        let [mut lo, mut hi] = keys::<W, S>(a, g.code[0]);
        if P == 2 {
            let [lo2, hi2] = keys::<W, S>(b, g.code[1]);
            (lo, hi) = (
                best::<D, K, UNSIGNED>(lo, lo2),
                best::<D, K, UNSIGNED>(hi, hi2),
            );
        }
        if SLOT == 8 {
            [k[n], k[n + 1]] = [lo, hi];
            n += 2;
        } else {
            k[n] = best::<D, K, UNSIGNED>(lo, hi);
            n += 1;
        }
    }
    fold_down!(D, K, UNSIGNED, k, n, if SLOT == 8 { 8 } else { SLOT / 2 });
    let fix = const { fix_table(W, SLOT, true) };
    let folded = fix.map(|idx| {
        // SAFETY: 64 bytes.
        let idx = unsafe { load(&idx) };
        if W == 1 {
            _mm512_permutex2var_epi16(k[0], idx, k[1])
        } else {
            _mm512_permutex2var_epi32(k[0], idx, k[1])
        }
    });
    // Rows a folded vector: 32 (1-byte elements) or 16.
    let half = 32 / W;
    if H && (watched::<D>(seen, kind_of::<T>().2) || best_nan::<D>(folded, rows, kind_of::<T>().2))
    {
        // SAFETY: as the caller's; `T` is `W` bytes wide.
        unsafe { exact_args::<T, D, LAST, VALUES>(x.cast(), (out.0, out.1.cast()), rows, g.c) };
        return;
    }
    for (h, &folded) in folded.iter().enumerate() {
        let n = rows.saturating_sub(h * half).min(half);
        if n == 0 {
            break;
        }
        let y = out.0.wrapping_add(h * half);
        // SAFETY: the chunk's rows have their indices at `out.0` (and elements at `out.1`).
        unsafe { store_indices::<W>(y, n, folded, D::IS_MIN == LAST) };
        if VALUES {
            // SAFETY: as above.
            unsafe { store_values::<W, S, H>(out.1.wrapping_add(h * half * W), n, folded) };
        }
    }
}

/// Whether the folded keys of f16 or bf16 elements of the chunk's `rows` rows hold a NaN of the
/// sign that wins in `D` (its row's best): an element over +inf (`inf`'s bits) for a Max, under
/// -inf for a Min. A key's high half is the element's signed key with its sign bit flipped.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn best_nan<D: Direction>(folded: [__m512i; 2], rows: usize, inf: u64) -> bool {
    let (plus, minus) = ((inf as u32) ^ 0x8000, (0x1_0000 - inf as u32) ^ 0x8000);
    (0..2).any(|h| {
        let m = low_lanes(rows.saturating_sub(16 * h).min(16)) as u16;
        if D::IS_MIN {
            _mm512_mask_cmplt_epu32_mask(m, folded[h], _mm512_set1_epi32((minus << 16) as i32)) != 0
        } else {
            let over = (plus << 16) | 0xffff;
            _mm512_mask_cmpgt_epu32_mask(m, folded[h], _mm512_set1_epi32(over as i32)) != 0
        }
    })
}

/// The indices in the low halves of the `n` keys of `k` (`2W` bytes each, flipped with `flip`)
/// into `y`, as `i64`.
///
/// # Safety
/// `n` indices are writable at `y`; AVX-512.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn store_indices<const W: usize>(y: *mut i64, n: usize, k: __m512i, flip: bool) {
    let low = if W == 1 {
        _mm512_set1_epi16(0xff)
    } else {
        _mm512_set1_epi32(0xffff)
    };
    let idx = if flip {
        _mm512_andnot_si512(k, low)
    } else {
        _mm512_and_si512(k, low)
    };
    for q in 0..8 / W {
        let m = low_lanes(n.saturating_sub(8 * q).min(8)) as u8;
        let wide = if W == 1 {
            _mm512_cvtepu16_epi64(quarter(idx, q))
        } else {
            _mm512_cvtepu32_epi64(half_of(idx, q))
        };
        // SAFETY: as the caller's.
        unsafe { _mm512_mask_storeu_epi64(y.wrapping_add(8 * q), m, wide) };
    }
}

/// The elements in the high halves of the `n` keys of `k` (`2W` bytes each, signed with `S`,
/// f16 or bf16 keys with `H`) into `v`.
///
/// # Safety
/// `n` elements are writable at `v`; AVX-512.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn store_values<const W: usize, const S: u8, const H: bool>(
    v: *mut u8,
    n: usize,
    k: __m512i,
) {
    // SAFETY (both stores): as the caller's.
    unsafe {
        if W == 1 {
            let mut e = _mm512_srli_epi16::<8>(k);
            if S == SIGNED {
                e = _mm512_xor_si512(e, _mm512_set1_epi16(0x80));
            }
            _mm256_mask_storeu_epi8(v.cast(), low_lanes(n) as u32, _mm512_cvtepi16_epi8(e));
        } else {
            let mut e = _mm512_srli_epi32::<16>(k);
            if S == SIGNED {
                e = _mm512_xor_si512(e, _mm512_set1_epi32(0x8000));
            }
            if H {
                // The high 16 bits of each lane are 0, a key that maps to 0.
                e = half_keys(e);
            }
            _mm256_mask_storeu_epi16(v.cast(), low_lanes(n) as u16, _mm512_cvtepi32_epi16(e));
        }
    }
}

/// The 128-bit lane `q` (0 to 3) of `v`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn quarter(v: __m512i, q: usize) -> __m128i {
    match q {
        0 => _mm512_extracti32x4_epi32::<0>(v),
        1 => _mm512_extracti32x4_epi32::<1>(v),
        2 => _mm512_extracti32x4_epi32::<2>(v),
        _ => _mm512_extracti32x4_epi32::<3>(v),
    }
}

/// The 256-bit half `q` (0 or 1) of `v`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn half_of(v: __m512i, q: usize) -> __m256i {
    if q == 0 {
        _mm512_extracti64x4_epi64::<0>(v)
    } else {
        _mm512_extracti64x4_epi64::<1>(v)
    }
}
