//! From ONNX bytes to the checked, typed, shape-inferred [`Graph`].
//!
//! Every problem found is collected; loading goes on where it can so that one run reports all
//! of them. Nothing here panics on any input.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use prost::Message;

use crate::dtype::DType;
use crate::error::{Blame, Error, Errors};
use crate::infer;
use crate::ir::{describe_node, Graph, ModelInfo, Node, Output, Source, Tensor, Value, ValueId};
use crate::onnx::{self, attribute_type, ModelProto, NodeProto, ValueInfoProto};
use crate::ops::{Kind, AOT_DOMAIN, MAX_AOT_OPSET, MAX_DEFAULT_OPSET};
use crate::options::{Options, Scalar};
use crate::tensor::{checked_numel, tensor_from_proto};

/// Decodes and checks a model, returning its graph or every error found.
pub fn load(bytes: &[u8], options: &Options) -> Result<Graph, Errors> {
    let model = decode(bytes, &options.source_name)?;
    Loader::new(options).run(&model)
}

/// Decodes the protobuf of an `.onnx` file.
pub fn decode(bytes: &[u8], source: &str) -> Result<ModelProto, Errors> {
    if bytes.is_empty() {
        return Err(Error::model(format!(
            "{source} is empty, not an ONNX model; export the model again (torch.onnx.export, \
             onnx.save_model) and check the path"
        ))
        .into());
    }
    let model = ModelProto::decode(bytes).map_err(|e| {
        Error::model(format!(
            "{source} is not a readable ONNX model ({} bytes): the protobuf does not decode ({e}); \
             the file may be truncated or of another format",
            bytes.len()
        ))
    })?;
    if model.graph.is_none() {
        return Err(Error::model(format!(
            "{source} decodes as protobuf but holds no ONNX graph (ModelProto field 7 is \
             missing); is it really an .onnx model file?"
        ))
        .into());
    }
    Ok(model)
}

/// Normalizes a domain name: `"ai.onnx"` is the default domain `""`.
pub fn normalize_domain(domain: &str) -> &str {
    if domain == "ai.onnx" {
        ""
    } else {
        domain
    }
}

fn domain_label(domain: &str) -> String {
    if domain.is_empty() {
        "the default domain (ai.onnx)".to_string()
    } else {
        format!("domain {domain:?}")
    }
}

/// A node before ordering: its proto, resolved kind and version.
struct Pending<'m> {
    index: usize,
    proto: &'m NodeProto,
    kind: Kind,
    version: i64,
    opset: i64,
}

struct Loader<'o> {
    options: &'o Options,
    errors: Errors,
    values: Vec<Value>,
    by_name: HashMap<String, ValueId>,
    /// Names of run-time graph inputs, by value.
    runtime_inputs: Vec<ValueId>,
    /// Unbound symbolic dims: name -> the tensors that use it.
    unbound: BTreeMap<String, Vec<String>>,
    /// Symbolic dims that some declaration used (to flag bindings of unknown names).
    used_dims: BTreeSet<String>,
    /// Inputs whose shape could not be fully resolved (reported once, through `unbound`).
    unresolved: BTreeSet<ValueId>,
}

impl<'o> Loader<'o> {
    fn new(options: &'o Options) -> Self {
        Loader {
            options,
            errors: Errors::new(),
            values: Vec::new(),
            by_name: HashMap::new(),
            runtime_inputs: Vec::new(),
            unbound: BTreeMap::new(),
            used_dims: BTreeSet::new(),
            unresolved: BTreeSet::new(),
        }
    }

