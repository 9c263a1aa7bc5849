//! A strided copy: the layout ops that move elements (Transpose, Slice) as one kernel.

/// Writes `y` in row-major order over `dims` (size, stride in elements of `x`, possibly
/// negative), reading `x` from `offset`: `y[i] = x[offset + Σ index_k · stride_k]`. Elements
/// whose source falls outside `x` are left as they are (generated code passes consistent
/// layouts).
///
/// ```
/// use onnx_aot::kernels::strided_copy;
/// // The transpose of a 2 x 3 matrix: 3 rows of stride 1, 2 columns of stride 3.
/// let mut y = [0; 6];
/// strided_copy(&[1, 2, 3, 4, 5, 6], &mut y, 0, &[(3, 1), (2, 3)]);
/// assert_eq!(y, [1, 4, 2, 5, 3, 6]);
/// // Every other element, backwards from the last.
/// let mut z = [0; 3];
/// strided_copy(&[1, 2, 3, 4, 5, 6], &mut z, 5, &[(3, -2)]);
/// assert_eq!(z, [6, 4, 2]);
/// ```
#[inline]
pub fn strided_copy<T: Copy>(x: &[T], y: &mut [T], offset: usize, dims: &[(usize, isize)]) {
    let Some((&(inner, step), outer)) = dims.split_last() else {
        if let (Some(o), Some(&v)) = (y.first_mut(), x.get(offset)) {
            *o = v;
        }
        return;
    };
    if inner == 0 {
        return;
    }
    let mut index = [0usize; 64];
    let Some(index) = index.get_mut(..outer.len()) else {
        return; // more dimensions than the generator allows (its rank limit is 64)
    };
    for row in y.chunks_exact_mut(inner) {
        // The start of this row in `x`.
        let mut start = offset as isize;
        for (&i, &(_, stride)) in index.iter().zip(outer) {
            start += i as isize * stride;
        }
        if step == 1 {
            if let Some(src) = usize::try_from(start)
                .ok()
                .and_then(|s| x.get(s..s + inner))
            {
                row.copy_from_slice(src);
            }
        } else {
            for (k, o) in row.iter_mut().enumerate() {
                let at = start + k as isize * step;
                if let Some(&v) = usize::try_from(at).ok().and_then(|a| x.get(a)) {
                    *o = v;
                }
            }
        }
        // Next index, last outer dimension fastest.
        for (i, &(size, _)) in index.iter_mut().zip(outer).rev() {
            *i += 1;
            if *i < size {
                break;
            }
            *i = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposes_and_slices_match_index_arithmetic() {
        // x: [2, 3, 4] = 0..24; y = transpose(x, [2, 0, 1])[:, :, 1:] -> shape [4, 2, 2].
        let x: [i32; 24] = core::array::from_fn(|i| i as i32);
        let mut y = [0; 16];
        // Output dims: (4, stride 1), (2, stride 12), (2, stride 4), offset 1 * 4.
        strided_copy(&x, &mut y, 4, &[(4, 1), (2, 12), (2, 4)]);
        for a in 0..4 {
            for b in 0..2 {
                for c in 0..2 {
                    let want = (b * 12 + (c + 1) * 4 + a) as i32;
                    assert_eq!(y[(a * 2 + b) * 2 + c], want);
                }
            }
        }
        // A scalar.
        let mut s = [0];
        strided_copy(&x, &mut s, 7, &[]);
        assert_eq!(s, [7]);
    }
}
