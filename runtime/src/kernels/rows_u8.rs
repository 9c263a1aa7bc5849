//! The arg-reduction of a contiguous row of `u8` (x86-64 only): the extreme by one unsigned
//! byte max/min per vector in four independent chains, then its first (last) position by
//! equality, four vectors at a time, one bit per byte. Bytes have no NaN, so the extreme is
//! exact and an element is it exactly when it equals it.
//!
//! One body ([`arg_row_in`]) in three vector widths, the widest the CPU runs chosen per row
//! ([`crate::kernels::isa`]): 16-byte SSE2 vectors (the x86-64 baseline), 32-byte AVX2 vectors,
//! 64-byte AVX-512 BW vectors whose equalities go straight into mask registers.

use core::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_max_epu8, _mm_min_epu8,
    _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_srli_si128,
};
#[cfg(not(feature = "small-code"))]
use core::arch::x86_64::{
    __m256i, __m512i, _mm256_broadcastb_epi8, _mm256_castsi256_si128, _mm256_cmpeq_epi8,
    _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_max_epu8, _mm256_min_epu8,
    _mm256_movemask_epi8, _mm256_or_si256, _mm512_castsi512_si256, _mm512_cmpeq_epi8_mask,
    _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_max_epu8, _mm512_min_epu8,
    _mm512_set1_epi8,
};

use super::shared::highest_bit;
use crate::Direction;

/// A vector of bytes of one width, and the operations the row kernel needs of it.
///
/// # Safety
/// Every method may use instructions of the type's width: call them only where the CPU has
/// them (SSE2 always on x86-64; AVX2; AVX-512 F and BW), from code compiled with those
/// features so that they inline.
trait Bytes: Copy {
    /// Bytes per vector.
    const LANES: usize;
    /// The vector at `p` (no alignment needed).
    ///
    /// # Safety
    /// `p` points to [`Self::LANES`] readable bytes; see the trait.
    unsafe fn load(p: *const u8) -> Self;
    /// Byte by byte, the more extreme of `a` and `b` in direction `D`.
    unsafe fn pick<D: Direction>(a: Self, b: Self) -> Self;
    /// The extreme of the vector's bytes, in every byte.
    unsafe fn spread<D: Direction>(self) -> Self;
    /// One bit per byte: where it equals `m`'s.
    unsafe fn equal_bits(self, m: Self) -> u64;
    /// Whether any byte of the four vectors equals `m`'s.
    unsafe fn any_equal(v: [Self; 4], m: Self) -> bool;
}

/// The extreme of the sixteen bytes of `v`, in every byte (SSE2).
#[inline(always)]
unsafe fn spread128<D: Direction>(v: __m128i) -> __m128i {
    // SAFETY (the caller): SSE2.
    unsafe {
        let v = Sse2::pick::<D>(Sse2(v), Sse2(_mm_srli_si128::<8>(v))).0;
        let v = Sse2::pick::<D>(Sse2(v), Sse2(_mm_srli_si128::<4>(v))).0;
        let v = Sse2::pick::<D>(Sse2(v), Sse2(_mm_srli_si128::<2>(v))).0;
        let v = Sse2::pick::<D>(Sse2(v), Sse2(_mm_srli_si128::<1>(v))).0;
        // Byte 0 holds the extreme.
        _mm_set1_epi8(_mm_cvtsi128_si32(v) as i8)
    }
}

/// A 16-byte SSE2 vector.
#[derive(Clone, Copy)]
struct Sse2(__m128i);

impl Bytes for Sse2 {
    const LANES: usize = 16;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY (the caller): sixteen readable bytes.
        Self(unsafe { _mm_loadu_si128(p.cast()) })
    }
    #[inline(always)]
    unsafe fn pick<D: Direction>(a: Self, b: Self) -> Self {
        // SAFETY (the caller): SSE2.
        Self(unsafe {
            if D::IS_MIN {
                _mm_min_epu8(a.0, b.0)
            } else {
                _mm_max_epu8(a.0, b.0)
            }
        })
    }
    #[inline(always)]
    unsafe fn spread<D: Direction>(self) -> Self {
        // SAFETY (the caller): SSE2.
        Self(unsafe { spread128::<D>(self.0) })
    }
    #[inline(always)]
    unsafe fn equal_bits(self, m: Self) -> u64 {
        // SAFETY (the caller): SSE2.
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self.0, m.0)) as u16 as u64 }
    }
    #[inline(always)]
    unsafe fn any_equal(v: [Self; 4], m: Self) -> bool {
        // SAFETY (the caller): SSE2.
        unsafe {
            let [a, b, c, d] = v;
            let (a, b) = (_mm_cmpeq_epi8(a.0, m.0), _mm_cmpeq_epi8(b.0, m.0));
            let (c, d) = (_mm_cmpeq_epi8(c.0, m.0), _mm_cmpeq_epi8(d.0, m.0));
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) != 0
        }
    }
}