    fn run(mut self, model: &ModelProto) -> Result<Graph, Errors> {
        let Some(graph) = model.graph.as_ref() else {
            return Err(Error::model("the model holds no graph").into());
        };
        let opsets = self.opsets(model);
        self.initializers(graph);
        self.graph_inputs(graph);
        self.check_bindings(graph);
        let pending = self.classify(graph, &opsets);
        let ordered = self.order(pending);
        let mut nodes = Vec::new();
        for p in ordered {
            if let Some(node) = self.node(&p, nodes.len()) {
                nodes.push(node);
            }
        }
        self.report_unbound();
        let outputs = self.outputs(graph);
        self.declared(graph);
        let info = ModelInfo {
            graph_name: graph.name.clone(),
            doc: [model.doc_string.trim(), graph.doc_string.trim()]
                .iter()
                .filter(|s| !s.is_empty())
                .cloned()
                .collect::<Vec<_>>()
                .join("\n\n"),
            producer: format!("{} {}", model.producer_name, model.producer_version)
                .trim()
                .to_string(),
            ir_version: model.ir_version,
            opsets: opsets.iter().map(|(d, v)| (d.clone(), *v)).collect(),
            metadata: model
                .metadata_props
                .iter()
                .map(|p| (p.key.clone(), p.value.clone()))
                .collect(),
        };
        let graph = Graph {
            values: self.values,
            nodes,
            inputs: self.runtime_inputs,
            outputs,
            info,
        };
        self.errors.finish(graph)
    }

    fn opsets(&mut self, model: &ModelProto) -> BTreeMap<String, i64> {
        let mut opsets = BTreeMap::new();
        for imp in &model.opset_import {
            let domain = normalize_domain(&imp.domain).to_string();
            if let Some(prev) = opsets.insert(domain.clone(), imp.version) {
                if prev != imp.version {
                    self.errors.model(format!(
                        "the model imports {} twice, as opset {prev} and {}; keep one opset_import \
                         per domain",
                        domain_label(&domain),
                        imp.version
                    ));
                }
            }
            let known = match domain.as_str() {
                "" => Some(MAX_DEFAULT_OPSET),
                AOT_DOMAIN => Some(MAX_AOT_OPSET),
                _ => None,
            };
            if let Some(max) = known {
                if imp.version < 1 || imp.version > max {
                    self.errors.model(format!(
                        "the model imports opset {} of {}, which onnx-aot does not know (it knows \
                         1 to {max}); export with a supported opset (e.g. opset_version={} in \
                         torch.onnx.export) or update onnx-aot",
                        imp.version,
                        domain_label(&domain),
                        max.min(20)
                    ));
                }
            }
        }
        if model.opset_import.is_empty() && model.ir_version < 3 {
            // Before IR version 3 a model without opset imports means opset 1.
            opsets.insert(String::new(), 1);
        }
        opsets
    }

    fn add_value(&mut self, value: Value) -> ValueId {
        let id = self.values.len();
        self.by_name.insert(value.name.clone(), id);
        self.values.push(value);
        id
    }

    fn initializers(&mut self, graph: &onnx::GraphProto) {
        if !graph.sparse_initializer.is_empty() {
            self.errors.model(
                "the graph has sparse initializers, which onnx-aot does not support; store them \
                 as dense initializers",
            );
        }
        for (i, init) in graph.initializer.iter().enumerate() {
            let what = format!("initializer {i} {:?}", init.name);
            if init.name.is_empty() {
                self.errors
                    .model(format!("{what} has no name; every initializer needs one"));
                continue;
            }
            if self.by_name.contains_key(&init.name) {
                self.errors.model(format!(
                    "{what} is defined twice; initializer names must be unique"
                ));
                continue;
            }
            match tensor_from_proto(init, &what) {
                Ok(t) => {
                    self.add_value(Value {
                        name: init.name.clone(),
                        dtype: t.dtype,
                        shape: t.shape.clone(),
                        source: Source::Constant(t),
                    });
                }
                Err(e) => self.errors.model(e),
            }
        }
    }

