//! A block of [`super`]'s rows: each row folded into a vector, the block's extremes by the
//! tree of [`super::lanes`], and each row's position of its extreme.

use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_blendv_epi8, _mm256_or_si256, _mm256_setzero_si256,
};

use super::lanes::{
    halves, hits, identity, key, load, load2, pick, track, units4, units8, units_small, Lanes,
};
use super::ARG_MAX_BYTES;
use crate::Direction;

/// A block's row shape: rows of `n` elements, and for rows shorter than a vector, which lanes
/// are the row's.
pub(super) struct Block<K> {
    /// Elements per row.
    n: usize,
    /// The row's lanes (all ones) of a row shorter than a vector.
    keep: __m256i,
    /// The identity where `keep` is clear, zero where it is set.
    fill: __m256i,
    _k: core::marker::PhantomData<K>,
}

impl<K: Lanes> Block<K> {
    /// The shape of rows of `n` elements.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn new<D: Direction>(n: usize) -> Self {
        // Rows under 16 bytes are read 16 bytes at a time, one in each half of a vector.
        let bytes = n * K::SIZE;
        let mut keep = [0u8; 32];
        for (i, k) in keep.iter_mut().enumerate() {
            *k = if i % 16 < bytes { 0xff } else { 0 };
        }
        // SAFETY: 32 bytes.
        let keep = unsafe { load(&keep, 0) };
        let fill = _mm256_blendv_epi8(identity::<K, D>(), _mm256_setzero_si256(), keep);
        Self {
            n,
            keep,
            fill,
            _k: core::marker::PhantomData,
        }
    }

    /// The row from byte `at` of `x` (a vector or longer) folded into one vector of keys; NaN
    /// lanes (f16 and bf16) flagged into `nan`.
    ///
    /// # Safety
    /// The row is inside `x` and holds [`Lanes::LANES`] elements or more.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn row<D: Direction>(&self, x: &[u8], at: usize, nan: &mut __m256i) -> __m256i {
        let (n, l) = (self.n, K::LANES);
        // SAFETY (each load): `n >= l` (the caller's), the vector within the row.
        let last = unsafe { load(x, at + (n - l) * K::SIZE) };
        let first = unsafe { load(x, at) };
        if K::INF != 0 {
            *nan = track::<K>(track::<K>(*nan, first), last);
        }
        let mut a = pick::<K, D>(key::<K>(first), key::<K>(last));
        // Rows over two vectors: the vectors between.
        let mut k = l;
        while k + l < n {
            let v = unsafe { load(x, at + k * K::SIZE) };
            if K::INF != 0 {
                *nan = track::<K>(*nan, v);
            }
            a = pick::<K, D>(a, key::<K>(v));
            k += l;
        }
        a
    }

    /// The position of the first (last, with `LAST`) element of row `r` of the block at the
    /// start of `x` whose key is `m`'s (in every lane).
    ///
    /// # Safety
    /// `x` holds the block's [`reach`].
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn position<const LAST: bool>(
        &self,
        x: &[u8],
        r: usize,
        m: __m256i,
    ) -> usize {
        let (n, l, s) = (self.n, K::LANES, K::SIZE);
        let at = r * n * s;
        let bytes = n * s;
        // SAFETY (each load): as in `row`.
        let byte = if n < l {
            // 16 bytes from the start (the row's, then any past it) and 16 to the end (for
            // rows under 16 bytes, the same): the end's bits moved to their place.
            let v = unsafe { load2(x, at, at + bytes.max(16) - 16) };
            let both = hits::<K>(v, m);
            let low = if bytes < 16 {
                (1u32 << bytes) - 1
            } else {
                u32::MAX
            };
            let bits = ((both & 0xffff) | (both >> 16) << (bytes.max(16) - 16)) & low;
            if LAST {
                31 - bits.leading_zeros() as usize
            } else {
                bits.trailing_zeros() as usize
            }
        } else if bytes <= 64 {
            // Two vectors, which overlap unless the row is 64 bytes: one word.
            let end = u64::from(hits::<K>(unsafe { load(x, at + bytes - 32) }, m));
            let start = u64::from(hits::<K>(unsafe { load(x, at) }, m));
            let bits = start | end << (bytes - 32);
            if LAST {
                63 - bits.leading_zeros() as usize
            } else {
                bits.trailing_zeros() as usize
            }
        } else {
            // Up to eight vectors, the last from the row's end: each one's bits kept, and one
            // bit per vector that has a hit; the vector is the first (last) of those, without
            // a branch. A hit in the overlap of the last two is in both, found in the first.
            let last = (bytes - 1) / 32;
            let mut masks = [0u32; ARG_MAX_BYTES / 32];
            let mut any = 0u32;
            for (c, mask) in masks.iter_mut().enumerate().take(last + 1) {
                let off = if c == last { bytes - 32 } else { c * 32 };
                *mask = hits::<K>(unsafe { load(x, at + off) }, m);
                any |= u32::from(*mask != 0) << c;
            }
            let c = if LAST {
                31 - any.leading_zeros() as usize
            } else {
                any.trailing_zeros() as usize
            };
            let mask = masks.get(c).copied().unwrap_or(0);
            let off = if c == last { bytes - 32 } else { c * 32 };
            off + if LAST {
                31 - mask.leading_zeros() as usize
            } else {
                mask.trailing_zeros() as usize
            }
        };
        byte / s
    }
}

