//! Hardmax: the shims generated code calls (see the module [`super`]).

#[cfg(not(debug_assertions))]
use super::wide::wide;
#[cfg(not(debug_assertions))]
use crate::kernels;

use super::Thin;

/// Hardmax of each contiguous row of `r` (from 32).
#[inline(always)]
pub fn hardmax_rows<T: Thin>(x: &[T], y: &mut [T], r: usize) {
    #[cfg(debug_assertions)]
    T::hardmax_rows(x, y, r);
    // Float rows up to 64 elements: by equality with their maximum in AVX-512, where the CPU
    // has it (`kernels::hardmax_rows_wide`).
    #[cfg(not(debug_assertions))]
    if kernels::hardmax_rows_wide(x, y, r) {
        return;
    }
    // f32 rows: the row kernels (each row read once while its outputs are zeroed, where the
    // CPU has AVX2; else a tile of rows' positions, then the tile's outputs). Against the
    // clearing arg pass of the AVX2 twin below (AMD EPYC, Zen 3, over 2 MiB), the tiles took
    // rows of 80 from 243 to 127 us and of 100000 from 102 to 69 us; one row at a time then
    // took 0.72x and 0.94x of the tiles' time.
    #[cfg(not(debug_assertions))]
    if kernels::hardmax_rows_f32::<T, 0>(x, y, r) {
        return;
    }
    // Integers of 1 to 4 bytes, bool, f16 and bf16, rows of 8 to 256 bytes: whole blocks of rows'
    // positions in AVX2 (`kernels::short_rows`).
    #[cfg(not(debug_assertions))]
    let (x, y) = {
        let done = kernels::hardmax_rows_narrow::<T>(x, y, r);
        match (x.get(done * r..), y.get_mut(done * r..)) {
            (Some(x), Some(y)) => (x, y),
            _ => return,
        }
    };
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()) && (r <= kernels::ARG_ROW_MID || wide_lanes::<T>());
        [T: Thin] [T] (x: &[T], y: &mut [T], r: usize) -> () {
        if r > 0 {
            for (x, y) in x.chunks_exact(r).zip(y.chunks_exact_mut(r)) {
                kernels::hardmax_row(x, y);
            }
        }
    });
}

/// Whether rows of `T` of any length take the AVX2 twin of [`hardmax_rows`]: 64-bit types,
/// two to an SSE2 vector (and SSE2 has no 64-bit integer compare).
#[cfg(not(debug_assertions))]
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline(always)]
const fn wide_lanes<T: Thin>() -> bool {
    matches!(
        T::DTYPE,
        crate::DType::F64 | crate::DType::I64 | crate::DType::U64
    )
}

/// Hardmax of a few contiguous rows of `R` (a tiny model: fewer than eight rows of 32 to 128).
#[inline(always)]
pub fn hardmax_rows_few<T: Thin, const R: usize>(x: &[T], y: &mut [T]) {
    #[cfg(not(debug_assertions))]
    if kernels::hardmax_rows_wide(x, y, R) {
        return;
    }
    // f32 rows: the row kernels' instance for this length (a row of 80 about 1.5x faster than
    // with the length known at run time), then what `hardmax_rows` does with the others.
    #[cfg(not(debug_assertions))]
    if kernels::hardmax_rows_f32::<T, R>(x, y, R) {
        return;
    }
    hardmax_rows(x, y, R);
}

/// Hardmax of each contiguous row of `R` (a few tens at most).
#[inline(always)]
pub fn hardmax_rows_short<T: Thin, const R: usize>(x: &[T], y: &mut [T]) {
    #[cfg(debug_assertions)]
    T::hardmax_rows(x, y, R);
    #[cfg(not(debug_assertions))]
    kernels::hardmax_rows_short::<T, R>(x, y);
}

