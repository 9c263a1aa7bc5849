//! The group pass of the grouped strided arg-reduction ([`super::arg_groups`]) for 1- and 2-byte
//! integer keys in 64-byte AVX-512 vectors: [`super::arg_groups_avx2`]'s pass with twice the
//! lanes an instruction.
//!
//! Per vector of a row: the new extreme (`max`/`min`), an equality of it with the old extreme
//! (with `LAST`, with the element) into a mask register, and the row number moved under the
//! mask into the lanes' rows. On an AMD EPYC (Zen 4), whose 256-bit units take a 64-byte
//! instruction in two halves, the same loop over `u8` `[1000, 2097]` along axis 0 (groups of
//! 250 rows, 128 bytes a chunk) took 41-43 us in 64-byte vectors against 57-59 us in 32-byte
//! ones: fewer instructions to issue for the same work. The benchmark matrix, `--ours`, old and
//! new in turn: ArgMax of `u16` and `i16` `[1000, 1048]` along axis 0 43 -> 35-36 us, `u8` and
//! `i8` `[1000, 2097]` 46-47 -> 44-45 us (their groups of sixteen rows leave a merge per lane
//! every sixteen rows, about a fifth of the time).

use core::arch::x86_64::{
    __m512i, _mm256_storeu_si256, _mm512_add_epi16, _mm512_add_epi8, _mm512_cmpeq_epi16_mask,
    _mm512_cmpeq_epi8_mask, _mm512_cvtepi16_epi8, _mm512_loadu_si512, _mm512_mask_mov_epi16,
    _mm512_mask_mov_epi8, _mm512_max_epi16, _mm512_max_epi8, _mm512_max_epu16, _mm512_max_epu8,
    _mm512_min_epi16, _mm512_min_epi8, _mm512_min_epu16, _mm512_min_epu8, _mm512_set1_epi16,
    _mm512_set1_epi8, _mm512_setzero_si512, _mm512_storeu_si512, _mm512_xor_si512,
};

use super::arg_groups_avx2::{kind, Kind};

/// The more extreme of `a` and `b` per lane (`MIN`: the smaller).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
fn extreme<const K: u8, const MIN: bool>(a: __m512i, b: __m512i) -> __m512i {
    match (kind::<K>(), MIN) {
        (Kind::U8, false) => _mm512_max_epu8(a, b),
        (Kind::U8, true) => _mm512_min_epu8(a, b),
        (Kind::I8, false) => _mm512_max_epi8(a, b),
        (Kind::I8, true) => _mm512_min_epi8(a, b),
        (Kind::U16, false) => _mm512_max_epu16(a, b),
        (Kind::U16, true) => _mm512_min_epu16(a, b),
        (Kind::I16, false) => _mm512_max_epi16(a, b),
        (Kind::I16, true) => _mm512_min_epi16(a, b),
    }
}

/// One step down the rows for one vector of a chunk: the running extreme `m` and row `p` take
/// row `k` (its number in every lane) where element `v` is the new extreme (with `LAST`, where it
/// is the extreme).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
fn take<const K: u8, const MIN: bool, const LAST: bool>(
    m: &mut __m512i,
    p: &mut __m512i,
    v: __m512i,
    k: __m512i,
) {
    let n = extreme::<K, MIN>(*m, v);
    // Where the element is the new extreme (`LAST`), or where the extreme did not move.
    let (a, b) = if LAST { (n, v) } else { (n, *m) };
    *p = if kind::<K>().bytes() {
        let eq = _mm512_cmpeq_epi8_mask(a, b);
        if LAST {
            _mm512_mask_mov_epi8(*p, eq, k)
        } else {
            _mm512_mask_mov_epi8(k, eq, *p)
        }
    } else {
        let eq = _mm512_cmpeq_epi16_mask(a, b);
        if LAST {
            _mm512_mask_mov_epi16(*p, eq, k)
        } else {
            _mm512_mask_mov_epi16(k, eq, *p)
        }
    };
    *m = n;
}

/// The group pass in 64-byte vectors, `V` of them at a time: each whole chunk of `64 V` bytes
/// (from byte `off` of the group's first row, rows `stride` bytes apart, `rows` of them) gets its
/// lanes' extreme keys into `out` (`64 V` bytes a chunk) and the row within the group where each
/// is first (with `LAST`, last) met into `rows_at` (a byte per lane). Returns the chunks done:
/// every whole chunk `out` and `rows_at` hold, or none if the group's rows do not hold them or
/// are more than 256 (generated code never passes such a group).
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VL.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn chunk_keys<const K: u8, const MIN: bool, const LAST: bool, const V: usize>(
    group: &[u8],
    stride: usize,
    rows: usize,
    off: usize,
    out: &mut [u8],
    rows_at: &mut [u8],
) -> usize {
    let w = V * 64;
    let bytes = kind::<K>().bytes();
    let lanes = if bytes { w } else { w / 2 };
    let chunks = (out.len() / w).min(rows_at.len() / lanes);
    // Every chunk's bytes in the last row lie within the group: checked once.
    let need = rows
        .checked_sub(1)
        .and_then(|r| r.checked_mul(stride))
        .and_then(|o| o.checked_add(off + chunks * w));
    if chunks == 0 || rows > 256 || need.is_none_or(|n| n > group.len()) {
        return 0;
    }
    let flip = if kind::<K>() == Kind::I8 {
        _mm512_set1_epi8(i8::MIN)
    } else {
        _mm512_setzero_si512()
    };
    let one = if bytes {
        _mm512_set1_epi8(1)
    } else {
        _mm512_set1_epi16(1)
    };
    for c in 0..chunks {
        // SAFETY: `off + (c + 1) * w + (rows - 1) * stride <= group.len()` (checked above for the
        // last chunk), so every load below, of row `r < rows`, lies within `group`.
        let at = |r: usize, i: usize| unsafe {
            _mm512_loadu_si512(group.as_ptr().add(off + c * w + r * stride + i * 64).cast())
        };
        let mut m: [__m512i; V] = core::array::from_fn(|i| at(0, i));
        let mut p = [_mm512_setzero_si512(); V];
        let mut k = _mm512_setzero_si512();
        for r in 1..rows {
            k = if bytes {
                _mm512_add_epi8(k, one)
            } else {
                _mm512_add_epi16(k, one)
            };
            for (i, (mi, pi)) in m.iter_mut().zip(p.iter_mut()).enumerate() {
                take::<K, MIN, LAST>(mi, pi, at(r, i), k);
            }
        }
        let (Some(o), Some(q)) = (
            out.get_mut(c * w..c * w + w),
            rows_at.get_mut(c * lanes..c * lanes + lanes),
        ) else {
            return c;
        };
        for (i, (&mi, &pi)) in m.iter().zip(&p).enumerate() {
            // SAFETY: `o` holds `64 V` bytes and `q` `64 V` (bytes) or `32 V` (words); `storeu`
            // has no alignment requirement.
            unsafe {
                _mm512_storeu_si512(
                    o.as_mut_ptr().add(i * 64).cast(),
                    _mm512_xor_si512(mi, flip),
                );
                if bytes {
                    _mm512_storeu_si512(q.as_mut_ptr().add(i * 64).cast(), pi);
                } else {
                    // Each word's row (below 256) as its low byte.
                    _mm256_storeu_si256(
                        q.as_mut_ptr().add(i * 32).cast(),
                        _mm512_cvtepi16_epi8(pi),
                    );
                }
            }
        }
    }
    chunks
}