/// A 32-byte AVX2 vector.
#[cfg(not(feature = "small-code"))]
#[derive(Clone, Copy)]
struct Avx2(__m256i);

#[cfg(not(feature = "small-code"))]
impl Bytes for Avx2 {
    const LANES: usize = 32;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY (the caller): 32 readable bytes, AVX2.
        Self(unsafe { _mm256_loadu_si256(p.cast()) })
    }
    #[inline(always)]
    unsafe fn pick<D: Direction>(a: Self, b: Self) -> Self {
        // SAFETY (the caller): AVX2.
        Self(unsafe {
            if D::IS_MIN {
                _mm256_min_epu8(a.0, b.0)
            } else {
                _mm256_max_epu8(a.0, b.0)
            }
        })
    }
    #[inline(always)]
    unsafe fn spread<D: Direction>(self) -> Self {
        // SAFETY (the caller): AVX2.
        unsafe {
            let low = Sse2(_mm256_castsi256_si128(self.0));
            let high = Sse2(_mm256_extracti128_si256::<1>(self.0));
            let v = spread128::<D>(Sse2::pick::<D>(low, high).0);
            Self(_mm256_broadcastb_epi8(v))
        }
    }
    #[inline(always)]
    unsafe fn equal_bits(self, m: Self) -> u64 {
        // SAFETY (the caller): AVX2.
        unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi8(self.0, m.0)) as u32 as u64 }
    }
    #[inline(always)]
    unsafe fn any_equal(v: [Self; 4], m: Self) -> bool {
        // SAFETY (the caller): AVX2.
        unsafe {
            let [a, b, c, d] = v;
            let (a, b) = (_mm256_cmpeq_epi8(a.0, m.0), _mm256_cmpeq_epi8(b.0, m.0));
            let (c, d) = (_mm256_cmpeq_epi8(c.0, m.0), _mm256_cmpeq_epi8(d.0, m.0));
            _mm256_movemask_epi8(_mm256_or_si256(
                _mm256_or_si256(a, b),
                _mm256_or_si256(c, d),
            )) != 0
        }
    }
}

/// A 64-byte AVX-512 vector.
#[cfg(not(feature = "small-code"))]
#[derive(Clone, Copy)]
struct Avx512(__m512i);

#[cfg(not(feature = "small-code"))]
impl Bytes for Avx512 {
    const LANES: usize = 64;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY (the caller): 64 readable bytes, AVX-512 F.
        Self(unsafe { _mm512_loadu_si512(p.cast()) })
    }
    #[inline(always)]
    unsafe fn pick<D: Direction>(a: Self, b: Self) -> Self {
        // SAFETY (the caller): AVX-512 BW.
        Self(unsafe {
            if D::IS_MIN {
                _mm512_min_epu8(a.0, b.0)
            } else {
                _mm512_max_epu8(a.0, b.0)
            }
        })
    }
    #[inline(always)]
    unsafe fn spread<D: Direction>(self) -> Self {
        // SAFETY (the caller): AVX-512 F and BW, AVX2.
        unsafe {
            let low = Avx2(_mm512_castsi512_si256(self.0));
            let high = Avx2(_mm512_extracti64x4_epi64::<1>(self.0));
            let v = Avx2::pick::<D>(low, high).spread::<D>().0;
            Self(_mm512_set1_epi8(
                _mm_cvtsi128_si32(_mm256_castsi256_si128(v)) as i8,
            ))
        }
    }
    #[inline(always)]
    unsafe fn equal_bits(self, m: Self) -> u64 {
        // SAFETY (the caller): AVX-512 BW.
        unsafe { _mm512_cmpeq_epi8_mask(self.0, m.0) }
    }
    #[inline(always)]
    unsafe fn any_equal(v: [Self; 4], m: Self) -> bool {
        // SAFETY (the caller): AVX-512 BW.
        unsafe {
            let [a, b, c, d] = v;
            (a.equal_bits(m) | b.equal_bits(m) | c.equal_bits(m) | d.equal_bits(m)) != 0
        }
    }
}

