//! Building ONNX models programmatically for tests.
//!
//! A thin layer over the prost message structs of `onnx_aot_codegen::onnx`: declare graph inputs
//! and outputs (element type and shape, fixed or symbolic dimensions), initializers, nodes with
//! integer, integer-list and tensor attributes in any domain, and opset imports; then
//! [`ModelBuilder::build`] returns the encoded model bytes.
//!
//! ```
//! use onnx_aot_codegen::onnx::data_type;
//! use onnx_aot_tests::builder::{Dim, ModelBuilder, Node};
//!
//! let bytes = ModelBuilder::new()
//!     .opset("", 13)
//!     .input("x", data_type::FLOAT, &[Dim::param("batch"), Dim::from(3)])
//!     .output("y", data_type::INT64, &[Dim::param("batch"), Dim::from(1)])
//!     .node(Node::new("ArgMax", &["x"], &["y"]).int("axis", 1))
//!     .build();
//! assert!(!bytes.is_empty());
//! ```
//!
//! The file only uses `onnx_aot_codegen` and `prost`, so a build script can include it with
//! `#[path = "src/builder.rs"] mod builder;`.

#![allow(dead_code)]

use onnx_aot_codegen::onnx::AttributeProto;
use onnx_aot_codegen::onnx::{
    attribute_type, data_type, Dimension, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, TensorShapeProto, TensorTypeProto, TypeProto, ValueInfoProto,
};

/// One dimension of a declared shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A fixed size (`dim_value`).
    Fixed(usize),
    /// A symbolic size (`dim_param`), bound with `Options::dims`.
    Param(String),
    /// Neither value nor name (an unknown dimension).
    Unknown,
}

impl Dim {
    /// A symbolic dimension.
    pub fn param(name: impl Into<String>) -> Dim {
        Dim::Param(name.into())
    }

    fn to_proto(&self) -> Dimension {
        match self {
            Dim::Fixed(n) => Dimension {
                dim_value: Some(*n as i64),
                dim_param: None,
            },
            Dim::Param(name) => Dimension {
                dim_value: None,
                dim_param: Some(name.clone()),
            },
            Dim::Unknown => Dimension {
                dim_value: None,
                dim_param: None,
            },
        }
    }
}

impl From<usize> for Dim {
    fn from(n: usize) -> Dim {
        Dim::Fixed(n)
    }
}

impl From<&str> for Dim {
    fn from(name: &str) -> Dim {
        Dim::Param(name.to_string())
    }
}

/// Fixed dimensions from sizes.
pub fn dims(sizes: &[usize]) -> Vec<Dim> {
    sizes.iter().map(|&n| Dim::Fixed(n)).collect()
}

/// A `ValueInfoProto` of a tensor; `shape: None` leaves the shape (even the rank) undeclared.
pub fn value_info(name: &str, elem_type: i32, shape: Option<&[Dim]>) -> ValueInfoProto {
    ValueInfoProto {
        name: name.to_string(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type,
                shape: shape.map(|dims| TensorShapeProto {
                    dim: dims.iter().map(Dim::to_proto).collect(),
                }),
            }),
            ..TypeProto::default()
        }),
        doc_string: String::new(),
    }
}

/// A tensor of any element type from its little-endian element bytes (`raw_data`).
pub fn tensor_raw(name: &str, elem_type: i32, shape: &[usize], raw: Vec<u8>) -> TensorProto {
    TensorProto {
        name: name.to_string(),
        data_type: elem_type,
        dims: shape.iter().map(|&n| n as i64).collect(),
        raw_data: raw,
        ..TensorProto::default()
    }
}

/// An int64 tensor stored in the typed `int64_data` field.
pub fn tensor_i64(name: &str, shape: &[usize], values: &[i64]) -> TensorProto {
    TensorProto {
        name: name.to_string(),
        data_type: data_type::INT64,
        dims: shape.iter().map(|&n| n as i64).collect(),
        int64_data: values.to_vec(),
        ..TensorProto::default()
    }
}

/// A float tensor stored in the typed `float_data` field.
pub fn tensor_f32(name: &str, shape: &[usize], values: &[f32]) -> TensorProto {
    TensorProto {
        name: name.to_string(),
        data_type: data_type::FLOAT,
        dims: shape.iter().map(|&n| n as i64).collect(),
        float_data: values.to_vec(),
        ..TensorProto::default()
    }
}

/// One node under construction.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    proto: NodeProto,
}

impl Node {
    /// A node of the default domain; an input named `""` marks an omitted optional input.
    pub fn new(op_type: &str, inputs: &[&str], outputs: &[&str]) -> Node {
        Node {
            proto: NodeProto {
                op_type: op_type.to_string(),
                input: inputs.iter().map(|s| s.to_string()).collect(),
                output: outputs.iter().map(|s| s.to_string()).collect(),
                ..NodeProto::default()
            },
        }
    }

