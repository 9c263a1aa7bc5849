//! Structure-aware fuzzing of onnx-aot: a [`spec::GraphSpec`] drawn by `arbitrary` becomes an
//! ONNX model (encoded with the generator's own prost structs) and [`onnx_aot_codegen::Options`];
//! [`check`] runs them through the generator and asserts its properties.

mod node;
pub mod spec;
mod tensor;

use onnx_aot_codegen::onnx::{
    Dimension, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorShapeProto,
    TensorTypeProto, TypeProto, ValueInfoProto,
};
use onnx_aot_codegen::{generate, pretty, DType, DimSpec, Options, Scalar};
use prost::Message;

use spec::{AttrSpec, Dim, GraphSpec, Listed, NodeSpec, Op, OptionSpec, Ref, TypeSpec};
pub use tensor::elem_code;

/// At most this many of each list are used, so that every input stays cheap.
const MAX_INPUTS: usize = 4;
const MAX_INITS: usize = 4;
const MAX_NODES: usize = 12;
const MAX_OUTPUTS: usize = 4;
const MAX_ATTRS: usize = 6;
const MAX_RANK: usize = 5;

/// Runs the generator on a model and asserts its properties: no panic; `Err` carries at least
/// one error and no empty message; the same bytes and options give the same result twice (the
/// same tokens, or the same messages); `Ok` tokens parse as a Rust file (prettyplease).
///
/// Returns whether the model was accepted.
pub fn check(bytes: &[u8], options: &Options) -> bool {
    let first = generate(bytes, options);
    let second = generate(bytes, options);
    match (first, second) {
        (Ok(a), Ok(b)) => {
            let text = a.to_string();
            assert_eq!(text, b.to_string(), "generation is not deterministic");
            if let Err(e) = pretty(a) {
                panic!("generated code does not parse: {e}");
            }
            true
        }
        (Err(a), Err(b)) => {
            assert!(!a.is_empty(), "Err without errors");
            for e in a.iter() {
                assert!(!e.message.trim().is_empty(), "an empty error message");
            }
            let messages = |errors: &onnx_aot_codegen::Errors| {
                errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>()
            };
            assert_eq!(messages(&a), messages(&b), "errors are not deterministic");
            false
        }
        (a, b) => panic!(
            "one run accepted the model and the other did not: {:?} then {:?}",
            a.map(|t| t.to_string()),
            b.map(|t| t.to_string())
        ),
    }
}

/// The model bytes and options a description stands for.
pub fn build(spec: &GraphSpec) -> (Vec<u8>, Options) {
    let mut b = Graph::default();
    let opset = spec.opset.0.map(|v| match v {
        0..=127 => 13 + i64::from(v % 16),
        _ => 1 + i64::from(v % 29),
    });
    let mut opset_import = Vec::new();
    if let Some(v) = opset {
        opset_import.push(opset_id("", v));
    }
    let uses_aot = spec
        .nodes
        .iter()
        .take(MAX_NODES)
        .any(|n| n.op == Op::AotHardmax);
    let aot = match spec.aot_opset {
        0..=199 => Some(1).filter(|_| uses_aot),
        200..=239 => Some(1),
        240..=251 => None,
        252..=253 => Some(0),
        _ => Some(2),
    };
    if let Some(v) = aot {
        opset_import.push(opset_id("onnx_aot", v));
    }
    if spec.unknown_domain.0.is_some() {
        opset_import.push(opset_id("com.example", 1));
    }
    for (i, input) in spec.inputs.iter().take(MAX_INPUTS).enumerate() {
        let name = match input.name.0 {
            Some(n) => spec::NAMES[usize::from(n) % spec::NAMES.len()].to_string(),
            None => format!("in{i}"),
        };
        b.graph.input.push(value_info(&name, input.ty.0.as_ref()));
        b.values.push(name);
    }
    for (i, init) in spec.inits.iter().take(MAX_INITS).enumerate() {
        let name = format!("w{i}");
        let t = tensor::tensor(&name, &init.tensor);
        match init.listed {
            Listed::No => {}
            Listed::Same => b.graph.input.push(typed(&name, t.data_type, &t.dims)),
            Listed::Other(e) => b.graph.input.push(typed(&name, elem_code(e), &t.dims)),
        }
        b.graph.initializer.push(t);
        b.values.push(name);
    }
    if b.values.is_empty() {
        let x = TypeSpec {
            elem: spec::Elem::F32,
            dims: spec::Usually(Some(vec![Dim::Sym(0), Dim::Fixed(3)])),
        };
        b.graph.input.push(value_info("x", Some(&x)));
        b.values.push("x".to_string());
    }
    let node_count = spec.nodes.len().min(MAX_NODES);
    for (i, node) in spec.nodes.iter().take(MAX_NODES).enumerate() {
        b.node(i, node, opset.unwrap_or(1), node_count);
    }
    for out in spec.outputs.iter().take(MAX_OUTPUTS) {
        let name = b.resolve(&out.value, node_count);
        b.graph.output.push(value_info(&name, out.ty.0.as_ref()));
    }
    if spec.outputs.is_empty() && spec.no_outputs.0.is_none() {
        let name = b.resolve(&Ref::Value(0), node_count);
        b.graph.output.push(value_info(&name, None));
    }
    for vi in spec.value_info.iter().take(MAX_OUTPUTS) {
        let name = b.resolve(&vi.value, node_count);
        b.graph.value_info.push(value_info(&name, vi.ty.0.as_ref()));
    }
    let options = b.options(&spec.options, spec, node_count);
    b.graph.name = "fuzz".to_string();
    let model = ModelProto {
        ir_version: spec::IR_VERSIONS[usize::from(spec.ir_version) % spec::IR_VERSIONS.len()],
        producer_name: "onnx-aot-fuzz".to_string(),
        graph: Some(b.graph),
        opset_import,
        ..ModelProto::default()
    };
    (model.encode_to_vec(), options)
}