/// The four vectors at byte `at` of `x`.
///
/// # Safety
/// `at + 4 * V::LANES <= x.len()`; the CPU has `V`'s features.
#[inline(always)]
unsafe fn load4<V: Bytes>(x: &[u8], at: usize) -> [V; 4] {
    debug_assert!(at + 4 * V::LANES <= x.len());
    // SAFETY (the caller): the four vectors lie within `x`.
    unsafe {
        let p = x.as_ptr().add(at);
        [
            V::load(p),
            V::load(p.add(V::LANES)),
            V::load(p.add(2 * V::LANES)),
            V::load(p.add(3 * V::LANES)),
        ]
    }
}

/// The first (the last, with `LAST`) position in the four vectors at byte `at` of `x` whose
/// byte equals `m`'s, if any.
///
/// # Safety
/// As [`load4`].
#[inline(always)]
unsafe fn find4<V: Bytes, const LAST: bool>(x: &[u8], at: usize, m: V) -> Option<usize> {
    // SAFETY (the caller): as `load4`.
    unsafe {
        let v = load4::<V>(x, at);
        if !V::any_equal(v, m) {
            return None;
        }
        // (No closure here: a closure is not compiled with the caller's target features.)
        let [a, b, c, d] = v;
        let bits = [
            a.equal_bits(m),
            b.equal_bits(m),
            c.equal_bits(m),
            d.equal_bits(m),
        ];
        if V::LANES <= 32 {
            // The four vectors' bits in one word: the position without a branch on which
            // vector holds it (a mispredicted branch a row made rows of 64 to 127 2.5x slower).
            let l = V::LANES as u32;
            let all = u128::from(bits[0])
                | u128::from(bits[1]) << l
                | u128::from(bits[2]) << (2 * l)
                | u128::from(bits[3]) << (3 * l);
            return Some(if LAST {
                at + 127 - all.leading_zeros() as usize
            } else {
                at + all.trailing_zeros() as usize
            });
        }
        if LAST {
            let k = bits.iter().rposition(|&b| b != 0)?;
            Some(at + k * V::LANES + highest_bit(bits[k]))
        } else {
            let k = bits.iter().position(|&b| b != 0)?;
            Some(at + k * V::LANES + bits[k].trailing_zeros() as usize)
        }
    }
}

/// [`arg_row`] in vectors `V`.
///
/// # Safety
/// The CPU has `V`'s features.
#[inline(always)]
unsafe fn arg_row_in<V: Bytes, D: Direction, const LAST: bool>(x: &[u8]) -> Option<usize> {
    let step = 4 * V::LANES;
    let tail_at = x.len().checked_sub(step)?;
    let steps = x.len() / step;
    // SAFETY: every `load4`/`find4` below is at `s * step` with `s < steps` or at `tail_at`,
    // so its four vectors lie within `x`; the CPU has `V`'s features (the caller).
    unsafe {
        // The last four vectors (overlapping the whole steps: repeats change neither the
        // extreme nor which position is first or last) start the four chains.
        let [mut a, mut b, mut c, mut d] = load4::<V>(x, tail_at);
        for s in 0..steps {
            let [v, w, y, z] = load4::<V>(x, s * step);
            (a, b, c, d) = (
                V::pick::<D>(a, v),
                V::pick::<D>(b, w),
                V::pick::<D>(c, y),
                V::pick::<D>(d, z),
            );
        }
        let m = V::pick::<D>(V::pick::<D>(a, b), V::pick::<D>(c, d)).spread::<D>();
        if LAST {
            if let Some(i) = find4::<V, true>(x, tail_at, m) {
                return Some(i);
            }
            for s in (0..steps).rev() {
                if let Some(i) = find4::<V, true>(x, s * step, m) {
                    return Some(i);
                }
            }
        } else {
            for s in 0..steps {
                if let Some(i) = find4::<V, false>(x, s * step, m) {
                    return Some(i);
                }
            }
            if let Some(i) = find4::<V, false>(x, tail_at, m) {
                return Some(i);
            }
        }
    }
    // The extreme is one of the row's bytes: not reached.
    None
}

