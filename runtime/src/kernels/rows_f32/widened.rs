//! The arg-reductions of short contiguous rows of `f16`, `bf16` and `u8` by the `f32` row
//! kernels, on CPUs with AVX2 (and F16C for `f16`): a tile of rows is widened to `f32` on the
//! stack, then searched as `f32` rows.
//!
//! Widening is exact for these types: every value, both zeros, both infinities and NaN keep
//! their order and equality, so the positions (ties, NaN first or last) are the ones of the
//! type itself. Their own kernels take short rows one at a time through a generic search;
//! widened, eight rows go at a time ([`super::columns`], [`super::eights`]). Measured (AMD EPYC,
//! Zen 3; 2 MiB): f16 rows of 8, 16 and 31 1029 -> 306, 1175 -> 224 and 3028 -> 225 us, bf16
//! rows of 5 and 20 880 -> 285 and 2625 -> 283 us, u8 rows of 3 and 8 2856 -> 1412 and
//! 1137 -> 711 us. Since then kernels in their own width took most of these rows over (see
//! [`fits`]): what stays here is f16 and bf16 rows of 4 to 7 and `u8` rows of 8.

use core::arch::x86_64::{__m128i, _mm256_cvtph_ps, _mm256_storeu_ps, _mm_loadu_si128};

use super::avx2;
use crate::kernels::index::Index;
use crate::{DType, Direction, Element};

/// Whether this CPU has F16C (CPUID leaf 1, ECX bit 29; `cpufeatures` does not list it): one
/// relaxed atomic load after the first call. The AVX state the conversions need is what
/// [`avx2::available`] checks, which [`fits`] asks first.
fn f16c() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering::Relaxed};
    // 0: not asked yet, 1: no, 2: yes.
    static STATE: AtomicU8 = AtomicU8::new(0);
    match STATE.load(Relaxed) {
        1 => false,
        2 => true,
        _ => {
            // SAFETY: CPUID is always present on x86-64.
            #[allow(unused_unsafe)]
            let leaf = unsafe { core::arch::x86_64::__cpuid(1) };
            let yes = (leaf.ecx >> 29) & 1 == 1;
            STATE.store(if yes { 2 } else { 1 }, Relaxed);
            yes
        }
    }
}

/// The `f32` elements of a tile (4 KiB of stack), with room past them for the loads of the
/// kernel of columns, which read beyond a group's last row.
const TILE: usize = 1024;

/// Room past a tile's rows: the longest read past a group's last row.
const PAD: usize = 8;

/// The longest rows of `f16` and `bf16` taken (past them their own row kernels take over).
pub(in crate::kernels) const MAX_ROW: usize = 31;

/// The longest rows of `u8` taken: four times as many rows per byte as `f32` left longer ones
/// slower this way than by their own kernel (rows of 16 809 -> 895 us, of 8 1137 -> 711 us).
pub(in crate::kernels) const MAX_ROW_U8: usize = 8;

/// Whether rows of `n` of `T` are taken here on this CPU.
#[inline(always)]
pub(in crate::kernels) fn fits<T: Element>(n: usize) -> bool {
    let longest = match T::DTYPE {
        DType::F16 | DType::BF16 => MAX_ROW,
        DType::U8 => MAX_ROW_U8,
        _ => 0,
    };
    // Rows of 16 to 32 bytes go to the kernel of short rows in the types' own width (which
    // widens them with their positions instead): f16 and bf16 rows of 12 over 2 MiB 285-307 us
    // here, 181-191 there. Rows of 8 to 15 bytes measured alike both ways (f16 rows of 6:
    // ArgMax 248 -> 266 us, ArgMin-last 250 -> 235) and stay. Rows of 33 to 64 bytes go there
    // too (a fold, then a search of each row by equality): the matrix's f16 and bf16 rows of
    // 20 (random data), ours over a streaming read in one process, 3.50-3.81x here and
    // 2.99-3.25x there for ArgMax, ArgMin-last 3.55-3.93x and 2.98-3.29x.
    // Rows of 2 to 7 bytes go to the sliding window in the types' own width
    // (`short_rows_avx2::tiny`): over 2 MiB, u8 rows of 5 723-751 us here, 269-282 there; f16
    // rows of 3 408-424 and 255-269; bf16 rows of 2 (writes eight bytes per four read) alike.
    let own = (16..=64).contains(&(n * size_of::<T>())) || n * size_of::<T>() <= 7;
    !cfg!(feature = "small-code")
        && (2..=longest).contains(&n)
        && !own
        && avx2::available()
        && (!matches!(T::DTYPE, DType::F16) || f16c())
}

/// The index of the extreme of each contiguous row of `n` of `x` into `y`, as the type's own
/// rule gives it; `false` (nothing done) unless [`fits`].
#[inline(always)]
pub(in crate::kernels) fn arg_rows_widened<T: Element, D: Direction, const LAST: bool, I: Index>(
    x: &[T],
    y: &mut [I],
    n: usize,
) -> bool {
    if !fits::<T>(n) {
        return false;
    }
    let per_tile = TILE / n;
    let mut tile = [0.0f32; TILE + PAD];
    for (xs, ys) in x.chunks(per_tile * n).zip(y.chunks_mut(per_tile)) {
        let Some(wide) = tile.get_mut(..xs.len()) else {
            return false;
        };
        widen(xs, wide);
        // The rows and, past them, the pad (zeros or an earlier tile's elements: loaded by
        // the kernel of columns, never chosen).
        let Some(rows) = tile.get(..xs.len() + PAD) else {
            return false;
        };
        if !super::arg_rows_values::<f32, D, LAST, false, I>(rows, ys, &mut [], n) {
            return false;
        }
    }
    true
}

/// `x` as `f32`, exactly, into `out` (of the same length).
#[inline(always)]
fn widen<T: Element>(x: &[T], out: &mut [f32]) {
    if let Some(b) = T::half_bits(x) {
        if matches!(T::DTYPE, DType::BF16) {
            // A bf16 is the upper half of an f32.
            for (o, &b) in out.iter_mut().zip(b) {
                *o = f32::from_bits(u32::from(b) << 16);
            }
        } else {
            // SAFETY: `fits` found F16C (and AVX2) on this CPU.
            unsafe { widen_f16(b, out) };
        }
    } else if let Some(b) = T::u8s(x) {
        for (o, &b) in out.iter_mut().zip(b) {
            *o = f32::from(b);
        }
    }
}

/// `f16` bits as `f32`, eight at a time by `vcvtph2ps`, the last few by `half`.
///
/// # Safety
/// The CPU must have F16C and AVX.
#[target_feature(enable = "avx2,f16c")]
unsafe fn widen_f16(x: &[u16], out: &mut [f32]) {
    let (eights, rest) = x.as_chunks::<8>();
    let (outs, out_rest) = out.as_chunks_mut::<8>();
    for (c, o) in eights.iter().zip(outs.iter_mut()) {
        // SAFETY: `c` holds 16 bytes and `o` 32; neither access needs alignment.
        unsafe {
            let h = _mm_loadu_si128(c.as_ptr().cast::<__m128i>());
            _mm256_storeu_ps(o.as_mut_ptr(), _mm256_cvtph_ps(h));
        }
    }
    for (o, &b) in out_rest.iter_mut().zip(rest) {
        *o = half::f16::from_bits(b).to_f32();
    }
}
