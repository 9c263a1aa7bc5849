//! Writes seeds for the `graphs` fuzz target: byte strings drawn from a fixed xorshift stream,
//! kept when the graph they describe gives an outcome not seen yet: accepted with a new set of
//! ops (up to `ACCEPTED` seeds), or refused with a new first message (up to `REFUSED`). Files
//! are named by content. Every draw also goes through the target's checks.
//!
//!     cd fuzz && cargo run --release --example seed_graphs -- corpus/graphs
//!
//! It prints how many of the drawn graphs the generator accepted.

use std::collections::BTreeSet;

use arbitrary::{Arbitrary, Unstructured};
use onnx_aot_fuzz::spec::GraphSpec;

const DRAWS: usize = 20_000;
const ACCEPTED: usize = 48;
const REFUSED: usize = 32;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "corpus/graphs".to_string());
    std::fs::create_dir_all(&dir).expect("cannot create the corpus directory");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut seen = BTreeSet::new();
    let (mut accepted, mut kept_ok, mut kept_err) = (0, 0, 0);
    for _ in 0..DRAWS {
        let len = 32 + (next() % 480) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // As libfuzzer-sys decodes a fuzz target's argument.
        let Ok(spec) = GraphSpec::arbitrary_take_rest(Unstructured::new(&data)) else {
            continue;
        };
        let (bytes, options) = onnx_aot_fuzz::build(&spec);
        let ok = onnx_aot_fuzz::check(&bytes, &options);
        let outcome = match onnx_aot_codegen::generate(&bytes, &options) {
            Ok(_) => {
                accepted += 1;
                let ops: BTreeSet<String> =
                    spec.nodes.iter().map(|n| format!("{:?}", n.op)).collect();
                format!("ok {ops:?}")
            }
            Err(e) => {
                let m = &e.iter().next().expect("Err without errors").message;
                // The message's shape, not its names or numbers.
                let shape: String = (m.chars())
                    .filter(|c| c.is_ascii_lowercase() || *c == ' ')
                    .take(60)
                    .collect();
                format!("err {shape}")
            }
        };
        let room = if ok {
            kept_ok < ACCEPTED
        } else {
            kept_err < REFUSED
        };
        if room && seen.insert(outcome) {
            let sum = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
            std::fs::write(format!("{dir}/seed-{sum:016x}"), &data).expect("cannot write a seed");
            if ok {
                kept_ok += 1;
            } else {
                kept_err += 1;
            }
        }
    }
    println!(
        "{DRAWS} draws: {accepted} accepted; seeds written to {dir}: {kept_ok} accepted, \
         {kept_err} refused"
    );
}
