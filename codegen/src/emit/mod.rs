//! From a checked [`Graph`] to Rust tokens: the module's items. [`emit_items`] is the driver:
//! it places every value (input, output, scratch slot, constant), then assembles the interface
//! (`interface`), `run_bytes`, `run_ndarray`, the constants and one function per node, whose
//! body the node's op family emits ([`crate::ir::Compute::emit`]).

mod chunks;
mod constants;
mod docs;
mod interface;
mod ndarray;
mod run_bytes;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

pub use docs::module_docs;

use crate::dtype::DType;
use crate::ir::{Chunked, Graph, Node, NodeCode, Source, Value, ValueId};
use crate::memory::{plan_memory, MemoryPlan, Slot};
use crate::names;
use crate::options::Options;
use crate::tokens::{elem_tokens, lit_usize};
use chunks::chunk_fn_name;

/// Where a value lives inside `run_into`.
#[derive(Clone)]
enum Place {
    Input(Ident),
    Output(Ident),
    Scratch(Slot),
    Const(Ident),
    /// Elements `[offset, offset + len)` of another place (a contiguous Slice of an input or
    /// a constant).
    Part(Box<Place>, usize, usize),
}

/// The name of the scratch buffer of an element type (`buf_f32`).
fn scratch_name(dtype: DType) -> Ident {
    format_ident!("buf_{}", dtype.variant_name().to_ascii_lowercase())
}

/// What the emitter knows of the graph while it writes the module.
struct Emitter<'g> {
    graph: &'g Graph,
    rt: TokenStream,
    /// The visibility of the module's items: `pub` in a `pub` module, `pub(crate)` in any other
    /// (where `pub` would be an unreachable `pub`).
    vis: TokenStream,
    places: Vec<Option<Place>>,
    input_fields: Vec<Ident>,
    output_fields: Vec<Ident>,
    memory: MemoryPlan,
    /// The chunked pair each node is part of, by position ([`crate::chunks`]).
    chunked: Vec<Option<Chunked>>,
}

