//! Arg-reductions of short rows of 1- and 2-byte elements in one pass: each element's order key
//! widened with its position in the row as the low byte (or word) below it, so that the
//! extreme of the widened lanes is both the row's extreme and the position the tie rule picks.
//! The rows are folded by [`super::block::tree`] in lanes of twice the width (`C`), rows of
//! `C`'s lane count to a block, and read once: no second pass over each row for its position.
//!
//! The position's tag is the position itself where the smaller wins a tie (ArgMin of the first,
//! ArgMax of the last) and its complement (`255 - j`, `65535 - j`) where the larger does, so
//! that an unsigned max or min of the widened lanes breaks ties as the rule says. Rows hold at
//! most 256 elements ([`super::ARG_MAX_BYTES`] bytes of 1-byte elements, [`super::MAX_BYTES`]
//! of 2-byte ones), so positions fit.

use core::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_add_epi8, _mm256_and_si256, _mm256_castsi256_si128,
    _mm256_cvtepu16_epi64, _mm256_cvtepu32_epi64, _mm256_extracti128_si256, _mm256_or_si256,
    _mm256_packus_epi16, _mm256_packus_epi32, _mm256_permute4x64_epi64, _mm256_set1_epi16,
    _mm256_set1_epi32, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_slli_epi32,
    _mm256_srli_epi16, _mm256_srli_epi32, _mm256_storeu_si256, _mm256_unpackhi_epi8,
    _mm256_unpacklo_epi8, _mm256_xor_si256, _mm_srli_si128, _mm_storeu_si128,
};

use super::block::{arg_blocks, tree, Pairs};
use super::exact_rows;
use super::lanes::{any_nan, halves, key, load, load2, pick, track, unkey, Lanes};
use crate::kernels::index::{index, Index};
use crate::{Direction, Element};

/// The tags of a load's elements in the widened lanes: `.0` the even elements', `.1` the odd.
#[derive(Clone, Copy)]
struct Tags(__m256i, __m256i);

/// A block's row shape for elements of lanes `K` (1 or 2 bytes) widened into lanes `C` (2 or
/// 4 bytes, unsigned), with the tags of each load's positions.
pub(super) struct Tagged<K, C> {
    /// Elements per row.
    n: usize,
    /// Whether tags are positions (else their complements).
    forward: bool,
    /// Tags of a vector loaded from a row's start.
    first: Tags,
    /// Tags of a vector loaded to a row's end (rows of a vector or more).
    last: Tags,
    /// What the tags of a vector loaded a vector further in add.
    step: __m256i,
    /// Tags of the first 16 bytes of a row (in each half); for rows under 16 bytes the
    /// widened identity's past the row.
    head: Tags,
    /// Tags of the last 16 bytes of a row of 16 to 32 bytes (in each half).
    tail: Tags,
    /// The row's lanes (all ones) of a row under 16 bytes.
    keep: __m256i,
    /// The widened identity's key where `keep` is clear (0 for a max, all ones for a min), zero
    /// where it is set.
    fill: __m256i,
    _k: core::marker::PhantomData<(K, C)>,
}

impl<K: Lanes, C: Lanes> Tagged<K, C> {
    /// The largest tag.
    const TOP: usize = if K::SIZE == 1 { 0xff } else { 0xffff };

