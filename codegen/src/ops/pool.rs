//! Max pooling over whole feature maps. GlobalMaxPool (versions 1, 22): the maximum over every
//! axis after the first two (N, C), kept as size 1; NaN propagates, as in ReduceMax. 22 adds
//! bfloat16. It is a ReduceMax over the spatial axes, so it resolves to the reduction's op and
//! shares its plans and kernels.

use std::sync::Arc;

use super::reduce::ReduceOp;
use super::{Family, Input, NodeCx, Resolved, Signature};
use crate::dtype::DType;
use crate::ir::Direction;

/// GlobalMaxPool.
pub struct GlobalMaxPoolFamily;

/// GlobalMaxPool.
pub static GLOBAL_MAX_POOL: GlobalMaxPoolFamily = GlobalMaxPoolFamily;

impl Family for GlobalMaxPoolFamily {
    fn versions(&self) -> &'static [i64] {
        &[1, 22]
    }

    fn signature(&self, _version: i64) -> Signature {
        Signature {
            inputs: &[Input::DATA],
            attributes: &[],
        }
    }

    fn allows(&self, version: i64, dtype: DType) -> bool {
        match dtype {
            DType::F32 | DType::F64 | DType::F16 => true,
            DType::BF16 => version >= 22,
            _ => false,
        }
    }

    fn type_note(&self, _version: i64, dtype: DType) -> &'static str {
        match dtype {
            DType::BF16 => " (BFLOAT16 arrives in opset 22)",
            _ => "",
        }
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let input = super::data(cx)?;
        let rank = input.shape.len();
        if rank < 3 {
            return Err(format!(
                "{}: input {:?} has shape {:?}; GlobalMaxPool takes a batch of feature maps \
                 (N x C x D1 x ...), at least 3 dimensions: reshape the input, or use ReduceMax \
                 over the axes meant",
                cx.label, input.name, input.shape
            ));
        }
        let mut shape = input.shape.clone();
        shape[2..].iter_mut().for_each(|d| *d = 1);
        let op = ReduceOp {
            direction: Direction::Max,
            axes: (2..rank).collect(),
            keepdims: true,
            noop: false,
        };
        Ok(Resolved::Compute {
            op: Arc::new(op),
            dtype: input.dtype,
            shape,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Source, Value};
    use crate::ops::Attributes;

    fn resolve(version: i64, shape: &[usize]) -> Result<(ReduceOp, Vec<usize>), String> {
        let input = Value {
            name: "x".to_string(),
            dtype: DType::F32,
            shape: shape.to_vec(),
            source: Source::Input(0),
        };
        let attrs = Attributes::default();
        let cx = NodeCx {
            version,
            label: "node 0",
            attrs: &attrs,
            data: Some(&input),
            constants: &[None],
            input_dtypes: &[],
        };
        match GLOBAL_MAX_POOL.resolve(&cx)? {
            Resolved::Compute { op, shape, .. } => {
                let reduce = op.downcast_ref::<ReduceOp>().cloned();
                Ok((reduce.ok_or("not a reduction")?, shape))
            }
            Resolved::Constant(_) => Err("a constant".to_string()),
        }
    }

    #[test]
    fn globalmaxpool_reduces_every_spatial_axis_kept_as_one() {
        let (op, shape) = resolve(1, &[2, 3, 4, 5]).unwrap();
        assert_eq!(op.axes, [2, 3]);
        assert!(op.keepdims && !op.noop && op.direction == Direction::Max);
        assert_eq!(shape, [2, 3, 1, 1]);
        let (op, shape) = resolve(22, &[1, 8, 7]).unwrap();
        assert_eq!((op.axes, shape), (vec![2], vec![1, 8, 1]));
        let (_, shape) = resolve(22, &[1, 2, 3, 4, 5]).unwrap();
        assert_eq!(shape, [1, 2, 1, 1, 1]);
    }

    #[test]
    fn globalmaxpool_needs_a_spatial_axis_and_a_float_type() {
        let e = resolve(1, &[2, 3]).unwrap_err();
        assert!(e.contains("at least 3 dimensions"), "{e}");
        assert!(!GLOBAL_MAX_POOL.allows(1, DType::BF16) && GLOBAL_MAX_POOL.allows(22, DType::BF16));
        assert!(!GLOBAL_MAX_POOL.allows(22, DType::I32));
        assert_eq!(GLOBAL_MAX_POOL.version_at(21), Some(1));
    }
}
