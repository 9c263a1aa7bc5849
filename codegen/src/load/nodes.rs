//! Nodes: which registered op each one is and which version applies (every unknown op and
//! domain reported together), then each node resolved by its op family against its inputs.

use std::collections::BTreeMap;

use super::{Loader, Pending};
use crate::dtype::DType;
use crate::error::{Blame, Error};
use crate::ir::{Node, Source, Tensor, Value, ValueId};
use crate::messages::{
    describe_node, domain_label, input_fix, normalize_domain, qualified_op, short_node,
};
use crate::onnx::{self, NodeProto};
use crate::ops::registry::{self, max_opset, AOT_DOMAIN, DOMAINS};
use crate::ops::{Attributes, Input, NodeCx, Resolved};

impl<'o> Loader<'o> {
    /// Resolves each node's op and version; reports unknown ops all at once, and the nodes of
    /// each domain onnx-aot does not know together.
    pub(super) fn classify<'m>(
        &mut self,
        graph: &'m onnx::GraphProto,
        opsets: &BTreeMap<String, i64>,
    ) -> Vec<Pending<'m>> {
        let mut pending = Vec::new();
        let mut unsupported = Vec::new();
        let mut foreign: BTreeMap<&str, Vec<(usize, &NodeProto)>> = BTreeMap::new();
        for (index, proto) in graph.node.iter().enumerate() {
            let domain = normalize_domain(&proto.domain);
            let known_domain = max_opset(domain).is_some();
            let Some(&opset) = opsets.get(domain).filter(|_| known_domain) else {
                self.rejected(proto);
                if known_domain {
                    self.unimported(index, proto, domain);
                } else {
                    foreign.entry(domain).or_default().push((index, proto));
                }
                continue;
            };
            let Some(op) = registry::lookup(domain, &proto.op_type) else {
                self.rejected(proto);
                let label = qualified_op(domain, &proto.op_type);
                let name = if proto.name.is_empty() {
                    format!("node {index} (unnamed)")
                } else {
                    format!("node {index} {:?}", proto.name)
                };
                unsupported.push(format!("{name}: {label}"));
                continue;
            };
            let Some(version) = op.family.version_at(opset) else {
                self.rejected(proto);
                let first = op.family.versions()[0];
                self.errors.model(format!(
                    "{}: opset {opset} of {} has no version of this op (its first version is \
                     {first}); import opset {first} or later of that domain",
                    short_node(index, proto),
                    domain_label(domain),
                ));
                continue;
            };
            // The first output, and each other output the op may have as a node of its own
            // (when the node is otherwise well formed: the order stage reports the rest).
            let allowed = op.family.outputs(version);
            let well_formed = proto.output.first().is_some_and(|o| !o.is_empty())
                && proto.output.iter().skip(allowed).all(String::is_empty);
            for output in 0..allowed.max(1) {
                let named = proto.output.get(output).is_some_and(|o| !o.is_empty());
                if output == 0 || (well_formed && named) {
                    pending.push(Pending {
                        index,
                        proto,
                        op,
                        version,
                        opset,
                        output,
                    });
                }
            }
        }
        if !unsupported.is_empty() {
            self.errors.model(format!(
                "the model uses ops that onnx-aot does not support: {}; onnx-aot compiles {}. \
                 To compile only the model's tail, start a graph cut below those nodes with {} \
                 (`onnx-aot inspect MODEL` lists the tensors where a cut can start)",
                unsupported.join(", "),
                registry::supported_list(),
                crate::messages::option_name(
                    &self.options.frontend,
                    crate::messages::Binding::Start
                )
            ));
        }
        for (domain, nodes) in foreign {
            self.foreign_domain(domain, &nodes, opsets.contains_key(domain));
        }
        pending
    }

    /// Records the outputs of a node rejected before ordering: produced, but unknown, so that
    /// reading them is no further error.
    fn rejected(&mut self, proto: &NodeProto) {
        self.unknown
            .extend(proto.output.iter().filter(|o| !o.is_empty()).cloned());
    }

    /// A node of a known domain that the model does not import.
    fn unimported(&mut self, index: usize, proto: &NodeProto, domain: &str) {
        let (import, version) = if domain.is_empty() {
            ("\"\"".to_string(), 13)
        } else {
            (format!("{domain:?}"), max_opset(domain).unwrap_or(1))
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
    }

    /// The nodes of one domain onnx-aot does not know, in one message, with the known domains
    /// that have the same ops (in case the domain is the mistake).
    fn foreign_domain(&mut self, domain: &str, nodes: &[(usize, &NodeProto)], imported: bool) {
        let list: Vec<String> = nodes
            .iter()
            .map(|(index, proto)| short_node(*index, proto))
            .collect();
        let mut same: Vec<String> = Vec::new();
        for (_, proto) in nodes {
            for &(known, _) in DOMAINS {
                if registry::lookup(known, &proto.op_type).is_some() {
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
        let imported = if imported {
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

    /// Resolves a node through its op family: inputs counted, attributes checked, build-time
    /// inputs found, the data type checked, then the family's inference. A node that computes
    /// at run time becomes a [`Node`] at `position`; one evaluated now becomes a constant.
    pub(super) fn node(&mut self, p: &Pending<'_>, position: usize) -> Option<Node> {
        let family = p.op.family;
        let label = describe_node(p.index, &p.proto.name, &p.proto.op_type, p.version, p.opset);
        let signature = family.signature(p.version);
        let inputs: Vec<&str> = p.proto.input.iter().map(String::as_str).collect();
        let (min, max) = signature.arity();
        let given = inputs
            .iter()
            .rposition(|n| !n.is_empty())
            .map_or(0, |i| i + 1);
        let missing_required = signature
            .inputs
            .iter()
            .enumerate()
            .any(|(k, i)| !i.optional && inputs.get(k).is_none_or(|n| n.is_empty()));
        if given < min || given > max || missing_required {
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
        let attrs = match Attributes::parse(p.proto, &signature, &label) {
            Ok(a) => a,
            Err(e) => {
                self.errors.model(e);
                return None;
            }
        };
        // An input missing here was reported already: its producer failed or was rejected.
        let data: Option<ValueId> = match signature.inputs.first() {
            Some(i) if !i.at_build_time => Some(*self.by_name.get(inputs[0])?),
            _ => None,
        };
        let mut constants: Vec<Option<Tensor>> = vec![None; signature.inputs.len()];
        for (k, spec) in signature.inputs.iter().enumerate() {
            match inputs
                .get(k)
                .filter(|n| !n.is_empty() && spec.at_build_time)
            {
                Some(name) => constants[k] = Some(self.build_time_input(spec, name, &label)?),
                None => continue,
            }
        }
        if data.is_some_and(|d| self.unresolved.contains(&d)) {
            // Its shape is unknown (reported already); nothing more to infer.
            return None;
        }
        let input = data.map(|d| &self.values[d]);
        if let Some(x) = input.filter(|x| !family.allows(p.version, x.dtype)) {
            self.errors.model(format!(
                "{label}: input {:?} has element type {}, which this op version does not \
                 accept{}; it accepts {}",
                x.name,
                x.dtype,
                family.type_note(p.version, x.dtype),
                family.allowed_list(p.version)
            ));
            return None;
        }
        let constants: Vec<Option<&Tensor>> = constants.iter().map(Option::as_ref).collect();
        let input_dtypes: Vec<Option<DType>> = inputs
            .iter()
            .map(|n| self.by_name.get(*n).map(|&v| self.values[v].dtype))
            .collect();
        let cx = NodeCx {
            version: p.version,
            label: &label,
            attrs: &attrs,
            data: input,
            constants: &constants,
            input_dtypes: &input_dtypes,
            output: p.output,
        };
        let resolved = family.resolve(&cx);
        let output = p.proto.output[p.output].clone();
        let (op, dtype, shape) = match resolved {
            Ok(Resolved::Compute { op, dtype, shape }) => (op, dtype, shape),
            Ok(Resolved::Constant(t)) => {
                self.add_value(Value {
                    name: output,
                    dtype: t.dtype,
                    shape: t.shape.clone(),
                    source: Source::Constant(t),
                });
                return None;
            }
            Err(e) => {
                self.errors.model(e);
                return None;
            }
        };
        let output = self.add_value(Value {
            name: output,
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
            input: data?,
            output,
            fused: Vec::new(),
            doc: p.proto.doc_string.clone(),
            written: crate::ir::written_attributes(p.proto),
        })
    }

    /// The value of an input that must be known at build time (ReduceMax-18's axes), or `None`
    /// after reporting why it is not.
    fn build_time_input(&mut self, spec: &Input, name: &str, label: &str) -> Option<Tensor> {
        let what = spec.name;
        if self.unknown.contains(name) {
            return None;
        }
        let (id, value) = self.by_name.get(name).map(|&id| (id, &self.values[id]))?;
        match &value.source {
            Source::Constant(t) => Some(t.clone()),
            Source::Input(_)
                if self.unresolved.contains(&id) && self.options.inputs.contains_key(name) =>
            {
                // A binding that was reported as wrong.
                None
            }
            Source::Input(_) => {
                let example: Vec<i64> = match value.shape.as_slice() {
                    [k] if (2..=8).contains(k) && !self.unresolved.contains(&id) => {
                        (0..*k as i64).collect()
                    }
                    _ => vec![1],
                };
                self.errors.push(Error::with_blame(
                    format!(
                        "{label} takes its {what} from graph input {name:?}, which is only known \
                         at run time; onnx-aot needs the {what} when it generates code: bind the \
                         input to constant {what} {}, or make it an initializer in the model",
                        input_fix(self.options, name, &example)
                    ),
                    Blame::Model,
                ));
                None
            }
            Source::Node(_) => {
                self.errors.model(format!(
                    "{label} takes its {what} from {name:?}, which is computed by another node; \
                     onnx-aot needs the {what} when it generates code: make them an initializer \
                     or a Constant node"
                ));
                None
            }
        }
    }
}