/// A block's rows in pairs, each pair folded into one vector (see [`tree`]).
pub(super) trait Pairs {
    /// Rows `a` and `b` of the block at the start of `x`, each folded into 16 bytes of one
    /// half of a vector (`a`'s low, `b`'s high) in the lanes the tree reduces; NaN lanes (f16
    /// and bf16) flagged into `nan`.
    ///
    /// # Safety
    /// The CPU has AVX2; `x` holds the block's reach.
    unsafe fn pair<D: Direction>(&self, x: &[u8], a: usize, b: usize, nan: &mut __m256i)
        -> __m256i;
}

impl<K: Lanes> Pairs for Block<K> {
    /// The rows' keys: rows of 32 bytes or less are read 16 bytes at a time straight into
    /// the halves (from the start and from the end, which overlap); longer rows a vector at a
    /// time, then folded across the halves.
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
            return halves::<K, D>(a, b);
        }
        // SAFETY: 16 bytes from each row's start (within the reach), and for rows of 16 bytes
        // or more 16 bytes to each row's end.
        let lo = unsafe { load2(x, a, b) };
        if bytes < 16 {
            if K::INF != 0 {
                *nan = track::<K>(*nan, _mm256_and_si256(lo, self.keep));
            }
            return _mm256_or_si256(_mm256_and_si256(key::<K>(lo), self.keep), self.fill);
        }
        let hi = unsafe { load2(x, a + bytes - 16, b + bytes - 16) };
        if K::INF != 0 {
            *nan = track::<K>(track::<K>(*nan, lo), hi);
        }
        pick::<K, D>(key::<K>(lo), key::<K>(hi))
    }
}

/// The extremes of the [`Lanes::LANES`] rows (of lanes `K`) of the block at the start of `x`
/// that `p` reads, row `r` in lane `r`; NaN flagged into `nan` (then they are not the
/// contract's).
///
/// # Safety
/// `x` holds the block's reach.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tree<K: Lanes, D: Direction, P: Pairs>(
    src: &P,
    x: &[u8],
    nan: &mut __m256i,
) -> __m256i {
    crate::kernels::shared::align_frame();
    // Pair `i` takes rows `i` and `i + lanes / 2`: the tree keeps the pairs' order, the
    // first rows in the low halves, the second in the high. Written out call by call rather
    // than in loops over small arrays: inlined into a large caller, the loops were sometimes
    // left rolled, their arrays on the stack (ArgMax of `i16` rows of 25 over 2 MiB ran at
    // 110 us in one build of the benchmark matrix and 72 us in another, session 46).
    let half = K::LANES / 2;
    macro_rules! pair {
        ($i:expr) => {
            // SAFETY: the caller's reach, for rows below `lanes`.
            unsafe { src.pair::<D>(x, $i, $i + half, nan) }
        };
    }
    macro_rules! quad {
        ($i:expr) => {
            units8::<K, D>(pair!($i), pair!($i + 1))
        };
    }
    macro_rules! eight {
        ($i:expr) => {
            units4::<K, D>(quad!($i), quad!($i + 2))
        };
    }
    if K::SIZE == 4 {
        // Eight rows of 4-byte elements: one vector.
        return eight!(0);
    }
    let low = units_small::<K, D, 2>(eight!(0), eight!(4));
    if K::SIZE == 2 {
        // Sixteen rows of 2-byte elements: one vector.
        return low;
    }
    let high = units_small::<K, D, 2>(eight!(8), eight!(12));
    units_small::<K, D, 1>(low, high)
}

/// The bytes a block of `l` rows of `row` bytes reads from its start: its rows, and for rows
/// under 16 bytes 16 bytes from the last row's start.
#[inline(always)]
pub(super) fn reach(l: usize, row: usize) -> usize {
    (l - 1) * row + row.max(16)
}

/// How many whole blocks of `l` rows of `row` bytes there are in `rows` rows whose input is
/// `len` bytes, the last block's [`reach`] inside them.
#[inline(always)]
pub(super) fn blocks(l: usize, row: usize, rows: usize, len: usize) -> usize {
    let mut count = rows / l;
    while count > 0 && (count - 1) * l * row + reach(l, row) > len {
        count -= 1;
    }
    count
}

/// [`blocks`] for an arg-reduction of the `len` bytes of rows of `row` bytes into `ys`
/// positions (and `vs` values with `VALUES`): its rows bounded by every slice.
#[inline(always)]
pub(super) fn arg_blocks<const VALUES: bool>(
    l: usize,
    row: usize,
    len: usize,
    ys: usize,
    vs: usize,
) -> usize {
    let mut rows = (len / row).min(ys);
    if VALUES {
        rows = rows.min(vs);
    }
    blocks(l, row, rows, len)
}
