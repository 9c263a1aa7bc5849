//! The planes' fold of `f32` reductions over two axes apart ([`super::fold_planes`]) in
//! AVX-512, for CPUs that have it (checked by the caller, [`crate::kernels::isa`]).

use core::arch::x86_64::{
    __m512, _mm512_cmp_ps_mask, _mm512_loadu_ps, _mm512_max_ps, _mm512_min_ps, _mm512_storeu_ps,
    _CMP_UNORD_Q,
};

use crate::Direction;

/// [`fold_planes`](super::fold_planes) in AVX-512, 64 lanes at a time (tiles of 64 elements or more): four
/// vectors down the planes, NaN flagged one compare per two. AMD EPYC (Zen 4), kernel alone
/// through the node shim, minimum of six alternating runs: ReduceMax/ReduceMin of `[25, 524,
/// 40]` over axes 0 and 2 32.3 -> 27.9 us (the AVX2 form's sixteen lanes; the stream 21 us). A
/// prefetch a kilobyte ahead in each plane, in the AVX2 form, was slower (32.2 -> 33.9 us).
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx2,avx512f")]
pub(in crate::kernels) unsafe fn fold_planes512<D: Direction>(
    tile: &mut [f32],
    x: &[f32],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<bool> {
    let len = tile.len();
    if len < 64 || planes == 0 {
        return None;
    }
    let four = |at: usize| -> Option<[__m512; 4]> {
        let v = x.get(at..)?.first_chunk::<64>()?;
        // SAFETY: `v` holds 64 `f32`s; `loadu` has no alignment requirement.
        Some(core::array::from_fn(|k| unsafe {
            _mm512_loadu_ps(v.as_ptr().add(16 * k))
        }))
    };
    let pick = |v: __m512, acc: __m512| {
        if D::IS_MIN {
            _mm512_min_ps(v, acc)
        } else {
            _mm512_max_ps(v, acc)
        }
    };
    let mut nan = 0u16;
    for c in (0..len).step_by(64) {
        // The last 64 may overlap the ones before: the same lanes, folded the same.
        let c = c.min(len - 64);
        let mut a = four(at + c)?;
        nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a[0], a[1])
            | _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a[2], a[3]);
        for p in 1..planes {
            let v = four(p * plane + at + c)?;
            nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v[0], v[1])
                | _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v[2], v[3]);
            for (a, v) in a.iter_mut().zip(v) {
                *a = pick(v, *a);
            }
        }
        let out = tile.get_mut(c..).and_then(<[f32]>::first_chunk_mut::<64>)?;
        for (k, v) in a.into_iter().enumerate() {
            // SAFETY: `out` holds 64 `f32`s; `storeu` has no alignment requirement.
            unsafe { _mm512_storeu_ps(out.as_mut_ptr().add(16 * k), v) };
        }
    }
    Some(nan != 0)
}
