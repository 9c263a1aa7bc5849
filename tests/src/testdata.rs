//! Reading the official ONNX test data (TensorProto files).
//!
//! The ONNX backend node tests store every input and expected output of a case as one serialized
//! `TensorProto` per file (`test_data_set_0/input_<k>.pb`, `test_data_set_0/output_<k>.pb`). This
//! module decodes them into [`TestTensor`]s (element type, shape and little-endian element bytes,
//! the layout of `run_bytes`) and compares an actual output buffer with an expected tensor.
//!
//! Only the prost message structs of the code generator are shared with the code under test; the
//! conversion from a `TensorProto` to bytes is written here, independently of
//! `onnx_aot_codegen::tensor`, so that a bug there cannot hide itself.

use std::fmt;
use std::path::{Path, PathBuf};

use half::{bf16, f16};
use onnx_aot::DType;
use onnx_aot_codegen::onnx::{data_type, TensorProto};
use prost::Message;

/// One tensor of the test data: its name, element type, shape and elements.
#[derive(Clone, Debug, PartialEq)]
pub struct TestTensor {
    /// The name stored in the `TensorProto` (the graph input or output it belongs to; may be
    /// empty).
    pub name: String,
    /// The element type.
    pub dtype: DType,
    /// The shape (empty for a scalar).
    pub shape: Vec<usize>,
    /// The elements in row-major order, each little-endian; bool is one byte `0` or `1`, float16
    /// and bfloat16 are their 2-byte bit patterns. Exactly `numel * dtype.size()` bytes.
    pub bytes: Vec<u8>,
}

impl TestTensor {
    /// The number of elements (the product of the shape; 1 for a scalar).
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The elements as `i64`, for integer tensors (such as an `axes` input); `None` for
    /// floating-point and bool tensors.
    pub fn to_i64s(&self) -> Option<Vec<i64>> {
        let size = self.dtype.size();
        self.bytes
            .chunks_exact(size)
            .map(|c| match Value::read(self.dtype, c) {
                Value::Int(v) => i64::try_from(v).ok(),
                _ => None,
            })
            .collect()
    }
}

/// Maps an ONNX `TensorProto.DataType` code to a [`DType`]; `None` for types this project does
/// not handle (string, complex, 8-bit and 4-bit floats, ...).
pub fn dtype_from_onnx(code: i32) -> Option<DType> {
    Some(match code {
        data_type::FLOAT => DType::F32,
        data_type::DOUBLE => DType::F64,
        data_type::FLOAT16 => DType::F16,
        data_type::BFLOAT16 => DType::BF16,
        data_type::INT8 => DType::I8,
        data_type::INT16 => DType::I16,
        data_type::INT32 => DType::I32,
        data_type::INT64 => DType::I64,
        data_type::UINT8 => DType::U8,
        data_type::UINT16 => DType::U16,
        data_type::UINT32 => DType::U32,
        data_type::UINT64 => DType::U64,
        data_type::BOOL => DType::Bool,
        _ => return None,
    })
}

/// Decodes one serialized `TensorProto` into a [`TestTensor`].
///
/// Elements come from `raw_data` when it is non-empty, otherwise from the typed field the ONNX
/// format assigns to the type: `float_data`, `double_data`, `int32_data` (int8, int16, int32,
/// uint8, uint16, bool, and the bit patterns of float16 and bfloat16), `int64_data`, or
/// `uint64_data` (uint32, uint64). Fails with a message on malformed protobuf, an unsupported
/// element type, external or segmented data, a negative dimension, an element count that does not
/// match the shape, or an element that does not fit its type (e.g. a bool other than 0 or 1).
pub fn decode_tensor(bytes: &[u8]) -> Result<TestTensor, String> {
    let proto = TensorProto::decode(bytes).map_err(|e| format!("malformed TensorProto: {e}"))?;
    tensor_from_proto(&proto)
}