    /// Sets the node's name.
    pub fn name(mut self, name: &str) -> Node {
        self.proto.name = name.to_string();
        self
    }

    /// Sets the node's domain (`""` or `"ai.onnx"` for the default one).
    pub fn domain(mut self, domain: &str) -> Node {
        self.proto.domain = domain.to_string();
        self
    }

    /// Adds an `INT` attribute.
    pub fn int(mut self, name: &str, value: i64) -> Node {
        self.proto.attribute.push(AttributeProto {
            name: name.to_string(),
            r#type: attribute_type::INT,
            i: value,
            ..AttributeProto::default()
        });
        self
    }

    /// Adds an `INTS` attribute.
    pub fn ints(mut self, name: &str, values: &[i64]) -> Node {
        self.proto.attribute.push(AttributeProto {
            name: name.to_string(),
            r#type: attribute_type::INTS,
            ints: values.to_vec(),
            ..AttributeProto::default()
        });
        self
    }

    /// Adds a `TENSOR` attribute (the `value` of a `Constant` node).
    pub fn tensor(mut self, name: &str, value: TensorProto) -> Node {
        self.proto.attribute.push(AttributeProto {
            name: name.to_string(),
            r#type: attribute_type::TENSOR,
            t: Some(value),
            ..AttributeProto::default()
        });
        self
    }

    /// The message.
    pub fn into_proto(self) -> NodeProto {
        self.proto
    }
}

/// A model under construction. Methods take and return `&mut Self` so that they chain and also
/// work in loops.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelBuilder {
    model: ModelProto,
}

impl Default for ModelBuilder {
    fn default() -> Self {
        ModelBuilder::new()
    }
}

impl ModelBuilder {
    /// An empty model (IR version 8, no opset imports yet).
    pub fn new() -> ModelBuilder {
        ModelBuilder {
            model: ModelProto {
                ir_version: 8,
                producer_name: "onnx-aot-tests".to_string(),
                graph: Some(GraphProto {
                    name: "graph".to_string(),
                    ..GraphProto::default()
                }),
                ..ModelProto::default()
            },
        }
    }

    fn graph(&mut self) -> &mut GraphProto {
        self.model.graph.get_or_insert_with(GraphProto::default)
    }

    /// Sets the IR version.
    pub fn ir_version(&mut self, version: i64) -> &mut Self {
        self.model.ir_version = version;
        self
    }

    /// Imports an opset: `domain` `""` (or `"ai.onnx"`) for the default domain.
    pub fn opset(&mut self, domain: &str, version: i64) -> &mut Self {
        self.model.opset_import.push(OperatorSetIdProto {
            domain: domain.to_string(),
            version,
        });
        self
    }

    /// Declares a graph input of the given element type (a `data_type` code) and shape.
    pub fn input(&mut self, name: &str, elem_type: i32, shape: &[Dim]) -> &mut Self {
        let info = value_info(name, elem_type, Some(shape));
        self.graph().input.push(info);
        self
    }

    /// Declares a graph output of the given element type and shape.
    pub fn output(&mut self, name: &str, elem_type: i32, shape: &[Dim]) -> &mut Self {
        let info = value_info(name, elem_type, Some(shape));
        self.graph().output.push(info);
        self
    }

    /// Declares a graph output with its element type only (no shape, not even a rank).
    pub fn output_unshaped(&mut self, name: &str, elem_type: i32) -> &mut Self {
        let info = value_info(name, elem_type, None);
        self.graph().output.push(info);
        self
    }

    /// Declares the type and shape of an intermediate value (`value_info`).
    pub fn value_info(&mut self, name: &str, elem_type: i32, shape: &[Dim]) -> &mut Self {
        let info = value_info(name, elem_type, Some(shape));
        self.graph().value_info.push(info);
        self
    }

    /// Adds an initializer (its `name` field names the value).
    pub fn initializer(&mut self, tensor: TensorProto) -> &mut Self {
        self.graph().initializer.push(tensor);
        self
    }

    /// Adds an int64 initializer.
    pub fn initializer_i64(&mut self, name: &str, shape: &[usize], values: &[i64]) -> &mut Self {
        self.initializer(tensor_i64(name, shape, values))
    }

    /// Adds a node.
    pub fn node(&mut self, node: Node) -> &mut Self {
        self.graph().node.push(node.into_proto());
        self
    }

    /// The model message.
    pub fn model(&self) -> ModelProto {
        self.model.clone()
    }

    /// The encoded model.
    pub fn build(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(&self.model)
    }
}