    /// The shape of rows of `n` elements for direction `D` and the tie rule `LAST`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn new<D: Direction, const LAST: bool>(n: usize) -> Self {
        crate::kernels::shared::align_frame();
        debug_assert!(C::SIZE == 2 * K::SIZE && !C::SIGNED && n <= Self::TOP + 1);
        let forward = D::IS_MIN != LAST;
        let (per, l) = (16 / K::SIZE, K::LANES);
        // Tags and identities as 16 bits (at most `TOP`): six tables of 32 on the stack.
        let tag = |j: usize| (if forward { j } else { Self::TOP - j }) as u16;
        // The widened identity: 0 for a max, all ones for a min, in the key and the tag alike.
        let none = if D::IS_MIN { Self::TOP as u16 } else { 0 };
        let (mut first, mut last, mut head, mut tail) = ([0u16; 32], [0; 32], [0; 32], [0; 32]);
        let (mut keep, mut fill) = ([0; 32], [0; 32]);
        for j in 0..l {
            // Element `i` of the half, in a load of 16 bytes.
            let i = j % per;
            first[j] = tag(j);
            last[j] = if n >= l { tag(n - l + j) } else { none };
            head[j] = if i < n { tag(i) } else { none };
            tail[j] = if n >= per { tag(n - per + i) } else { none };
            keep[j] = if i < n { Self::TOP as u16 } else { 0 };
            fill[j] = if i < n { 0 } else { none };
        }
        let step = if forward { l } else { l.wrapping_neg() };
        let step = if K::SIZE == 1 {
            _mm256_set1_epi8(step as i8)
        } else {
            _mm256_set1_epi32(step as i32)
        };
        Self {
            n,
            forward,
            first: Self::tags(&first),
            last: Self::tags(&last),
            step,
            head: Self::tags(&head),
            tail: Self::tags(&tail),
            keep: Self::vector::<K>(&keep, |j| j),
            fill: Self::vector::<K>(&fill, |j| j),
            _k: core::marker::PhantomData,
        }
    }

    /// The tags `t` of a load's elements: for 1-byte elements one byte each in `.0`, as the
    /// elements lie (interleaved with them by [`Self::widen`]); for 2-byte elements split into
    /// the even and the odd elements' widened lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn tags(t: &[u16; 32]) -> Tags {
        if K::SIZE == 1 {
            let v = Self::vector::<K>(t, |j| j);
            return Tags(v, v);
        }
        Tags(
            Self::vector::<C>(t, |j| 2 * j),
            Self::vector::<C>(t, |j| 2 * j + 1),
        )
    }

    /// A vector of lanes `L` whose lane `j` holds `v[at(j)]` (below 256 for 1-byte lanes).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn vector<L: Lanes>(v: &[u16; 32], at: fn(usize) -> usize) -> __m256i {
        let mut b = [0u8; 32];
        for (j, o) in b.chunks_exact_mut(L::SIZE).enumerate() {
            let x = u32::from(v.get(at(j)).copied().unwrap_or(0));
            o.copy_from_slice(&x.to_le_bytes()[..L::SIZE]);
        }
        // SAFETY: 32 bytes.
        unsafe { load(&b, 0) }
    }

    /// The unsigned order keys of `v`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn keys(v: __m256i) -> __m256i {
        Self::flip(key::<K>(v))
    }

    /// Signed keys `k` to unsigned ones of the same order and back (the sign bit flipped);
    /// unsigned keys as they are.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn flip(k: __m256i) -> __m256i {
        match (K::SIGNED, K::SIZE) {
            (false, _) => k,
            (true, 1) => _mm256_xor_si256(k, _mm256_set1_epi8(i8::MIN)),
            (true, _) => _mm256_xor_si256(k, _mm256_set1_epi16(i16::MIN)),
        }
    }

    /// Keys `k` widened with tags `t`, the even elements' lanes and the odd's folded. Bytes
    /// are interleaved with their tags (two shuffles, which measured faster for them than
    /// shifts); 2-byte keys moved above their tags in place (the odd) or shifted up into them
    /// (the even), without shuffles (which measured faster for them).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn widen<D: Direction>(t: Tags, k: __m256i) -> __m256i {
        if K::SIZE == 1 {
            return pick::<C, D>(_mm256_unpacklo_epi8(t.0, k), _mm256_unpackhi_epi8(t.0, k));
        }
        let even = _mm256_slli_epi32::<16>(k);
        let odd = _mm256_and_si256(k, _mm256_set1_epi32(0xffff_0000u32 as i32));
        pick::<C, D>(_mm256_or_si256(even, t.0), _mm256_or_si256(odd, t.1))
    }

    /// The row from byte `at` of `x` (more than a vector) widened and folded into one vector;
    /// NaN lanes (f16 and bf16) flagged into `nan`.
    ///
    /// # Safety
    /// The row is inside `x` and holds more than a vector's elements.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn row<D: Direction>(&self, x: &[u8], at: usize, nan: &mut __m256i) -> __m256i {
        let (n, l) = (self.n, K::LANES);
        // SAFETY (each load): `n > l` (the caller's), the vector within the row.
        let (first, last) = unsafe { (load(x, at), load(x, at + (n - l) * K::SIZE)) };
        if K::INF != 0 {
            *nan = track::<K>(track::<K>(*nan, first), last);
        }
        let mut a = pick::<C, D>(
            Self::widen::<D>(self.first, Self::keys(first)),
            Self::widen::<D>(self.last, Self::keys(last)),
        );
        // Rows over two vectors: the vectors between.
        let mut t = self.first;
        let mut k = l;
        while k + l < n {
            t = Tags(self.add(t.0), self.add(t.1));
            let v = unsafe { load(x, at + k * K::SIZE) };
            if K::INF != 0 {
                *nan = track::<K>(*nan, v);
            }
            a = pick::<C, D>(a, Self::widen::<D>(t, Self::keys(v)));
            k += l;
        }
        a
    }

    /// Tags `t` a vector further in.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn add(&self, t: __m256i) -> __m256i {
        if K::SIZE == 1 {
            _mm256_add_epi8(t, self.step)
        } else {
            _mm256_add_epi32(t, self.step)
        }
    }

    /// The positions in the widened extremes `m` (row `r` in lane `r`) into `y`: INT64
    /// indices four to a vector, others one at a time.
    ///
    /// # Safety
    /// `y` holds `C::LANES` indices.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn positions<I: Index>(&self, m: __m256i, y: &mut [I]) {
        debug_assert_eq!(y.len(), C::LANES);
        // The tag, complemented back where it is one (`TOP - t` is `t ^ TOP`).
        let top = if C::SIZE == 2 {
            _mm256_set1_epi16(0xff)
        } else {
            _mm256_set1_epi32(0xffff)
        };
        let tag = _mm256_and_si256(m, top);
        let at = if self.forward {
            tag
        } else {
            _mm256_xor_si256(tag, top)
        };
        if let Some(y) = I::as_int64(y) {
            let (lo, hi) = (
                _mm256_castsi256_si128(at),
                _mm256_extracti128_si256::<1>(at),
            );
            let out = y.as_mut_ptr().cast::<__m256i>();
            // SAFETY: `y` is `C::LANES` INT64s: 64 bytes (8 lanes of 4 bytes) or 128 (16 of 2).
            unsafe {
                if C::SIZE == 4 {
                    _mm256_storeu_si256(out, _mm256_cvtepu32_epi64(lo));
                    _mm256_storeu_si256(out.add(1), _mm256_cvtepu32_epi64(hi));
                } else {
                    _mm256_storeu_si256(out, _mm256_cvtepu16_epi64(lo));
                    _mm256_storeu_si256(out.add(1), _mm256_cvtepu16_epi64(_mm_srli_si128::<8>(lo)));
                    _mm256_storeu_si256(out.add(2), _mm256_cvtepu16_epi64(hi));
                    _mm256_storeu_si256(out.add(3), _mm256_cvtepu16_epi64(_mm_srli_si128::<8>(hi)));
                }
            }
            return;
        }
        let mut wide = [0u8; 32];
        // SAFETY: 32 bytes.
        unsafe { _mm256_storeu_si256(wide.as_mut_ptr().cast(), at) };
        for (o, w) in y.iter_mut().zip(wide.chunks_exact(C::SIZE)) {
            // Tags are at most 16 bits, in the lane's low bytes.
            *o = index::<I>(usize::from(u16::from_le_bytes([w[0], w[1]])));
        }
    }

    /// The elements in the widened extremes `m` (row `r` in lane `r`) into `v`.
    ///
    /// # Safety
    /// `v` holds `C::LANES` elements of `K`'s type (16 bytes).
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn values<T>(&self, m: __m256i, v: &mut [T]) {
        debug_assert_eq!(size_of_val(v), 16);
        // The keys down into their lanes' low halves, packed (within 128-bit halves), the
        // halves' first 8 bytes together.
        let k = if C::SIZE == 2 {
            let k = _mm256_srli_epi16::<8>(m);
            _mm256_packus_epi16(k, k)
        } else {
            let k = _mm256_srli_epi32::<16>(m);
            _mm256_packus_epi32(k, k)
        };
        let k = _mm256_permute4x64_epi64::<0b00_00_10_00>(k);
        let k = Self::flip(k);
        let e = if K::INF != 0 { unkey(k) } else { k };
        // SAFETY: `v` is 16 bytes of elements of `T` (each an element's bits: 0 or 1 for
        // bool, a number's for f16 and bf16).
        unsafe { _mm_storeu_si128(v.as_mut_ptr().cast(), _mm256_castsi256_si128(e)) };
    }
}