/// Reads and decodes one `.pb` file (see [`decode_tensor`]); errors name the file.
pub fn read_tensor(path: &Path) -> Result<TestTensor, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    decode_tensor(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The inputs and expected outputs of one test data set, each in index order.
#[derive(Clone, Debug)]
pub struct DataSet {
    /// `input_0.pb`, `input_1.pb`, ... in order.
    pub inputs: Vec<TestTensor>,
    /// `output_0.pb`, `output_1.pb`, ... in order.
    pub outputs: Vec<TestTensor>,
}

/// Reads a test data set directory (e.g. `test_x/test_data_set_0`): every `input_<k>.pb` and
/// `output_<k>.pb`, which must be numbered `0..n` without gaps. Any other file is an error, so
/// that nothing in the directory is silently ignored.
pub fn read_data_set(dir: &Path) -> Result<DataSet, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut inputs: Vec<(usize, PathBuf)> = Vec::new();
    let mut outputs: Vec<(usize, PathBuf)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        let file = entry.file_name();
        let file = file.to_string_lossy();
        let index = |prefix: &str| -> Option<usize> {
            file.strip_prefix(prefix)?
                .strip_suffix(".pb")?
                .parse::<usize>()
                .ok()
        };
        if let Some(k) = index("input_") {
            inputs.push((k, path));
        } else if let Some(k) = index("output_") {
            outputs.push((k, path));
        } else {
            return Err(format!("{}: unexpected file", path.display()));
        }
    }
    let load = |mut files: Vec<(usize, PathBuf)>, what: &str| -> Result<Vec<TestTensor>, String> {
        files.sort();
        files
            .iter()
            .enumerate()
            .map(|(i, (k, path))| {
                if *k != i {
                    return Err(format!(
                        "{}: {what}_{i}.pb is missing (found {what}_{k}.pb)",
                        dir.display()
                    ));
                }
                read_tensor(path)
            })
            .collect()
    };
    Ok(DataSet {
        inputs: load(inputs, "input")?,
        outputs: load(outputs, "output")?,
    })
}

/// Converts a decoded `TensorProto` into a [`TestTensor`] (see [`decode_tensor`]).
pub fn tensor_from_proto(proto: &TensorProto) -> Result<TestTensor, String> {
    let what = if proto.name.is_empty() {
        "tensor".to_string()
    } else {
        format!("tensor `{}`", proto.name)
    };
    let dtype = dtype_from_onnx(proto.data_type)
        .ok_or_else(|| format!("{what}: unsupported data_type {}", proto.data_type))?;
    if proto.data_location != 0 || !proto.external_data.is_empty() {
        return Err(format!("{what}: external data is not supported"));
    }
    if proto.segment.is_some() {
        return Err(format!("{what}: segmented tensors are not supported"));
    }
    let shape = proto
        .dims
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("{what}: negative dimension {d}")))
        .collect::<Result<Vec<usize>, String>>()?;
    let numel = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| format!("{what}: element count of shape {shape:?} overflows"))?;
    let expected_len = numel
        .checked_mul(dtype.size())
        .ok_or_else(|| format!("{what}: byte count of shape {shape:?} overflows"))?;

    let bytes = if !proto.raw_data.is_empty() {
        if proto.raw_data.len() != expected_len {
            return Err(format!(
                "{what}: raw_data has {} bytes, shape {shape:?} of {} needs {expected_len}",
                proto.raw_data.len(),
                dtype.onnx_name()
            ));
        }
        proto.raw_data.clone()
    } else {
        typed_bytes(proto, dtype).map_err(|e| format!("{what}: {e}"))?
    };
    if bytes.len() != expected_len {
        return Err(format!(
            "{what}: {} elements stored, shape {shape:?} has {numel}",
            bytes.len() / dtype.size()
        ));
    }
    if dtype == DType::Bool {
        if let Some(i) = bytes.iter().position(|&b| b > 1) {
            return Err(format!(
                "{what}: bool element {i} is {}, not 0 or 1",
                bytes[i]
            ));
        }
    }
    Ok(TestTensor {
        name: proto.name.clone(),
        dtype,
        shape,
        bytes,
    })
}