/// Hardmax along `r` rows of `inner` lanes (sixteen or more), block after block. The lane
/// kernel's twin for 8-byte types is built for AVX-512 where the CPU has it (Hardmax of `f64`
/// `[80, 3276]` and `[819, 20, 16]` 0.81-0.91x the AVX2 twin's time on an Intel Xeon, Emerald
/// Rapids; `f32` `[2, 262144]` took 1.1x, so the others stay with AVX2).
#[inline(always)]
pub fn hardmax_blocks<T: Thin>(x: &[T], y: &mut [T], r: usize, inner: usize) {
    #[cfg(debug_assertions)]
    T::hardmax_blocks(x, y, r, inner);
    // f32, f16 and bf16 blocks of sixteen lanes or more: the AVX2 kernels of chunks of lanes,
    // where the CPU has it (see `kernels::hardmax_blocks_f32`, `kernels::hardmax_blocks_halves`).
    #[cfg(not(debug_assertions))]
    if kernels::hardmax_blocks_f32(x, y, r, inner) || kernels::hardmax_blocks_halves(x, y, r, inner)
    {
        return;
    }
    // f64 blocks of two and three rows: the AVX-512 kernel of shifted rows where the CPU has it
    // (`[5461, 3, 16]` 0.6x the time of `few` below), every whole group of blocks it takes.
    #[cfg(not(debug_assertions))]
    let done = if size_of::<T>() == 8 {
        kernels::hardmax_few_rows(x, y, r, inner)
    } else {
        0
    };
    #[cfg(not(debug_assertions))]
    let (Some(x), Some(y)) = (x.get(done * r * inner..), y.get_mut(done * r * inner..)) else {
        return;
    };
    #[cfg(not(debug_assertions))]
    if few(x, y, r, inner) {
        return;
    }
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()); avx512 size_of::<T>() == 8;
        [T: Thin] [T] (x: &[T], y: &mut [T], r: usize, inner: usize) -> () {
        if r * inner > 0 {
            for (x, y) in x.chunks_exact(r * inner).zip(y.chunks_exact_mut(r * inner)) {
                kernels::hardmax_lanes(x, y, inner);
            }
        }
    });
}

/// Hardmax of many small blocks (those of [`kernels::arg_blocks_few`]): each block's first
/// maximum (NaN winning) by that kernel, then the block's zeros and ones; f16 and bf16 by
/// [`halves`]. Block by block through the lane kernel, 2 MiB of f16 as `[21845, 3, 16]` took
/// 11.8x a pass that reads and writes as much. `false` (nothing written) where it does not take
/// the blocks.
#[cfg(not(debug_assertions))]
#[inline(always)]
fn few<T: Thin>(x: &[T], y: &mut [T], r: usize, inner: usize) -> bool {
    if halves(x, y, r, inner) {
        return true;
    }
    if !kernels::arg_few_fits::<T>(r, inner) || x.len() != y.len() {
        return false;
    }
    wide!(super::wide::enough::<T>(x.len());
        [T: Thin] [T] (x: &[T], y: &mut [T], r: usize, inner: usize) -> bool {
        let mut rows = [0i64; kernels::ARG_FEW_MAX_LANES];
        let Some(at) = rows.get_mut(..inner) else {
            return false;
        };
        let size = r * inner;
        for (xb, yb) in x.chunks_exact(size).zip(y.chunks_exact_mut(size)) {
            kernels::arg_blocks_few::<T, crate::Max, false>(xb, at, &mut [], r, inner);
            one_hot(yb, at);
        }
        true
    })
}

/// Hardmax of f16 and bf16 blocks of two rows or more of up to
/// [`kernels::ARG_FEW_MAX_LANES`] lanes: the first maximum of each lane (NaN winning) of as many
/// blocks at a time as that many indices hold, by [`kernels::arg_blocks_small`] (which takes
/// them where the CPU has AVX2 and reads such rows), then the blocks' zeros and ones. Block by
/// block through the lane kernel, 2 MiB of f16 as `[32768, 2, 16]` took 15x a pass that reads
/// and writes as much, 3.9x here (and 1.0x by `kernels::hardmax_blocks_halves`, which takes
/// blocks of sixteen lanes or more of up to 64 rows before this). `false` where it does not take
/// the blocks (then all of `y` is written again by the caller's kernel).
#[cfg(not(debug_assertions))]
#[inline(always)]
fn halves<T: Thin>(x: &[T], y: &mut [T], r: usize, inner: usize) -> bool {
    let fits = r >= 2 && (1..=kernels::ARG_FEW_MAX_LANES).contains(&inner);
    if !matches!(T::DTYPE, crate::DType::F16 | crate::DType::BF16) || !fits || x.len() != y.len() {
        return false;
    }
    let mut rows = [0i64; kernels::ARG_FEW_MAX_LANES];
    let size = r * inner;
    let per = kernels::ARG_FEW_MAX_LANES / inner;
    for (xg, yg) in x.chunks(per * size).zip(y.chunks_mut(per * size)) {
        let Some(at) = rows.get_mut(..xg.len() / size * inner) else {
            return false;
        };
        if !kernels::arg_blocks_small::<T, crate::Max, false>(xg, at, &mut [], r, inner) {
            return false;
        }
        for (yb, at) in yg.chunks_exact_mut(size).zip(at.chunks_exact(inner)) {
            one_hot(yb, at);
        }
    }
    true
}

