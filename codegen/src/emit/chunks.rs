//! The loop of a chunked pair ([`crate::chunks`]): one function that runs both nodes chunk
//! after chunk of axis 0 (or, over planes, of the axis after the reduced ones), each node's
//! function generated for one chunk's shape.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{fn_name, inline_attrs, Emitter};
use crate::ir::{Chunked, Node, Value};
use crate::names::code;
use crate::tokens::lit_usize;

/// `value` cut to `rows` positions of `axis`: the shape a chunk has.
pub(super) fn part(value: &Value, axis: usize, rows: usize) -> Value {
    let mut part = value.clone();
    if let Some(n) = part.shape.get_mut(axis) {
        *n = rows;
    }
    part
}

/// A node as the docs name it: `2 \`top\` (ArgMax-13)`.
fn label(node: &Node) -> String {
    let name = if node.name.is_empty() {
        String::new()
    } else {
        format!(" {}", code(&node.name))
    };
    format!("{}{name} ({}-{})", node.index, node.op_type, node.version)
}

/// The function of a chunked pair: `chunks_0_2` for nodes 0 and 2.
pub(super) fn chunk_fn_name(first: &Node, second: &Node) -> Ident {
    format_ident!("chunks_{}_{}", first.index, second.index)
}

impl Emitter<'_> {
    /// The sentence a node function of a chunked pair adds to its doc.
    pub(super) fn chunk_note(&self, c: Chunked) -> String {
        let g = self.graph;
        let (Some(first), Some(second)) = (g.nodes.get(c.first), g.nodes.get(c.first + 1)) else {
            return String::new();
        };
        let n = g.values[first.output]
            .shape
            .get(c.axis)
            .copied()
            .unwrap_or(0);
        format!(
            " Generated for a chunk of {} of the {n} positions of {}: `{}` calls it chunk \
             after chunk.",
            c.rows,
            self.chunk_axis_name(c),
            chunk_fn_name(first, second)
        )
    }

    /// The axis a chunked pair runs along, as the docs name it: `axis 0`, or for a pair over
    /// planes the axis of the first node's input after the reduced ones (`axis 1 of \`x\``,
    /// by the tensor's name).
    fn chunk_axis_name(&self, c: Chunked) -> String {
        let g = self.graph;
        let Some(first) = g.nodes.get(c.first) else {
            return String::new();
        };
        let (x, t) = (&g.values[first.input], &g.values[first.output]);
        if c.planes > 1 {
            let k = x.shape.len() - t.shape.len() + c.axis;
            format!("axis {k} of {}", code(&x.name))
        } else {
            "axis 0".to_string()
        }
    }

    /// The loop of a chunked pair over `x` (the first node's input), `t` (one chunk of the
    /// value between the nodes, in scratch) and `y` (the second node's output).
    pub(super) fn chunk_fn(&self, c: Chunked) -> TokenStream {
        let g = self.graph;
        let (Some(first), Some(second)) = (g.nodes.get(c.first), g.nodes.get(c.first + 1)) else {
            return TokenStream::new();
        };
        if c.planes > 1 {
            return self.planes_chunk_fn(c, first, second);
        }
        let (x, t, y) = (
            &g.values[first.input],
            &g.values[first.output],
            &g.values[second.output],
        );
        let n0 = x.shape.first().copied().unwrap_or(1).max(1);
        let (xc, yc) = (
            lit_usize(x.numel() / n0 * c.rows),
            lit_usize(y.numel() / n0 * c.rows),
        );
        // Positions left after the whole chunks: one shorter chunk through the `_rest`
        // functions, in the front of `t`.
        let rest = n0 % c.rows;
        let last = if rest == 0 {
            quote!()
        } else {
            let tr = lit_usize(t.numel() / n0 * rest);
            let (r1, r2) = (rest_name(first), rest_name(second));
            quote! {
                if let Some(t) = t.get_mut(..#tr) {
                    #r1(xs.remainder(), t);
                    #r2(t, ys.into_remainder());
                }
            }
        };
        let (tx, tt, ty) = (self.elem(x.dtype), self.elem(t.dtype), self.elem(y.dtype));
        let name = chunk_fn_name(first, second);
        let (f1, f2) = (fn_name(first), fn_name(second));
        let chunk_bytes = t.numel() / n0 * c.rows * t.dtype.size();
        let doc = [
            format!(
                " ONNX nodes {} and {} chunk after chunk of axis 0: {} chunks of {}.",
                label(first),
                label(second),
                n0 / c.rows,
                c.rows
            ),
            format!(
                " The value {} between them is never whole: the first writes {} bytes of it \
                 at a time into `t`, which the second reads while they are in cache.",
                code(&t.name),
                chunk_bytes
            ),
        ];
        let body = quote! {
            let (mut xs, mut ys) = (x.chunks_exact(#xc), y.chunks_exact_mut(#yc));
            for (x, y) in (&mut xs).zip(&mut ys) {
                #f1(x, t);
                #f2(t, y);
            }
            #last
        };
        pair_fn(&name, &doc, (tx, tt, ty), body)
    }

    /// The loop of a chunked pair over planes: chunk `c` of the value between the nodes is the
    /// extreme of elements `c·len..(c + 1)·len` of each plane of `x`, which the first node's
    /// function reads in place (`at`); the chunks divide the axis.
    fn planes_chunk_fn(&self, c: Chunked, first: &Node, second: &Node) -> TokenStream {
        let g = self.graph;
        let (x, t, y) = (
            &g.values[first.input],
            &g.values[first.output],
            &g.values[second.output],
        );
        let n = t.shape.get(c.axis).copied().unwrap_or(1).max(1);
        let (tc, yc) = (t.numel() / n * c.rows, y.numel() / n * c.rows);
        let (tc_lit, yc_lit) = (lit_usize(tc), lit_usize(yc));
        let (tx, tt, ty) = (self.elem(x.dtype), self.elem(t.dtype), self.elem(y.dtype));
        let name = chunk_fn_name(first, second);
        let (f1, f2) = (fn_name(first), fn_name(second));
        let doc = [
            format!(
                " ONNX nodes {} and {} chunk after chunk of the {n} positions of {}: {} chunks \
                 of {}.",
                label(first),
                label(second),
                self.chunk_axis_name(c),
                n / c.rows,
                c.rows
            ),
            format!(
                " The value {} between them is never whole: the first writes {} bytes of it \
                 at a time into `t`, the extreme of the {} planes' parts, which the second \
                 reads while they are in cache.",
                code(&t.name),
                tc * t.dtype.size(),
                c.planes
            ),
        ];
        let body = quote! {
            if let Some(t) = t.get_mut(..#tc_lit) {
                for (c, y) in y.chunks_exact_mut(#yc_lit).enumerate() {
                    #f1(x, t, c * #tc_lit);
                    #f2(t, y);
                }
            }
        };
        pair_fn(&name, &doc, (tx, tt, ty), body)
    }

    /// The `_rest` functions of a chunked pair whose chunks do not divide axis 0: each node's
    /// function generated for the last, shorter chunk (none when they divide it).
    pub(super) fn rest_fns(&self, c: Chunked) -> TokenStream {
        let g = self.graph;
        let nodes = [c.first, c.first + 1].map(|k| g.nodes.get(k));
        let n0 = nodes[0].map_or(0, |n| g.values[n.input].shape.first().copied().unwrap_or(0));
        let rest = n0 % c.rows.max(1);
        if rest == 0 || c.planes > 1 {
            // Chunks over planes always divide their axis.
            return TokenStream::new();
        }
        let mut out = TokenStream::new();
        for node in nodes.into_iter().flatten() {
            let (x, y) = (&g.values[node.input], &g.values[node.output]);
            let code = node.op.emit(&part(x, 0, rest), &part(y, 0, rest), &self.rt);
            let doc = format!(
                " [`{}`] for the last {rest} positions of axis 0, fewer than a chunk.",
                fn_name(node)
            );
            let types = (x.dtype, y.dtype);
            out.extend(self.fn_item(&rest_name(node), &[doc], "", code, types, quote!()));
        }
        out
    }
}

/// The function of a chunked pair, `name(x, t, y)` over the element types `tx`, `tt`, `ty`, with
/// its doc lines and loop.
fn pair_fn(
    name: &Ident,
    doc: &[String],
    (tx, tt, ty): (TokenStream, TokenStream, TokenStream),
    body: TokenStream,
) -> TokenStream {
    let inline = inline_attrs();
    quote! {
        #(#[doc = #doc])*
        #inline
        #[allow(clippy::inline_always)]
        fn #name(x: &[#tx], t: &mut [#tt], y: &mut [#ty]) {
            #body
        }
    }
}

/// The function of a node of a chunked pair for the last, shorter chunk: `node_0_argmax_rest`.
fn rest_name(node: &Node) -> Ident {
    format_ident!("{}_rest", fn_name(node))
}