/// [`arg_row_in`] in AVX2 vectors.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(not(feature = "small-code"))]
#[target_feature(enable = "avx2")]
unsafe fn arg_row_avx2<D: Direction, const LAST: bool>(x: &[u8]) -> Option<usize> {
    // SAFETY: the caller.
    unsafe { arg_row_in::<Avx2, D, LAST>(x) }
}

/// [`arg_row_in`] in AVX-512 vectors.
///
/// # Safety
/// The CPU has AVX2 and AVX-512 F and BW.
#[cfg(not(feature = "small-code"))]
#[target_feature(enable = "avx2,avx512f,avx512bw")]
unsafe fn arg_row_avx512<D: Direction, const LAST: bool>(x: &[u8]) -> Option<usize> {
    // SAFETY: the caller.
    unsafe { arg_row_in::<Avx512, D, LAST>(x) }
}

/// The index of the first (the last, with `LAST`) extreme of `x` in direction `D`; `None` for
/// rows shorter than four vectors of the width the CPU runs (the caller's kernel takes them).
#[inline(always)]
pub(super) fn arg_row<D: Direction, const LAST: bool>(x: &[u8]) -> Option<usize> {
    #[cfg(not(feature = "small-code"))]
    {
        use crate::kernels::isa;
        let level = isa::level();
        if level >= isa::AVX512 && x.len() >= 4 * Avx512::LANES {
            // SAFETY: `level` found AVX2 and AVX-512 F and BW.
            return unsafe { arg_row_avx512::<D, LAST>(x) };
        }
        if level >= isa::AVX2 && x.len() >= 4 * Avx2::LANES {
            // SAFETY: `level` found AVX2.
            return unsafe { arg_row_avx2::<D, LAST>(x) };
        }
    }
    // SAFETY: SSE2 is part of the x86-64 baseline this module is compiled for.
    unsafe { arg_row_in::<Sse2, D, LAST>(x) }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::kernels::test_util::{naive_arg, Lcg};
    use crate::{Max, Min};
    use std::vec::Vec;

    fn check<D: Direction>(x: &[u8]) {
        let got = arg_row::<D, false>(x);
        let got_last = arg_row::<D, true>(x);
        if x.len() < 4 * Sse2::LANES {
            assert_eq!((got, got_last), (None, None));
            return;
        }
        assert_eq!(got, Some(naive_arg::<u8, D>(x, false)), "{} first", x.len());
        assert_eq!(
            got_last,
            Some(naive_arg::<u8, D>(x, true)),
            "{} last",
            x.len()
        );
    }

    /// Rows of every length around the steps of each width, drawn from a narrow range (many
    /// ties) and a wide one, with the extreme planted at the ends, in the middle and inside the
    /// overlapping tail; each width the CPU runs (levels 0 to 2 of [`crate::kernels::isa`]; the
    /// CPU's own level caps them, and with `small-code` every pass is the SSE2 form).
    #[test]
    fn rows_of_bytes_match_the_definition() {
        for cap in [0u8, 1, 2] {
            #[cfg(not(feature = "small-code"))]
            crate::kernels::isa::HERE.with(|h| h.set(Some(cap)));
            #[cfg(feature = "small-code")]
            let _ = cap;
            let mut g = Lcg(11);
            for n in (0..300usize).chain([511, 512, 513, 1000, 4099]) {
                for span in [3u64, 256] {
                    let mut x: Vec<u8> = (0..n).map(|_| (g.next() % span) as u8).collect();
                    check::<Max>(&x);
                    check::<Min>(&x);
                    for at in [0, n / 2, n.saturating_sub(1), n.saturating_sub(40), 200] {
                        if let Some(v) = x.get_mut(at) {
                            *v = 255;
                        }
                        check::<Max>(&x);
                        if let Some(v) = x.get_mut(at) {
                            *v = 0;
                        }
                        check::<Min>(&x);
                    }
                }
            }
            // All equal: the first and the last position.
            let x = [7u8; 300];
            assert_eq!(arg_row::<Max, false>(&x), Some(0));
            assert_eq!(arg_row::<Min, true>(&x), Some(299));
        }
        #[cfg(not(feature = "small-code"))]
        crate::kernels::isa::HERE.with(|h| h.set(None));
    }
}
