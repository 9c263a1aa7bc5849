//! Reductions over two axes that are not adjacent (`[P, K, N]` over the first and the last) of
//! 1-, 2- and 4-byte types in AVX2: the planes folded into a tile of rows in L1, element by
//! element and a vector at a time (the strided kernel's tiles, the planes as its rows), then the
//! tile's rows of `N` by the short-row kernel (one row per lane). The portable pass folded the
//! planes one element at a time (f16 and bf16 through f32).

use core::arch::x86_64::{__m256i, _mm256_setzero_si256, _mm256_storeu_si256};

use super::{
    any_nan, available, bytes, tiles, unkey, Halves, I16s, I32s, I8s, Lanes, U16s, U32s, U8s,
};
use crate::kernels::narrow::reduce_rows_short;
use crate::kernels::reduce::fold;
use crate::kernels::short_rows_avx2::MAX_BYTES;
use crate::{DType, Direction, Element};

/// Bytes of the tile the planes are folded into (on the stack, in L1 while its rows are read).
const TILE: usize = 4096;

/// Planes up to which each plane's rows go straight into `y` by the short-row kernel (no tile):
/// over 2 MiB, f16 `[2, 52428, 10]` over axes 0 and 2 took 0.63-0.65x the time of the tile's
/// two steps, `i16` `[3, 20000, 17]` 0.81-0.82x, f16/bf16 `[4, 52428, 5]` 0.9x, `u8`
/// `[4, 104857, 5]` 0.85-0.91x, `i32` `[4, 26214, 5]` 0.96-0.98x; f16 `[8, 26214, 5]` 1.0x.
const FEW_PLANES: usize = 4;

/// Rows a tile holds are a multiple of this (the short-row kernel's block of byte rows).
const ROW_BLOCK: usize = 32;

/// The tile, aligned for every element type of this kernel.
#[repr(C, align(32))]
struct Tile([u8; TILE]);

/// For `x` of `planes` planes of `y.len()` rows of `N` elements, folds every element of row `k`
/// of every plane into `y[k]` (a NaN in `y` stays, otherwise the row's first NaN in plane order
/// is the result). `true` if done, `false` (nothing written) where this kernel does not take
/// them (not one of its types, fewer than two planes, a plane under 32 bytes, rows over 512
/// bytes or bool rows over 128, no AVX2).
#[inline(always)]
pub(in crate::kernels) fn reduce_planes<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
) -> bool {
    if !available() {
        return false;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::U8 | DType::Bool => planes_in::<U8s, D, T, N>(y, x, planes),
            DType::I8 => planes_in::<I8s, D, T, N>(y, x, planes),
            DType::U16 => planes_in::<U16s, D, T, N>(y, x, planes),
            DType::I16 => planes_in::<I16s, D, T, N>(y, x, planes),
            DType::F16 => planes_in::<Halves<0x7c00>, D, T, N>(y, x, planes),
            DType::BF16 => planes_in::<Halves<0x7f80>, D, T, N>(y, x, planes),
            DType::U32 => planes_in::<U32s, D, T, N>(y, x, planes),
            DType::I32 => planes_in::<I32s, D, T, N>(y, x, planes),
        } else false)
    }
}

/// [`reduce_planes`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn planes_in<K: Lanes, D: Direction, T: Element, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
) -> bool {
    let row = N * K::SIZE;
    let plane = y.len() * N;
    let plane_bytes = plane * K::SIZE;
    if N == 0 || planes < 2 || plane_bytes < 32 {
        return false;
    }
    let Some(xb) = x.get(..planes * plane).and_then(bytes) else {
        return false;
    };
    let per = TILE / row / ROW_BLOCK * ROW_BLOCK;
    if per == 0 || (planes <= FEW_PLANES && T::DTYPE != DType::Bool) {
        // Rows over 128 bytes, or few planes (not bool, whose tile is kept): each plane's rows
        // straight into `y` (`y` is a small part of each plane, or read back few times) by the
        // short-row kernel, up to its 512 bytes. Longer rows, and bool (the
        // portable row fold stops at the first absorbing element), are left to the portable
        // pass.
        if row > MAX_BYTES || T::DTYPE == DType::Bool {
            return false;
        }
        for p in x.chunks_exact(plane).take(planes) {
            reduce_rows_short::<T, D, N>(y, p);
        }
        return true;
    }
    let mut buf = Tile([0; TILE]);
    for (t, ys) in y.chunks_mut(per).enumerate() {
        let (at, len) = (t * per * row, ys.len() * row);
        // SAFETY: AVX2; `xb` is `planes` planes of `plane_bytes`, the tile's part of each from
        // `at`, `len` bytes, fits it; `buf` holds `len` bytes.
        let nan = len < 32
            || unsafe { fold_planes::<K, D>(&mut buf, xb, (at, len), plane_bytes, planes) };
        if nan {
            // A NaN in the planes (or a last tile under a vector): the rows exactly.
            for (k, o) in ys.iter_mut().enumerate() {
                let r = (t * per + k) * N;
                for p in 0..planes {
                    let part = x.get(p * plane + r..p * plane + r + N).unwrap_or(&[]);
                    *o = fold::<T, D>(*o, part);
                }
            }
            continue;
        }
        // SAFETY: the tile's first `len` bytes are `ys.len()` rows of `N` elements of `T`
        // (unkeyed: each an element of `x`), aligned for `T`.
        let rows = unsafe { core::slice::from_raw_parts(buf.0.as_ptr().cast::<T>(), ys.len() * N) };
        reduce_rows_short::<T, D, N>(ys, rows);
    }
    true
}

/// Folds the `planes` parts (`len` bytes from `at` of each plane of `plane` bytes) of `x`
/// element by element into the tile's first `len` bytes: `true` if one held a NaN (the tile is
/// then not to be read).
///
/// # Safety
/// The CPU has AVX2; `32 <= len <= TILE`; `at + len <= plane`; `x` is `planes` planes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn fold_planes<K: Lanes, D: Direction>(
    buf: &mut Tile,
    x: &[u8],
    (at, len): (usize, usize),
    plane: usize,
    planes: usize,
) -> bool {
    let mut nan = _mm256_setzero_si256();
    let vectors = len.div_ceil(32);
    let off = |i: usize| (32 * i).min(len - 32);
    let mut v = 0;
    while v < vectors {
        let n = (vectors - v).min(4);
        let a = |i: usize| at + off(v + i);
        // SAFETY: AVX2; every offset is 32 bytes before the plane's end or less.
        let ms =
            unsafe { tiles::<K, D>(x, [a(0), a(1), a(2), a(3)], n, (plane, planes), &mut nan) };
        for (i, &m) in ms.iter().take(n).enumerate() {
            // SAFETY: AVX2; `off(v + i) + 32 <= len <= TILE`.
            unsafe { store::<K>(buf, off(v + i), m) };
        }
        v += n;
    }
    any_nan::<K>(nan)
}

/// The extremes `m` (keys of `K`) as elements into the tile's 32 bytes from `at`.
///
/// # Safety
/// The CPU has AVX2; `at + 32 <= TILE`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store<K: Lanes>(buf: &mut Tile, at: usize, m: __m256i) {
    let v = if K::INF != 0 { unkey(m) } else { m };
    debug_assert!(at + 32 <= TILE);
    // SAFETY: the caller keeps the 32 bytes inside the tile.
    unsafe { _mm256_storeu_si256(buf.0.as_mut_ptr().wrapping_add(at).cast(), v) };
}

#[cfg(test)]
mod tests;
