//! Constant tensors of a [`TensorSpec`], stored the ways ONNX allows (and a few it does not).

use onnx_aot_codegen::onnx::{data_type as dt, StringStringEntryProto, TensorProto};

use crate::spec::{Elem, Storage, TensorSpec};

/// At most this many dims per constant, each below 5: at most 256 elements.
const MAX_DIMS: usize = 4;

/// The ONNX data type code of an element type.
pub fn elem_code(e: Elem) -> i32 {
    match e {
        Elem::F32 => dt::FLOAT,
        Elem::F16 => dt::FLOAT16,
        Elem::Bf16 => dt::BFLOAT16,
        Elem::F64 => dt::DOUBLE,
        Elem::I8 => dt::INT8,
        Elem::U8 => dt::UINT8,
        Elem::I16 => dt::INT16,
        Elem::U16 => dt::UINT16,
        Elem::I32 => dt::INT32,
        Elem::U32 => dt::UINT32,
        Elem::I64 => dt::INT64,
        Elem::U64 => dt::UINT64,
        Elem::Bool => dt::BOOL,
        Elem::Str => dt::STRING,
        Elem::Code(c) => i32::from(c % 32),
    }
}

/// An integer of a small spec value: -128 and 127 stand for the extremes of `i64`.
pub fn wide(v: i8) -> i64 {
    match v {
        i8::MIN => i64::MIN,
        i8::MAX => i64::MAX,
        v => v.into(),
    }
}

/// A float of a small spec value: NaN, the infinities, or a quarter step.
pub fn float(v: i8) -> f64 {
    match v {
        i8::MIN => f64::NAN,
        i8::MAX => f64::INFINITY,
        126 => f64::NEG_INFINITY,
        v => f64::from(v) / 4.0,
    }
}

/// Bytes per element in `raw_data` (strings are never raw: 1 makes a wrong blob).
fn width(code: i32) -> usize {
    match code {
        dt::DOUBLE | dt::INT64 | dt::UINT64 => 8,
        dt::FLOAT | dt::INT32 | dt::UINT32 => 4,
        dt::FLOAT16 | dt::BFLOAT16 | dt::INT16 | dt::UINT16 => 2,
        _ => 1,
    }
}

/// The little-endian bytes of one element.
fn raw(code: i32, v: i8, out: &mut Vec<u8>) {
    let f = float(v);
    let i = wide(v);
    match code {
        dt::FLOAT => out.extend((f as f32).to_le_bytes()),
        dt::DOUBLE => out.extend(f.to_le_bytes()),
        // bfloat16 bits: the top half of the f32 (also used, as any bits, for float16).
        dt::FLOAT16 | dt::BFLOAT16 => {
            out.extend((((f as f32).to_bits() >> 16) as u16).to_le_bytes())
        }
        dt::BOOL => out.push(u8::from(v & 1 == 1)),
        _ => out.extend(&i.to_le_bytes()[..width(code)]),
    }
}

/// A tensor named `name` holding a spec's elements, cycled over its element count.
pub fn tensor(name: &str, spec: &TensorSpec) -> TensorProto {
    let code = elem_code(spec.elem);
    let dims: Vec<i64> = spec
        .dims
        .iter()
        .take(MAX_DIMS)
        .map(|&d| i64::from(d % 5))
        .collect();
    let count = dims.iter().product::<i64>() as usize;
    let values: Vec<i8> = (0..count)
        .map(|i| {
            spec.values
                .get(i % spec.values.len().max(1))
                .copied()
                .unwrap_or(0)
        })
        .collect();
    let mut t = TensorProto {
        name: name.to_string(),
        dims,
        data_type: code,
        ..TensorProto::default()
    };
    match spec.storage {
        Storage::Typed => typed(&mut t, code, &values),
        Storage::Raw | Storage::RawWrongLength(_) => {
            for &v in &values {
                raw(code, v, &mut t.raw_data);
            }
            match spec.storage {
                Storage::RawWrongLength(true) => t.raw_data.push(0),
                Storage::RawWrongLength(false) => {
                    t.raw_data.pop();
                }
                _ => {}
            }
        }
        Storage::Empty => {}
        Storage::External => {
            t.data_location = 1;
            t.external_data.push(StringStringEntryProto {
                key: "location".to_string(),
                value: "weights.bin".to_string(),
            });
        }
    }
    t
}

/// Fills the typed field an element type is stored in.
fn typed(t: &mut TensorProto, code: i32, values: &[i8]) {
    for &v in values {
        let i = wide(v);
        match code {
            dt::FLOAT => t.float_data.push(float(v) as f32),
            dt::DOUBLE => t.double_data.push(float(v)),
            dt::INT64 => t.int64_data.push(i),
            dt::UINT32 | dt::UINT64 => t.uint64_data.push(i as u64),
            dt::STRING => t.string_data.push(v.to_string().into_bytes()),
            dt::FLOAT16 | dt::BFLOAT16 => t
                .int32_data
                .push(((float(v) as f32).to_bits() >> 16) as i32),
            dt::BOOL => t.int32_data.push(i32::from(v & 1 == 1)),
            dt::INT32 | dt::INT16 | dt::INT8 | dt::UINT16 | dt::UINT8 => {
                t.int32_data.push(i as i32)
            }
            _ => raw(code, v, &mut t.raw_data),
        }
    }
}

/// A named INT64 tensor.
pub fn int64(name: &str, dims: Vec<i64>, values: Vec<i64>) -> TensorProto {
    TensorProto {
        name: name.to_string(),
        dims,
        data_type: dt::INT64,
        int64_data: values,
        ..TensorProto::default()
    }
}
