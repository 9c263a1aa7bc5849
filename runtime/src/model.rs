//! What every generated module offers to code generic over models: the [`Model`] trait,
//! implemented by the unit struct `Model` of each module, and [`Tensors`], implemented by its
//! `Inputs`, `Outputs` and `Scratch`.

use crate::{DType, Error};

/// A model compiled by `onnx_aot::model!` (or the Builder): its interface as associated types
/// and constants, and its entry points. Every generated module holds a unit struct `Model`
/// implementing it.
///
/// ```
/// use onnx_aot::{Model, Tensors};
///
/// onnx_aot::model!(mod top1 = "models/top1.onnx");
///
/// /// Runs any model on zeroed inputs and returns the bytes of its first output.
/// fn first_output<M: Model>() -> usize {
///     let inputs = M::Inputs::zeroed();
///     let mut outputs = M::Outputs::zeroed();
///     M::run_into(&inputs, &mut outputs);
///     M::OUTPUT_BYTES[0]
/// }
/// assert_eq!(first_output::<top1::Model>(), 8);
/// assert_eq!(<top1::Model as Model>::INPUT_NAMES, ["logits"]);
/// ```
pub trait Model {
    /// The run-time inputs (`Inputs` of the module).
    type Inputs: Tensors;
    /// The outputs (`Outputs` of the module).
    type Outputs: Tensors;
    /// The scratch memory of the intermediates (`Scratch` of the module).
    type Scratch: Tensors;
    /// The names of the run-time inputs, in graph order.
    const INPUT_NAMES: &'static [&'static str];
    /// The shapes of the run-time inputs.
    const INPUT_SHAPES: &'static [&'static [usize]];
    /// The element types of the run-time inputs.
    const INPUT_DTYPES: &'static [DType];
    /// The byte sizes of the run-time inputs in [`Model::run_bytes`].
    const INPUT_BYTES: &'static [usize];
    /// The names of the outputs, in graph order.
    const OUTPUT_NAMES: &'static [&'static str];
    /// The shapes of the outputs.
    const OUTPUT_SHAPES: &'static [&'static [usize]];
    /// The element types of the outputs.
    const OUTPUT_DTYPES: &'static [DType];
    /// The byte sizes of the outputs in [`Model::run_bytes`].
    const OUTPUT_BYTES: &'static [usize];
    /// Bytes of scratch memory the intermediates need.
    const SCRATCH_BYTES: usize;
    /// Runs the model, writing every output into `outputs`.
    fn run_into(inputs: &Self::Inputs, outputs: &mut Self::Outputs);
    /// Runs the model with caller-provided scratch memory.
    fn run_with_scratch(
        inputs: &Self::Inputs,
        scratch: &mut Self::Scratch,
        outputs: &mut Self::Outputs,
    );
    /// Runs the model on little-endian bytes in graph order.
    ///
    /// # Errors
    ///
    /// A wrong number of tensors, a wrong byte length or a bool byte other than 0 or 1; nothing
    /// is written then.
    fn run_bytes(inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error>;
}

/// The tensor structs of a generated module (`Inputs`, `Outputs`, `Scratch`): nested arrays of
/// elements, for which every byte zero is a valid value.
pub trait Tensors: crate::boxed::ZeroValid + Sized {
    /// Every element zero (`false` for bool).
    fn zeroed() -> Self;

    /// Every element zero, on the heap, never built on the stack (feature `alloc`): for tensors
    /// too large for a thread's stack.
    ///
    /// ```
    /// # onnx_aot::model!(mod top1 = "models/top1.onnx");
    /// use onnx_aot::Tensors;
    /// let inputs: Box<top1::Inputs> = Tensors::new_boxed();
    /// assert_eq!(inputs.logits, [[0.0; 10]]);
    /// ```
    #[cfg(feature = "alloc")]
    fn new_boxed() -> alloc::boxed::Box<Self> {
        crate::boxed::zeroed_box()
    }
}
