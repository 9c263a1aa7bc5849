//! Untrusted bytes through the whole generator: decode, check, infer, plan and emit
//! (`onnx_aot_codegen::generate`).
//!
//! Every input must give `Ok`, and then tokens that parse as a Rust file, or `Err` with
//! non-empty messages. A panic (overflow checks are on: cargo fuzz builds with debug
//! assertions), an abort, an allocation over libFuzzer's malloc limit, a stack overflow or a
//! timeout is a bug.
//!
//! Each input runs twice: with the default options, and, when it decodes as a model, with
//! options derived from it (its symbolic dimensions bound to small or huge sizes, its first
//! run-time input frozen to literals of the right, or sometimes the wrong, count and kind, an
//! initializer-backed input freed, the module named after the graph).
#![no_main]

use libfuzzer_sys::fuzz_target;
use onnx_aot_codegen::onnx::{data_type, ModelProto, ValueInfoProto};
use onnx_aot_codegen::{generate, load, pretty, Options, Scalar};

fuzz_target!(|data: &[u8]| {
    check(data, &Options::default());
    if let Ok(model) = load::decode(data, "fuzz") {
        check(data, &derived(&model, data));
    }
});

fn check(data: &[u8], options: &Options) {
    match generate(data, options) {
        Ok(tokens) => {
            if let Err(e) = pretty(tokens) {
                panic!("generated code does not parse: {e}");
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty(), "Err without errors");
            for e in errors.iter() {
                assert!(!e.message.trim().is_empty(), "an empty error message");
            }
        }
    }
}

/// A small deterministic generator of choices, seeded by the input.
struct Pick(u64);

impl Pick {
    fn new(data: &[u8]) -> Self {
        // FNV-1a.
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for &b in data {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Pick(h | 1)
    }

    fn next(&mut self) -> u64 {
        // xorshift64.
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Sizes for symbolic dimensions: mostly small, sometimes at the edges.
const SIZES: [usize; 10] = [1, 2, 3, 1, 4, 0, 7, 1 << 20, 1 << 40, usize::MAX];

fn derived(model: &ModelProto, data: &[u8]) -> Options {
    let mut pick = Pick::new(data);
    let Some(graph) = model.graph.as_ref() else {
        return Options::default();
    };
    let mut options = Options::new(graph.name.clone()).source_name("fuzz input");
    for vi in graph
        .input
        .iter()
        .chain(&graph.output)
        .chain(&graph.value_info)
    {
        for d in dims(vi) {
            if let Some(name) = d.dim_param.as_ref().filter(|n| !n.is_empty()) {
                let size = SIZES[pick.below(SIZES.len())];
                options.dims.entry(name.clone()).or_insert(size);
            }
        }
    }
    let is_init = |name: &str| graph.initializer.iter().any(|t| t.name == name);
    if let Some(vi) = graph.input.iter().find(|vi| !is_init(&vi.name)) {
        if pick.below(4) != 0 {
            let values = frozen_values(vi, &options, &mut pick);
            options = options.input(vi.name.clone(), values);
        }
    }
    if pick.below(2) == 0 {
        if let Some(vi) = graph.input.iter().find(|vi| is_init(&vi.name)) {
            options = options.free(vi.name.clone());
        }
    }
    options
}

fn dims(vi: &ValueInfoProto) -> &[onnx_aot_codegen::onnx::Dimension] {
    vi.r#type
        .as_ref()
        .and_then(|t| t.tensor_type.as_ref())
        .and_then(|t| t.shape.as_ref())
        .map_or(&[], |s| &s.dim)
}

/// Literals for a frozen input: the declared element count (capped), sometimes one off; of the
/// kind its element type wants, sometimes another.
fn frozen_values(vi: &ValueInfoProto, options: &Options, pick: &mut Pick) -> Vec<Scalar> {
    let mut count: Option<usize> = Some(1);
    for d in dims(vi) {
        let size = match (d.dim_value, d.dim_param.as_ref()) {
            (Some(v), _) => usize::try_from(v).ok(),
            (None, Some(p)) => options.dims.get(p).copied(),
            _ => None,
        };
        count = count.zip(size).and_then(|(c, s)| c.checked_mul(s));
    }
    let mut count = match count {
        Some(n) if n <= 4096 => n,
        _ => pick.below(6),
    };
    if pick.below(8) == 0 {
        count = (count + pick.below(3)).saturating_sub(1);
    }
    let elem = vi
        .r#type
        .as_ref()
        .and_then(|t| t.tensor_type.as_ref())
        .map_or(0, |t| t.elem_type);
    let natural = match elem {
        data_type::FLOAT | data_type::DOUBLE | data_type::FLOAT16 | data_type::BFLOAT16 => 0,
        data_type::BOOL => 1,
        _ => 2,
    };
    (0..count)
        .map(|_| {
            let kind = if pick.below(8) == 0 {
                pick.below(3)
            } else {
                natural
            };
            let r = pick.next();
            match kind {
                0 => Scalar::Float(match r % 8 {
                    0 => f64::NAN,
                    1 => f64::INFINITY,
                    2 => f64::NEG_INFINITY,
                    3 => 1e300,
                    _ => (r >> 8) as i32 as f64 / 256.0,
                }),
                1 => Scalar::Bool(r & 1 == 1),
                _ => Scalar::Int(match r % 8 {
                    0 => i128::MAX,
                    1 => i128::MIN,
                    2 => u64::MAX.into(),
                    3 => i64::MIN.into(),
                    _ => ((r >> 8) as i16).into(),
                }),
            }
        })
        .collect()
}