/// A graph under construction: the proto and the names defined so far, oldest first.
#[derive(Default)]
struct Graph {
    graph: GraphProto,
    values: Vec<String>,
    fresh: usize,
}

impl Graph {
    /// The name a reference stands for; fresh constants become initializers.
    fn resolve(&mut self, r: &Ref, node_count: usize) -> String {
        match r {
            Ref::Value(k) => match self.values.len() {
                0 => "nothing".to_string(),
                n => self.values[n - 1 - usize::from(*k) % n].clone(),
            },
            Ref::Node(k) => format!("t{}_0", usize::from(*k) % node_count.max(1)),
            Ref::Ints(v) => self.ints(v, false),
            Ref::Scalar(v) => self.ints(&[*v], true),
            Ref::Omitted => String::new(),
            Ref::Undefined => "undefined".to_string(),
        }
    }

    /// A fresh INT64 initializer holding `values` (a scalar when `scalar`).
    fn ints(&mut self, values: &[i8], scalar: bool) -> String {
        let name = format!("k{}", self.fresh);
        self.fresh += 1;
        let values: Vec<i64> = values.iter().take(8).map(|&v| tensor::wide(v)).collect();
        let dims = if scalar {
            Vec::new()
        } else {
            vec![values.len() as i64]
        };
        self.graph
            .initializer
            .push(tensor::int64(&name, dims, values));
        name
    }

    fn node(&mut self, i: usize, node: &NodeSpec, opset: i64, node_count: usize) {
        let (domain, op_type) = node::op_name(node.op);
        let mut attrs: Vec<&AttrSpec> = node.attrs.iter().take(MAX_ATTRS).collect();
        let mut input = Vec::new();
        match &node.inputs.0 {
            Some(refs) => {
                for r in refs.iter().take(5) {
                    input.push(self.resolve(r, node_count));
                }
            }
            None => {
                for r in node::natural_inputs(node.op, opset, &mut attrs) {
                    input.push(self.resolve(&r, node_count));
                }
            }
        }
        let mut output = vec![format!("t{i}_0")];
        if node.two_outputs.0.is_some() {
            output.push(format!("t{i}_1"));
        }
        if let (Some(k), false) = (node.reuse_name.0, self.values.is_empty()) {
            output[0] = self.values[usize::from(k) % self.values.len()].clone();
        }
        let attribute = attrs.into_iter().map(node::attribute).collect();
        self.values.extend(output.iter().cloned());
        self.graph.node.push(NodeProto {
            input,
            output,
            name: format!("node{i}"),
            op_type: op_type.to_string(),
            attribute,
            domain: domain.to_string(),
            ..NodeProto::default()
        });
    }

