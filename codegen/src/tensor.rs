//! Reading constant tensors (`TensorProto`) into [`Tensor`]s.

use crate::dtype::DType;
use crate::ir::Tensor;
use crate::limits::MAX_RANK;
use crate::onnx::{data_type, TensorProto};

/// Reads a `TensorProto` (initializer, `Constant` value or test data) into a [`Tensor`].
///
/// `what` names the tensor in messages (e.g. `initializer "w"`). Both `raw_data` and the typed
/// repeated fields are read, for every supported element type.
pub fn tensor_from_proto(t: &TensorProto, what: &str) -> Result<Tensor, String> {
    if t.data_location == 1 || !t.external_data.is_empty() {
        return Err(format!(
            "{what} keeps its data in an external file, which onnx-aot does not read; save the \
             model with the data embedded (onnx.save_model(model, path, \
             save_as_external_data=False))"
        ));
    }
    if t.segment.is_some() {
        return Err(format!(
            "{what} is a segment of a larger tensor, which is not supported"
        ));
    }
    let Some(dtype) = DType::from_onnx(t.data_type) else {
        return Err(format!(
            "{what} has element type {} (code {}), which onnx-aot does not support",
            data_type::name(t.data_type),
            t.data_type
        ));
    };
    if t.dims.len() > MAX_RANK {
        // Each dimension becomes one level of nested arrays in generated code (and of
        // recursion in whatever parses it), so a rank bomb must stop here.
        return Err(format!(
            "{what} has rank {}, beyond the {MAX_RANK} dimensions onnx-aot supports (tensors \
             become nested arrays, one level per dimension); reshape the model to fewer \
             dimensions",
            t.dims.len()
        ));
    }
    let mut shape = Vec::with_capacity(t.dims.len());
    for (i, &d) in t.dims.iter().enumerate() {
        if d < 0 {
            return Err(format!(
                "{what} has a negative dimension {d} at position {i}"
            ));
        }
        shape.push(usize::try_from(d).map_err(|_| format!("{what}: dimension {d} is too large"))?);
    }
    let numel = checked_numel(&shape)
        .ok_or_else(|| format!("{what}: the element count of shape {shape:?} overflows"))?;
    let nbytes = numel
        .checked_mul(dtype.size())
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| {
            format!("{what}: {numel} elements of {dtype} exceed the addressable size")
        })?;
    let bytes = if !t.raw_data.is_empty() || numel == 0 {
        if t.raw_data.len() != nbytes {
            return Err(format!(
                "{what} has {} bytes of raw_data, but its shape {shape:?} of {dtype} needs {nbytes}",
                t.raw_data.len()
            ));
        }
        let mut bytes = t.raw_data.clone();
        if dtype == DType::Bool {
            bytes.iter_mut().for_each(|b| *b = u8::from(*b != 0));
        }
        bytes
    } else {
        typed_bytes(t, dtype, numel, what)?
    };
    Ok(Tensor {
        dtype,
        shape,
        bytes,
    })
}

/// The product of a shape, or `None` when it overflows `usize`.
pub fn checked_numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

fn typed_bytes(t: &TensorProto, dtype: DType, numel: usize, what: &str) -> Result<Vec<u8>, String> {
    // Check the element count against the field that holds the data before allocating: the
    // declared shape is untrusted (a few bytes can declare terabytes), the field's length is not
    // (its elements were decoded from the file).
    let (field, found) = match dtype {
        DType::F32 => ("float_data", t.float_data.len()),
        DType::F64 => ("double_data", t.double_data.len()),
        DType::I64 => ("int64_data", t.int64_data.len()),
        DType::U32 | DType::U64 => ("uint64_data", t.uint64_data.len()),
        _ => ("int32_data", t.int32_data.len()),
    };
    if found != numel {
        return Err(format!(
            "{what} declares {numel} elements of {dtype} but {field} holds {found}"
        ));
    }
    let mut out = Vec::with_capacity(numel * dtype.size());
    match dtype {
        DType::F32 => {
            t.float_data
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        }
        DType::F64 => {
            t.double_data
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        }
        DType::I64 => {
            t.int64_data
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        }
        DType::U32 | DType::U64 => {
            for &v in &t.uint64_data {
                if dtype == DType::U32 {
                    let v = u32::try_from(v)
                        .map_err(|_| format!("{what}: value {v} does not fit in UINT32"))?;
                    out.extend_from_slice(&v.to_le_bytes());
                } else {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        _ => {
            for &v in &t.int32_data {
                let fits = |ok: bool| {
                    if ok {
                        Ok(())
                    } else {
                        Err(format!(
                            "{what}: value {v} in int32_data does not fit in {dtype}"
                        ))
                    }
                };
                match dtype {
                    DType::I32 => out.extend_from_slice(&v.to_le_bytes()),
                    DType::I16 => {
                        fits(i16::try_from(v).is_ok())?;
                        out.extend_from_slice(&(v as i16).to_le_bytes());
                    }
                    DType::I8 => {
                        fits(i8::try_from(v).is_ok())?;
                        out.push(v as i8 as u8);
                    }
                    DType::U16 | DType::F16 | DType::BF16 => {
                        fits(u16::try_from(v).is_ok())?;
                        out.extend_from_slice(&(v as u16).to_le_bytes());
                    }
                    DType::U8 => {
                        fits(u8::try_from(v).is_ok())?;
                        out.push(v as u8);
                    }
                    DType::Bool => out.push(u8::from(v != 0)),
                    _ => unreachable_type(dtype)?,
                }
            }
        }
    }
    Ok(out)
}

fn unreachable_type(dtype: DType) -> Result<(), String> {
    Err(format!("internal error: no typed field for {dtype}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(dims: Vec<i64>, data_type: i32) -> TensorProto {
        TensorProto {
            dims,
            data_type,
            ..TensorProto::default()
        }
    }

    #[test]
    fn a_huge_shape_without_data_fails_before_allocating() {
        // 2^62 bools without data: counted, not allocated (an allocation would abort).
        let e = tensor_from_proto(&declared(vec![1 << 62], data_type::BOOL), "w").unwrap_err();
        assert!(
            e.contains("declares 4611686018427387904 elements of BOOL but int32_data holds 0"),
            "{e}"
        );
        let e = tensor_from_proto(&declared(vec![1 << 40], data_type::FLOAT), "w").unwrap_err();
        assert!(e.contains("float_data holds 0"), "{e}");
    }

    #[test]
    fn a_rank_beyond_the_limit_fails() {
        let e =
            tensor_from_proto(&declared(vec![1; MAX_RANK + 1], data_type::FLOAT), "w").unwrap_err();
        assert!(e.contains("has rank 65, beyond the 64 dimensions"), "{e}");
        let mut ok = declared(vec![1; MAX_RANK], data_type::FLOAT);
        ok.float_data = vec![1.0];
        assert_eq!(tensor_from_proto(&ok, "w").unwrap().shape.len(), MAX_RANK);
    }
}
