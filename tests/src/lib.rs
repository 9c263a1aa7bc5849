//! Test support of onnx-aot: reading the official test data, building models, and an
//! independent reference implementation of the contract (SEMANTICS.md).

pub mod builder;
pub mod reference;
pub mod rng;
pub mod testdata;

/// Includes `OUT_DIR/FILE`, modules the build script generated, as `mod generated` with its
/// items in scope (lints of generated test modules are not this crate's concern).
#[macro_export]
macro_rules! generated_modules {
    ($file:literal) => {
        #[allow(
            dead_code,
            unused,
            clippy::all,
            clippy::pedantic,
            missing_docs,
            non_snake_case,
            non_upper_case_globals
        )]
        mod generated {
            include!(concat!(env!("OUT_DIR"), "/", $file));
        }
        #[allow(unused_imports)]
        use generated::*;
    };
}