    /// Whether a declared shape uses the symbolic dimension `name`.
    fn uses(&self, name: &str) -> bool {
        let g = &self.graph;
        (g.input.iter().chain(&g.output).chain(&g.value_info))
            .filter_map(|vi| vi.r#type.as_ref()?.tensor_type.as_ref()?.shape.as_ref())
            .any(|s| s.dim.iter().any(|d| d.dim_param.as_deref() == Some(name)))
    }

    fn options(&mut self, o: &OptionSpec, spec: &GraphSpec, node_count: usize) -> Options {
        let module = o
            .module
            .map_or("model", |m| spec::NAMES[usize::from(m) % spec::NAMES.len()]);
        let mut options = Options::new(module).source_name("fuzz input");
        for (i, &size) in o.dims.iter().enumerate() {
            let name = format!("n{i}");
            if size != 255 && self.uses(&name) {
                options = options.dim(name, size_at(size));
            }
        }
        if let Some((which, size)) = o.extra_dim.0 {
            let name = match which % 2 {
                0 => format!("n{}", which / 2 % 4),
                _ => "unused".to_string(),
            };
            options = options.dim(name, size_at(size));
        }
        let inputs = spec.inputs.len().min(MAX_INPUTS);
        if let (Some(f), true) = (&o.freeze, inputs > 0) {
            let vi = self.graph.input[usize::from(f.input) % inputs].clone();
            let values = frozen_values(&vi, f, &options);
            options = options.input(vi.name, values);
        }
        if let Some((k, twice)) = &o.free {
            let listed: Vec<String> = (self.graph.input.iter())
                .filter(|vi| self.graph.initializer.iter().any(|t| t.name == vi.name))
                .map(|vi| vi.name.clone())
                .collect();
            if !listed.is_empty() {
                let name = &listed[usize::from(*k) % listed.len()];
                options = options.free(name.clone());
                if twice.0.is_some() {
                    options = options.free(name.clone());
                }
            }
        }
        if let (Some((k, ty)), true) = (&o.start.0, node_count > 0) {
            let name = self.resolve(&Ref::Node(*k), node_count);
            options = match ty.as_ref().and_then(user_type) {
                Some((dtype, dims)) => options.start_as(name, dtype, dims),
                None => options.start(name),
            };
        }
        for r in o.outputs.0.iter().flatten().take(MAX_OUTPUTS) {
            options = options.output(self.resolve(r, node_count));
        }
        options
    }
}

fn size_at(index: u8) -> usize {
    spec::SIZES[usize::from(index) % spec::SIZES.len()]
}

fn opset_id(domain: &str, version: i64) -> OperatorSetIdProto {
    OperatorSetIdProto {
        domain: domain.to_string(),
        version,
    }
}

fn dimension(d: Dim) -> Dimension {
    match d {
        Dim::Fixed(v) => Dimension {
            dim_value: Some(i64::from(v % 6)),
            dim_param: None,
        },
        Dim::Sym(s) => Dimension {
            dim_value: None,
            dim_param: Some(format!("n{}", s % 4)),
        },
        Dim::Unknown => Dimension::default(),
        Dim::Edge(big) => Dimension {
            dim_value: Some(if big { 1 << 40 } else { -1 }),
            dim_param: None,
        },
    }
}

fn value_info(name: &str, ty: Option<&TypeSpec>) -> ValueInfoProto {
    ValueInfoProto {
        name: name.to_string(),
        r#type: ty.map(|t| TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: elem_code(t.elem),
                shape: t.dims.0.as_ref().map(|dims| TensorShapeProto {
                    dim: dims.iter().take(MAX_RANK).map(|&d| dimension(d)).collect(),
                }),
            }),
            ..TypeProto::default()
        }),
        ..ValueInfoProto::default()
    }
}

/// A graph input declared with an element type code and fixed dims.
fn typed(name: &str, elem_type: i32, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.to_string(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| Dimension {
                            dim_value: Some(d),
                            dim_param: None,
                        })
                        .collect(),
                }),
            }),
            ..TypeProto::default()
        }),
        ..ValueInfoProto::default()
    }
}

/// A type as the user writes it after a start tensor's name, when it has a shape and a
/// supported element type.
fn user_type(t: &TypeSpec) -> Option<(DType, Vec<DimSpec>)> {
    let dtype = DType::from_onnx(elem_code(t.elem))?;
    let dims = t.dims.0.as_ref()?.iter().take(MAX_RANK).map(|&d| match d {
        Dim::Fixed(v) => DimSpec::Fixed(usize::from(v % 6)),
        Dim::Sym(s) => DimSpec::Symbol(format!("n{}", s % 4)),
        Dim::Unknown => DimSpec::Symbol("unbound".to_string()),
        Dim::Edge(_) => DimSpec::Fixed(1 << 40),
    });
    Some((dtype, dims.collect()))
}

/// Literals for a frozen input: the declared element count (capped), sometimes one off, of the
/// kind its element type wants unless the spec says otherwise.
fn frozen_values(vi: &ValueInfoProto, f: &spec::Freeze, options: &Options) -> Vec<Scalar> {
    let tensor_type = vi.r#type.as_ref().and_then(|t| t.tensor_type.as_ref());
    let mut count: Option<usize> = Some(1);
    for d in tensor_type
        .and_then(|t| t.shape.as_ref())
        .map_or(&[][..], |s| &s.dim)
    {
        let size = match (d.dim_value, d.dim_param.as_ref()) {
            (Some(v), _) => usize::try_from(v).ok(),
            (None, Some(p)) => options.dims.get(p).copied(),
            _ => None,
        };
        count = count.zip(size).and_then(|(c, s)| c.checked_mul(s));
    }
    let count = match count {
        Some(n) if n <= 4096 => n,
        _ => f.values.len() % 6,
    };
    let count = match f.count_delta {
        i8::MIN..=-121 => count.saturating_sub(1),
        121.. => count + 1,
        _ => count,
    };
    let natural = match tensor_type.and_then(|t| DType::from_onnx(t.elem_type)) {
        Some(d) if d.is_float() => 0,
        Some(DType::Bool) => 1,
        _ => 2,
    };
    let kind = f.kind.0.map_or(natural, |k| k % 3);
    (0..count)
        .map(|i| {
            let v = f
                .values
                .get(i % f.values.len().max(1))
                .copied()
                .unwrap_or(0);
            match kind {
                0 => Scalar::Float(tensor::float(v)),
                1 => Scalar::Bool(v & 1 == 1),
                _ => Scalar::Int(tensor::wide(v).into()),
            }
        })
        .collect()
}
