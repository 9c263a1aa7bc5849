//! From ONNX bytes to the checked, typed, shape-inferred [`Graph`].
//!
//! The `Loader` is a short driver over one module per concern: `decode` (protobuf and
//! opsets), `constants` (initializers and frozen inputs), `declared` (declared types), `bindings`
//! (graph inputs and the user's bindings), `nodes` (which op each node is, and its resolution
//! by its op family), `order` (dependencies and cycles) and `outputs` (outputs, declared types
//! against inference, totals). Every problem found is collected; loading goes on where it can
//! so that one run reports all of them. Nothing here panics on any input.

mod bindings;
mod constants;
pub(crate) mod cut;
mod declared;
mod decode;
mod nodes;
mod order;
mod outputs;

use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use decode::decode;

use crate::dtype::DType;
use crate::error::{Error, Errors};
use crate::ir::{Graph, ModelInfo, Source, Value, ValueId};
use crate::onnx::{ModelProto, NodeProto};
use crate::ops::Registration;
use crate::options::Options;

/// Decodes and checks a model, returning its graph or every error found.
pub fn load(bytes: &[u8], options: &Options) -> Result<Graph, Errors> {
    let model = cut::apply(decode(bytes, &options.source_name)?, options)?;
    let mut graph = Loader::new(options).run(&model)?;
    crate::fuse::fuse(&mut graph);
    outputs::check_scratch(&graph)?;
    Ok(graph)
}

/// A node before ordering: its proto, registered op and version.
struct Pending<'m> {
    index: usize,
    proto: &'m NodeProto,
    op: &'static Registration,
    version: i64,
    opset: i64,
    /// Which of the node's outputs this pending node computes (see `Family::outputs`).
    output: usize,
}

/// The state of one load: the values found so far and the errors.
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
    /// The names given to unnamed dims (`TENSOR[AXIS]`), for messages.
    unnamed: BTreeSet<String>,
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
            unnamed: BTreeSet::new(),
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
        let graph = Graph {
            values: self.values,
            nodes,
            inputs: self.runtime_inputs,
            outputs,
            info: model_info(model, &opsets),
            chunked: Vec::new(),
        };
        if self.errors.is_empty() {
            outputs::check_totals(&graph, &mut self.errors);
        }
        self.errors.finish(graph)
    }

    fn add_value(&mut self, value: Value) -> ValueId {
        let id = self.values.len();
        self.by_name.insert(value.name.clone(), id);
        self.values.push(value);
        id
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
}

/// The model's descriptive facts, for generated docs.
fn model_info(model: &ModelProto, opsets: &BTreeMap<String, i64>) -> ModelInfo {
    let graph_name = model.graph.as_ref().map(|g| g.name.clone());
    let graph_doc = model.graph.as_ref().map_or("", |g| g.doc_string.trim());
    ModelInfo {
        graph_name: graph_name.unwrap_or_default(),
        doc: [model.doc_string.trim(), graph_doc]
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
    }
}