impl<K: Lanes, C: Lanes> Pairs for Tagged<K, C> {
    /// The rows widened: rows of 32 bytes or less read 16 bytes at a time straight into the
    /// halves (from the start and from the end, which overlap: their tags are the same
    /// positions'), longer rows a vector at a time, then folded across the halves.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn pair<D: Direction>(
        &self,
        x: &[u8],
        a: usize,
        b: usize,
        nan: &mut __m256i,
    ) -> __m256i {
        let bytes = self.n * K::SIZE;
        let (a, b) = (a * bytes, b * bytes);
        if bytes > 32 {
            // SAFETY: the caller's reach.
            let (a, b) = unsafe { (self.row::<D>(x, a, nan), self.row::<D>(x, b, nan)) };
            return halves::<C, D>(a, b);
        }
        // SAFETY: 16 bytes from each row's start (within the reach), and for rows of 16 bytes
        // or more 16 bytes to each row's end.
        let lo = unsafe { load2(x, a, b) };
        if bytes < 16 {
            if K::INF != 0 {
                *nan = track::<K>(*nan, _mm256_and_si256(lo, self.keep));
            }
            let k = _mm256_or_si256(_mm256_and_si256(Self::keys(lo), self.keep), self.fill);
            return Self::widen::<D>(self.head, k);
        }
        let hi = unsafe { load2(x, a + bytes - 16, b + bytes - 16) };
        if K::INF != 0 {
            *nan = track::<K>(track::<K>(*nan, lo), hi);
        }
        pick::<C, D>(
            Self::widen::<D>(self.head, Self::keys(lo)),
            Self::widen::<D>(self.tail, Self::keys(hi)),
        )
    }
}

