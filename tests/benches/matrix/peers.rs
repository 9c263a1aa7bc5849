//! The peers of the benchmark matrix, compiled in only with the `peers` feature: tract-onnx and
//! ONNX Runtime, as `benches/peers.rs` runs them, exchanging raw little-endian bytes.

use super::{black_box, Dt, Runner};

/// tract-onnx: optimized, runnable plan; one state, spawned once, run for every call.
pub struct Tract {
    state: tract_onnx::prelude::TypedSimpleState,
    input: tract_onnx::prelude::TValue,
}

impl Tract {
    pub fn new(model: &[u8], dt: Dt, shape: &[usize], input: &[u8]) -> Result<Self, String> {
        use tract_onnx::prelude::*;
        let dt = match dt {
            Dt::F32 => DatumType::F32,
            Dt::F16 => DatumType::F16,
            Dt::F64 => DatumType::F64,
            Dt::I8 => DatumType::I8,
            Dt::U8 => DatumType::U8,
            Dt::I16 => DatumType::I16,
            Dt::U16 => DatumType::U16,
            Dt::I32 => DatumType::I32,
            Dt::I64 => DatumType::I64,
            Dt::Bool => DatumType::Bool,
            Dt::Bf16 => return Err("no bf16 in tract".to_string()),
        };
        let plan = tract_onnx::onnx()
            .model_for_read(&mut &model[..])
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| format!("{e}"))?;
        let state = plan.spawn().map_err(|e| format!("{e}"))?;
        // SAFETY: `input` holds exactly shape.product() little-endian elements of `dt`
        // (bool as 0/1 bytes), which `from_raw_dt` copies into an aligned buffer.
        let tensor =
            unsafe { Tensor::from_raw_dt(dt, shape, input) }.map_err(|e| format!("{e}"))?;
        Ok(Tract {
            state,
            input: tensor.into_tvalue(),
        })
    }

    fn call(
        &mut self,
    ) -> tract_onnx::prelude::TractResult<tract_onnx::prelude::TVec<tract_onnx::prelude::TValue>>
    {
        use tract_onnx::prelude::tvec;
        self.state.run(tvec![self.input.clone()])
    }
}

impl Runner for Tract {
    fn run(&mut self) {
        black_box(self.call().expect("tract ran this model before"));
    }
    fn outputs(&mut self) -> Result<Vec<Vec<u8>>, String> {
        let out = self.call().map_err(|e| format!("fails to run: {e}"))?;
        Ok(out.iter().map(|t| t.as_bytes().to_vec()).collect())
    }
}

/// ONNX Runtime, loaded from `$ORT_DYLIB_PATH`.
pub struct Ort {
    session: ort::session::Session,
    input: ort::value::DynTensor,
}

/// Loads ONNX Runtime and builds its environment once; `Err` says why ORT is skipped.
pub fn ort_environment() -> Result<ort::environment::Environment, String> {
    let path = std::env::var_os("ORT_DYLIB_PATH").ok_or_else(|| {
        "ORT_DYLIB_PATH not set; pip install onnxruntime and point it at libonnxruntime.so \
         (`export ORT_DYLIB_PATH=\"$(bash tests/benches/ort_dylib.sh)\"`)"
            .to_string()
    })?;
    let builder = ort::init_from(&path).map_err(|e| format!("cannot load {path:?}: {e}"))?;
    builder
        .build()
        .map_err(|e| format!("cannot start ONNX Runtime: {e}"))
}

impl Ort {
    pub fn new(
        env: &ort::environment::Environment,
        model: &[u8],
        dt: Dt,
        shape: &[usize],
        input: &[u8],
    ) -> Result<Self, String> {
        use ort::value::TensorElementType as T;
        let session = ort::session::Session::builder(env)
            .map_err(|e| e.to_string())?
            .with_intra_threads(1)
            .map_err(|e| e.to_string())?
            .with_inter_threads(1)
            .map_err(|e| e.to_string())?
            .commit_from_memory(model)
            .map_err(|e| e.to_string())?;
        let ty = match dt {
            Dt::F32 => T::Float32,
            Dt::F16 => T::Float16,
            Dt::Bf16 => T::Bfloat16,
            Dt::F64 => T::Float64,
            Dt::I8 => T::Int8,
            Dt::U8 => T::Uint8,
            Dt::I16 => T::Int16,
            Dt::U16 => T::Uint16,
            Dt::I32 => T::Int32,
            Dt::I64 => T::Int64,
            Dt::Bool => T::Bool,
        };
        let shape: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let mut tensor = ort::value::DynTensor::new(&ort::memory::Allocator::default(), ty, shape)
            .map_err(|e| e.to_string())?;
        let ptr = tensor.data_ptr_mut().cast::<u8>();
        // SAFETY: the tensor was just allocated on the CPU for exactly `input.len()` bytes
        // (shape.product() elements of `dt`), and nothing else refers to it.
        unsafe { std::ptr::copy_nonoverlapping(input.as_ptr(), ptr, input.len()) };
        Ok(Ort {
            session,
            input: tensor,
        })
    }
}

impl Runner for Ort {
    fn run(&mut self) {
        let out = self
            .session
            .run(ort::inputs![&self.input])
            .expect("ONNX Runtime runs");
        black_box(&out);
    }
    fn outputs(&mut self) -> Result<Vec<Vec<u8>>, String> {
        let out = self
            .session
            .run(ort::inputs![&self.input])
            .map_err(|e| format!("fails to run: {e}"))?;
        let out = (0..out.len())
            .map(|k| {
                let value = out[k].view();
                let t = value
                    .downcast::<ort::value::DynTensorValueType>()
                    .expect("a tensor output");
                let n = t.shape().num_elements();
                let bytes = t
                    .data_type()
                    .byte_size(n)
                    .expect("a fixed-size element type");
                if bytes == 0 {
                    return Vec::new();
                }
                // SAFETY: a CPU tensor of `n` elements of its type holds `bytes` bytes at
                // `data_ptr`, alive while `out` is.
                unsafe { std::slice::from_raw_parts(t.data_ptr().cast::<u8>(), bytes) }.to_vec()
            })
            .collect();
        Ok(out)
    }
}
