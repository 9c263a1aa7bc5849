//! Parsing of the macro's arguments.

use onnx_aot_codegen::{DType, DimSpec, Scalar, Start};
use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::{braced, bracketed, Attribute, Ident, LitStr, Token, Visibility};

/// `ATTRS VIS mod NAME = "PATH" { dims: {..}, inputs: {..} }`.
pub struct ModelArgs {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub path: LitStr,
    pub dims: Vec<DimBinding>,
    pub inputs: Vec<InputBinding>,
    /// Initializer-backed graph inputs made run-time inputs: `free: [name, "x.y"]`.
    pub free: Vec<(String, Span)>,
    /// Tensors where a graph cut starts: `start: ["t", u: f32[4, batch]]`.
    pub start: Vec<(Start, Span)>,
    /// The tensors kept as outputs: `outputs: ["t"]`.
    pub outputs: Option<Vec<(String, Span)>>,
    /// `crate = path`: the path of the runtime crate (renamed in the user's Cargo.toml).
    pub krate: Option<syn::Path>,
}

/// `NAME = SIZE` in `dims`.
pub struct DimBinding {
    pub name: String,
    pub value: usize,
    pub span: Span,
}

/// `NAME = [VALUES]` in `inputs`.
pub struct InputBinding {
    pub name: String,
    pub values: Vec<Scalar>,
    pub span: Span,
}

/// A key: an identifier or a string (for ONNX names that are not identifiers).
fn parse_key(input: ParseStream) -> syn::Result<(String, Span)> {
    if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        Ok((s.value(), s.span()))
    } else {
        let id: Ident = input.call(Ident::parse_any_ident)?;
        Ok((
            id.to_string().trim_start_matches("r#").to_string(),
            id.span(),
        ))
    }
}

trait ParseAny {
    fn parse_any_ident(input: ParseStream) -> syn::Result<Ident>;
}

impl ParseAny for Ident {
    fn parse_any_ident(input: ParseStream) -> syn::Result<Ident> {
        use syn::ext::IdentExt;
        Ident::parse_any(input)
    }
}