/// The elements of the typed field that holds `dtype`, as little-endian bytes.
fn typed_bytes(proto: &TensorProto, dtype: DType) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    // Narrows the `int32_data` (or `uint64_data`) entries to the element type, rejecting values
    // that do not fit.
    fn narrow<S: Copy + fmt::Display, T: TryFrom<S>>(
        values: &[S],
        field: &str,
        mut write: impl FnMut(T),
    ) -> Result<(), String> {
        for (i, &v) in values.iter().enumerate() {
            let t = T::try_from(v).map_err(|_| {
                format!(
                    "{field}[{i}] = {v} does not fit in {}",
                    std::any::type_name::<T>()
                )
            })?;
            write(t);
        }
        Ok(())
    }
    match dtype {
        DType::F32 => proto
            .float_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::F64 => proto
            .double_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::I64 => proto
            .int64_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::I32 => proto
            .int32_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::I16 => narrow(&proto.int32_data, "int32_data", |v: i16| {
            out.extend(v.to_le_bytes())
        })?,
        DType::I8 => narrow(&proto.int32_data, "int32_data", |v: i8| {
            out.extend(v.to_le_bytes())
        })?,
        DType::U8 => narrow(&proto.int32_data, "int32_data", |v: u8| out.push(v))?,
        DType::U16 | DType::F16 | DType::BF16 => {
            // float16 and bfloat16 are stored as their bit patterns, one per int32 entry.
            narrow(&proto.int32_data, "int32_data", |v: u16| {
                out.extend(v.to_le_bytes())
            })?
        }
        DType::Bool => {
            for (i, &v) in proto.int32_data.iter().enumerate() {
                match v {
                    0 | 1 => out.push(v as u8),
                    _ => return Err(format!("int32_data[{i}] = {v} is not a bool (0 or 1)")),
                }
            }
        }
        DType::U32 => narrow(&proto.uint64_data, "uint64_data", |v: u32| {
            out.extend(v.to_le_bytes())
        })?,
        DType::U64 => proto
            .uint64_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
    }
    Ok(out)
}

/// One element, widened for comparison and display.
#[derive(Clone, Copy, Debug)]
enum Value {
    /// A floating-point element (f16, bf16 and f32 widen to f64 exactly).
    Float(f64),
    /// An integer element.
    Int(i128),
    /// A bool element.
    Bool(bool),
    /// A bool byte other than 0 or 1 (only possible in an actual buffer).
    BadBool(u8),
}

impl Value {
    /// Reads one element from its `dtype.size()` little-endian bytes.
    fn read(dtype: DType, b: &[u8]) -> Value {
        fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
            b.try_into().expect("chunk of the element size")
        }
        match dtype {
            DType::F32 => Value::Float(f32::from_le_bytes(arr(b)).into()),
            DType::F64 => Value::Float(f64::from_le_bytes(arr(b))),
            DType::F16 => Value::Float(f16::from_bits(u16::from_le_bytes(arr(b))).to_f64()),
            DType::BF16 => Value::Float(bf16::from_bits(u16::from_le_bytes(arr(b))).to_f64()),
            DType::I8 => Value::Int(i8::from_le_bytes(arr(b)).into()),
            DType::I16 => Value::Int(i16::from_le_bytes(arr(b)).into()),
            DType::I32 => Value::Int(i32::from_le_bytes(arr(b)).into()),
            DType::I64 => Value::Int(i64::from_le_bytes(arr(b)).into()),
            DType::U8 => Value::Int(b[0].into()),
            DType::U16 => Value::Int(u16::from_le_bytes(arr(b)).into()),
            DType::U32 => Value::Int(u32::from_le_bytes(arr(b)).into()),
            DType::U64 => Value::Int(u64::from_le_bytes(arr(b)).into()),
            DType::Bool => match b[0] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                other => Value::BadBool(other),
            },
        }
    }

    /// Equality of the contract: floats equal when both are NaN or `a == b` (so `-0.0 == +0.0`);
    /// integers and bools exactly.
    fn same(self, other: Value) -> bool {
        match (self, other) {
            (Value::Float(a), Value::Float(b)) => (a.is_nan() && b.is_nan()) || a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // `{:?}` keeps the sign of zero and prints NaN and infinities readably.
            Value::Float(v) => write!(f, "{v:?}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::BadBool(b) => write!(f, "invalid bool byte {b}"),
        }
    }
}

