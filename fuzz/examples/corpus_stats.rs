//! What a corpus of the `graphs` target holds: how many inputs describe a model the generator
//! accepts, how many nodes those have, and how often each op appears in them.
//!
//!     cd fuzz && cargo run --release --example corpus_stats -- corpus/graphs

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use onnx_aot_fuzz::spec::GraphSpec;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "corpus/graphs".to_string());
    let (mut inputs, mut accepted, mut nodes) = (0, 0, 0);
    let mut ops: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_nodes: BTreeMap<usize, usize> = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("cannot read the corpus directory") {
        let data = std::fs::read(entry.expect("cannot list the corpus").path())
            .expect("cannot read a corpus file");
        inputs += 1;
        let Ok(spec) = GraphSpec::arbitrary_take_rest(Unstructured::new(&data)) else {
            continue;
        };
        let (bytes, options) = onnx_aot_fuzz::build(&spec);
        let Ok(graph) = onnx_aot_codegen::analyze(&bytes, &options) else {
            continue;
        };
        accepted += 1;
        nodes += graph.nodes.len();
        *by_nodes.entry(graph.nodes.len()).or_default() += 1;
        for n in &graph.nodes {
            let name = match n.domain.as_str() {
                "" => n.op_type.clone(),
                d => format!("{d}::{}", n.op_type),
            };
            *ops.entry(name).or_default() += 1;
        }
    }
    println!("{inputs} inputs, {accepted} accepted models with {nodes} nodes in all");
    println!("accepted models by node count (after constant folding): {by_nodes:?}");
    println!("nodes by op: {ops:?}");
}