    /// The element type and static shape of a declared value, resolving symbolic dims.
    fn declared_type(&mut self, vi: &ValueInfoProto, role: &str) -> Option<(DType, Vec<usize>)> {
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
        let mut dims = Vec::with_capacity(shape.dim.len());
        let mut complete = true;
        for (i, d) in shape.dim.iter().enumerate() {
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
                            if !users.contains(&what) {
                                users.push(what.clone());
                            }
                        }
                    }
                }
                _ => {
                    complete = false;
                    self.errors.model(format!(
                        "{what}: dimension {i} has neither a size nor a name; onnx-aot needs a \
                         static size: give the dimension a size or a name (dim_param) in the \
                         model and bind the name with `dims: {{ NAME = SIZE }}`"
                    ));
                }
            }
        }
        if !complete {
            return None;
        }
        if checked_numel(&dims)
            .and_then(|n| n.checked_mul(dtype.size()))
            .is_none()
        {
            self.errors
                .model(format!("{what}: the size of shape {dims:?} overflows"));
            return None;
        }
        Some((dtype, dims))
    }

    fn graph_inputs(&mut self, graph: &onnx::GraphProto) {
        for vi in &graph.input {
            if let Some(&id) = self.by_name.get(&vi.name) {
                if matches!(self.values[id].source, Source::Constant(_)) {
                    // An initializer listed as a graph input (IR < 4 style): a constant unless
                    // the user frees it.
                    if self.options.free.contains(&vi.name) {
                        let position = self.runtime_inputs.len();
                        self.values[id].source = Source::Input(position);
                        self.runtime_inputs.push(id);
                        continue;
                    }
                    if self.options.inputs.contains_key(&vi.name) {
                        self.errors.push(Error::with_blame(
                            format!(
                                "graph input {:?} is an initializer (a constant in the model); it \
                                 cannot be bound in `inputs`; remove the binding",
                                vi.name
                            ),
                            Blame::Input(vi.name.clone()),
                        ));
                    }
                    continue;
                }
                self.errors.model(format!(
                    "graph input {:?} is listed twice; input names must be unique",
                    vi.name
                ));
                continue;
            }
            if vi.name.is_empty() {
                self.errors.model("a graph input has an empty name");
                continue;
            }
            let Some((dtype, shape)) = self.frozen_or_declared(vi) else {
                // Register a placeholder so nodes reading it do not cascade errors.
                let id = self.add_value(Value {
                    name: vi.name.clone(),
                    dtype: DType::F32,
                    shape: Vec::new(),
                    source: Source::Input(usize::MAX),
                });
                self.unresolved.insert(id);
                continue;
            };
            if let Some(values) = self.options.inputs.get(&vi.name) {
                match freeze(&vi.name, dtype, &shape, values) {
                    Ok(t) => {
                        self.add_value(Value {
                            name: vi.name.clone(),
                            dtype,
                            shape: t.shape.clone(),
                            source: Source::Constant(t),
                        });
                    }
                    Err(e) => self.errors.push(e),
                }
                continue;
            }
            let position = self.runtime_inputs.len();
            let id = self.add_value(Value {
                name: vi.name.clone(),
                dtype,
                shape,
                source: Source::Input(position),
            });
            self.runtime_inputs.push(id);
        }
    }

    /// The declared type of a graph input; a frozen rank-1 input may leave its size open.
    fn frozen_or_declared(&mut self, vi: &ValueInfoProto) -> Option<(DType, Vec<usize>)> {
        if let Some(values) = self.options.inputs.get(&vi.name) {
            let tt = vi.r#type.as_ref().and_then(|t| t.tensor_type.as_ref());
            let dims = tt.and_then(|t| t.shape.as_ref()).map(|s| &s.dim);
            if let (Some(tt), Some(dims)) = (tt, dims) {
                let open = dims.len() == 1 && dims[0].dim_value.is_none();
                if open {
                    if let Some(dtype) = DType::from_onnx(tt.elem_type) {
                        return Some((dtype, vec![values.len()]));
                    }
                }
            }
        }
        self.declared_type(vi, "graph input")
    }

    fn check_bindings(&mut self, graph: &onnx::GraphProto) {
        for name in &self.options.free {
            let is_input = graph.input.iter().any(|vi| &vi.name == name);
            let is_init = graph.initializer.iter().any(|t| &t.name == name);
            if !(is_input && is_init) {
                let why = if is_input {
                    "it is a graph input without an initializer, which is a run-time input already"
                } else if is_init {
                    "it is an initializer that the graph does not list as an input, so it cannot be \
                     supplied at run time"
                } else {
                    "the model has no graph input of that name"
                };
                self.errors.push(Error::with_blame(
                    format!("`free` names {name:?}, but {why}; remove it from `free`"),
                    Blame::Input(name.clone()),
                ));
            }
        }
        for name in self.options.inputs.keys() {
            if !graph.input.iter().any(|vi| &vi.name == name) {
                let known: Vec<_> = graph
                    .input
                    .iter()
                    .map(|vi| format!("{:?}", vi.name))
                    .collect();
                self.errors.push(Error::with_blame(
                    format!(
                        "`inputs` binds {name:?}, but the model has no graph input of that name; \
                         its graph inputs are: {}",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                    Blame::Input(name.clone()),
                ));
            }
        }
        // Declarations of outputs and intermediates may use symbolic dims too.
        let mut names = BTreeSet::new();
        for vi in graph
            .input
            .iter()
            .chain(&graph.output)
            .chain(&graph.value_info)
        {
            let dims = vi
                .r#type
                .as_ref()
                .and_then(|t| t.tensor_type.as_ref())
                .and_then(|t| t.shape.as_ref());
            for d in dims.iter().flat_map(|s| s.dim.iter()) {
                if let Some(p) = d.dim_param.as_ref().filter(|p| !p.is_empty()) {
                    names.insert(p.clone());
                }
            }
        }
        for name in self.options.dims.keys() {
            if !names.contains(name) {
                let known: Vec<_> = names.iter().map(|n| format!("{n:?}")).collect();
                self.errors.push(Error::with_blame(
                    format!(
                        "`dims` binds {name:?}, but no tensor of the model has a dimension of \
                         that name; its symbolic dimensions are: {}",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                    Blame::Dim(name.clone()),
                ));
            }
        }
    }

    fn report_unbound(&mut self) {
        if self.unbound.is_empty() {
            return;
        }
        let list: Vec<String> = self
            .unbound
            .iter()
            .map(|(name, users)| format!("{name:?} (used by {})", users.join(", ")))
            .collect();
        let example: Vec<String> = self
            .unbound
            .keys()
            .map(|n| format!("{} = 1", dim_key(n)))
            .collect();
        self.errors.model(format!(
            "the model has unbound symbolic dimensions: {}; give each a size in the macro's block \
             form, e.g. `dims: {{ {} }}` (Builder::dim or Options::dim in the build-script API, --dims NAME=SIZE on the command line)",
            list.join("; "),
            example.join(", ")
        ));
    }

    /// Resolves each node's op and version; reports unknown ops all at once.
    fn classify<'m>(
        &mut self,
        graph: &'m onnx::GraphProto,
        opsets: &BTreeMap<String, i64>,
    ) -> Vec<Pending<'m>> {
        let mut pending = Vec::new();
        let mut unsupported = Vec::new();
        for (index, proto) in graph.node.iter().enumerate() {
            let domain = normalize_domain(&proto.domain);
            let Some(&opset) = opsets.get(domain) else {
                self.errors.model(format!(
                    "{} uses {}, which the model does not import (no opset_import entry); add \
                     the import or fix the node's domain",
                    if proto.name.is_empty() {
                        format!("node {index} (unnamed, {})", proto.op_type)
                    } else {
                        format!("node {index} {:?} ({})", proto.name, proto.op_type)
                    },
                    domain_label(domain)
                ));
                continue;
            };
            let Some(kind) = Kind::lookup(domain, &proto.op_type) else {
                let label = if domain.is_empty() {
                    proto.op_type.clone()
                } else {
                    format!("{domain}::{}", proto.op_type)
                };
                let name = if proto.name.is_empty() {
                    format!("node {index} (unnamed)")
                } else {
                    format!("node {index} {:?}", proto.name)
                };
                unsupported.push(format!("{name}: {label}"));
                continue;
            };
            let Some(version) = kind.resolve(opset) else {
                self.errors.model(format!(
                    "node {index} {:?} ({}): opset {opset} of {} has no version of this op (its \
                     first version is {})",
                    proto.name,
                    proto.op_type,
                    domain_label(domain),
                    kind.versions()[0]
                ));
                continue;
            };
            pending.push(Pending {
                index,
                proto,
                kind,
                version,
                opset,
            });
        }
        if !unsupported.is_empty() {
            self.errors.model(format!(
                "the model uses ops that onnx-aot does not support: {}; onnx-aot compiles \
                 ArgMax, ArgMin, ReduceMax, ReduceMin, Hardmax (and onnx_aot::Hardmax), Identity \
                 and Constant",
                unsupported.join(", ")
            ));
        }
        pending
    }

    /// Orders nodes so that each runs after its producers (file order among ready nodes);
    /// handles `Constant` nodes, duplicate producers, missing producers and cycles.
    fn order<'m>(&mut self, pending: Vec<Pending<'m>>) -> Vec<Pending<'m>> {
        let mut producer: HashMap<&str, usize> = HashMap::new();
        let mut keep = vec![true; pending.len()];
        for (i, p) in pending.iter().enumerate() {
            let node = describe_node(p.index, &p.proto.name, &p.proto.op_type, p.version, p.opset);
            if p.proto.output.len() != 1 || p.proto.output[0].is_empty() {
                self.errors.model(format!(
                    "{node} has {} outputs; {} has exactly one",
                    p.proto.output.iter().filter(|o| !o.is_empty()).count(),
                    p.proto.op_type
                ));
                keep[i] = false;
                continue;
            }
            let out = p.proto.output[0].as_str();
            if let Some(&other) = producer.get(out) {
                let o = &pending[other];
                self.errors.model(format!(
                    "value {out:?} is produced twice: by {} and by {node}; every value needs \
                     exactly one producer",
                    describe_node(o.index, &o.proto.name, &o.proto.op_type, o.version, o.opset)
                ));
                keep[i] = false;
                continue;
            }
            if self.by_name.contains_key(out) {
                self.errors.model(format!(
                    "{node} writes {out:?}, which is already a graph input or initializer; every \
                     value needs exactly one producer"
                ));
                keep[i] = false;
                continue;
            }
            producer.insert(out, i);
        }
        // Constant nodes become constant values right away.
        for (i, p) in pending.iter().enumerate() {
            if keep[i] && p.kind == Kind::Constant {
                keep[i] = false;
                self.constant_node(p);
            }
        }
        // Kahn's algorithm, picking the earliest ready node in file order.
        let mut deps: Vec<Vec<usize>> = vec![Vec::new(); pending.len()];
        let mut missing = false;
        for (i, p) in pending.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            for name in p.proto.input.iter().filter(|n| !n.is_empty()) {
                if let Some(&j) = producer.get(name.as_str()) {
                    if keep[j] {
                        deps[i].push(j);
                    }
                } else if !self.by_name.contains_key(name) {
                    missing = true;
                    self.errors.model(format!(
                        "{} reads {name:?}, which nothing produces (it is no graph input, \
                         initializer or node output); check the node's input names",
                        describe_node(p.index, &p.proto.name, &p.proto.op_type, p.version, p.opset)
                    ));
                    keep[i] = false;
                }
            }
        }
        let _ = missing;
        let mut done = vec![false; pending.len()];
        let mut order = Vec::new();
        loop {
            let next = (0..pending.len())
                .find(|&i| keep[i] && !done[i] && deps[i].iter().all(|&j| done[j] || !keep[j]));
            let Some(i) = next else { break };
            done[i] = true;
            order.push(i);
        }
        let stuck: Vec<usize> = (0..pending.len())
            .filter(|&i| keep[i] && !done[i])
            .collect();
        if !stuck.is_empty() {
            let names: Vec<String> = stuck
                .iter()
                .map(|&i| {
                    let p = &pending[i];
                    describe_node(p.index, &p.proto.name, &p.proto.op_type, p.version, p.opset)
                })
                .collect();
            self.errors.model(format!(
                "the graph has a cycle: {} depend on each other's outputs; an ONNX graph must be \
                 acyclic",
                names.join(", ")
            ));
        }
        let mut slots: Vec<Option<Pending<'m>>> = pending.into_iter().map(Some).collect();
        order.into_iter().filter_map(|i| slots[i].take()).collect()
    }

    fn constant_node(&mut self, p: &Pending<'_>) {
        let node = describe_node(p.index, &p.proto.name, &p.proto.op_type, p.version, p.opset);
        let set: Vec<_> = p.proto.attribute.iter().collect();
        let out = p.proto.output[0].clone();
        let result = match set.as_slice() {
            [a] => constant_value(a, &node),
            _ => Err(format!(
                "{node} must have exactly one value attribute (value, value_float, value_floats, \
                 value_int or value_ints); it has {}",
                set.len()
            )),
        };
        match result {
            Ok(t) => {
                self.add_value(Value {
                    name: out,
                    dtype: t.dtype,
                    shape: t.shape.clone(),
                    source: Source::Constant(t),
                });
            }
            Err(e) => self.errors.model(e),
        }
    }

    fn node(&mut self, p: &Pending<'_>, position: usize) -> Option<Node> {
        let label = describe_node(p.index, &p.proto.name, &p.proto.op_type, p.version, p.opset);
        let inputs: Vec<&str> = p.proto.input.iter().map(String::as_str).collect();
        let (min, max) = p.kind.arity(p.version);
        let given = inputs
            .iter()
            .rposition(|n| !n.is_empty())
            .map_or(0, |i| i + 1);
        if given < min || given > max || inputs.first().is_none_or(|n| n.is_empty()) {
            self.errors.model(format!(
                "{label} has {given} inputs; it takes {}",
                if min == max {
                    format!("{min}")
                } else {
                    format!("{min} to {max}")
                }
            ));
            return None;
        }
        let data = *self.by_name.get(inputs[0])?;
        let attrs = match infer::Attributes::parse(p.proto, p.kind, p.version, &label) {
            Ok(a) => a,
            Err(e) => {
                self.errors.model(e);
                return None;
            }
        };
        let axes_input = match inputs.get(1).filter(|n| !n.is_empty()) {
            None => None,
            Some(name) => match self.by_name.get(*name).map(|&id| &self.values[id]) {
                Some(Value {
                    source: Source::Constant(t),
                    ..
                }) => Some(t.clone()),
                Some(Value {
                    source: Source::Input(_),
                    ..
                }) => {
                    self.errors.push(Error::with_blame(
                        format!(
                            "{label} takes its axes from graph input {name:?}, which is only \
                             known at run time; onnx-aot needs the axes when it generates code: \
                             bind the input in the macro, e.g. `inputs: {{ {} = [1] }}`, or make \
                             it an initializer",
                            dim_key(name)
                        ),
                        Blame::Model,
                    ));
                    return None;
                }
                _ => {
                    self.errors.model(format!(
                        "{label} takes its axes from {name:?}, which is computed by another node; \
                         onnx-aot needs the axes when it generates code: make them an \
                         initializer or a Constant node"
                    ));
                    return None;
                }
            },
        };
        if self.unresolved.contains(&data) {
            // Its shape is unknown (reported already); nothing more to infer.
            return None;
        }
        let input = &self.values[data];
        let (op, dtype, shape) = match infer::infer(
            p.kind,
            p.version,
            &attrs,
            axes_input.as_ref(),
            input,
            &label,
        ) {
            Ok(r) => r,
            Err(e) => {
                self.errors.model(e);
                return None;
            }
        };
        let output = self.add_value(Value {
            name: p.proto.output[0].clone(),
            dtype,
            shape,
            source: Source::Node(position),
        });
        Some(Node {
            name: p.proto.name.clone(),
            index: p.index,
            op_type: p.proto.op_type.clone(),
            domain: normalize_domain(&p.proto.domain).to_string(),
            version: p.version,
            opset: p.opset,
            op,
            input: data,
            output,
            doc: p.proto.doc_string.clone(),
            written: crate::ir::written_attributes(p.proto),
        })
    }

    fn outputs(&mut self, graph: &onnx::GraphProto) -> Vec<Output> {
        let mut outputs = Vec::new();
        let mut seen = BTreeSet::new();
        if graph.output.is_empty() {
            self.errors
                .model("the graph has no outputs; declare at least one graph output");
        }
        for vi in &graph.output {
            if !seen.insert(vi.name.clone()) {
                self.errors.model(format!(
                    "graph output {:?} is listed twice; output names must be unique",
                    vi.name
                ));
                continue;
            }
            match self.by_name.get(&vi.name) {
                Some(&id) => outputs.push(Output {
                    name: vi.name.clone(),
                    value: id,
                }),
                None => {
                    if !self.errors.is_empty() {
                        // Most likely its producer failed and was reported already.
                        continue;
                    }
                    self.errors.model(format!(
                        "graph output {:?} is produced by no node, input or initializer",
                        vi.name
                    ))
                }
            }
        }
        outputs
    }

    /// Checks declared types of outputs and intermediates against inference.
    fn declared(&mut self, graph: &onnx::GraphProto) {
        for (vi, role) in graph
            .output
            .iter()
            .map(|v| (v, "graph output"))
            .chain(graph.value_info.iter().map(|v| (v, "value_info")))
        {
            let Some(&id) = self.by_name.get(&vi.name) else {
                continue;
            };
            if self.unresolved.contains(&id) {
                continue;
            }
            let Some(tt) = vi.r#type.as_ref().and_then(|t| t.tensor_type.as_ref()) else {
                continue;
            };
            let value = &self.values[id];
            let what = format!("{role} {:?}", vi.name);
            if tt.elem_type != 0 && DType::from_onnx(tt.elem_type) != Some(value.dtype) {
                let message = format!(
                    "{what} is declared as {} but computes {}; fix the declaration in the model",
                    onnx::data_type::name(tt.elem_type),
                    value.dtype
                );
                self.errors.model(message);
                continue;
            }
            let Some(shape) = tt.shape.as_ref() else {
                continue;
            };
            let declared: Vec<String> = shape
                .dim
                .iter()
                .map(|d| match (d.dim_value, d.dim_param.as_deref()) {
                    (Some(v), _) => v.to_string(),
                    (None, Some(p)) if !p.is_empty() => p.to_string(),
                    _ => "?".to_string(),
                })
                .collect();
            let mut agree = shape.dim.len() == value.shape.len();
            for (d, &actual) in shape.dim.iter().zip(&value.shape) {
                match (d.dim_value, d.dim_param.as_deref()) {
                    (Some(v), _) => agree &= usize::try_from(v).ok() == Some(actual),
                    (None, Some(p)) if !p.is_empty() => {
                        if let Some(&bound) = self.options.dims.get(p) {
                            agree &= bound == actual;
                        }
                    }
                    _ => {}
                }
            }
            if !agree {
                let message = format!(
                    "{what} is declared with shape [{}] but shape inference gives {:?}; fix the \
                     declared shape in the model (or the bound dims)",
                    declared.join(", "),
                    value.shape
                );
                self.errors.model(message);
            }
        }
    }
}

