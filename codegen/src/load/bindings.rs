//! The user's bindings: graph inputs (run-time, frozen to values, or freed initializers),
//! sizes of symbolic dimensions, and the checks that each binding names something the model
//! has.

use std::collections::{BTreeSet, HashSet};

use super::constants::freeze;
use super::Loader;
use crate::dtype::DType;
use crate::error::{Blame, Error};
use crate::ir::{Source, Value};
use crate::messages::{closest, did_you_mean, dims_fix, option_name, Binding};
use crate::onnx::{self, ValueInfoProto};
use crate::options::Frontend;
use crate::options::Repeated;

/// How many users of an unbound dimension its message names (the rest are counted).
const SHOWN_USERS: usize = 10;

impl Loader<'_> {
    /// Adds the graph inputs: run-time inputs, frozen inputs and freed initializers.
    pub(super) fn graph_inputs(&mut self, graph: &onnx::GraphProto) {
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

    /// Checks that every binding names something the model has.
    pub(super) fn check_bindings(&mut self, graph: &onnx::GraphProto) {
        self.check_repeated();
        self.check_free(graph);
        self.check_frozen(graph);
        self.check_dims(graph);
    }

    /// Bindings given twice, and names both freed and frozen: errors, so that no binding wins
    /// silently over another.
    fn check_repeated(&mut self) {
        let frontend = &self.options.frontend;
        for r in &self.options.repeated {
            let (message, blame) = match r {
                Repeated::Dim(name, a, b) => (
                    format!(
                        "{} binds {name:?} twice ({a} and {b}); bind each dimension once",
                        option_name(frontend, Binding::Dims)
                    ),
                    Blame::Dim(name.clone()),
                ),
                Repeated::Input(name) => (
                    format!(
                        "{} binds {name:?} twice; bind each input once",
                        option_name(frontend, Binding::Inputs)
                    ),
                    Blame::Input(name.clone()),
                ),
                Repeated::Free(name) => (
                    format!(
                        "{} names {name:?} twice; name it once",
                        option_name(frontend, Binding::Free)
                    ),
                    Blame::Free(name.clone()),
                ),
            };
            self.errors.push(Error::with_blame(message, blame));
        }
        for name in self
            .options
            .free
            .iter()
            .filter(|n| self.options.inputs.contains_key(*n))
        {
            self.errors.push(Error::with_blame(
                format!(
                    "{name:?} is both freed ({}: a run-time input) and bound to constants ({}); \
                     keep one of the two",
                    option_name(frontend, Binding::Free),
                    option_name(frontend, Binding::Inputs)
                ),
                Blame::Free(name.clone()),
            ));
        }
    }

    /// Each name in `free` must be a graph input backed by an initializer.
    fn check_free(&mut self, graph: &onnx::GraphProto) {
        let frontend = &self.options.frontend;
        let initializers: HashSet<&str> =
            graph.initializer.iter().map(|t| t.name.as_str()).collect();
        let initialized = |name: &str| initializers.contains(name);
        let input_names: HashSet<&str> = graph.input.iter().map(|vi| vi.name.as_str()).collect();
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
            let is_input = input_names.contains(name.as_str());
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
    }

    /// Each input frozen with `inputs` must be a graph input.
    fn check_frozen(&mut self, graph: &onnx::GraphProto) {
        let initializers: HashSet<&str> =
            graph.initializer.iter().map(|t| t.name.as_str()).collect();
        let initialized = |name: &str| initializers.contains(name);
        let input_names: HashSet<&str> = graph.input.iter().map(|vi| vi.name.as_str()).collect();
        let inputs = option_name(&self.options.frontend, Binding::Inputs);
        for name in self.options.inputs.keys() {
            if !input_names.contains(name.as_str()) {
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
    }

    /// Each dimension bound with `dims` must be a symbolic dimension of some declaration
    /// (inputs, outputs and intermediates).
    fn check_dims(&mut self, graph: &onnx::GraphProto) {
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
            for (i, d) in dims.iter().flat_map(|s| s.dim.iter()).enumerate() {
                if let Some(p) = d.dim_param.as_ref().filter(|p| !p.is_empty()) {
                    names.insert(p.clone());
                } else if d.dim_value.is_none() {
                    names.insert(super::declared::unnamed_dim(&vi.name, i));
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

    /// Reports the symbolic dimensions no binding gave a size, with the bindings to write.
    pub(super) fn report_unbound(&mut self) {
        if self.unbound.is_empty() {
            return;
        }
        let list: Vec<String> = self
            .unbound
            .iter()
            .map(|(name, users)| {
                let unnamed = if self.unnamed.contains(name) {
                    "; the file gives this dimension neither a size nor a name, so onnx-aot \
                     calls it TENSOR[AXIS]"
                } else {
                    ""
                };
                let shown: Vec<&str> = users.iter().take(SHOWN_USERS).map(String::as_str).collect();
                let more = match users.len().saturating_sub(SHOWN_USERS) {
                    0 => String::new(),
                    more => format!(" and {more} more"),
                };
                format!("{name:?} (used by {}{more}{unnamed})", shown.join(", "))
            })
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
}