/// The row-major multi-index of flat index `flat` in `shape`.
fn multi_index(shape: &[usize], mut flat: usize) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (i, &d) in shape.iter().enumerate().rev() {
        if d > 0 {
            index[i] = flat % d;
            flat /= d;
        }
    }
    index
}

/// Compares an actual output buffer (little-endian elements of `expected.dtype`, as written by
/// `run_bytes`) with the expected tensor, element by element.
///
/// Floating-point elements are equal when both are NaN or `a == b` (so `-0.0` equals `+0.0`);
/// integers and bools must be identical. On mismatch the message names the first differing flat
/// index (and its multi-index), the expected and the actual value; a buffer of the wrong length is
/// reported as such.
pub fn compare_values(expected: &TestTensor, actual: &[u8]) -> Result<(), String> {
    let size = expected.dtype.size();
    if actual.len() != expected.bytes.len() {
        return Err(format!(
            "output `{}`: {} bytes, expected {} ({} elements of {})",
            expected.name,
            actual.len(),
            expected.bytes.len(),
            expected.bytes.len() / size,
            expected.dtype.onnx_name()
        ));
    }
    let pairs = expected
        .bytes
        .chunks_exact(size)
        .zip(actual.chunks_exact(size));
    for (i, (e, a)) in pairs.enumerate() {
        let (e, a) = (
            Value::read(expected.dtype, e),
            Value::read(expected.dtype, a),
        );
        if !e.same(a) {
            return Err(format!(
                "output `{}` ({} {:?}): first difference at flat index {i} {:?}: expected {e}, \
                 actual {a}",
                expected.name,
                expected.dtype.onnx_name(),
                expected.shape,
                multi_index(&expected.shape, i)
            ));
        }
    }
    Ok(())
}

