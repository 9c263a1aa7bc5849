//! Decoding the protobuf of an `.onnx` file, and the opsets it imports.

use std::collections::BTreeMap;

use prost::Message;

use super::Loader;
use crate::error::{Error, Errors};
use crate::messages::{domain_label, normalize_domain};
use crate::onnx::ModelProto;
use crate::ops::registry::max_opset;

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

impl Loader<'_> {
    /// The opset imported for each domain (normalized); unknown opsets of known domains and
    /// contradictory imports are reported.
    pub(super) fn opsets(&mut self, model: &ModelProto) -> BTreeMap<String, i64> {
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
            if let Some(max) = max_opset(&domain) {
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
}