fn parse_scalars(input: ParseStream, out: &mut Vec<Scalar>) -> syn::Result<()> {
    if input.peek(syn::token::Bracket) {
        let content;
        bracketed!(content in input);
        while !content.is_empty() {
            parse_scalars(&content, out)?;
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        return Ok(());
    }
    let negative = input.peek(Token![-]);
    if negative {
        input.parse::<Token![-]>()?;
    }
    let sign = if negative { -1.0 } else { 1.0 };
    let lookahead = input.lookahead1();
    if lookahead.peek(syn::LitInt) {
        let lit: syn::LitInt = input.parse()?;
        let v: i128 = lit.base10_parse()?;
        out.push(Scalar::Int(if negative { -v } else { v }));
    } else if lookahead.peek(syn::LitFloat) {
        let lit: syn::LitFloat = input.parse()?;
        let v: f64 = lit.base10_parse()?;
        out.push(Scalar::Float(sign * v));
    } else if lookahead.peek(syn::LitBool) && !negative {
        let lit: syn::LitBool = input.parse()?;
        out.push(Scalar::Bool(lit.value));
    } else if lookahead.peek(Ident) {
        let id: Ident = input.parse()?;
        match id.to_string().as_str() {
            "inf" | "INFINITY" => out.push(Scalar::Float(sign * f64::INFINITY)),
            "nan" | "NAN" => out.push(Scalar::Float(f64::NAN)),
            _ => {
                return Err(syn::Error::new(
                    id.span(),
                    "expected a number, `true`, `false`, `inf` or `nan`",
                ))
            }
        }
    } else {
        return Err(lookahead.error());
    }
    Ok(())
}

/// What to write instead of a visibility that is not one.
const VISIBILITIES: &str = "write `pub`, `pub(crate)`, `pub(super)` or nothing before `mod`";

/// Rejects what looks like a misspelled visibility before `mod`, spanned on it: a word such as
/// `public` (which Rust would read as no visibility followed by a stray word), or `pub(...)` with
/// something other than `crate`, `self`, `super` or `in PATH` in the parentheses (which syn reads
/// as `pub` followed by a stray group).
fn check_visibility(input: ParseStream, vis: &Visibility) -> syn::Result<()> {
    use quote::ToTokens;
    if input.peek(syn::token::Paren) && matches!(vis, Visibility::Public(_)) {
        let group: proc_macro2::Group = input.parse()?;
        let inner = group.stream().to_string();
        let written = format!("pub({inner})");
        let suggestion = onnx_aot_codegen::messages::closest(&inner, ["crate", "super", "self"])
            .map_or(String::new(), |c| format!(" (did you mean `pub({c})`?)"));
        let mut tokens = vis.to_token_stream();
        tokens.extend(group.into_token_stream());
        return Err(syn::Error::new_spanned(
            tokens,
            format!("`{written}` is not a visibility{suggestion}; {VISIBILITIES}"),
        ));
    }
    if matches!(vis, Visibility::Inherited) && !input.peek(Token![mod]) {
        // A word, then `mod`: the word stands where a visibility goes.
        let fork = input.fork();
        if let Ok(word) = fork.call(<Ident as syn::ext::IdentExt>::parse_any) {
            if fork.peek(Token![mod]) {
                let lower = word.to_string().to_lowercase();
                let suggestion = if lower == "crate" || lower == "internal" {
                    " (did you mean `pub(crate)`?)"
                } else {
                    ""
                };
                return Err(syn::Error::new(
                    word.span(),
                    format!("`{word}` is not a visibility{suggestion}; {VISIBILITIES}"),
                ));
            }
        }
    }
    Ok(())
}

impl Parse for ModelArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a visibility (`pub`, `pub(crate)`) or `mod`",
            )
        })?;
        check_visibility(input, &vis)?;
        if !input.peek(Token![mod]) {
            return Err(input.error(
                "expected `mod NAME = \"path/to/model.onnx\"`, e.g. \
                 `onnx_aot::model!(pub mod top1 = \"models/top1.onnx\");`",
            ));
        }
        input.parse::<Token![mod]>()?;
        let name: Ident = input.parse()?;
        if !input.peek(Token![=]) {
            return Err(input.error(format!(
                "expected `=` and the model path after `mod {name}`, e.g. \
                 `mod {name} = \"models/{name}.onnx\"`"
            )));
        }
        input.parse::<Token![=]>()?;
        if !input.peek(LitStr) {
            return Err(input.error(
                "expected the model path as a string literal, relative to CARGO_MANIFEST_DIR",
            ));
        }
        let path: LitStr = input.parse()?;
        let mut args = ModelArgs {
            attrs,
            vis,
            name,
            path,
            dims: Vec::new(),
            inputs: Vec::new(),
            free: Vec::new(),
            start: Vec::new(),
            outputs: None,
            krate: None,
        };
        if input.peek(syn::token::Brace) {
            let block;
            braced!(block in input);
            args.parse_options(&block)?;
        }
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the model; one model per macro call"));
        }
        Ok(args)
    }
}

/// The option names of the block form, for messages.
const OPTIONS: [&str; 5] = ["dims", "inputs", "free", "start", "outputs"];

/// A comma-separated list in brackets, each item parsed by `item`.
fn bracketed_list(
    input: ParseStream,
    mut item: impl FnMut(ParseStream) -> syn::Result<()>,
) -> syn::Result<()> {
    let list;
    bracketed!(list in input);
    while !list.is_empty() {
        item(&list)?;
        if list.is_empty() {
            break;
        }
        list.parse::<Token![,]>()?;
    }
    Ok(())
}

/// A comma-separated list of `KEY = VALUE` in braces, each entry parsed by `entry`.
fn braced_entries(
    input: ParseStream,
    mut entry: impl FnMut(ParseStream, String, Span) -> syn::Result<()>,
) -> syn::Result<()> {
    let entries;
    braced!(entries in input);
    while !entries.is_empty() {
        let (name, span) = parse_key(&entries)?;
        entries.parse::<Token![=]>()?;
        entry(&entries, name, span)?;
        if entries.is_empty() {
            break;
        }
        entries.parse::<Token![,]>()?;
    }
    Ok(())
}

/// A tensor type after a start tensor's name: `f32[1, 84, batch]`.
fn parse_start_type(input: ParseStream) -> syn::Result<(DType, Vec<DimSpec>)> {
    let ty: Ident = input.parse()?;
    let Some(dtype) = DType::from_name(&ty.to_string()) else {
        let names: Vec<&str> = DType::ALL.iter().map(|t| t.rust_name()).collect();
        let hint = onnx_aot_codegen::messages::closest(&ty.to_string(), names.iter().copied())
            .map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
        return Err(syn::Error::new(
            ty.span(),
            format!(
                "unknown element type `{ty}`{hint}; the types are {}",
                names.join(", ")
            ),
        ));
    };
    let mut dims = Vec::new();
    bracketed_list(input, |d| {
        if d.peek(syn::LitInt) {
            let lit: syn::LitInt = d.parse()?;
            dims.push(DimSpec::Fixed(lit.base10_parse()?));
        } else {
            let id: Ident = d.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected a size or a symbol name, e.g. `f32[batch, 10]`",
                )
            })?;
            dims.push(DimSpec::Symbol(id.to_string()));
        }
        Ok(())
    })?;
    Ok((dtype, dims))
}

