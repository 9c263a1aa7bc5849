//! The values at the indices an arg-reduction found: the reduction of the same rows, for a
//! node that computes ReduceMax and ArgMax (or ReduceMin and ArgMin) of one tensor in one pass.

use crate::Element;

/// For each output position `o` of an arg-reduction over blocks of `r` rows of `inner` lanes,
/// writes the element of `x` at the index `idx[o]` into `v[o]`: the extreme itself (a NaN when
/// the row holds one, since the arg-reduction picks a NaN then).
///
/// ```
/// use onnx_aot::kernels::arg_values;
/// // Two blocks of 3 rows of 2 lanes; indices along the rows.
/// let x = [1.0, 8.0, 5.0, 2.0, 3.0, 9.0, /**/ 0.0, 1.0, 7.0, 6.0, 4.0, 2.0];
/// let mut v = [0.0; 4];
/// arg_values(&x, &[1, 2, 1, 1], &mut v, 3, 2);
/// assert_eq!(v, [5.0, 9.0, 7.0, 6.0]);
/// // Contiguous rows (one lane): three rows of 2; an index past its row is left alone.
/// let mut w = [0.5; 3];
/// arg_values(&[4.0, 1.0, 2.0, 9.0, 3.0, 8.0], &[0, 1, 2], &mut w, 2, 1);
/// assert_eq!(w, [4.0, 9.0, 0.5]);
/// ```
///
/// An index outside its block leaves `v[o]` as it is (generated code never passes one).
#[cfg_attr(feature = "small-code", inline)]
#[cfg_attr(not(feature = "small-code"), inline(always))]
pub fn arg_values<T: Element>(x: &[T], idx: &[i64], v: &mut [T], r: usize, inner: usize) {
    if inner == 0 || r == 0 {
        return;
    }
    if inner == 1 {
        // Contiguous rows: one value per row, without a block of one lane each.
        for ((out, &i), row) in v.iter_mut().zip(idx).zip(x.chunks(r)) {
            if let Some(&e) = usize::try_from(i).ok().and_then(|i| row.get(i)) {
                *out = e;
            }
        }
        return;
    }
    // Block by block, lane by lane: no division per element.
    let blocks = v
        .chunks_mut(inner)
        .zip(idx.chunks(inner))
        .zip(x.chunks(r * inner));
    for ((vs, is), xb) in blocks {
        for (lane, (out, &i)) in vs.iter_mut().zip(is).enumerate() {
            let Ok(i) = usize::try_from(i) else {
                continue;
            };
            if i < r {
                if let Some(&e) = xb.get(i * inner + lane) {
                    *out = e;
                }
            }
        }
    }
}