/// The items of the generated module (without the `mod` wrapper).
pub fn emit_items(graph: &Graph, options: &Options) -> TokenStream {
    let rt = crate::tokens::private_path(&options.runtime_path);
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
    let public = options.visibility.trim() == "pub";
    let mut e = Emitter {
        graph,
        rt,
        vis: if public {
            quote!(pub)
        } else {
            quote!(pub(crate))
        },
        places: vec![None; graph.values.len()],
        input_fields,
        output_fields,
        memory: plan_memory(graph),
        chunked: graph.chunked_by_node(),
    };
    e.assign_places();
    e.items()
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
                Source::Node(_) => self.memory.slots.get(&id).copied().map(Place::Scratch),
                Source::Input(_) => None,
            };
        }
        // Aliases read their root's place, from their offset (a contiguous Slice).
        for id in 0..self.places.len() {
            let root = self.memory.root[id];
            if root == id {
                continue;
            }
            let (offset, len) = (self.memory.offset[id], self.graph.values[id].numel());
            let whole = offset == 0 && len == self.graph.values[root].numel();
            self.places[id] = match self.places[root].clone() {
                Some(Place::Scratch(slot)) => Some(Place::Scratch(Slot {
                    offset: slot.offset + offset,
                    len,
                    ..slot
                })),
                Some(place) if !whole => Some(Place::Part(Box::new(place), offset, len)),
                other => other,
            };
        }
    }

    fn elem(&self, dtype: DType) -> TokenStream {
        elem_tokens(dtype, &self.rt)
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

    /// A flat view of a field of a nested-array struct (`&[E; N]`, which the call coerces to a
    /// slice): one inlined pointer cast in the runtime, so a debug build pays no call per rank.
    fn flat_field(&self, base: TokenStream, value: &Value, mutable: bool) -> TokenStream {
        let rt = &self.rt;
        let elem = self.elem(value.dtype);
        let n = lit_usize(value.numel());
        if mutable {
            quote!(#rt::flat_mut::<#elem, _, #n>(&mut #base))
        } else {
            quote!(#rt::flat::<#elem, _, #n>(&#base))
        }
    }

    /// A view of a value inside `compute`, and whether it is an `Option` (scratch slots are
    /// taken with `get`, which rustc resolves at compile time for these constant ranges).
    fn view(&self, id: ValueId, mutable: bool) -> (TokenStream, bool) {
        if let Some(Place::Scratch(slot)) = self.places[id].as_ref() {
            let buf = scratch_name(slot.dtype);
            let (a, b) = (lit_usize(slot.offset), lit_usize(slot.offset + slot.len));
            return if mutable {
                (quote!(#buf.get_mut(#a..#b)), true)
            } else {
                (quote!(#buf.get(#a..#b)), true)
            };
        }
        if let Some(Place::Part(base, offset, len)) = self.places[id].as_ref() {
            let base = match base.as_ref() {
                Place::Input(f) => {
                    let p = format_ident!("in_{}", f);
                    quote!(#p)
                }
                Place::Output(f) => {
                    let p = format_ident!("out_{}", f);
                    quote!((&*#p))
                }
                Place::Const(c) => quote!(#c.as_slice()),
                Place::Scratch(_) | Place::Part(..) => quote!((&[])),
            };
            let (a, b) = (lit_usize(*offset), lit_usize(offset + len));
            return (quote!(#base.get(#a..#b)), true);
        }
        let plain = match self.places[id].as_ref() {
            Some(Place::Input(f)) => {
                let p = format_ident!("in_{}", f);
                quote!(#p)
            }
            Some(Place::Output(f)) => {
                let p = format_ident!("out_{}", f);
                if mutable {
                    quote!(&mut *#p)
                } else {
                    quote!(&*#p)
                }
            }
            Some(Place::Const(c)) => quote!(#c.as_slice()),
            Some(Place::Scratch(_) | Place::Part(..)) | None => quote!(&[]),
        };
        (plain, false)
    }

    /// A call `f(x, y)` of a node function, taking scratch slots with `get` or `split2`.
    fn call(&self, f: TokenStream, x_id: ValueId, y_id: ValueId) -> TokenStream {
        let rt = &self.rt;
        let args = |x: TokenStream, y: TokenStream| quote!(#x, #y);
        if let (Some(Place::Scratch(a)), Some(Place::Scratch(b))) =
            (self.places[x_id].as_ref(), self.places[y_id].as_ref())
        {
            if a.dtype == b.dtype {
                let buf = scratch_name(a.dtype);
                let (ao, al, bo, bl) = (
                    lit_usize(a.offset),
                    lit_usize(a.len),
                    lit_usize(b.offset),
                    lit_usize(b.len),
                );
                let call = args(quote!(x), quote!(y));
                return quote! {
                    if let Some((x, y)) = #rt::kernels::split2(&mut *#buf, #ao, #al, #bo, #bl) {
                        #f(#call);
                    }
                };
            }
        }
        let (x, x_opt) = self.view(x_id, false);
        let (y, y_opt) = self.view(y_id, true);
        if !x_opt && !y_opt {
            let call = args(x, y);
            return quote!(#f(#call););
        }
        match (x_opt, y_opt) {
            (true, false) => {
                let call = args(quote!(x), y);
                quote!(if let Some(x) = #x { #f(#call); })
            }
            (false, true) => {
                let call = args(x, quote!(y));
                quote!(if let Some(y) = #y { #f(#call); })
            }
            _ => {
                let call = args(quote!(x), quote!(y));
                quote!(if let (Some(x), Some(y)) = (#x, #y) { #f(#call); })
            }
        }
    }

    /// A call `f(x, y0, y1, ..)` of a fused node function: every scratch view is taken with
    /// `get`, `get_mut` or `get_disjoint_mut` (several views of one buffer), and the call runs
    /// only if all are there (rustc resolves these constant ranges at compile time).
    fn call_many(&self, f: TokenStream, x_id: ValueId, outputs: &[ValueId]) -> TokenStream {
        let args: Vec<(ValueId, bool)> = std::iter::once((x_id, false))
            .chain(outputs.iter().map(|&v| (v, true)))
            .collect();
        // Scratch views grouped by buffer, in order of first use.
        let mut buffers: Vec<(DType, Vec<usize>)> = Vec::new();
        for (i, &(v, _)) in args.iter().enumerate() {
            if let Some(Place::Scratch(slot)) = self.places[v].as_ref() {
                match buffers.iter_mut().find(|(t, _)| *t == slot.dtype) {
                    Some((_, members)) => members.push(i),
                    None => buffers.push((slot.dtype, vec![i])),
                }
            }
        }
        let names: Vec<Ident> = (0..args.len()).map(|i| format_ident!("a{}", i)).collect();
        let mut patterns = Vec::new();
        let mut sources = Vec::new();
        for (dtype, members) in &buffers {
            let buf = scratch_name(*dtype);
            let range = |i: usize| {
                let Some(Place::Scratch(slot)) = self.places[args[i].0].as_ref() else {
                    return quote!(0..0);
                };
                let (a, b) = (lit_usize(slot.offset), lit_usize(slot.offset + slot.len));
                quote!(#a..#b)
            };
            if let [i] = members.as_slice() {
                let (n, r) = (&names[*i], range(*i));
                patterns.push(quote!(Some(#n)));
                sources.push(if args[*i].1 {
                    quote!(#buf.get_mut(#r))
                } else {
                    quote!(#buf.get(#r))
                });
            } else {
                let ns = members.iter().map(|&i| &names[i]);
                let rs = members.iter().map(|&i| range(i));
                patterns.push(quote!(Ok([#(#ns),*])));
                sources.push(quote!(#buf.get_disjoint_mut([#(#rs),*])));
            }
        }
        // Views taken with `get_disjoint_mut` are mutable: a shared one is reborrowed.
        let disjoint: Vec<usize> = buffers
            .iter()
            .filter(|(_, m)| m.len() > 1)
            .flat_map(|(_, m)| m.iter().copied())
            .collect();
        // Other views that may be absent (parts of inputs) are taken the same way.
        let mut optional = Vec::new();
        for (i, &(v, mutable)) in args.iter().enumerate() {
            let scratch = matches!(self.places[v], Some(Place::Scratch(_)));
            let (view, opt) = self.view(v, mutable);
            if !scratch && opt {
                let n = &names[i];
                patterns.push(quote!(Some(#n)));
                sources.push(view);
                optional.push(i);
            }
        }
        let call_args = args.iter().enumerate().map(|(i, &(v, mutable))| {
            let scratch = matches!(self.places[v], Some(Place::Scratch(_)));
            let n = &names[i];
            match (scratch, mutable) {
                (true, false) if disjoint.contains(&i) => quote!(&*#n),
                (true, _) => quote!(#n),
                (false, _) if optional.contains(&i) => quote!(#n),
                (false, _) => self.view(v, mutable).0,
            }
        });
        let call = quote!(#f(#(#call_args),*););
        match patterns.len() {
            0 => call,
            1 => {
                let (p, s) = (&patterns[0], &sources[0]);
                quote!(if let #p = #s { #call })
            }
            _ => quote!(if let (#(#patterns),*) = (#(#sources),*) { #call }),
        }
    }

    /// The scratch buffers: (name, element type tokens, length) per element type.
    fn scratch_buffers(&self) -> Vec<(Ident, TokenStream, Literal)> {
        self.memory
            .sizes
            .iter()
            .map(|(&t, &n)| (scratch_name(t), self.elem(t), lit_usize(n)))
            .collect()
    }

    fn items(&self) -> TokenStream {
        let g = self.graph;
        let input_values: Vec<&Value> = g.inputs.iter().map(|&v| &g.values[v]).collect();
        let output_values: Vec<&Value> = g.outputs.iter().map(|o| &g.values[o.value]).collect();
        let interface = self.interface_constants(&input_values, &output_values);
        let structs = self.tensor_structs(&input_values, &output_values);
        let entry_points = self.entry_points(&input_values, &output_values, self.run_body());
        let model = self.model_impl();
        let run_bytes = self.run_bytes(&input_values, &output_values);
        let ndarray = self.run_ndarray(&input_values, &output_values);
        let consts = self.constants();
        let node_fns: Vec<TokenStream> = g
            .nodes
            .iter()
            .enumerate()
            .filter(|&(k, _)| !self.memory.elided[k])
            .map(|(k, n)| self.node_fn(k, n))
            .chain(g.chunked.iter().map(|&c| self.rest_fns(c)))
            .chain(g.chunked.iter().map(|&c| self.chunk_fn(c)))
            .collect();
        let version = crate::tokens::version_check(&self.rt);
        // In a module that is not public, the parts of the interface the crate does not use
        // are no mistake.
        let unused_ok = if self.vis.to_string() == "pub" {
            quote!()
        } else {
            quote!(#![allow(dead_code)])
        };
        quote! {
            #unused_ok

            #version

            #interface

            #structs

            #entry_points

            #model

            #run_bytes

            #ndarray

            #consts

            #(#node_fns)*
        }
    }

    fn run_body(&self) -> TokenStream {
        let rt = &self.rt;
        let g = self.graph;
        let mut body = TokenStream::new();
        for (k, node) in g.nodes.iter().enumerate() {
            if self.memory.elided[k] {
                continue;
            }
            let f = fn_name(node);
            if let Some(c) = self.chunked[k] {
                // The pair's loop, called where its first node runs.
                if c.first == k {
                    if let Some(second) = g.nodes.get(k + 1) {
                        let f = chunk_fn_name(node, second);
                        body.extend(self.call_many(
                            quote!(#f),
                            node.input,
                            &[node.output, second.output],
                        ));
                    }
                }
                continue;
            }
            if node.fused.is_empty() {
                body.extend(self.call(quote!(#f), node.input, node.output));
            } else {
                let outputs: Vec<ValueId> = node.outputs().collect();
                body.extend(self.call_many(quote!(#f), node.input, &outputs));
            }
        }
        // Outputs that show a graph input or a constant are copies.
        for (i, out) in g.outputs.iter().enumerate() {
            if matches!(g.values[out.value].source, Source::Node(_)) {
                continue;
            }
            let (x, _) = self.view(out.value, false);
            let y = format_ident!("out_{}", self.output_fields[i]);
            body.extend(quote!(#rt::node::copy(&mut *#y, #x);));
        }
        body
    }

    /// One node's function: its docs, its plan and the body its op family emits.
    fn node_fn(&self, k: usize, node: &Node) -> TokenStream {
        let g = self.graph;
        let x = &g.values[node.input];
        let y = &g.values[node.output];
        let also: Vec<&Value> = node.fused.iter().map(|f| &g.values[f.output]).collect();
        let docs = docs::node_docs(node, x, y, &also);
        // A node of a chunked pair is generated for one chunk of the pair's axis; the first
        // node of a pair over planes reads each plane's part in place, from `at`.
        let mut at = quote!();
        let (code, note) = match self.chunked[k] {
            Some(c) if c.planes > 1 && c.first == k => {
                at = quote!(, at: usize);
                (
                    node.op.emit_plane_part(x, c.planes, &self.rt),
                    self.chunk_note(c),
                )
            }
            Some(c) => (
                node.op.emit(
                    &chunks::part(x, c.axis, c.rows),
                    &chunks::part(y, c.axis, c.rows),
                    &self.rt,
                ),
                self.chunk_note(c),
            ),
            None if also.is_empty() => (node.op.emit(x, y, &self.rt), String::new()),
            None => (node.op.emit_fused(x, y, &also, &self.rt), String::new()),
        };
        let also_params = also.iter().enumerate().map(|(k, v)| {
            let p = format_ident!("also_{}", k);
            let t = self.elem(v.dtype);
            quote!(, #p: &mut [#t])
        });
        let extra = quote!(#(#also_params)* #at);
        self.fn_item(
            &fn_name(node),
            &docs,
            &note,
            code,
            (x.dtype, y.dtype),
            extra,
        )
    }

    /// A node function: its doc lines, a blank line, its plan (with `note` after it), over
    /// `x: &[tx]`, `y: &mut [ty]` and the `extra` parameters.
    fn fn_item(
        &self,
        name: &Ident,
        docs: &[String],
        note: &str,
        code: NodeCode,
        (tx, ty): (DType, DType),
        extra: TokenStream,
    ) -> TokenStream {
        let (tx, ty) = (self.elem(tx), self.elem(ty));
        let summary = format!(" Plan: {}.{note}", names::ticked_identifiers(&code.plan));
        let allow = if code.body.is_empty() {
            quote!(#[allow(unused_variables, clippy::inline_always)])
        } else {
            quote!(#[allow(clippy::inline_always)])
        };
        let body = code.body;
        let inline = inline_attrs();
        quote! {
            #(#[doc = #docs])*
            #[doc = ""]
            #[doc = #summary]
            #inline
            #allow
            fn #name(x: &[#tx], y: &mut [#ty] #extra) {
                #body
            }
        }
    }
}

/// The inlining of the functions `compute` calls: a hint in optimized builds, as any small
/// function; always in a build with `debug_assertions`, where each unoptimized call between
/// `run_into` and the runtime's entry point (its arguments spilled and reloaded) cost more than a
/// small model's whole optimized call. (`compute` itself takes only the second: it has several
/// callers, which an optimized build need not each inline it into.)
pub(super) fn inline_attrs() -> TokenStream {
    quote! {
        #[cfg_attr(debug_assertions, inline(always))]
        #[cfg_attr(not(debug_assertions), inline)]
    }
}

/// The function of a node: `node_3_argmax`.
fn fn_name(node: &Node) -> Ident {
    format_ident!("node_{}_{}", node.index, node.op.stem())
}
