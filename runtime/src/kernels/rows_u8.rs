//! The arg-reduction of a contiguous row of `u8` in SSE2 vectors (x86-64 only): the extreme by
//! one `pmaxub`/`pminub` per 16 bytes in four independent chains, then its first (last)
//! position by equality, 64 bytes at a time, one bit per byte. Bytes have no NaN, so the
//! extreme is exact and an element is it exactly when it equals it.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_min_epu8, _mm_movemask_epi8,
    _mm_or_si128, _mm_set1_epi8, _mm_srli_si128,
};

use super::shared::highest_bit;
use crate::Direction;

/// Bytes per step: four vectors.
const STEP: usize = 64;

// Safe wrappers of the SSE2 intrinsics used here. SAFETY (every block below): this module is
// only compiled where `target_feature = "sse2"` is on (the x86-64 baseline), so the CPU has
// these instructions; they take and return values only.

/// The sixteen bytes of `x`.
#[inline(always)]
fn load(x: &[u8; 16]) -> __m128i {
    // SAFETY: `x` holds sixteen bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(x.as_ptr().cast()) }
}

/// The four vectors of a step.
#[inline(always)]
fn load4(x: &[u8; STEP]) -> [__m128i; 4] {
    let (v, _) = x.as_chunks::<16>();
    match v {
        [a, b, c, d] => [load(a), load(b), load(c), load(d)],
        // Never reached: a step is four vectors.
        _ => [splat(0); 4],
    }
}

#[inline(always)]
fn splat(b: u8) -> __m128i {
    unsafe { _mm_set1_epi8(b as i8) }
}

/// Byte by byte, the more extreme of `a` and `b` in direction `D`.
#[inline(always)]
fn pick<D: Direction>(a: __m128i, b: __m128i) -> __m128i {
    unsafe {
        if D::IS_MIN {
            _mm_min_epu8(a, b)
        } else {
            _mm_max_epu8(a, b)
        }
    }
}

/// One bit per byte of a step: where it equals `m`'s bytes.
#[inline(always)]
fn equal_bits(v: [__m128i; 4], m: __m128i) -> u64 {
    unsafe {
        let [a, b, c, d] = v.map(|v| _mm_movemask_epi8(_mm_cmpeq_epi8(v, m)) as u32 as u64);
        a | b << 16 | c << 32 | d << 48
    }
}

/// Whether any byte of the step equals `m`'s (one mask for the four vectors).
#[inline(always)]
fn any_equal(v: [__m128i; 4], m: __m128i) -> bool {
    unsafe {
        let [a, b, c, d] = v.map(|v| _mm_cmpeq_epi8(v, m));
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) != 0
    }
}

/// The extreme of the sixteen bytes of `v`, in every byte.
#[inline(always)]
fn spread<D: Direction>(v: __m128i) -> __m128i {
    let v = unsafe {
        let v = pick::<D>(v, _mm_srli_si128::<8>(v));
        let v = pick::<D>(v, _mm_srli_si128::<4>(v));
        let v = pick::<D>(v, _mm_srli_si128::<2>(v));
        pick::<D>(v, _mm_srli_si128::<1>(v))
    };
    // Byte 0 holds the extreme.
    splat(low_byte(v))
}

/// Byte 0 of `v`.
#[inline(always)]
fn low_byte(v: __m128i) -> u8 {
    unsafe { core::arch::x86_64::_mm_cvtsi128_si32(v) as u8 }
}

/// The index of the first (the last, with `LAST`) extreme of `x` in direction `D`; `None` for
/// rows under 64 bytes (the caller's kernel takes them).
#[inline(always)]
pub(super) fn arg_row<D: Direction, const LAST: bool>(x: &[u8]) -> Option<usize> {
    let tail = x.last_chunk::<STEP>()?;
    let tail_at = x.len() - STEP;
    let (steps, _) = x.as_chunks::<STEP>();
    // The last 64 bytes (overlapping the whole steps: repeats change neither the extreme nor
    // which position is first or last) start the four chains.
    let [mut a, mut b, mut c, mut d] = load4(tail);
    for s in steps {
        let [v, w, y, z] = load4(s);
        (a, b, c, d) = (
            pick::<D>(a, v),
            pick::<D>(b, w),
            pick::<D>(c, y),
            pick::<D>(d, z),
        );
    }
    let m = spread::<D>(pick::<D>(pick::<D>(a, b), pick::<D>(c, d)));
    if LAST {
        let bits = equal_bits(load4(tail), m);
        if bits != 0 {
            return Some(tail_at + highest_bit(bits));
        }
        for (i, s) in steps.iter().enumerate().rev() {
            let v = load4(s);
            if any_equal(v, m) {
                return Some(i * STEP + highest_bit(equal_bits(v, m)));
            }
        }
    } else {
        for (i, s) in steps.iter().enumerate() {
            let v = load4(s);
            if any_equal(v, m) {
                return Some(i * STEP + equal_bits(v, m).trailing_zeros() as usize);
            }
        }
        let bits = equal_bits(load4(tail), m);
        if bits != 0 {
            return Some(tail_at + bits.trailing_zeros() as usize);
        }
    }
    // The extreme is one of the row's bytes: not reached.
    None
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
        if x.len() < STEP {
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

    /// Rows of every length around the steps, drawn from a narrow range (many ties) and a wide
    /// one, with the extreme planted at the ends and inside the overlapping tail.
    #[test]
    fn rows_of_bytes_match_the_definition() {
        let mut g = Lcg(11);
        for n in (0..200usize).chain([255, 256, 257, 1000, 4099]) {
            for span in [3u64, 256] {
                let mut x: Vec<u8> = (0..n).map(|_| (g.next() % span) as u8).collect();
                check::<Max>(&x);
                check::<Min>(&x);
                for at in [0, n / 2, n.saturating_sub(1), n.saturating_sub(40)] {
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
        let x = [7u8; 130];
        assert_eq!(arg_row::<Max, false>(&x), Some(0));
        assert_eq!(arg_row::<Min, true>(&x), Some(129));
    }
}
