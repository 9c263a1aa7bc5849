//! The Hardmax entry points of the `f32` kernels of x86-64 (the rows, the strided blocks and
//! the narrow lanes): which kernel takes which rows, each saying `false` (nothing done) where
//! none does.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Hardmax of each contiguous row of `n` of `x` into `y` by the f32 row kernels of x86-64 when
/// they take them (as [`reduce_rows_f32`]): rows of 13 to 1024 by equality with their maximum
/// (AVX2; a few rows past 128 excepted), else whole groups of eight rows with their outputs as
/// the kernel goes (rows of 3 to 64, AVX2), then the rows of eight or more left one at a time,
/// each read once while its outputs are zeroed (AVX2), else a tile of rows' positions at a time
/// followed by the tile's zeros and ones; `false` (nothing done) otherwise. `N` is `n` where the
/// caller has it as a constant, 0 otherwise.
#[inline(always)]
pub(crate) fn hardmax_rows_f32<T: Element, const N: usize>(x: &[T], y: &mut [T], n: usize) -> bool {
    /// Rows whose positions are found before their outputs are written (256 bytes of stack).
    const TILE: usize = 64;
    // (Positions are kept as `u32`: rows longer than that take the other kernels.)
    if !(rows_f32_fit::<T>(n) || long_rows_f32_fit::<T>(n) || columns_f32_fit::<T>(n))
        || x.len() != y.len()
        || n > u32::MAX as usize
    {
        return false;
    }
    // Rows of two: eight at a time in AVX2 vectors, where the CPU has them.
    // Without them, the other kernels do rows of two one by one (a tile of positions measured
    // 10% slower for them).
    let done = match n {
        2 => match hardmax_pairs_f32(x, y) {
            0 => return false,
            done => done,
        },
        // Rows of 13 to 1024: by equality with their maximum, where the CPU has AVX2.
        _ if hardmax_rows_equal_f32::<T, N>(x, y, n) => return true,
        _ => hardmax_groups_f32::<T, N>(x, y, n),
    };
    let (Some(x), Some(y)) = (x.get(done * n..), y.get_mut(done * n..)) else {
        return true;
    };
    // Rows of eight or more left (all of them past 64, or fewer than eight): one at a time,
    // each read once while its outputs are zeroed, where the CPU has AVX2.
    if hardmax_rows_one_f32::<T, N>(x, y, n) {
        return true;
    }
    let mut at = [0u32; TILE];
    for (t, ys) in y.chunks_mut(TILE * n).enumerate() {
        let at = at.get_mut(..ys.len() / n).unwrap_or(&mut []);
        // The input from the tile's first row to the end: as many rows as `at` holds are
        // found, and the kernel of short rows in columns, whose loads of a group's last row
        // reach past it, takes the tile's last group too (given the tile alone it left that
        // group to the exact kernel, an eighth of the rows of three at several times the cost).
        let xs = x.get(t * TILE * n..).unwrap_or(&[]);
        if !arg_rows_f32::<T, Max, false, u32>(xs, at, n) {
            return false;
        }
        fill(ys, T::ZERO);
        for (out, &a) in ys.chunks_exact_mut(n).zip(at.iter()) {
            if let Some(o) = out.get_mut(a as usize) {
                *o = T::ONE;
            }
        }
    }
    true
}

/// Hardmax along `r` rows of `inner` lanes of `x` into `y`, block after block, by the AVX2
/// kernel of f32 blocks of sixteen lanes or more (`hard_lanes_avx2`) where the CPU has AVX2;
/// `false` (nothing done) otherwise, and always with `small-code`. The blocks of
/// `hardmax::filled_f32` (many rows, on a CPU with AVX-512) are left to `hardmax_lanes`, which
/// fills them with zeros, finds each lane's row by the AVX-512 arg pass and stores the ones.
#[inline(always)]
pub(crate) fn hardmax_blocks_f32<T: Element>(x: &[T], y: &mut [T], r: usize, inner: usize) -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(feature = "small-code")
    ))]
    if hard_lanes_avx2::takes(r, inner)
        && rows_f32::avx2::available()
        && !super::hardmax::filled_f32::<T>(r, inner)
    {
        if let (Some(x), Some(y)) = (T::f32s(x), T::f32s_mut(y)) {
            // SAFETY: `available` found AVX2.
            return unsafe { hard_lanes_avx2::hardmax_blocks(x, y, r, inner) };
        }
    }
    let _ = (x, y, r, inner);
    false
}

/// [`hardmax_rows_f32`] of the whole groups of eight rows of `n` of `x` that the AVX2 kernels of
/// eight rows at a time take, their outputs written as the kernel goes: the rows done (0
/// elsewhere).
#[inline(always)]
fn hardmax_groups_f32<T: Element, const N: usize>(x: &[T], y: &mut [T], n: usize) -> usize {
    // (Not referenced with `small-code`, where it never takes rows: even dead, its exact path's
    // calls of the row kernels kept fat-LTO firmware from inlining them into their one caller,
    // and an ArgMax entry point copied its 4 KB input to the stack.)
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(debug_assertions),
        not(feature = "small-code")
    ))]
    return rows_f32::hardmax_groups::<T, N>(x, y, n);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(debug_assertions),
        not(feature = "small-code")
    )))]
    {
        let _ = (x, y, n);
        0
    }
}

/// Hardmax of each contiguous `f32` row of 13 to 1024 by equality with its maximum, by the AVX2
/// kernel where the CPU has it: `false` (nothing done) elsewhere.
#[inline(always)]
fn hardmax_rows_equal_f32<T: Element, const N: usize>(x: &[T], y: &mut [T], n: usize) -> bool {
    // (Not referenced with `small-code`, as `hardmax_groups_f32`.)
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(debug_assertions),
        not(feature = "small-code")
    ))]
    return rows_f32::hardmax_rows_by_equality::<T, N>(x, y, n);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(debug_assertions),
        not(feature = "small-code")
    )))]
    {
        let _ = (x, y, n);
        false
    }
}

/// Hardmax of each contiguous `f32` row of eight or more one row at a time by the AVX2 kernel
/// where the CPU has it: `false` (nothing done) elsewhere.
#[inline(always)]
fn hardmax_rows_one_f32<T: Element, const N: usize>(x: &[T], y: &mut [T], n: usize) -> bool {
    // (Not referenced with `small-code`, as `hardmax_groups_f32`: even dead, the call of the
    // kernel cost the firmware example's Hardmax entry point a copy of its input, 37 bytes of
    // code and 264 of stack.)
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(debug_assertions),
        not(feature = "small-code")
    ))]
    return rows_f32::hardmax_rows_one::<T, N>(x, y, n);
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "sse2",
        not(debug_assertions),
        not(feature = "small-code")
    )))]
    {
        let _ = (x, y, n);
        false
    }
}

/// Hardmax of rows of two `f32`s by the AVX2 kernel where the CPU has it: the rows done (whole
/// groups of eight), 0 elsewhere.
#[inline(always)]
fn hardmax_pairs_f32<T: Element>(x: &[T], y: &mut [T]) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions)))]
    return rows_f32::hardmax_pairs::<T>(x, y);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(debug_assertions))))]
    {
        let _ = (x, y);
        0
    }
}
