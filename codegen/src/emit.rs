//! From a checked [`Graph`] to Rust tokens: the module's items (types, constants, entry points
//! and one function per node).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::dtype::DType;
use crate::ir::{Direction, Graph, Node, Op, Source, Tensor, Value, ValueId};
use crate::names;
use crate::options::Options;
use crate::plan::{plan, Plan, Run};

/// Where a value lives inside `run_into`.
#[derive(Clone)]
enum Place {
    Input(Ident),
    Output(Ident),
    Local(Ident),
    Const(Ident),
}

struct Emitter<'g> {
    graph: &'g Graph,
    rt: TokenStream,
    places: Vec<Option<Place>>,
    input_fields: Vec<Ident>,
    output_fields: Vec<Ident>,
}

/// The items of the generated module (without the `mod` wrapper).
pub fn emit_items(graph: &Graph, options: &Options) -> TokenStream {
    let rt: TokenStream = options
        .runtime_path
        .parse()
        .unwrap_or_else(|_| quote!(::onnx_aot));
    let input_names: Vec<&str> = graph
        .inputs
        .iter()
        .map(|&v| graph.values[v].name.as_str())
        .collect();
    let output_names: Vec<&str> = graph.outputs.iter().map(|o| o.name.as_str()).collect();
    let input_fields: Vec<Ident> = names::unique(&input_names)
        .iter()
        .map(|n| format_ident!("{}", n))
        .collect();
    let output_fields: Vec<Ident> = names::unique(&output_names)
        .iter()
        .map(|n| format_ident!("{}", n))
        .collect();
    let mut e = Emitter {
        graph,
        rt,
        places: vec![None; graph.values.len()],
        input_fields,
        output_fields,
    };
    e.assign_places();
    e.items()
}

