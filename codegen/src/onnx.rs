//! The subset of the ONNX protobuf messages that onnx-aot reads and writes.
//!
//! Written for this project with `prost` derives; field numbers follow the ONNX format. Only the
//! messages and fields the generator needs are declared; every other field is skipped by the
//! decoder. The structs also serve tests and tools that build models programmatically.

/// `ModelProto`: the top-level container of an `.onnx` file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// The IR version the file was written with.
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// The tool that wrote the file.
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// The version of that tool.
    #[prost(string, tag = "3")]
    pub producer_version: String,
    /// Reverse-DNS namespace of the model.
    #[prost(string, tag = "4")]
    pub domain: String,
    /// The model's own version number.
    #[prost(int64, tag = "5")]
    pub model_version: i64,
    /// Human-readable documentation.
    #[prost(string, tag = "6")]
    pub doc_string: String,
    /// The computation graph.
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    /// Operator set versions, one per domain.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// Free-form key/value metadata.
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

/// `OperatorSetIdProto`: one opset import (domain and version).
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// The domain; `""` and `"ai.onnx"` both name the default domain.
    #[prost(string, tag = "1")]
    pub domain: String,
    /// The opset version imported for that domain.
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// `StringStringEntryProto`: a key/value pair.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    /// The key.
    #[prost(string, tag = "1")]
    pub key: String,
    /// The value.
    #[prost(string, tag = "2")]
    pub value: String,
}

/// `GraphProto`: nodes, initializers and the graph's interface.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// The nodes, in any order.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// The graph's name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Constant tensors.
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// Human-readable documentation.
    #[prost(string, tag = "10")]
    pub doc_string: String,
    /// Graph inputs (may also list initializers, as older exporters do).
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// Graph outputs.
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
    /// Declared types and shapes of intermediate values.
    #[prost(message, repeated, tag = "13")]
    pub value_info: Vec<ValueInfoProto>,
    /// Sparse constant tensors (not supported; detected to report an error).
    #[prost(bytes = "vec", repeated, tag = "15")]
    pub sparse_initializer: Vec<Vec<u8>>,
}

/// `NodeProto`: one operator application.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// Names of the input values; `""` marks an omitted optional input.
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// Names of the output values.
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// The node's name (may be empty).
    #[prost(string, tag = "3")]
    pub name: String,
    /// The operator, e.g. `"ArgMax"`.
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// The attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
    /// Human-readable documentation.
    #[prost(string, tag = "6")]
    pub doc_string: String,
    /// The operator's domain; `""` or `"ai.onnx"` for the default one.
    #[prost(string, tag = "7")]
    pub domain: String,
}

/// `AttributeProto`: a named attribute value of a node.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// The attribute's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Value of a `FLOAT` attribute.
    #[prost(float, tag = "2")]
    pub f: f32,
    /// Value of an `INT` attribute.
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// Value of a `STRING` attribute.
    #[prost(bytes = "vec", tag = "4")]
    pub s: Vec<u8>,
    /// Value of a `TENSOR` attribute.
    #[prost(message, optional, tag = "5")]
    pub t: Option<TensorProto>,
    /// Value of a `FLOATS` attribute.
    #[prost(float, repeated, tag = "7")]
    pub floats: Vec<f32>,
    /// Value of an `INTS` attribute.
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
    /// Value of a `STRINGS` attribute.
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub strings: Vec<Vec<u8>>,
    /// Reference to a function attribute (not supported here).
    #[prost(string, tag = "21")]
    pub ref_attr_name: String,
    /// Which of the value fields holds the value (see [`attribute_type`]).
    #[prost(int32, tag = "20")]
    pub r#type: i32,
}

/// The `AttributeProto.AttributeType` codes.
pub mod attribute_type {
    /// Not set (files from before IR version 2 leave the type out).
    pub const UNDEFINED: i32 = 0;
    /// A single float.
    pub const FLOAT: i32 = 1;
    /// A single integer.
    pub const INT: i32 = 2;
    /// A byte string.
    pub const STRING: i32 = 3;
    /// A tensor.
    pub const TENSOR: i32 = 4;
    /// A subgraph.
    pub const GRAPH: i32 = 5;
    /// A list of floats.
    pub const FLOATS: i32 = 6;
    /// A list of integers.
    pub const INTS: i32 = 7;
    /// A list of byte strings.
    pub const STRINGS: i32 = 8;
    /// A sparse tensor.
    pub const SPARSE_TENSOR: i32 = 11;

    /// The ONNX spelling of an attribute type code, for messages.
    pub fn name(code: i32) -> &'static str {
        match code {
            UNDEFINED => "UNDEFINED",
            FLOAT => "FLOAT",
            INT => "INT",
            STRING => "STRING",
            TENSOR => "TENSOR",
            GRAPH => "GRAPH",
            FLOATS => "FLOATS",
            INTS => "INTS",
            STRINGS => "STRINGS",
            9 => "TENSORS",
            10 => "GRAPHS",
            SPARSE_TENSOR => "SPARSE_TENSOR",
            12 => "SPARSE_TENSORS",
            13 => "TYPE_PROTO",
            14 => "TYPE_PROTOS",
            _ => "unknown",
        }
    }
}

/// `ValueInfoProto`: a value's name and type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// The value's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its type (tensor element type and shape).
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
    /// Human-readable documentation.
    #[prost(string, tag = "3")]
    pub doc_string: String,
}

