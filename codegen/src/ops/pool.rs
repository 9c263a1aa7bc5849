//! Max pooling over whole feature maps. GlobalMaxPool (versions 1, 22): the maximum over every
//! axis after the first two (N, C), kept as size 1; NaN propagates, as in ReduceMax. 22 adds
//! bfloat16. It is a ReduceMax over the spatial axes, so it resolves to the reduction's op and
//! shares its plans and kernels.

use std::sync::Arc;

use super::reduce::ReduceOp;
use super::{Attr, AttrKind, Family, Input, NodeCx, Resolved, Signature};
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
            cast: None,
        };
        Ok(Resolved::Compute {
            op: Arc::new(op),
            dtype: input.dtype,
            shape,
        })
    }
}

/// MaxPool (1, 8, 10, 11, 12, 22) whose window covers every spatial dimension, with no padding
/// and dilation 1, `auto_pad` NOTSET or VALID: what exporters write for global and adaptive max
/// pooling to size 1. It is GlobalMaxPool then; other windows are an error naming the
/// attributes. The optional Indices output (from 8) is [`super::pool_indices`].
pub struct MaxPoolFamily;

/// MaxPool.
pub static MAX_POOL: MaxPoolFamily = MaxPoolFamily;

const fn pool_attr(name: &'static str, kind: AttrKind) -> Attr {
    Attr { name, kind }
}

const POOL_ATTRS: &[Attr] = &[
    pool_attr("auto_pad", AttrKind::String),
    pool_attr("kernel_shape", AttrKind::Ints),
    pool_attr("pads", AttrKind::Ints),
    pool_attr("strides", AttrKind::Ints),
    pool_attr("storage_order", AttrKind::Int),
    pool_attr("dilations", AttrKind::Ints),
    pool_attr("ceil_mode", AttrKind::Int),
];

impl Family for MaxPoolFamily {
    fn versions(&self) -> &'static [i64] {
        &[1, 8, 10, 11, 12, 22]
    }

    fn signature(&self, version: i64) -> Signature {
        let n = match version {
            1 => 4,
            8 => 5,
            _ => 7,
        };
        Signature {
            inputs: &[Input::DATA],
            attributes: &POOL_ATTRS[..n],
        }
    }

    fn allows(&self, version: i64, dtype: DType) -> bool {
        match dtype {
            DType::F32 | DType::F64 | DType::F16 => true,
            DType::BF16 => version >= 22,
            DType::I8 | DType::U8 => version >= 12,
            _ => false,
        }
    }

    fn outputs(&self, version: i64) -> usize {
        if version >= 8 {
            2
        } else {
            1
        }
    }

    fn resolve(&self, cx: &NodeCx<'_>) -> Result<Resolved, String> {
        let input = super::data(cx)?;
        let spatial = input.shape.get(2..).unwrap_or(&[]);
        let label = cx.label;
        let kernel = cx.attrs.ints("kernel_shape").unwrap_or(&[]);
        let covers = kernel.len() == spatial.len()
            && kernel
                .iter()
                .zip(spatial)
                .all(|(&k, &d)| usize::try_from(k).ok() == Some(d));
        let zeros = |name: &str| {
            cx.attrs
                .ints(name)
                .is_none_or(|v| v.iter().all(|&p| p == 0))
        };
        let ones = |name: &str| {
            cx.attrs
                .ints(name)
                .is_none_or(|v| v.iter().all(|&p| p == 1))
        };
        let pad = cx
            .attrs
            .get("auto_pad")
            .map(|a| String::from_utf8_lossy(&a.s).into_owned())
            .unwrap_or_else(|| "NOTSET".to_string());
        if spatial.is_empty()
            || !covers
            || !zeros("pads")
            || !ones("dilations")
            || !matches!(pad.as_str(), "NOTSET" | "VALID" | "")
        {
            return Err(format!(
                "{label}: onnx-aot compiles MaxPool only with a window covering every spatial \
                 dimension (kernel_shape {spatial:?} for the input {:?}), no pads, dilations 1 \
                 and auto_pad NOTSET or VALID (global or adaptive pooling to size 1); this one \
                 has kernel_shape {kernel:?}, pads {:?}, dilations {:?}, auto_pad {pad:?}",
                input.shape,
                cx.attrs.ints("pads").unwrap_or(&[]),
                cx.attrs.ints("dilations").unwrap_or(&[]),
            ));
        }
        if cx.output == 1 {
            let column_major = cx.attrs.int("storage_order").unwrap_or(0) != 0;
            let (op, shape) =
                super::pool_indices::indices(input, column_major).ok_or_else(|| {
                    format!(
                        "{label}: the input {:?} has shape {:?}, an empty map: the Indices of a \
                     maximum over no element are undefined; remove the Indices output or give \
                     the map a non-zero size",
                        input.name, input.shape
                    )
                })?;
            return Ok(Resolved::Compute {
                op,
                dtype: DType::I64,
                shape,
            });
        }
        GLOBAL_MAX_POOL.resolve(cx)
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
            output: 0,
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

    fn maxpool(
        attrs: Vec<crate::onnx::AttributeProto>,
        shape: &[usize],
    ) -> Result<Vec<usize>, String> {
        let input = Value {
            name: "x".to_string(),
            dtype: DType::F32,
            shape: shape.to_vec(),
            source: Source::Input(0),
        };
        let node = crate::onnx::NodeProto {
            attribute: attrs,
            ..Default::default()
        };
        let attrs = Attributes::parse(&node, &MAX_POOL.signature(12), "node 0").unwrap();
        let cx = NodeCx {
            version: 12,
            label: "node 0",
            attrs: &attrs,
            data: Some(&input),
            constants: &[None],
            input_dtypes: &[],
            output: 0,
        };
        match MAX_POOL.resolve(&cx)? {
            Resolved::Compute { shape, .. } => Ok(shape),
            Resolved::Constant(_) => Err("a constant".to_string()),
        }
    }

    fn ints(name: &str, v: &[i64]) -> crate::onnx::AttributeProto {
        crate::onnx::AttributeProto {
            name: name.into(),
            ints: v.to_vec(),
            r#type: crate::onnx::attribute_type::INTS,
            ..Default::default()
        }
    }

    #[test]
    fn maxpool_over_the_whole_map_is_a_global_max_pool() {
        let shape = maxpool(vec![ints("kernel_shape", &[4, 5])], &[2, 3, 4, 5]).unwrap();
        assert_eq!(shape, [2, 3, 1, 1]);
        // Strides do not matter when the window covers the map.
        let with = vec![ints("kernel_shape", &[4, 5]), ints("strides", &[4, 5])];
        assert_eq!(maxpool(with, &[2, 3, 4, 5]).unwrap(), [2, 3, 1, 1]);
        for attrs in [
            vec![ints("kernel_shape", &[2, 2])],
            vec![ints("kernel_shape", &[4, 5]), ints("pads", &[1, 0, 0, 0])],
            vec![ints("kernel_shape", &[4, 5]), ints("dilations", &[2, 1])],
        ] {
            let e = maxpool(attrs, &[2, 3, 4, 5]).unwrap_err();
            assert!(e.contains("window covering every spatial dimension"), "{e}");
        }
    }
}
