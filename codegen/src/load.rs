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
use crate::options::{Frontend, Options, Scalar};
use crate::tensor::{checked_numel, tensor_from_proto};

/// The largest tensor, in bytes, that generated code may declare as an array: rustc's object
/// size bound on 64-bit targets (smaller targets reject large arrays when the code compiles).
pub const MAX_TENSOR_BYTES: u128 = 1 << 61;

/// The highest rank a tensor may have (each dimension is one level of nested arrays).
pub const MAX_RANK: usize = 64;

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
    /// Inputs whose shape could not be fully resolved (reported once, through `unbound`), or
    /// whose binding was wrong (reported already).
    unresolved: BTreeSet<ValueId>,
    /// Outputs of nodes rejected before ordering (unsupported op, unknown or unimported domain,
    /// no version, wrong output count): produced, but unknown. Reading them is no error.
    unknown: BTreeSet<String>,
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
            unknown: BTreeSet::new(),
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
        if self.errors.is_empty() {
            check_totals(&graph, &mut self.errors);
        }
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
        if shape.dim.len() > MAX_RANK {
            self.errors.model(format!(
                "{what} has rank {}, beyond the {MAX_RANK} dimensions onnx-aot supports (tensors \
                 become nested arrays, one level per dimension); reshape the model to fewer \
                 dimensions",
                shape.dim.len()
            ));
            return None;
        }
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
                                 cannot be bound in {}; remove the binding",
                                vi.name,
                                option_name(&self.options.frontend, Binding::Inputs)
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
                self.placeholder(&vi.name);
                continue;
            };
            if let Some(values) = self.options.inputs.get(&vi.name) {
                let option = option_name(&self.options.frontend, Binding::Inputs);
                match freeze(&vi.name, dtype, &shape, values, option) {
                    Ok(t) => {
                        self.add_value(Value {
                            name: vi.name.clone(),
                            dtype,
                            shape: t.shape.clone(),
                            source: Source::Constant(t),
                        });
                    }
                    Err(e) => {
                        self.errors.push(e);
                        self.placeholder(&vi.name);
                    }
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

    /// Registers a graph input whose type or binding was reported as wrong, so that the nodes
    /// reading it add no errors of their own.
    fn placeholder(&mut self, name: &str) {
        let id = self.add_value(Value {
            name: name.to_string(),
            dtype: DType::F32,
            shape: Vec::new(),
            source: Source::Input(usize::MAX),
        });
        self.unresolved.insert(id);
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
        let frontend = &self.options.frontend;
        let initialized = |name: &str| graph.initializer.iter().any(|t| t.name == name);
        // The graph inputs that `free` can name: those backed by an initializer.
        let freeable: Vec<&str> = graph
            .input
            .iter()
            .map(|vi| vi.name.as_str())
            .filter(|n| initialized(n))
            .collect();
        let free = option_name(frontend, Binding::Free);
        let remove = match frontend {
            Frontend::Macro { .. } => "remove it from `free`",
            Frontend::Builder => "remove that `.free(..)` call",
            Frontend::Cli => "remove that `--free` argument",
            Frontend::Library => "remove that `Options::free` call",
        };
        for name in &self.options.free {
            let is_input = graph.input.iter().any(|vi| &vi.name == name);
            let is_init = initialized(name);
            if !(is_input && is_init) {
                let why = if is_input {
                    format!(
                        "it is a graph input without an initializer, which is a run-time input \
                         already; {remove}"
                    )
                } else if is_init {
                    format!(
                        "it is an initializer that the graph does not list as an input, so it \
                         cannot be supplied at run time; {remove}"
                    )
                } else if freeable.is_empty() {
                    format!(
                        "the model has no graph input of that name, and no graph input backed by \
                         an initializer, so there is nothing to free; {remove}"
                    )
                } else {
                    let all: Vec<String> = freeable.iter().map(|n| format!("{n:?}")).collect();
                    let fix = match closest(name, freeable.iter().copied()) {
                        Some(c) => format!("did you mean {c:?}?"),
                        None => format!("fix the name, or {remove}"),
                    };
                    format!(
                        "the model has no graph input of that name (the inputs it can free, those \
                         backed by an initializer, are: {}); {fix}",
                        all.join(", ")
                    )
                };
                self.errors.push(Error::with_blame(
                    format!("{free} names {name:?}, but {why}"),
                    Blame::Free(name.clone()),
                ));
            }
        }
        let inputs = option_name(frontend, Binding::Inputs);
        for name in self.options.inputs.keys() {
            if !graph.input.iter().any(|vi| &vi.name == name) {
                let known: Vec<_> = graph
                    .input
                    .iter()
                    .map(|vi| format!("{:?}", vi.name))
                    .collect();
                let suggestion = did_you_mean(
                    name,
                    graph
                        .input
                        .iter()
                        .map(|vi| vi.name.as_str())
                        .filter(|n| !initialized(n)),
                );
                self.errors.push(Error::with_blame(
                    format!(
                        "{inputs} binds {name:?}, but the model has no graph input of that name; \
                         its graph inputs are: {}{suggestion}",
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
        let dims = option_name(&self.options.frontend, Binding::Dims);
        for name in self.options.dims.keys() {
            if !names.contains(name) {
                let known: Vec<_> = names.iter().map(|n| format!("{n:?}")).collect();
                self.errors.push(Error::with_blame(
                    format!(
                        "{dims} binds {name:?}, but no tensor of the model has a dimension of \
                         that name; its symbolic dimensions are: {}{}",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        },
                        did_you_mean(name, names.iter().map(String::as_str))
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
        // In the macro, the example block keeps the user's own valid bindings, so that it can
        // replace theirs as is; elsewhere bindings add up, and the example shows the missing ones.
        let mut example: Vec<(String, String)> = Vec::new();
        if matches!(self.options.frontend, Frontend::Macro { .. }) {
            example.extend(
                self.options
                    .dims
                    .iter()
                    .filter(|(n, _)| self.used_dims.contains(*n))
                    .map(|(n, v)| (n.clone(), v.to_string())),
            );
        }
        example.extend(self.unbound.keys().map(|n| (n.clone(), "1".to_string())));
        let (what, fix) = if self.unbound.len() == 1 {
            ("an unbound symbolic dimension", "give it a size")
        } else {
            ("unbound symbolic dimensions", "give each a size")
        };
        self.errors.model(format!(
            "the model has {what}: {}; onnx-aot needs static shapes: {fix} {}",
            list.join("; "),
            dims_fix(self.options, &example)
        ));
    }

    /// Resolves each node's op and version; reports unknown ops all at once, and the nodes of
    /// each domain onnx-aot does not know together.
    fn classify<'m>(
        &mut self,
        graph: &'m onnx::GraphProto,
        opsets: &BTreeMap<String, i64>,
    ) -> Vec<Pending<'m>> {
        let mut pending = Vec::new();
        let mut unsupported = Vec::new();
        let mut foreign: BTreeMap<&str, Vec<(usize, &NodeProto)>> = BTreeMap::new();
        for (index, proto) in graph.node.iter().enumerate() {
            let domain = normalize_domain(&proto.domain);
            let known_domain = domain.is_empty() || domain == AOT_DOMAIN;
            let rejected = |this: &mut Self| {
                this.unknown
                    .extend(proto.output.iter().filter(|o| !o.is_empty()).cloned());
            };
            let Some(&opset) = opsets.get(domain) else {
                rejected(self);
                if !known_domain {
                    foreign.entry(domain).or_default().push((index, proto));
                    continue;
                }
                let (import, version) = if domain.is_empty() {
                    ("\"\"".to_string(), 13)
                } else {
                    (format!("{domain:?}"), MAX_AOT_OPSET)
                };
                let hint = if domain.is_empty() {
                    " (the opset the model was written for; 13 as an example)"
                } else {
                    ""
                };
                self.errors.model(format!(
                    "{} uses {}, which the model does not import (no opset_import entry); add an \
                     opset_import entry for domain {import} version {version}{hint} (with python \
                     onnx: `helper.make_model(graph, opset_imports=[..., \
                     helper.make_opsetid({import}, {version})])`), or fix the node's domain",
                    short_node(index, proto),
                    domain_label(domain)
                ));
                continue;
            };
            if !known_domain {
                rejected(self);
                foreign.entry(domain).or_default().push((index, proto));
                continue;
            }
            let Some(kind) = Kind::lookup(domain, &proto.op_type) else {
                rejected(self);
                let label = qualified_op(domain, &proto.op_type);
                let name = if proto.name.is_empty() {
                    format!("node {index} (unnamed)")
                } else {
                    format!("node {index} {:?}", proto.name)
                };
                unsupported.push(format!("{name}: {label}"));
                continue;
            };
            let Some(version) = kind.resolve(opset) else {
                rejected(self);
                let first = kind.versions()[0];
                self.errors.model(format!(
                    "{}: opset {opset} of {} has no version of this op (its first version is \
                     {first}); import opset {first} or later of that domain",
                    short_node(index, proto),
                    domain_label(domain),
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
        for (domain, nodes) in foreign {
            let list: Vec<String> = nodes
                .iter()
                .map(|(index, proto)| short_node(*index, proto))
                .collect();
            // The same op in a domain onnx-aot knows, in case the domain is the mistake.
            let mut same: Vec<String> = Vec::new();
            for (_, proto) in &nodes {
                for known in ["", AOT_DOMAIN] {
                    if Kind::lookup(known, &proto.op_type).is_some() {
                        let place = if known.is_empty() {
                            "the default domain (\"\")".to_string()
                        } else {
                            format!("domain {known:?}")
                        };
                        let hint = format!("{} is in {place}", proto.op_type);
                        if !same.contains(&hint) {
                            same.push(hint);
                        }
                    }
                }
            }
            let hint = match same.len() {
                0 => String::new(),
                1 => format!(
                    "; {}: if that is the op meant, set the node's domain to it",
                    same[0]
                ),
                _ => format!(
                    "; {}: if those are the ops meant, set the nodes' domains to them",
                    same.join(", ")
                ),
            };
            let verb = if list.len() == 1 { "is" } else { "are" };
            let imported = if opsets.contains_key(domain) {
                ""
            } else {
                " (and the model does not import it)"
            };
            self.errors.model(format!(
                "{} {verb} in domain {domain:?}, which onnx-aot does not know{imported}; onnx-aot \
                 compiles ops of the default domain (\"\" or \"ai.onnx\") and of \
                 \"{AOT_DOMAIN}\"{hint}",
                list.join(", ")
            ));
        }
        pending
    }

    /// Orders nodes so that each runs after its producers (file order among ready nodes);
    /// handles `Constant` nodes, duplicate producers, missing producers and cycles.
    fn order<'m>(&mut self, pending: Vec<Pending<'m>>) -> Vec<Pending<'m>> {
        let describe = |p: &Pending<'_>| {
            describe_node(p.index, &p.proto.name, &p.proto.op_type, p.version, p.opset)
        };
        let mut producer: HashMap<&str, usize> = HashMap::new();
        let mut keep = vec![true; pending.len()];
        for (i, p) in pending.iter().enumerate() {
            let node = describe(p);
            if p.proto.output.len() != 1 || p.proto.output[0].is_empty() {
                self.errors.model(format!(
                    "{node} has {} outputs; {} has exactly one",
                    p.proto.output.iter().filter(|o| !o.is_empty()).count(),
                    p.proto.op_type
                ));
                self.unknown
                    .extend(p.proto.output.iter().filter(|o| !o.is_empty()).cloned());
                keep[i] = false;
                continue;
            }
            let out = p.proto.output[0].as_str();
            if let Some(&other) = producer.get(out) {
                self.errors.model(format!(
                    "value {out:?} is produced twice: by {} and by {node}; every value needs \
                     exactly one producer",
                    describe(&pending[other])
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
        for (i, p) in pending.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            for name in p.proto.input.iter().filter(|n| !n.is_empty()) {
                if let Some(&j) = producer.get(name.as_str()) {
                    if keep[j] {
                        deps[i].push(j);
                    }
                } else if !self.by_name.contains_key(name) && !self.unknown.contains(name) {
                    self.errors.model(format!(
                        "{} reads {name:?}, which nothing produces (it is no graph input, \
                         initializer or node output); check the node's input names",
                        describe(p)
                    ));
                    keep[i] = false;
                }
            }
        }
        // Indegrees over kept producers; a min-heap of ready nodes keeps file order among them.
        let mut done = vec![false; pending.len()];
        let mut order = Vec::new();
        let mut waiting: Vec<usize> = vec![0; pending.len()];
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); pending.len()];
        for (i, ds) in deps.iter().enumerate() {
            for &j in ds.iter().filter(|&&j| keep[j]) {
                waiting[i] += 1;
                readers[j].push(i);
            }
        }
        let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..pending.len())
            .filter(|&i| keep[i] && waiting[i] == 0)
            .map(std::cmp::Reverse)
            .collect();
        while let Some(std::cmp::Reverse(i)) = ready.pop() {
            done[i] = true;
            order.push(i);
            for &r in &readers[i] {
                waiting[r] -= 1;
                if waiting[r] == 0 && keep[r] {
                    ready.push(std::cmp::Reverse(r));
                }
            }
        }
        let stuck: Vec<bool> = (0..pending.len()).map(|i| keep[i] && !done[i]).collect();
        for cycle in cycles(&deps, &stuck) {
            let mut text = describe(&pending[cycle[0]]);
            // A long cycle shows its first hops and its last one.
            const SHOWN: usize = 6;
            for (k, &i) in cycle.iter().enumerate() {
                if cycle.len() > SHOWN + 2 && (SHOWN..cycle.len() - 1).contains(&k) {
                    if k == SHOWN {
                        text.push_str(&format!(
                            ", and so on around {} nodes, to {}",
                            cycle.len(),
                            describe(&pending[cycle[cycle.len() - 1]])
                        ));
                    }
                    continue;
                }
                let j = cycle[(k + 1) % cycle.len()];
                let value = &pending[j].proto.output[0];
                let from = if j == i {
                    "itself".to_string()
                } else if j == cycle[0] {
                    let p = &pending[j];
                    if p.proto.name.is_empty() {
                        format!("node {} (unnamed)", p.index)
                    } else {
                        format!("node {} {:?}", p.index, p.proto.name)
                    }
                } else {
                    describe(&pending[j])
                };
                let lead = if k == 0 { "" } else { ", which" };
                text.push_str(&format!("{lead} reads {value:?} from {from}"));
            }
            self.errors.model(format!(
                "the graph has a cycle: {text}; an ONNX graph must be acyclic: check these \
                 nodes' input names"
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
        // Attributes are checked even when the input is unknown: their errors are the node's own.
        let attrs = match infer::Attributes::parse(p.proto, p.kind, p.version, &label) {
            Ok(a) => a,
            Err(e) => {
                self.errors.model(e);
                return None;
            }
        };
        // An input missing here was reported already: its producer failed or was rejected.
        let data = *self.by_name.get(inputs[0])?;
        let axes_input = match inputs.get(1).filter(|n| !n.is_empty()) {
            None => None,
            Some(name) if self.unknown.contains(*name) => return None,
            Some(name) => match self.by_name.get(*name).map(|&id| (id, &self.values[id])) {
                Some((
                    _,
                    Value {
                        source: Source::Constant(t),
                        ..
                    },
                )) => Some(t.clone()),
                Some((id, _))
                    if self.unresolved.contains(&id) && self.options.inputs.contains_key(*name) =>
                {
                    // A binding that was reported as wrong.
                    return None;
                }
                Some((
                    id,
                    Value {
                        source: Source::Input(_),
                        ..
                    },
                )) => {
                    let example: Vec<i64> = match self.values[id].shape.as_slice() {
                        [k] if (2..=8).contains(k) && !self.unresolved.contains(&id) => {
                            (0..*k as i64).collect()
                        }
                        _ => vec![1],
                    };
                    self.errors.push(Error::with_blame(
                        format!(
                            "{label} takes its axes from graph input {name:?}, which is only \
                             known at run time; onnx-aot needs the axes when it generates code: \
                             bind the input to constant axes {}, or make it an initializer in \
                             the model",
                            input_fix(self.options, name, &example)
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
            let mut bound_dims = Vec::new();
            for (d, &actual) in shape.dim.iter().zip(&value.shape) {
                match (d.dim_value, d.dim_param.as_deref()) {
                    (Some(v), _) => agree &= usize::try_from(v).ok() == Some(actual),
                    (None, Some(p)) if !p.is_empty() => {
                        if let Some(&bound) = self.options.dims.get(p) {
                            agree &= bound == actual;
                            let binding = format!("{} = {bound}", dim_key(p));
                            if !bound_dims.contains(&binding) {
                                bound_dims.push(binding);
                            }
                        }
                    }
                    _ => {}
                }
            }
            if !agree {
                let or_dims = if bound_dims.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (or the {} bound with {}: {})",
                        if bound_dims.len() == 1 {
                            "size"
                        } else {
                            "sizes"
                        },
                        option_name(&self.options.frontend, Binding::Dims),
                        bound_dims.join(", ")
                    )
                };
                let message = format!(
                    "{what} is declared with shape [{}] but shape inference gives {:?}; fix the \
                     declared shape in the model{or_dims}",
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

/// The cycles among the `stuck` nodes (those Kahn's algorithm could not order): one per group of
/// nodes that depend on each other (a strongly connected component), each a shortest cycle
/// through the group's lowest node, as a list where every node reads the output of the next and
/// the last reads the first's. Nodes merely downstream of a cycle belong to none. `deps[i]` lists
/// the nodes whose outputs node `i` reads.
fn cycles(deps: &[Vec<usize>], stuck: &[bool]) -> Vec<Vec<usize>> {
    let n = deps.len();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, ds) in deps.iter().enumerate() {
        for &j in ds {
            readers[j].push(i);
        }
    }
    // Kosaraju: the finishing order of a depth-first search along `deps`, then components along
    // `readers` in reverse finishing order.
    let mut seen = vec![false; n];
    let mut finished = Vec::with_capacity(n);
    for root in (0..n).filter(|&i| stuck[i]) {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some((node, edge)) = stack.last_mut() {
            let node = *node;
            if let Some(&next) = deps[node].get(*edge) {
                *edge += 1;
                if stuck[next] && !seen[next] {
                    seen[next] = true;
                    stack.push((next, 0));
                }
            } else {
                finished.push(node);
                stack.pop();
            }
        }
    }
    let mut component = vec![usize::MAX; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &root in finished.iter().rev() {
        if component[root] != usize::MAX {
            continue;
        }
        let id = groups.len();
        let mut members = Vec::new();
        let mut stack = vec![root];
        component[root] = id;
        while let Some(node) = stack.pop() {
            members.push(node);
            for &r in &readers[node] {
                if stuck[r] && component[r] == usize::MAX {
                    component[r] = id;
                    stack.push(r);
                }
            }
        }
        groups.push(members);
    }
    let mut found = Vec::new();
    for (id, members) in groups.iter().enumerate() {
        let Some(&start) = members.iter().min() else {
            continue;
        };
        if members.len() == 1 && !deps[start].contains(&start) {
            continue;
        }
        // Breadth-first along `deps` inside the group, back to `start`.
        let mut parent = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::from([start]);
        let mut last = None;
        'search: while let Some(node) = queue.pop_front() {
            for &next in &deps[node] {
                if component[next] != id {
                    continue;
                }
                if next == start {
                    last = Some(node);
                    break 'search;
                }
                if parent[next] == usize::MAX {
                    parent[next] = node;
                    queue.push_back(next);
                }
            }
        }
        let Some(mut node) = last else { continue };
        let mut cycle = vec![node];
        while node != start {
            node = parent[node];
            cycle.push(node);
        }
        cycle.reverse();
        found.push(cycle);
    }
    found.sort();
    found
}

/// The kinds of binding a user gives with the model.
#[derive(Clone, Copy)]
enum Binding {
    Dims,
    Inputs,
    Free,
}

/// The option as the user spells it in their front end, for messages.
fn option_name(frontend: &Frontend, binding: Binding) -> &'static str {
    match (frontend, binding) {
        (Frontend::Macro { .. }, Binding::Dims) => "`dims`",
        (Frontend::Macro { .. }, Binding::Inputs) => "`inputs`",
        (Frontend::Macro { .. }, Binding::Free) => "`free`",
        (Frontend::Builder, Binding::Dims) => "`Builder::dim`",
        (Frontend::Builder, Binding::Inputs) => "`Builder::input`",
        (Frontend::Builder, Binding::Free) => "`Builder::free`",
        (Frontend::Cli, Binding::Dims) => "`--dims`",
        (Frontend::Cli, Binding::Inputs) => "`--inputs`",
        (Frontend::Cli, Binding::Free) => "`--free`",
        (Frontend::Library, Binding::Dims) => "`Options::dim`",
        (Frontend::Library, Binding::Inputs) => "`Options::input`",
        (Frontend::Library, Binding::Free) => "`Options::free`",
    }
}

/// A command-line argument `NAME=VALUE`, quoted for a shell when the name needs it.
fn shell_arg(name: &str, value: &str) -> String {
    let arg = format!("{name}={value}");
    if arg
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-.,=:/+".contains(c))
    {
        arg
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// Where and how to bind symbolic dimensions, in the front end's own syntax: the bindings are
/// `(name, size)` pairs, sizes as written.
fn dims_fix(options: &Options, bindings: &[(String, String)]) -> String {
    match &options.frontend {
        Frontend::Macro { path } => {
            let list: Vec<String> = bindings
                .iter()
                .map(|(n, v)| format!("{} = {v}", dim_key(n)))
                .collect();
            format!(
                "in the macro call's block form: `mod {} = {path:?} {{ dims: {{ {} }} }}`",
                options.module_name,
                list.join(", ")
            )
        }
        Frontend::Builder => {
            let calls: Vec<String> = bindings
                .iter()
                .map(|(n, v)| format!(".dim({n:?}, {v})"))
                .collect();
            format!("in the build script: `{}`", calls.join(""))
        }
        Frontend::Cli => {
            let args: Vec<String> = bindings
                .iter()
                .map(|(n, v)| format!("--dims {}", shell_arg(n, v)))
                .collect();
            format!("on the command line: `{}`", args.join(" "))
        }
        Frontend::Library => {
            let calls: Vec<String> = bindings
                .iter()
                .map(|(n, v)| format!(".dim({n:?}, {v})"))
                .collect();
            format!("with `Options::dim`: `{}`", calls.join(""))
        }
    }
}

/// Where and how to freeze a graph input to constant values, in the front end's own syntax.
fn input_fix(options: &Options, name: &str, values: &[i64]) -> String {
    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    let list = list.join(", ");
    match &options.frontend {
        Frontend::Macro { path } => format!(
            "in the macro call's block form: `mod {} = {path:?} {{ inputs: {{ {} = [{list}] }} }}`",
            options.module_name,
            dim_key(name)
        ),
        Frontend::Builder => format!("in the build script: `.input({name:?}, [{list}])`"),
        Frontend::Cli => format!(
            "on the command line: `--inputs {}`",
            shell_arg(name, &list.replace(' ', ""))
        ),
        Frontend::Library => {
            let scalars: Vec<String> = values.iter().map(|v| format!("Scalar::Int({v})")).collect();
            format!(
                "with `Options::input`: `.input({name:?}, vec![{}])`",
                scalars.join(", ")
            )
        }
    }
}

/// Levenshtein distance between two strings, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The candidate most likely meant by a misspelled `name`: the closest by edit distance (ignoring
/// case) when it is close enough to be a typo, or one that `name` extends or abbreviates
/// (`batchsize` for `batch`). `None` when nothing is close.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == name || candidate.is_empty() {
            continue;
        }
        let other = candidate.to_lowercase();
        let distance = edit_distance(&lower, &other);
        let longest = lower.chars().count().max(other.chars().count());
        let shortest = lower.chars().count().min(other.chars().count());
        let affix = shortest >= 3
            && (lower.starts_with(&other)
                || other.starts_with(&lower)
                || lower.ends_with(&other)
                || other.ends_with(&lower));
        let close = distance <= (longest / 3).max(1) || affix;
        if close && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// `; did you mean "NAME"?` for the closest candidate, or nothing.
fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, candidates).map_or(String::new(), |c| format!("; did you mean {c:?}?"))
}

/// An op type as written in messages, `DOMAIN::OP` outside the default domain. A name that is not
/// a plain word (control characters, quotes, spaces) is quoted and escaped, so that a model cannot
/// write terminal escapes or fake lines into the compiler's output.
fn qualified_op(domain: &str, op_type: &str) -> String {
    let plain = |s: &str| {
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
        {
            s.to_string()
        } else {
            format!("{s:?}")
        }
    };
    if domain.is_empty() {
        plain(op_type)
    } else {
        format!("{}::{}", plain(domain), plain(op_type))
    }
}

/// A node as the user's model names it, before its version is known: `node 3 "top1" (ArgMax)`.
fn short_node(index: usize, proto: &NodeProto) -> String {
    let op = qualified_op(normalize_domain(&proto.domain), &proto.op_type);
    if proto.name.is_empty() {
        format!("node {index} (unnamed, {op})")
    } else {
        format!("node {index} {:?} ({op})", proto.name)
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
/// `option` is how the user spells the binding (`` `inputs` ``), for messages.
fn freeze(
    name: &str,
    dtype: DType,
    shape: &[usize],
    values: &[Scalar],
    option: &str,
) -> Result<Tensor, Error> {
    let blame = Blame::Input(name.to_string());
    let numel: usize = shape.iter().product();
    if values.len() != numel {
        let given = match values.len() {
            1 => "1 value".to_string(),
            n => format!("{n} values"),
        };
        let fix = match numel {
            0 => "give an empty list, `[]`".to_string(),
            1 => "give exactly 1 value".to_string(),
            n => format!("give exactly {n} values, in row-major order"),
        };
        return Err(Error::with_blame(
            format!(
                "{option} gives {given} for graph input {name:?}, whose shape {shape:?} holds \
                 {numel}; {fix}"
            ),
            blame,
        ));
    }
    let mut bytes = Vec::with_capacity(numel * dtype.size());
    for (i, v) in values.iter().enumerate() {
        let bad = |why: &str| {
            Error::with_blame(
                format!("{option}: value {i} for graph input {name:?} ({dtype}) {why}"),
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
            (_, Scalar::Float(x)) => {
                let example = if x.is_finite() { x.trunc() as i128 } else { 0 };
                return Err(bad(&format!(
                    "must be an integer, but it is {x:?}; write an integer, e.g. {example}"
                )));
            }
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

/// The generated module declares the inputs, the outputs and the scratch memory as one
/// struct each; every one must stay within the size an array may have, not only each tensor.
fn check_totals(graph: &Graph, errors: &mut Errors) {
    let bytes = |v: ValueId| graph.values[v].numel() as u128 * graph.values[v].dtype.size() as u128;
    let largest = |values: &mut Vec<ValueId>| {
        values.sort_by_key(|&v| std::cmp::Reverse(bytes(v)));
        values
            .iter()
            .take(3)
            .map(|&v| format!("`{}` ({} bytes)", graph.values[v].name, bytes(v)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut inputs = graph.inputs.clone();
    let mut outputs: Vec<ValueId> = graph.outputs.iter().map(|o| o.value).collect();
    for (what, values) in [("inputs", &mut inputs), ("outputs", &mut outputs)] {
        let total: u128 = values.iter().map(|&v| bytes(v)).sum();
        if total >= MAX_TENSOR_BYTES {
            errors.model(format!(
                "the graph's {what} together need {total} bytes, beyond the size a struct \
                 may have (2^61 bytes on 64-bit targets), though each fits; the largest are \
                 {}; give them smaller dimensions (and check the values bound in `dims`)",
                largest(values)
            ));
        }
    }
    let plan = crate::memory::plan_memory(graph);
    if plan.scratch_bytes >= MAX_TENSOR_BYTES {
        let mut alive: Vec<ValueId> = plan.slots.keys().copied().collect();
        errors.model(format!(
            "the intermediate values alive at once need {} bytes of scratch memory, beyond \
             the size an array may have (2^61 bytes on 64-bit targets), though each fits; \
             the largest are {}; give them smaller dimensions (and check the values bound \
             in `dims`), or split the model so that fewer large values are alive together",
            plan.scratch_bytes,
            largest(&mut alive)
        ));
    }
}