/// One block's zeros and ones: a 1 in row `at[j]` of each lane `j`, 0 elsewhere.
#[cfg(not(debug_assertions))]
#[inline(always)]
fn one_hot<T: Thin>(y: &mut [T], at: &[i64]) {
    let inner = at.len();
    y.fill(T::ZERO);
    for (j, &k) in at.iter().enumerate() {
        if let Some(o) = y.get_mut(k as usize * inner + j) {
            *o = T::ONE;
        }
    }
}

/// Hardmax along `r` rows of `C` lanes (under sixteen), block after block, read `W / C` rows
/// at a time.
#[inline(always)]
pub fn hardmax_blocks_narrow<T: Thin, const C: usize, const W: usize, const TILE: usize>(
    x: &[T],
    y: &mut [T],
    r: usize,
) {
    #[cfg(debug_assertions)]
    T::hardmax_blocks(x, y, r, C);
    // Many short blocks: each lane's row by the thin-block kernel, but for the last blocks.
    #[cfg(not(debug_assertions))]
    let done = thin::<T, C>(x, y, r);
    #[cfg(not(debug_assertions))]
    let (Some(x), Some(y)) = (x.get(done * r * C..), y.get_mut(done * r * C..)) else {
        return;
    };
    // 64-bit types in the AVX2/AVX-512 twins, whose lane kernel they inline
    // (`kernels::narrow::arg_lanes_narrow_wide`); the others gained nothing from a twin.
    #[cfg(not(debug_assertions))]
    wide!(super::wide::enough::<T>(x.len()) && size_of::<T>() == 8;
        [T: Thin, const C: usize, const W: usize, const TILE: usize] [T, C, W, TILE]
        (x: &[T], y: &mut [T], r: usize) -> () {
        if r * C > 0 {
            for (x, y) in x.chunks_exact(r * C).zip(y.chunks_exact_mut(r * C)) {
                kernels::hardmax_lanes_narrow::<T, C, W, TILE>(x, y);
            }
        }
    } else {
        if r * C > 0 {
            for (x, y) in x.chunks_exact(r * C).zip(y.chunks_exact_mut(r * C)) {
                kernels::narrow::hardmax_lanes_narrow_wide::<T, C, W, TILE>(x, y);
            }
        }
    });
}

/// Hardmax of the blocks of `r` rows of `C` lanes (under sixteen) at the start of `x` that the
/// kernel of many short blocks takes (`kernels::thin_blocks`): each lane's first maximum (NaN
/// winning) for as many blocks at a time as [`kernels::ARG_FEW_MAX_LANES`] indices hold, then
/// the blocks' zeros and ones. Their count (none unless two or more).
#[cfg(not(debug_assertions))]
#[inline(always)]
fn thin<T: Thin, const C: usize>(x: &[T], y: &mut [T], r: usize) -> usize {
    let size = r * C;
    if size == 0 || x.len() != y.len() || kernels::thin_blocks::<C>(x.len(), r) < 2 {
        return 0;
    }
    // f16 and bf16: the AVX2 kernel of whole-vector windows, which writes the zeros and ones
    // itself.
    let done = kernels::hardmax_blocks_thin::<T, C>(x, y, r);
    if done > 0 {
        return done;
    }
    // `f64` blocks of two and three rows: the narrow kernel was faster (1.4x over two rows).
    if size_of::<T>() != 4 && r < 4 {
        return 0;
    }
    let mut rows = [0i64; kernels::ARG_FEW_MAX_LANES];
    let per = rows.len() / C;
    let mut done = 0;
    for (xg, yg) in x.chunks(per * size).zip(y.chunks_mut(per * size)) {
        // A group's windows may read into the next group's rows: the rest of `x` goes along.
        let Some(from) = x.get(done * size..) else {
            break;
        };
        let Some(at) = rows.get_mut(..xg.len() / size * C) else {
            break;
        };
        let n = super::arg::thin::<T, crate::Max, false, C>(from, at, &mut [], r);
        let n = n.min(xg.len() / size);
        for (yb, at) in yg.chunks_exact_mut(size).zip(at.chunks_exact(C)).take(n) {
            one_hot(yb, at);
        }
        done += n;
        if n < xg.len() / size {
            break;
        }
    }
    done
}

/// Hardmax over reduced axes that are not contiguous (runs of size and stride).
#[inline(always)]
pub fn hardmax_general<T: Thin>(
    x: &[T],
    y: &mut [T],
    kept: &[(usize, usize)],
    reduced: &[(usize, usize)],
) {
    #[cfg(debug_assertions)]
    T::hardmax_general(x, y, kept, reduced);
    #[cfg(not(debug_assertions))]
    kernels::hardmax_general(x, y, kept, reduced);
}