fn lit_usize(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

impl<'g> Emitter<'g> {
    fn assign_places(&mut self) {
        for (i, &v) in self.graph.inputs.iter().enumerate() {
            self.places[v] = Some(Place::Input(self.input_fields[i].clone()));
        }
        for (i, out) in self.graph.outputs.iter().enumerate() {
            if matches!(self.graph.values[out.value].source, Source::Node(_)) {
                self.places[out.value] = Some(Place::Output(self.output_fields[i].clone()));
            }
        }
        for (id, value) in self.graph.values.iter().enumerate() {
            if self.places[id].is_some() {
                continue;
            }
            self.places[id] = match value.source {
                Source::Constant(_) => Some(Place::Const(format_ident!("CONST_{}", id))),
                Source::Node(_) => Some(Place::Local(format_ident!("value_{}", id))),
                Source::Input(_) => None,
            };
        }
    }

    fn elem(&self, dtype: DType) -> TokenStream {
        let rt = &self.rt;
        match dtype {
            DType::F32 => quote!(f32),
            DType::F64 => quote!(f64),
            DType::F16 => quote!(#rt::f16),
            DType::BF16 => quote!(#rt::bf16),
            DType::I8 => quote!(i8),
            DType::I16 => quote!(i16),
            DType::I32 => quote!(i32),
            DType::I64 => quote!(i64),
            DType::U8 => quote!(u8),
            DType::U16 => quote!(u16),
            DType::U32 => quote!(u32),
            DType::U64 => quote!(u64),
            DType::Bool => quote!(bool),
        }
    }

    /// `[[T; c]; b]` for a shape `[b, c]`; the bare element for rank 0.
    fn nested_type(&self, value: &Value) -> TokenStream {
        let mut ty = self.elem(value.dtype);
        for &d in value.shape.iter().rev() {
            let d = lit_usize(d);
            ty = quote!([#ty; #d]);
        }
        ty
    }

    fn zero_of(&self, value: &Value) -> TokenStream {
        let rt = &self.rt;
        let elem = self.elem(value.dtype);
        let mut expr = quote!(<#elem as #rt::Element>::ZERO);
        for &d in value.shape.iter().rev() {
            let d = lit_usize(d);
            expr = quote!([#expr; #d]);
        }
        expr
    }

    /// A flat shared view of a field of a nested-array struct.
    fn flat_field(base: TokenStream, rank: usize, mutable: bool) -> TokenStream {
        match (rank, mutable) {
            (0, false) => quote!(::core::slice::from_ref(&#base)),
            (0, true) => quote!(::core::slice::from_mut(&mut #base)),
            (_, false) => {
                let mut e = quote!(#base.as_slice());
                for _ in 1..rank {
                    e = quote!(#e.as_flattened());
                }
                e
            }
            (_, true) => {
                let mut e = quote!(#base.as_mut_slice());
                for _ in 1..rank {
                    e = quote!(#e.as_flattened_mut());
                }
                e
            }
        }
    }

    fn view(&self, id: ValueId, mutable: bool) -> TokenStream {
        let rank = self.graph.values[id].shape.len();
        match self.places[id].as_ref() {
            Some(Place::Input(f)) => Self::flat_field(quote!(inputs.#f), rank, false),
            Some(Place::Output(f)) => Self::flat_field(quote!(outputs.#f), rank, mutable),
            Some(Place::Local(l)) if mutable => quote!(#l.as_mut_slice()),
            Some(Place::Local(l)) => quote!(#l.as_slice()),
            Some(Place::Const(c)) => quote!(#c.as_slice()),
            None => quote!(&[]),
        }
    }

    fn items(&self) -> TokenStream {
        let rt = &self.rt;
        let g = self.graph;
        let input_values: Vec<&Value> = g.inputs.iter().map(|&v| &g.values[v]).collect();
        let output_values: Vec<&Value> = g.outputs.iter().map(|o| &g.values[o.value]).collect();

        let field_doc = |kind: &str, v: &Value| {
            format!(" ONNX {kind} `{}`: {} {:?}.", v.name, v.dtype, v.shape)
        };
        let in_fields = &self.input_fields;
        let out_fields = &self.output_fields;
        let in_types: Vec<_> = input_values.iter().map(|v| self.nested_type(v)).collect();
        let out_types: Vec<_> = output_values.iter().map(|v| self.nested_type(v)).collect();
        let in_docs: Vec<_> = input_values.iter().map(|v| field_doc("input", v)).collect();
        let out_docs: Vec<_> = output_values
            .iter()
            .map(|v| field_doc("output", v))
            .collect();
        let in_zero: Vec<_> = input_values.iter().map(|v| self.zero_of(v)).collect();
        let out_zero: Vec<_> = output_values.iter().map(|v| self.zero_of(v)).collect();

        let meta = |values: &[&Value]| {
            let names: Vec<String> = values.iter().map(|v| v.name.clone()).collect();
            let shapes: Vec<_> = values
                .iter()
                .map(|v| {
                    let dims = v.shape.iter().map(|&d| lit_usize(d));
                    quote!(&[#(#dims),*])
                })
                .collect();
            let dtypes: Vec<_> = values
                .iter()
                .map(|v| {
                    let variant = format_ident!("{}", v.dtype.variant_name());
                    quote!(#rt::DType::#variant)
                })
                .collect();
            let bytes: Vec<_> = values
                .iter()
                .map(|v| lit_usize(v.numel() * v.dtype.size()))
                .collect();
            (names, shapes, dtypes, bytes)
        };
        let (in_names, in_shapes, in_dtypes, in_bytes) = meta(&input_values);
        let (out_names, out_shapes, out_dtypes, out_bytes) = meta(&output_values);
        let n_in = lit_usize(input_values.len());
        let n_out = lit_usize(output_values.len());

        let consts = self.constants();
        let body = self.run_body();
        let node_fns: Vec<TokenStream> = g.nodes.iter().map(|n| self.node_fn(n)).collect();
        let run_bytes = self.run_bytes(&input_values, &output_values);

        quote! {
            /// The names of the run-time inputs, in graph order (the order of `run_bytes`).
            pub const INPUT_NAMES: [&str; #n_in] = [#(#in_names),*];
            /// The shapes of the run-time inputs.
            pub const INPUT_SHAPES: [&[usize]; #n_in] = [#(#in_shapes),*];
            /// The element types of the run-time inputs.
            pub const INPUT_DTYPES: [#rt::DType; #n_in] = [#(#in_dtypes),*];
            /// The byte sizes of the run-time inputs in `run_bytes`.
            pub const INPUT_BYTES: [usize; #n_in] = [#(#in_bytes),*];
            /// The names of the outputs, in graph order.
            pub const OUTPUT_NAMES: [&str; #n_out] = [#(#out_names),*];
            /// The shapes of the outputs.
            pub const OUTPUT_SHAPES: [&[usize]; #n_out] = [#(#out_shapes),*];
            /// The element types of the outputs.
            pub const OUTPUT_DTYPES: [#rt::DType; #n_out] = [#(#out_dtypes),*];
            /// The byte sizes of the outputs in `run_bytes`.
            pub const OUTPUT_BYTES: [usize; #n_out] = [#(#out_bytes),*];

            /// The model's run-time inputs, one field per graph input, as nested arrays.
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct Inputs {
                #(#[doc = #in_docs] pub #in_fields: #in_types,)*
            }

            impl Inputs {
                /// Inputs with every element zero (`false` for bool).
                pub const fn zeroed() -> Self {
                    Inputs { #(#in_fields: #in_zero,)* }
                }
            }

            impl ::core::default::Default for Inputs {
                fn default() -> Self {
                    Self::zeroed()
                }
            }

            /// The model's outputs, one field per graph output, as nested arrays.
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct Outputs {
                #(#[doc = #out_docs] pub #out_fields: #out_types,)*
            }

            impl Outputs {
                /// Outputs with every element zero (`false` for bool).
                pub const fn zeroed() -> Self {
                    Outputs { #(#out_fields: #out_zero,)* }
                }
            }

            impl ::core::default::Default for Outputs {
                fn default() -> Self {
                    Self::zeroed()
                }
            }

            /// Runs the model and returns its outputs.
            #[must_use]
            pub fn run(inputs: &Inputs) -> Outputs {
                let mut outputs = Outputs::zeroed();
                run_into(inputs, &mut outputs);
                outputs
            }

            /// Runs the model, writing every output into `outputs`.
            #[allow(unused_variables)]
            pub fn run_into(inputs: &Inputs, outputs: &mut Outputs) {
                #body
            }

            #run_bytes

            #consts

            #(#node_fns)*
        }
    }

    fn constants(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (id, value) in self.graph.values.iter().enumerate() {
            let (Some(Place::Const(name)), Source::Constant(t)) = (&self.places[id], &value.source)
            else {
                continue;
            };
            if !self.used(id) {
                continue;
            }
            let elem = self.elem(value.dtype);
            let n = lit_usize(value.numel());
            let elems = self.literals(t);
            let doc = format!(
                " Constant `{}`: {} {:?}.",
                value.name, value.dtype, value.shape
            );
            out.extend(quote! {
                #[doc = #doc]
                const #name: [#elem; #n] = [#(#elems),*];
            });
        }
        out
    }

    /// Whether a constant is read at run time (by a node's data input or as an output).
    fn used(&self, id: ValueId) -> bool {
        self.graph.nodes.iter().any(|n| n.input == id)
            || self.graph.outputs.iter().any(|o| o.value == id)
    }

    fn literals(&self, t: &Tensor) -> Vec<TokenStream> {
        let rt = &self.rt;
        let size = t.dtype.size();
        t.bytes
            .chunks_exact(size)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..size].copy_from_slice(c);
                let bits = u64::from_le_bytes(b);
                match t.dtype {
                    DType::F32 => float_lit(f32::from_bits(bits as u32) as f64, bits, "f32"),
                    DType::F64 => float_lit(f64::from_bits(bits), bits, "f64"),
                    DType::F16 => {
                        let l = Literal::u16_unsuffixed(bits as u16);
                        quote!(#rt::f16::from_bits(#l))
                    }
                    DType::BF16 => {
                        let l = Literal::u16_unsuffixed(bits as u16);
                        quote!(#rt::bf16::from_bits(#l))
                    }
                    DType::Bool => {
                        if bits != 0 {
                            quote!(true)
                        } else {
                            quote!(false)
                        }
                    }
                    DType::I8 => int_lit(bits as u8 as i8 as i128, "i8"),
                    DType::I16 => int_lit(bits as u16 as i16 as i128, "i16"),
                    DType::I32 => int_lit(bits as u32 as i32 as i128, "i32"),
                    DType::I64 => int_lit(bits as i64 as i128, "i64"),
                    DType::U8 => int_lit(bits as u8 as i128, "u8"),
                    DType::U16 => int_lit(bits as u16 as i128, "u16"),
                    DType::U32 => int_lit(bits as u32 as i128, "u32"),
                    DType::U64 => int_lit(bits as i128, "u64"),
                }
            })
            .collect()
    }

    fn run_body(&self) -> TokenStream {
        let rt = &self.rt;
        let g = self.graph;
        let mut body = TokenStream::new();
        for node in &g.nodes {
            if let Some(Place::Local(l)) = &self.places[node.output] {
                let v = &g.values[node.output];
                let elem = self.elem(v.dtype);
                let n = lit_usize(v.numel());
                body.extend(quote!(let mut #l: [#elem; #n] = [<#elem as #rt::Element>::ZERO; #n];));
            }
        }
        for node in &g.nodes {
            let f = fn_name(node);
            let x = self.view(node.input, false);
            let y = self.view(node.output, true);
            body.extend(quote!(#f(#x, #y);));
        }
        // Outputs that show a graph input or a constant are copies.
        for (i, out) in g.outputs.iter().enumerate() {
            if matches!(g.values[out.value].source, Source::Node(_)) {
                continue;
            }
            let x = self.view(out.value, false);
            let rank = g.values[out.value].shape.len();
            let f = &self.output_fields[i];
            let y = Self::flat_field(quote!(outputs.#f), rank, true);
            body.extend(quote!(#rt::kernels::copy(#y, #x);));
        }
        body
    }

    fn run_bytes(&self, inputs: &[&Value], outputs: &[&Value]) -> TokenStream {
        let rt = &self.rt;
        let n_in = lit_usize(inputs.len());
        let n_out = lit_usize(outputs.len());
        let in_vars: Vec<Ident> = (0..inputs.len())
            .map(|i| format_ident!("in_{}", i))
            .collect();
        let out_vars: Vec<Ident> = (0..outputs.len())
            .map(|i| format_ident!("out_{}", i))
            .collect();
        let mut checks = TokenStream::new();
        let mut decode = TokenStream::new();
        let mut encode = TokenStream::new();
        for (i, v) in inputs.iter().enumerate() {
            let var = &in_vars[i];
            let idx = lit_usize(i);
            let name = &v.name;
            let bytes = lit_usize(v.numel() * v.dtype.size());
            let f = &self.input_fields[i];
            let dst = Self::flat_field(quote!(ins.#f), v.shape.len(), true);
            checks.extend(quote!(#rt::bytes::check_input(#var, #idx, #name, #bytes)?;));
            decode.extend(quote!(#rt::bytes::decode(#var, #dst, #idx, #name)?;));
        }
        for (i, v) in outputs.iter().enumerate() {
            let var = &out_vars[i];
            let idx = lit_usize(i);
            let name = &v.name;
            let bytes = lit_usize(v.numel() * v.dtype.size());
            let f = &self.output_fields[i];
            let src = Self::flat_field(quote!(outs.#f), v.shape.len(), false);
            checks.extend(quote!(#rt::bytes::check_output(#var, #idx, #name, #bytes)?;));
            encode.extend(quote!(#rt::bytes::encode(#src, #var);));
        }
        let ins_decl = if inputs.is_empty() {
            quote!(let ins = Inputs::zeroed();)
        } else {
            quote!(let mut ins = Inputs::zeroed();)
        };
        quote! {
            /// Runs the model on raw tensors: inputs and outputs in graph order, elements
            /// little-endian (bool as one byte 0 or 1, f16/bf16 as their bit patterns).
            ///
            /// Checks the number and byte length of every slice before touching any output.
            pub fn run_bytes(inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> ::core::result::Result<(), #rt::Error> {
                let found_inputs = inputs.len();
                let found_outputs = outputs.len();
                let &[#(#in_vars),*] = inputs else {
                    return Err(#rt::Error::InputCount { expected: #n_in, found: found_inputs });
                };
                let [#(#out_vars),*] = outputs else {
                    return Err(#rt::Error::OutputCount { expected: #n_out, found: found_outputs });
                };
                #checks
                #ins_decl
                #decode
                let mut outs = Outputs::zeroed();
                run_into(&ins, &mut outs);
                #encode
                Ok(())
            }
        }
    }

    fn node_fn(&self, node: &Node) -> TokenStream {
        let g = self.graph;
        let x = &g.values[node.input];
        let y = &g.values[node.output];
        let tx = self.elem(x.dtype);
        let ty = self.elem(y.dtype);
        let name = fn_name(node);
        let docs = node_docs(node, x, y);
        let p = plan(&node.op, &x.shape);
        let body = self.kernel(&p, &tx);
        let summary = format!(" Plan: {}.", describe_plan(&p));
        quote! {
            #(#[doc = #docs])*
            #[doc = ""]
            #[doc = #summary]
            #[inline]
            #[allow(unused_variables)]
            fn #name(x: &[#tx], y: &mut [#ty]) {
                #body
            }
        }
    }

    fn dir(&self, d: Direction) -> TokenStream {
        let rt = &self.rt;
        match d {
            Direction::Max => quote!(#rt::Max),
            Direction::Min => quote!(#rt::Min),
        }
    }

    fn kernel(&self, p: &Plan, t: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let k = quote!(#rt::kernels);
        match p {
            Plan::Copy => quote!(#k::copy(y, x);),
            Plan::Nothing => quote!(),
            Plan::FillIdentity(d) => {
                let d = self.dir(*d);
                quote!(#k::fill(y, <#d as #rt::Direction>::identity::<#t>());)
            }
            Plan::Reduce { direction, runs } => {
                let d = self.dir(*direction);
                let inner = reduce_nest(runs, &k, t, &d);
                quote! {
                    #k::fill(y, <#d as #rt::Direction>::identity::<#t>());
                    #inner
                }
            }
            Plan::ArgRows { direction, last, r } => {
                let d = self.dir(*direction);
                let r = lit_usize(*r);
                quote! {
                    for (x, y) in x.chunks_exact(#r).zip(y.iter_mut()) {
                        *y = #k::arg_row::<#t, #d, #last>(x) as i64;
                    }
                }
            }
            Plan::ArgLanes {
                direction,
                last,
                r,
                inner,
            } => {
                let d = self.dir(*direction);
                let block = lit_usize(r * inner);
                let inner = lit_usize(*inner);
                quote! {
                    for (x, y) in x.chunks_exact(#block).zip(y.chunks_exact_mut(#inner)) {
                        #k::arg_lanes::<#t, #d, #last>(x, y, #inner);
                    }
                }
            }
            Plan::HardmaxRows { r } => {
                let r = lit_usize(*r);
                quote! {
                    for (x, y) in x.chunks_exact(#r).zip(y.chunks_exact_mut(#r)) {
                        #k::hardmax_row(x, y);
                    }
                }
            }
            Plan::HardmaxLanes { r, inner } => {
                let block = lit_usize(r * inner);
                let inner = lit_usize(*inner);
                quote! {
                    for (x, y) in x.chunks_exact(#block).zip(y.chunks_exact_mut(#block)) {
                        #k::hardmax_lanes(x, y, #inner);
                    }
                }
            }
            Plan::HardmaxGeneral { kept, reduced } => {
                let pairs = |v: &[(usize, usize)]| {
                    let items = v.iter().map(|&(s, st)| {
                        let s = lit_usize(s);
                        let st = lit_usize(st);
                        quote!((#s, #st))
                    });
                    quote!(&[#(#items),*])
                };
                let kept = pairs(kept);
                let reduced = pairs(reduced);
                quote!(#k::hardmax_general(x, y, #kept, #reduced);)
            }
        }
    }
}

/// The loop nest of a reduction: outer loops over runs, then the innermost kernel.
fn reduce_nest(runs: &[Run], k: &TokenStream, t: &TokenStream, d: &TokenStream) -> TokenStream {
    // The innermost kernel takes the last kept run, or the last reduced run together with the
    // kept run before it.
    let (outer, innermost) = match runs {
        [] => (&runs[..0], quote!(#k::reduce_lanes::<#t, #d>(y, x);)),
        [.., last] if !last.reduced => (
            &runs[..runs.len() - 1],
            quote!(#k::reduce_lanes::<#t, #d>(y, x);),
        ),
        [.., before, last] if !before.reduced => {
            let n = lit_usize(last.size);
            (
                &runs[..runs.len() - 2],
                quote!(#k::reduce_rows::<#t, #d>(y, x, #n);),
            )
        }
        [.., last] => {
            let n = lit_usize(last.size);
            (
                &runs[..runs.len() - 1],
                quote!(#k::reduce_rows::<#t, #d>(y, x, #n);),
            )
        }
    };
    let mut code = innermost;
    for (i, run) in outer.iter().enumerate().rev() {
        let rest = &runs[i + 1..];
        let xs = lit_usize(rest.iter().map(|r| r.size).product());
        if run.reduced {
            code = quote! {
                for x in x.chunks_exact(#xs) {
                    #code
                }
            };
        } else {
            let ys = lit_usize(rest.iter().filter(|r| !r.reduced).map(|r| r.size).product());
            code = quote! {
                for (x, y) in x.chunks_exact(#xs).zip(y.chunks_exact_mut(#ys)) {
                    #code
                }
            };
        }
    }
    code
}

fn describe_plan(p: &Plan) -> String {
    match p {
        Plan::Copy => "copy".to_string(),
        Plan::Nothing => "nothing to compute (empty output)".to_string(),
        Plan::FillIdentity(_) => "empty input: fill with the reduction's identity".to_string(),
        Plan::Reduce { runs, .. } => {
            let r: Vec<String> = runs
                .iter()
                .map(|r| format!("{}{}", if r.reduced { "reduce " } else { "keep " }, r.size))
                .collect();
            format!("reduction over merged runs [{}]", r.join(", "))
        }
        Plan::ArgRows { r, .. } => format!("arg-reduction over contiguous rows of {r}"),
        Plan::ArgLanes { r, inner, .. } => {
            format!("arg-reduction over {r} rows of {inner} lanes")
        }
        Plan::HardmaxRows { r } => format!("hardmax over contiguous rows of {r}"),
        Plan::HardmaxLanes { r, inner } => format!("hardmax over {r} rows of {inner} lanes"),
        Plan::HardmaxGeneral { kept, reduced } => {
            format!("hardmax over strided axes, kept {kept:?}, reduced {reduced:?} (size, stride)")
        }
    }
}

fn fn_name(node: &Node) -> Ident {
    let op = match &node.op {
        Op::Arg {
            direction: Direction::Max,
            ..
        } => "argmax",
        Op::Arg {
            direction: Direction::Min,
            ..
        } => "argmin",
        Op::Reduce {
            direction: Direction::Max,
            ..
        } => "reduce_max",
        Op::Reduce {
            direction: Direction::Min,
            ..
        } => "reduce_min",
        Op::Hardmax { .. } => "hardmax",
        Op::Identity => "identity",
    };
    format_ident!("node_{}_{}", node.index, op)
}

fn node_docs(node: &Node, x: &Value, y: &Value) -> Vec<String> {
    let domain = if node.domain.is_empty() {
        String::new()
    } else {
        format!("{}::", node.domain)
    };
    let name = if node.name.is_empty() {
        "(unnamed)".to_string()
    } else {
        format!("`{}`", node.name)
    };
    let attrs = match &node.op {
        Op::Arg {
            axis,
            keepdims,
            select_last_index,
            ..
        } => format!(
            "axis {axis}, keepdims {}, select_last_index {}",
            u8::from(*keepdims),
            u8::from(*select_last_index)
        ),
        Op::Reduce {
            axes,
            keepdims,
            noop,
            ..
        } => {
            format!(
                "axes {axes:?}, keepdims {}, noop_with_empty_axes {}",
                u8::from(*keepdims),
                u8::from(*noop)
            )
        }
        Op::Hardmax { axes } => format!("axes {axes:?}"),
        Op::Identity => String::new(),
    };
    let mut docs = vec![format!(
        " ONNX node {} {name}: {domain}{}-{} (opset {}){}.",
        node.index,
        node.op_type,
        node.version,
        node.opset,
        if attrs.is_empty() {
            String::new()
        } else {
            format!(", {attrs}")
        }
    )];
    docs.push(format!(
        " Input `{}`: {} {:?}; output `{}`: {} {:?}.",
        x.name, x.dtype, x.shape, y.name, y.dtype, y.shape
    ));
    docs
}

fn float_lit(v: f64, bits: u64, suffix: &str) -> TokenStream {
    let ty = format_ident!("{}", suffix);
    if v.is_nan() {
        let l = if suffix == "f32" {
            Literal::u32_suffixed(bits as u32)
        } else {
            Literal::u64_suffixed(bits)
        };
        return quote!(#ty::from_bits(#l));
    }
    if v.is_infinite() {
        return if v > 0.0 {
            quote!(#ty::INFINITY)
        } else {
            quote!(#ty::NEG_INFINITY)
        };
    }
    let text = if suffix == "f32" {
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    };
    let negative = text.starts_with('-');
    let body = text.trim_start_matches('-');
    let lit: Literal = format!("{body}{suffix}")
        .parse()
        .unwrap_or_else(|_| Literal::f64_suffixed(v.abs()));
    if negative {
        quote!(-#lit)
    } else {
        quote!(#lit)
    }
}

fn int_lit(v: i128, suffix: &str) -> TokenStream {
    let lit: Literal = format!("{}{suffix}", v.unsigned_abs())
        .parse()
        .unwrap_or_else(|_| Literal::i128_unsuffixed(0));
    if v < 0 {
        quote!(-#lit)
    } else {
        quote!(#lit)
    }
}
