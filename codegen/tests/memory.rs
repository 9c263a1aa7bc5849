//! The static memory plan: optimal for chains, never overlapping values that are alive at once.

mod common;
use common::*;
use onnx_aot_codegen::ir::Graph;
use onnx_aot_codegen::memory::plan_memory;
use onnx_aot_codegen::onnx::data_type::*;
use onnx_aot_codegen::{analyze, Options};

fn graph(m: &onnx_aot_codegen::onnx::ModelProto) -> Graph {
    analyze(&bytes(m), &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Checks that no two intermediates alive at the same node share elements.
fn assert_disjoint_while_alive(g: &Graph) {
    let plan = plan_memory(g);
    let live_at = |v: usize, k: usize| {
        let def = g.nodes.iter().position(|n| n.output == v).unwrap();
        let last = g
            .nodes
            .iter()
            .enumerate()
            .filter(|(j, n)| plan.root[n.input] == v && !plan.elided[*j])
            .map(|(j, _)| j)
            .chain(
                g.outputs
                    .iter()
                    .filter(|o| plan.root[o.value] == v)
                    .map(|_| g.nodes.len()),
            )
            .max()
            .unwrap_or(def);
        def <= k && k <= last
    };
    for k in 0..=g.nodes.len() {
        let alive: Vec<_> = plan.slots.iter().filter(|(&v, _)| live_at(v, k)).collect();
        for (i, (va, a)) in alive.iter().enumerate() {
            for (vb, b) in &alive[i + 1..] {
                let apart = a.dtype != b.dtype
                    || a.offset + a.len <= b.offset
                    || b.offset + b.len <= a.offset;
                assert!(
                    apart,
                    "values {va} and {vb} overlap at node {k}: {a:?} {b:?}"
                );
            }
        }
    }
}

#[test]
fn chains_reach_the_lower_bound() {
    // x [4, 6, 10] -> ReduceMax axes [2] keepdims 1 -> [4, 6, 1] (24) -> Hardmax (24)
    // -> ReduceMax axes [1] (4) -> Hardmax (4) -> ArgMax -> y.
    // Alive at once: 24 + 24, then 24 + 4, then 4 + 4: the optimum is 48 floats.
    let m = model(
        13,
        vec![
            node(
                "ReduceMax",
                "r1",
                &["x"],
                &["a"],
                vec![attr_ints("axes", &[2])],
            ),
            node("Hardmax", "h1", &["a"], &["b"], vec![attr_int("axis", 1)]),
            node(
                "ReduceMax",
                "r2",
                &["b"],
                &["c"],
                vec![attr_ints("axes", &[1])],
            ),
            node("Hardmax", "h2", &["c"], &["d"], vec![attr_int("axis", 0)]),
            node("ArgMax", "a", &["d"], &["y"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[4, 6, 10]))],
        vec![output("y")],
    );
    let g = graph(&m);
    let plan = plan_memory(&g);
    let f32s = plan.sizes[&onnx_aot_codegen::DType::F32];
    assert_eq!(plan.bounds[&onnx_aot_codegen::DType::F32], 48);
    assert_eq!(f32s, 48, "the chain fits its lower bound");
    assert_eq!(plan.bytes(), 48 * 4);
    assert_disjoint_while_alive(&g);
}

#[test]
fn diamonds_and_fan_out_keep_values_alive_until_their_last_reader() {
    // a feeds b and c; d reads c; e reads b (late). a must not be overwritten before c reads it,
    // b must survive until e.
    let m = model(
        13,
        vec![
            node(
                "ReduceMax",
                "a",
                &["x"],
                &["a"],
                vec![attr_ints("axes", &[0])],
            ),
            node("Hardmax", "b", &["a"], &["b"], vec![]),
            node("Hardmax", "c", &["a"], &["c"], vec![]),
            node("Hardmax", "d", &["c"], &["d"], vec![]),
            node("ReduceMax", "e", &["b"], &["e"], vec![]),
            node("ArgMax", "f", &["d"], &["y"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[3, 5, 7]))],
        vec![output("y"), output("e")],
    );
    let g = graph(&m);
    assert_disjoint_while_alive(&g);
    let plan = plan_memory(&g);
    assert!(
        plan.bytes() <= 3 * 35 * 4,
        "never more than all intermediates side by side"
    );
}

#[test]
fn identity_outputs_alias_their_input() {
    let m = model(
        13,
        vec![
            node(
                "ReduceMax",
                "r",
                &["x"],
                &["a"],
                vec![attr_ints("axes", &[0])],
            ),
            node("Identity", "i", &["a"], &["b"], vec![]),
            node("Identity", "j", &["b"], &["c"], vec![]),
            node("ArgMax", "m", &["c"], &["y"], vec![]),
            node("Identity", "k", &["x"], &["z"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[2, 9]))],
        vec![output("y"), output("z")],
    );
    let g = graph(&m);
    let plan = plan_memory(&g);
    assert_eq!(
        plan.elided_count(),
        2,
        "the two inner Identity nodes compute nothing"
    );
    assert_eq!(plan.bytes(), 9 * 4, "one slot serves a, b and c");
    let code = onnx_aot_codegen::generate_pretty(&bytes(&m), &Options::new("m")).unwrap();
    assert!(!code.contains("fn node_1_identity") && !code.contains("fn node_2_identity"));
    assert!(
        code.contains("fn node_4_identity"),
        "an Identity that is a graph output still copies"
    );
    assert!(code.contains("pub const SCRATCH_BYTES: usize = 36;"));
    // `inspect` reports the same plan, not the sum of every intermediate (108 bytes here).
    assert_eq!(onnx_aot_codegen::inspect::memory(&g).scratch, 36);
}

#[test]
fn random_dags_never_overlap_live_values() {
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut next = |k: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % k
    };
    for _ in 0..200 {
        let count = 2 + next(8) as usize;
        let mut nodes = Vec::new();
        let mut names = vec!["x".to_string()];
        for i in 0..count {
            let input = names[next(names.len() as u64) as usize].clone();
            let out = format!("v{i}");
            let op = match next(3) {
                0 => node("Hardmax", &out, &[&input], &[&out], vec![]),
                1 => node("Identity", &out, &[&input], &[&out], vec![]),
                _ => node(
                    "ReduceMax",
                    &out,
                    &[&input],
                    &[&out],
                    vec![attr_ints("axes", &[1])],
                ),
            };
            nodes.push(op);
            names.push(out);
        }
        let outputs = vec![
            output(&names[names.len() - 1]),
            output(&names[1 + next(count as u64) as usize]),
        ];
        let mut outputs = outputs;
        outputs.dedup_by(|a, b| a.name == b.name);
        let m = model(13, nodes, vec![vi("x", FLOAT, &n(&[3, 4]))], outputs);
        assert_disjoint_while_alive(&graph(&m));
    }
}

/// 40 consumers of one big intermediate, each producing a tensor of the same size that a
/// later node reads, listed consumers first (issue 16 item 6): in file order all 40 are alive
/// at once (41 tensors of scratch); the node order keeps the scratch within twice the largest
/// tensor, each node still after its producer, and no two live values overlap.
#[test]
fn many_consumers_of_one_tensor_need_twice_the_tensor() {
    let shape = [64i64, 64];
    let big = 64 * 64 * 4;
    let mut nodes = vec![node("Hardmax", "t", &["x"], &["t"], vec![])];
    for i in 0..40 {
        nodes.push(node(
            "Hardmax",
            &format!("c{i}"),
            &["t"],
            &[&format!("h{i}")],
            vec![],
        ));
    }
    let mut outputs = Vec::new();
    for i in 0..40 {
        let y = format!("y{i}");
        nodes.push(node(
            "ArgMax",
            &format!("r{i}"),
            &[&format!("h{i}")],
            &[&y],
            vec![attr_int("keepdims", 0)],
        ));
        outputs.push(output(&y));
    }
    let g = graph(&model(13, nodes, vec![vi("x", FLOAT, &n(&shape))], outputs));
    let plan = plan_memory(&g);
    assert!(
        plan.scratch_bytes <= 2 * big,
        "scratch {} bytes for tensors of {big}",
        plan.scratch_bytes
    );
    // Each consumer's reader runs right after it.
    let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(&names[..5], ["t", "c0", "r0", "c1", "r1"]);
    for (k, node) in g.nodes.iter().enumerate() {
        let producer = g.nodes.iter().position(|p| p.output == node.input);
        assert!(
            producer.is_none_or(|p| p < k),
            "{} before its producer",
            node.name
        );
    }
    assert_disjoint_while_alive(&g);
}

/// Where file order is as good, it stays: a chain and siblings read at once keep their order.
#[test]
fn file_order_stays_when_it_is_as_small() {
    let g = graph(&model(
        13,
        vec![
            node("Hardmax", "a", &["x"], &["a"], vec![]),
            node("ArgMax", "b", &["x"], &["b"], vec![]),
            node("ArgMax", "c", &["a"], &["c"], vec![]),
        ],
        vec![vi("x", FLOAT, &n(&[4, 4]))],
        vec![output("b"), output("c")],
    ));
    let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
}
