//! Declared types: the element type and static shape a `ValueInfoProto` gives a value, with
//! symbolic dimensions resolved through the user's bindings.

use super::Loader;
use crate::dtype::DType;
use crate::limits::{MAX_RANK, MAX_TENSOR_BYTES};
use crate::onnx::{self, ValueInfoProto};
use crate::tensor::checked_numel;

impl Loader<'_> {
    /// The element type and static shape of a declared value, resolving symbolic dims.
    pub(super) fn declared_type(
        &mut self,
        vi: &ValueInfoProto,
        role: &str,
    ) -> Option<(DType, Vec<usize>)> {
        let what = format!("{role} {:?}", vi.name);
        let Some(ty) = vi.r#type.as_ref() else {
            self.errors.model(format!(
                "{what} has no type; declare its element type and shape"
            ));
            return None;
        };
        let Some(tt) = ty.tensor_type.as_ref() else {
            let kind = if ty.sequence_type.is_some() {
                "a sequence"
            } else if ty.map_type.is_some() {
                "a map"
            } else if ty.sparse_tensor_type.is_some() {
                "a sparse tensor"
            } else if ty.optional_type.is_some() {
                "an optional"
            } else {
                "of no tensor type"
            };
            self.errors.model(format!(
                "{what} is {kind}; onnx-aot supports dense tensors only"
            ));
            return None;
        };
        let Some(dtype) = DType::from_onnx(tt.elem_type) else {
            self.errors.model(format!(
                "{what} has element type {} (code {}), which onnx-aot does not support",
                onnx::data_type::name(tt.elem_type),
                tt.elem_type
            ));
            return None;
        };
        let Some(shape) = tt.shape.as_ref() else {
            self.errors.model(format!(
                "{what} has no shape (not even a rank); onnx-aot needs static shapes: declare \
                 the shape in the model"
            ));
            return None;
        };
        if shape.dim.len() > MAX_RANK {
            self.errors.model(format!(
                "{what} has rank {}, beyond the {MAX_RANK} dimensions onnx-aot supports (tensors \
                 become nested arrays, one level per dimension); reshape the model to fewer \
                 dimensions",
                shape.dim.len()
            ));
            return None;
        }
        let dims = self.static_dims(&what, &vi.name, &shape.dim)?;
        let bytes = checked_numel(&dims).and_then(|n| n.checked_mul(dtype.size()));
        match bytes {
            None => {
                self.errors.model(format!(
                    "{what}: the size of shape {dims:?} of {dtype} overflows; check the \
                     dimensions (and the values bound in `dims`)"
                ));
                return None;
            }
            Some(b) if b as u128 >= MAX_TENSOR_BYTES => {
                self.errors.model(format!(
                    "{what}: shape {dims:?} of {dtype} needs {b} bytes, beyond the size an \
                     array may have (2^61 bytes on 64-bit targets); onnx-aot compiles tensors \
                     into fixed-size arrays, so give it smaller dimensions (and check the \
                     values bound in `dims`)"
                ));
                return None;
            }
            Some(_) => {}
        }
        Some((dtype, dims))
    }
    /// The sizes of declared dimensions: numbers, or names bound by the user (an unbound name
    /// is recorded for one report of every unbound dimension). A dimension with neither a size
    /// nor a name (tf2onnx and skl2onnx write them) is named `TENSOR[AXIS]` (`input[0]`), which
    /// binds like any other. `None` when any is missing.
    fn static_dims(
        &mut self,
        what: &str,
        tensor: &str,
        declared: &[onnx::Dimension],
    ) -> Option<Vec<usize>> {
        let mut dims = Vec::with_capacity(declared.len());
        let mut complete = true;
        for (i, d) in declared.iter().enumerate() {
            match (d.dim_value, d.dim_param.as_deref()) {
                (Some(v), _) if v >= 0 => match usize::try_from(v) {
                    Ok(v) => dims.push(v),
                    Err(_) => {
                        self.errors
                            .model(format!("{what}: dimension {i} ({v}) is too large"));
                        complete = false;
                    }
                },
                (Some(v), _) => {
                    self.errors.model(format!(
                        "{what}: dimension {i} is negative ({v}); sizes must be >= 0"
                    ));
                    complete = false;
                }
                (None, Some(name)) if !name.is_empty() => {
                    self.used_dims.insert(name.to_string());
                    match self.options.dims.get(name) {
                        Some(&v) => dims.push(v),
                        None => {
                            complete = false;
                            let users = self.unbound.entry(name.to_string()).or_default();
                            // A tensor's dims come together: comparing with the last user is enough, and
                            // keeps thousands of users linear.
                            if users.last().map(String::as_str) != Some(what) {
                                users.push(what.to_string());
                            }
                        }
                    }
                }
                _ => {
                    let name = unnamed_dim(tensor, i);
                    self.used_dims.insert(name.clone());
                    self.unnamed.insert(name.clone());
                    match self.options.dims.get(&name) {
                        Some(&v) => dims.push(v),
                        None => {
                            complete = false;
                            let users = self.unbound.entry(name).or_default();
                            // A tensor's dims come together: comparing with the last user is enough, and
                            // keeps thousands of users linear.
                            if users.last().map(String::as_str) != Some(what) {
                                users.push(what.to_string());
                            }
                        }
                    }
                }
            }
        }
        complete.then_some(dims)
    }
}

/// The name an unnamed dimension binds by: `TENSOR[AXIS]`, e.g. `input[0]`.
pub(super) fn unnamed_dim(tensor: &str, axis: usize) -> String {
    format!("{tensor}[{axis}]")
}