/// Like [`compare_values`], but first checks that the actual element type and shape (for example
/// a generated module's `OUTPUT_DTYPES[k]` and `OUTPUT_SHAPES[k]`) equal the expected ones.
pub fn compare_tensor(
    expected: &TestTensor,
    dtype: DType,
    shape: &[usize],
    actual: &[u8],
) -> Result<(), String> {
    if dtype != expected.dtype {
        return Err(format!(
            "output `{}`: element type {}, expected {}",
            expected.name,
            dtype.onnx_name(),
            expected.dtype.onnx_name()
        ));
    }
    if shape != expected.shape.as_slice() {
        return Err(format!(
            "output `{}`: shape {shape:?}, expected {:?}",
            expected.name, expected.shape
        ));
    }
    compare_values(expected, actual)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proto(data_type: i32, dims: &[i64]) -> TensorProto {
        TensorProto {
            data_type,
            dims: dims.to_vec(),
            name: "t".into(),
            ..Default::default()
        }
    }

    fn roundtrip(p: &TensorProto) -> Result<TestTensor, String> {
        decode_tensor(&p.encode_to_vec())
    }

    #[test]
    fn raw_data_is_taken_as_is() {
        let mut p = proto(data_type::FLOAT, &[2]);
        p.raw_data = [1.5f32.to_le_bytes(), (-0.0f32).to_le_bytes()].concat();
        let t = roundtrip(&p).unwrap();
        assert_eq!(t.dtype, DType::F32);
        assert_eq!(t.shape, vec![2]);
        assert_eq!(t.bytes, p.raw_data);
    }

    #[test]
    fn raw_data_of_wrong_length_is_an_error() {
        let mut p = proto(data_type::INT64, &[2]);
        p.raw_data = vec![0; 12];
        assert!(roundtrip(&p).unwrap_err().contains("raw_data"));
    }

    #[test]
    fn typed_fields() {
        let mut p = proto(data_type::FLOAT, &[2]);
        p.float_data = vec![1.0, f32::NAN];
        let t = roundtrip(&p).unwrap();
        assert_eq!(&t.bytes[..4], &1.0f32.to_le_bytes());
        assert!(f32::from_le_bytes(t.bytes[4..].try_into().unwrap()).is_nan());

        let mut p = proto(data_type::DOUBLE, &[1]);
        p.double_data = vec![-2.5];
        assert_eq!(roundtrip(&p).unwrap().bytes, (-2.5f64).to_le_bytes());

        let mut p = proto(data_type::INT8, &[3]);
        p.int32_data = vec![-128, 0, 127];
        assert_eq!(roundtrip(&p).unwrap().bytes, vec![0x80, 0, 0x7f]);

        let mut p = proto(data_type::INT16, &[1]);
        p.int32_data = vec![-2];
        assert_eq!(roundtrip(&p).unwrap().bytes, (-2i16).to_le_bytes());

        let mut p = proto(data_type::INT32, &[1]);
        p.int32_data = vec![-7];
        assert_eq!(roundtrip(&p).unwrap().bytes, (-7i32).to_le_bytes());

        let mut p = proto(data_type::UINT8, &[2]);
        p.int32_data = vec![0, 255];
        assert_eq!(roundtrip(&p).unwrap().bytes, vec![0, 255]);

        let mut p = proto(data_type::UINT16, &[1]);
        p.int32_data = vec![65535];
        assert_eq!(roundtrip(&p).unwrap().bytes, vec![255, 255]);

        let mut p = proto(data_type::BOOL, &[2]);
        p.int32_data = vec![1, 0];
        assert_eq!(roundtrip(&p).unwrap().bytes, vec![1, 0]);

        let mut p = proto(data_type::FLOAT16, &[1]);
        p.int32_data = vec![i32::from(f16::from_f32(-1.0).to_bits())];
        assert_eq!(
            roundtrip(&p).unwrap().bytes,
            f16::from_f32(-1.0).to_le_bytes()
        );

        let mut p = proto(data_type::BFLOAT16, &[1]);
        p.int32_data = vec![i32::from(bf16::from_f32(3.0).to_bits())];
        assert_eq!(
            roundtrip(&p).unwrap().bytes,
            bf16::from_f32(3.0).to_le_bytes()
        );

        let mut p = proto(data_type::INT64, &[1]);
        p.int64_data = vec![i64::MIN];
        assert_eq!(roundtrip(&p).unwrap().bytes, i64::MIN.to_le_bytes());

        let mut p = proto(data_type::UINT32, &[1]);
        p.uint64_data = vec![u64::from(u32::MAX)];
        assert_eq!(roundtrip(&p).unwrap().bytes, u32::MAX.to_le_bytes());

        let mut p = proto(data_type::UINT64, &[1]);
        p.uint64_data = vec![u64::MAX];
        assert_eq!(roundtrip(&p).unwrap().bytes, u64::MAX.to_le_bytes());
    }

    #[test]
    fn out_of_range_typed_values_are_errors() {
        let mut p = proto(data_type::INT8, &[1]);
        p.int32_data = vec![128];
        assert!(roundtrip(&p).is_err());
        let mut p = proto(data_type::BOOL, &[1]);
        p.int32_data = vec![2];
        assert!(roundtrip(&p).is_err());
        let mut p = proto(data_type::UINT32, &[1]);
        p.uint64_data = vec![1 << 32];
        assert!(roundtrip(&p).is_err());
        let mut p = proto(data_type::BOOL, &[1]);
        p.raw_data = vec![3];
        assert!(roundtrip(&p).is_err());
    }

    #[test]
    fn count_mismatch_and_bad_headers_are_errors() {
        let mut p = proto(data_type::FLOAT, &[3]);
        p.float_data = vec![1.0];
        assert!(roundtrip(&p).is_err());
        assert!(roundtrip(&proto(data_type::STRING, &[0])).is_err());
        assert!(roundtrip(&proto(data_type::FLOAT, &[-1])).is_err());
        let mut p = proto(data_type::FLOAT, &[0]);
        p.data_location = 1;
        assert!(roundtrip(&p).is_err());
        assert!(decode_tensor(&[0xff, 0xff]).is_err());
    }

    #[test]
    fn empty_and_scalar_tensors() {
        let t = roundtrip(&proto(data_type::FLOAT, &[2, 0, 4])).unwrap();
        assert_eq!((t.numel(), t.bytes.len()), (0, 0));
        let mut p = proto(data_type::INT64, &[]);
        p.int64_data = vec![5];
        let t = roundtrip(&p).unwrap();
        assert_eq!(t.numel(), 1);
        assert_eq!(t.to_i64s(), Some(vec![5]));
    }

    fn f32s(name: &str, shape: &[usize], v: &[f32]) -> TestTensor {
        TestTensor {
            name: name.into(),
            dtype: DType::F32,
            shape: shape.to_vec(),
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    #[test]
    fn float_comparison_follows_the_contract() {
        let e = f32s("y", &[3], &[f32::NAN, 0.0, 1.0]);
        let a = f32s("y", &[3], &[-f32::NAN, -0.0, 1.0]);
        assert_eq!(compare_values(&e, &a.bytes), Ok(()));
        let a = f32s("y", &[3], &[f32::NAN, 0.0, f32::NAN]);
        let msg = compare_values(&e, &a.bytes).unwrap_err();
        assert!(msg.contains("flat index 2"), "{msg}");
        assert!(msg.contains("expected 1.0"), "{msg}");
        assert!(msg.contains("actual NaN"), "{msg}");
        let a = f32s("y", &[3], &[1.0, 0.0, 1.0]);
        assert!(compare_values(&e, &a.bytes)
            .unwrap_err()
            .contains("flat index 0"));
    }

    #[test]
    fn integer_and_bool_comparison_is_exact() {
        let e = TestTensor {
            name: "y".into(),
            dtype: DType::I64,
            shape: vec![2, 2],
            bytes: [0i64, 1, 2, 3]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        };
        let a: Vec<u8> = [0i64, 1, 2, 4]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let msg = compare_values(&e, &a).unwrap_err();
        assert!(msg.contains("flat index 3 [1, 1]"), "{msg}");
        assert!(msg.contains("expected 3, actual 4"), "{msg}");
        assert!(compare_values(&e, &a[..8]).unwrap_err().contains("bytes"));

        let e = TestTensor {
            name: "b".into(),
            dtype: DType::Bool,
            shape: vec![2],
            bytes: vec![1, 0],
        };
        assert_eq!(compare_values(&e, &[1, 0]), Ok(()));
        assert!(compare_values(&e, &[1, 2]).is_err());
        assert!(compare_tensor(&e, DType::U8, &[2], &[1, 0]).is_err());
        assert!(compare_tensor(&e, DType::Bool, &[1, 2], &[1, 0]).is_err());
        assert_eq!(compare_tensor(&e, DType::Bool, &[2], &[1, 0]), Ok(()));
    }

    #[test]
    fn half_comparison() {
        let e = TestTensor {
            name: "h".into(),
            dtype: DType::F16,
            shape: vec![2],
            bytes: [f16::from_f32(0.0), f16::NAN]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        };
        let a: Vec<u8> = [f16::from_f32(-0.0), f16::NAN]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(compare_values(&e, &a), Ok(()));
    }
}