impl ModelArgs {
    /// The block form: `{ dims: {..}, inputs: {..}, free: [..], start: [..], outputs: [..] }`.
    fn parse_options(&mut self, block: ParseStream) -> syn::Result<()> {
        let mut seen: Vec<String> = Vec::new();
        while !block.is_empty() {
            if block.peek(Token![crate]) {
                // `crate = path`: the runtime under another name.
                let word = block.parse::<Token![crate]>()?;
                if self.krate.is_some() {
                    return Err(syn::Error::new(word.span, "`crate` is given twice"));
                }
                if !block.peek(Token![=]) {
                    return Err(block.error(
                        "expected `=` and the runtime's path after `crate`, e.g. `crate = rt` \
                         for a dependency `rt = { package = \"onnx-aot\", .. }`",
                    ));
                }
                block.parse::<Token![=]>()?;
                self.krate = Some(block.call(syn::Path::parse_mod_style)?);
                if block.is_empty() {
                    break;
                }
                block.parse::<Token![,]>()?;
                continue;
            }
            let key: Ident = block.parse()?;
            let key_name = key.to_string();
            if seen.contains(&key_name) {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{key_name}` is given twice"),
                ));
            }
            seen.push(key_name.clone());
            block.parse::<Token![:]>()?;
            match key_name.as_str() {
                "dims" => braced_entries(block, |e, name, span| {
                    if e.peek(Token![-]) {
                        return Err(e.error(format!(
                            "dimension sizes are non-negative integers; `{name} = -..` is not \
                             one: write the size the model is compiled for, e.g. `{name} = 1`"
                        )));
                    }
                    let lit: syn::LitInt = e.parse().map_err(|err| {
                        syn::Error::new(
                            err.span(),
                            format!("expected a size for `{name}`, e.g. `{name} = 1`"),
                        )
                    })?;
                    let value: usize = lit.base10_parse()?;
                    if self.dims.iter().any(|d| d.name == name) {
                        return Err(syn::Error::new(
                            span,
                            format!("dimension {name:?} is bound twice"),
                        ));
                    }
                    self.dims.push(DimBinding { name, value, span });
                    Ok(())
                })?,
                "inputs" => braced_entries(block, |e, name, span| {
                    let mut values = Vec::new();
                    parse_scalars(e, &mut values)?;
                    if self.inputs.iter().any(|i| i.name == name) {
                        return Err(syn::Error::new(
                            span,
                            format!("input {name:?} is bound twice"),
                        ));
                    }
                    self.inputs.push(InputBinding { name, values, span });
                    Ok(())
                })?,
                "free" => bracketed_list(block, |l| {
                    self.free.push(parse_key(l)?);
                    Ok(())
                })?,
                "start" => bracketed_list(block, |l| {
                    let (name, span) = parse_key(l)?;
                    let declared = if l.peek(Token![:]) {
                        l.parse::<Token![:]>()?;
                        Some(parse_start_type(l)?)
                    } else {
                        None
                    };
                    self.start.push((Start { name, declared }, span));
                    Ok(())
                })?,
                "outputs" => {
                    let outputs = self.outputs.get_or_insert_with(Vec::new);
                    bracketed_list(block, |l| {
                        outputs.push(parse_key(l)?);
                        Ok(())
                    })?
                }
                _ => {
                    let suggestion = onnx_aot_codegen::messages::closest(&key_name, OPTIONS)
                        .map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown option `{key_name}`{suggestion}; the options are \
                             `dims: {{ NAME = SIZE }}`, `inputs: {{ NAME = [VALUES] }}`, \
                             `free: [NAME]`, `start: [NAME, NAME: TYPE[DIMS]]`, \
                             `outputs: [NAME]` and `crate = PATH`"
                        ),
                    ));
                }
            }
            if block.is_empty() {
                break;
            }
            block.parse::<Token![,]>()?;
        }
        Ok(())
    }
}