/// `TypeProto`: the type of a value. Only tensor types are supported.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// A dense tensor type.
    #[prost(message, optional, tag = "1")]
    pub tensor_type: Option<TensorTypeProto>,
    /// Present when the value is a sequence (not supported; detected for errors).
    #[prost(bytes = "vec", optional, tag = "4")]
    pub sequence_type: Option<Vec<u8>>,
    /// Present when the value is a map (not supported; detected for errors).
    #[prost(bytes = "vec", optional, tag = "5")]
    pub map_type: Option<Vec<u8>>,
    /// Present when the value is a sparse tensor (not supported; detected for errors).
    #[prost(bytes = "vec", optional, tag = "8")]
    pub sparse_tensor_type: Option<Vec<u8>>,
    /// Present when the value is optional (not supported; detected for errors).
    #[prost(bytes = "vec", optional, tag = "9")]
    pub optional_type: Option<Vec<u8>>,
}

/// `TypeProto.Tensor`: element type and (possibly partial) shape.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorTypeProto {
    /// The element type, a [`data_type`] code.
    #[prost(int32, tag = "1")]
    pub elem_type: i32,
    /// The shape; absent means the rank itself is unknown.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// `TensorShapeProto`: a list of dimensions.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// One entry per dimension, outermost first.
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

/// `TensorShapeProto.Dimension`: a fixed size, a symbolic name, or nothing (unknown).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    /// A fixed size.
    #[prost(int64, optional, tag = "1")]
    pub dim_value: Option<i64>,
    /// A symbolic name such as `"batch"`.
    #[prost(string, optional, tag = "2")]
    pub dim_param: Option<String>,
}

/// `TensorProto`: a constant tensor (initializer, `Constant` value, test data).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// The shape.
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// The element type, a [`data_type`] code.
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// Present when the tensor is one segment of a larger one (not supported).
    #[prost(bytes = "vec", optional, tag = "3")]
    pub segment: Option<Vec<u8>>,
    /// Elements of FLOAT tensors.
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    /// Elements of INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16 and BFLOAT16 tensors.
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: Vec<i32>,
    /// Elements of STRING tensors.
    #[prost(bytes = "vec", repeated, tag = "6")]
    pub string_data: Vec<Vec<u8>>,
    /// Elements of INT64 tensors.
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    /// The tensor's name.
    #[prost(string, tag = "8")]
    pub name: String,
    /// All elements as little-endian bytes (takes precedence over the typed fields).
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
    /// Elements of DOUBLE tensors.
    #[prost(double, repeated, tag = "10")]
    pub double_data: Vec<f64>,
    /// Elements of UINT32 and UINT64 tensors.
    #[prost(uint64, repeated, tag = "11")]
    pub uint64_data: Vec<u64>,
    /// Human-readable documentation.
    #[prost(string, tag = "12")]
    pub doc_string: String,
    /// Where external data lives (not supported; reported as an error).
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// `0` for data in this message, `1` for external data.
    #[prost(int32, tag = "14")]
    pub data_location: i32,
}

/// The `TensorProto.DataType` codes.
pub mod data_type {
    /// Not set.
    pub const UNDEFINED: i32 = 0;
    /// 32-bit float.
    pub const FLOAT: i32 = 1;
    /// 8-bit unsigned integer.
    pub const UINT8: i32 = 2;
    /// 8-bit signed integer.
    pub const INT8: i32 = 3;
    /// 16-bit unsigned integer.
    pub const UINT16: i32 = 4;
    /// 16-bit signed integer.
    pub const INT16: i32 = 5;
    /// 32-bit signed integer.
    pub const INT32: i32 = 6;
    /// 64-bit signed integer.
    pub const INT64: i32 = 7;
    /// Byte string.
    pub const STRING: i32 = 8;
    /// Boolean.
    pub const BOOL: i32 = 9;
    /// IEEE half precision.
    pub const FLOAT16: i32 = 10;
    /// 64-bit float.
    pub const DOUBLE: i32 = 11;
    /// 32-bit unsigned integer.
    pub const UINT32: i32 = 12;
    /// 64-bit unsigned integer.
    pub const UINT64: i32 = 13;
    /// Complex of two 32-bit floats.
    pub const COMPLEX64: i32 = 14;
    /// Complex of two 64-bit floats.
    pub const COMPLEX128: i32 = 15;
    /// bfloat16.
    pub const BFLOAT16: i32 = 16;

    /// The ONNX spelling of a data type code, for messages.
    pub fn name(code: i32) -> &'static str {
        match code {
            UNDEFINED => "UNDEFINED",
            FLOAT => "FLOAT",
            UINT8 => "UINT8",
            INT8 => "INT8",
            UINT16 => "UINT16",
            INT16 => "INT16",
            INT32 => "INT32",
            INT64 => "INT64",
            STRING => "STRING",
            BOOL => "BOOL",
            FLOAT16 => "FLOAT16",
            DOUBLE => "DOUBLE",
            UINT32 => "UINT32",
            UINT64 => "UINT64",
            COMPLEX64 => "COMPLEX64",
            COMPLEX128 => "COMPLEX128",
            BFLOAT16 => "BFLOAT16",
            17..=20 => "FLOAT8",
            21 => "UINT4",
            22 => "INT4",
            23 => "FLOAT4E2M1",
            _ => "unknown",
        }
    }
}