/// How a name is written as a key in the macro's block form.
fn dim_key(name: &str) -> String {
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

/// The value of a `Constant` node's single attribute.
fn constant_value(a: &onnx::AttributeProto, node: &str) -> Result<Tensor, String> {
    let scalar = |dtype: DType, bytes: Vec<u8>, shape: Vec<usize>| Tensor {
        dtype,
        shape,
        bytes,
    };
    match a.name.as_str() {
        "value" => {
            let t =
                a.t.as_ref()
                    .ok_or_else(|| format!("{node}: attribute `value` holds no tensor"))?;
            tensor_from_proto(t, &format!("the value of {node}"))
        }
        "value_float" => Ok(scalar(DType::F32, a.f.to_le_bytes().to_vec(), vec![])),
        "value_int" => Ok(scalar(DType::I64, a.i.to_le_bytes().to_vec(), vec![])),
        "value_floats" => Ok(scalar(
            DType::F32,
            a.floats.iter().flat_map(|v| v.to_le_bytes()).collect(),
            vec![a.floats.len()],
        )),
        "value_ints" => Ok(scalar(
            DType::I64,
            a.ints.iter().flat_map(|v| v.to_le_bytes()).collect(),
            vec![a.ints.len()],
        )),
        other => Err(format!(
            "{node}: attribute `{other}` ({}) is not supported; onnx-aot supports Constant nodes \
             with value, value_float, value_floats, value_int or value_ints",
            attribute_type::name(a.r#type)
        )),
    }
}

/// Converts the user's literals for a frozen graph input to a constant tensor.
fn freeze(name: &str, dtype: DType, shape: &[usize], values: &[Scalar]) -> Result<Tensor, Error> {
    let blame = Blame::Input(name.to_string());
    let numel: usize = shape.iter().product();
    if values.len() != numel {
        return Err(Error::with_blame(
            format!(
                "`inputs` gives {} values for graph input {name:?}, whose shape {shape:?} holds \
                 {numel}; give exactly {numel} values in row-major order",
                values.len()
            ),
            blame,
        ));
    }
    let mut bytes = Vec::with_capacity(numel * dtype.size());
    for (i, v) in values.iter().enumerate() {
        let bad = |why: &str| {
            Error::with_blame(
                format!("`inputs`: value {i} for graph input {name:?} ({dtype}) {why}"),
                blame.clone(),
            )
        };
        match (dtype, *v) {
            (DType::Bool, Scalar::Bool(b)) => bytes.push(u8::from(b)),
            (DType::Bool, _) => return Err(bad("must be `true` or `false`")),
            (_, Scalar::Bool(_)) => return Err(bad("must be a number, not a boolean")),
            (DType::F32, Scalar::Int(x)) => bytes.extend((x as f32).to_le_bytes()),
            (DType::F32, Scalar::Float(x)) => bytes.extend((x as f32).to_le_bytes()),
            (DType::F64, Scalar::Int(x)) => bytes.extend((x as f64).to_le_bytes()),
            (DType::F64, Scalar::Float(x)) => bytes.extend(x.to_le_bytes()),
            (DType::F16 | DType::BF16, s) => {
                let x = match s {
                    Scalar::Int(x) => x as f64,
                    Scalar::Float(x) => x,
                    Scalar::Bool(_) => 0.0,
                };
                let bits = if dtype == DType::F16 {
                    f64_to_f16_bits(x)
                } else {
                    f64_to_bf16_bits(x)
                };
                bytes.extend(bits.to_le_bytes());
            }
            (_, Scalar::Float(_)) => return Err(bad("must be an integer")),
            (_, Scalar::Int(x)) => {
                let ok = match dtype {
                    DType::I8 => i8::try_from(x).is_ok(),
                    DType::I16 => i16::try_from(x).is_ok(),
                    DType::I32 => i32::try_from(x).is_ok(),
                    DType::I64 => i64::try_from(x).is_ok(),
                    DType::U8 => u8::try_from(x).is_ok(),
                    DType::U16 => u16::try_from(x).is_ok(),
                    DType::U32 => u32::try_from(x).is_ok(),
                    _ => u64::try_from(x).is_ok(),
                };
                if !ok {
                    return Err(bad(&format!("{x} is out of range")));
                }
                let le = x.to_le_bytes();
                bytes.extend_from_slice(&le[..dtype.size()]);
            }
        }
    }
    Ok(Tensor {
        dtype,
        shape: shape.to_vec(),
        bytes,
    })
}

/// Rounds an `f64` to the nearest IEEE half (ties to even), as bits.
pub fn f64_to_f16_bits(x: f64) -> u16 {
    let f = x as f32;
    let bits = f.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if f.is_nan() {
        return sign | 0x7e00;
    }
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let man = bits & 0x7f_ffff;
    if exp >= 31 {
        return sign | 0x7c00;
    }
    if exp <= 0 {
        if exp < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - exp) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// Rounds an `f64` to the nearest bfloat16 (ties to even), as bits.
pub fn f64_to_bf16_bits(x: f64) -> u16 {
    let f = x as f32;
    if f.is_nan() {
        return ((f.to_bits() >> 16) as u16) | 0x0040;
    }
    let bits = f.to_bits();
    let rounding = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(rounding) >> 16) as u16
}