/// [`super::arg_rows`] for elements of lanes `K` (1 or 2 bytes) widened into `C`: blocks of
/// `C::LANES` rows; the rows done.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; rows of `n` hold at most 256 elements.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn arg_in<K, C, D, const LAST: bool, const VALUES: bool, T, I>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> usize
where
    K: Lanes,
    C: Lanes,
    D: Direction,
    T: Element,
    I: Index,
{
    crate::kernels::shared::align_frame();
    let Some(xb) = super::bytes(x) else {
        return 0;
    };
    let shape = Tagged::<K, C>::new::<D, LAST>(n);
    let (l, row) = (C::LANES, n * K::SIZE);
    let count = arg_blocks::<VALUES>(l, row, xb.len(), y.len(), v.len());
    for b in 0..count {
        let (Some(xs), Some(ys), Some(rs)) = (
            xb.get(b * l * row..),
            y.get_mut(b * l..(b + 1) * l),
            x.get(b * l * n..(b + 1) * l * n),
        ) else {
            return b * l;
        };
        let vs = v.get_mut(b * l..(b + 1) * l).unwrap_or_default();
        let mut nan = _mm256_setzero_si256();
        // SAFETY: `blocks` kept the block's reach inside `x`.
        let m = unsafe { tree::<C, D, _>(&shape, xs, &mut nan) };
        if any_nan::<K>(nan) {
            exact_rows::<T, D, LAST, I>(rs, ys, vs, n);
            continue;
        }
        // SAFETY (both): the CPU has AVX2 (this function's); `ys` and `vs` are `l` elements.
        unsafe { shape.positions(m, ys) };
        if VALUES && vs.len() == l {
            unsafe { shape.values(m, vs) };
        }
    }
    count * l
}
