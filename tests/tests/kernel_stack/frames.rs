//! Worst-case stack from an x86-64 disassembly (`objdump -dr` of one object): each function's
//! own frame (its return address, its pushes, its `sub $N, %rsp` and stack probes), then the
//! deepest path through the calls it makes (call targets from the relocations).

use std::collections::{BTreeMap, BTreeSet};

/// The memory functions compiled code calls through GOT entries (leaves: their stack is their
/// return address).
const MEMORY_FUNCTIONS: [&str; 5] = ["memset", "memcpy", "memmove", "memcmp", "bcmp"];

/// What one function does with the stack.
#[derive(Debug, Default)]
pub struct Func {
    /// Bytes its prologue takes below the return address: pushes, `sub`s of `%rsp`, probes.
    pub frame: u64,
    /// Functions it calls (the frame stays below them).
    pub calls: BTreeSet<String>,
    /// Functions it jumps to as a tail call (its frame is gone by then).
    pub tails: BTreeSet<String>,
    /// Instructions the measure cannot follow: calls through a register, `%rsp` moved by a
    /// register amount.
    pub unknown: Vec<String>,
    /// Whether it realigns its frame (`and $-N,%rsp`).
    pub realigned: bool,
    /// Its stores of a 32- or 64-byte vector register to the stack by an unaligned move (a
    /// spill whose slot is only as aligned as the caller left `%rsp`).
    pub unaligned_spills: Vec<String>,
    /// Call and jump targets objdump resolved inside the object (tail call or not), kept only
    /// if they name a function.
    local: Vec<(bool, String)>,
    /// Registers called through that held no GOT entry at that point of the straight-line
    /// scan (a reload from a spill, a path from elsewhere), and every GOT symbol the function
    /// loads into each register: resolved when the function ends.
    reg_calls: Vec<String>,
    got_loads: BTreeMap<String, BTreeSet<String>>,
    /// Registers written by anything but a GOT load, a reload from the stack or a copy of a
    /// register holding a GOT entry.
    other_writes: BTreeSet<String>,
}

/// The functions of a disassembly by (mangled) name.
pub fn parse(disassembly: &str) -> BTreeMap<String, Func> {
    let mut funcs: BTreeMap<String, Func> = BTreeMap::new();
    let mut current: Option<String> = None;
    // The register a stack probe loop counts down to (`mov %rsp,%r11; sub $N,%r11`): while it
    // runs, its `sub $0x1000,%rsp` steps are already in N.
    let mut probe_reg: Option<String> = None;
    let mut in_probe = false;
    // The last instruction was a call or jump whose target is in the relocation line below.
    let mut pending: Option<bool> = None;
    // A register loaded from the GOT (`mov 0x0(%rip),%r14` and its relocation), then called
    // through (`call *%r14`): register to symbol, until the register is written again.
    let mut loading: Option<String> = None;
    let mut loaded: BTreeMap<String, String> = BTreeMap::new();
    for line in disassembly.lines() {
        if let Some(name) = header(line) {
            current = Some(name.to_string());
            funcs.entry(name.to_string()).or_default();
            (probe_reg, in_probe, pending, loading) = (None, false, None, None);
            loaded.clear();
            continue;
        }
        let Some(f) = current.as_ref().and_then(|c| funcs.get_mut(c)) else {
            continue;
        };
        if let Some(target) = relocation(line) {
            if let Some(tail) = pending.take() {
                // The relocation names the target: not the address objdump printed.
                f.local.pop();
                let set = if tail { &mut f.tails } else { &mut f.calls };
                set.insert(target.to_string());
            }
            if let Some(reg) = loading.take() {
                loaded.insert(reg.clone(), target.to_string());
                f.got_loads
                    .entry(reg)
                    .or_default()
                    .insert(target.to_string());
            }
            continue;
        }
        let Some((mnemonic, operands)) = instruction(line) else {
            continue;
        };
        pending = None;
        loading = None;
        if let Some((src, dest)) = operands.rsplit_once(',') {
            // A copy of a loaded register holds the same symbol (`mov %rbx,%rax`).
            let copied = (mnemonic == "mov")
                .then(|| loaded.get(src).cloned())
                .flatten();
            let reload = mnemonic == "mov" && src.ends_with("(%rsp)");
            let got_load = mnemonic == "mov" && operands.starts_with("0x0(%rip),");
            let reads_only = matches!(mnemonic, "cmp" | "test" | "bt");
            if dest.starts_with('%') && copied.is_none() && !reload && !got_load && !reads_only {
                f.other_writes.insert(dest.to_string());
            }
            loaded.remove(dest);
            if let Some(target) = copied {
                loaded.insert(dest.to_string(), target);
            }
            if mnemonic == "mov" && operands.starts_with("0x0(%rip),") {
                loading = Some(dest.to_string());
            }
        }
        // A probe loop starts right after the `mov`: only the next instruction counts.
        let probe_from = probe_reg.take();
        if unaligned_vector_spill(mnemonic, operands) {
            f.unaligned_spills.push(format!("{mnemonic} {operands}"));
        }
        match mnemonic {
            "push" | "pushq" => f.frame += 8,
            "sub" | "add" if operands.ends_with(",%rsp") => {
                match immediate(operands) {
                    Some(n) => {
                        // `add $-128,%rsp` is a sub of 128 (shorter encoding).
                        let n = if mnemonic == "add" {
                            n.wrapping_neg()
                        } else {
                            n
                        };
                        let growing = n as i64 > 0;
                        if growing && !in_probe {
                            f.frame += n;
                        }
                    }
                    None => f.unknown.push(format!("{mnemonic} {operands}")),
                }
            }
            "and" if operands.ends_with(",%rsp") => match immediate(operands) {
                // Realignment: up to `align - 1` bytes more.
                Some(mask) => {
                    f.frame += mask.wrapping_neg().saturating_sub(1);
                    f.realigned = true;
                }
                None => f.unknown.push(format!("{mnemonic} {operands}")),
            },
            "mov" if operands.starts_with("%rsp,%") => {
                probe_reg = operands.strip_prefix("%rsp,").map(str::to_string);
            }
            "cmp" if in_probe => in_probe = false,
            m if m == "call" || m.starts_with('j') => {
                let tail = m != "call";
                if let Some(target) = operands.strip_prefix('*').and_then(|r| loaded.get(r)) {
                    let set = if tail { &mut f.tails } else { &mut f.calls };
                    set.insert(target.clone());
                } else if operands.starts_with('*') && !operands.contains("(%rip)") {
                    // A call through any other register is followed if the function only ever
                    // loads GOT entries into it (checked at its end); a jump through one is a
                    // jump table inside the function.
                    if !tail {
                        f.reg_calls.push(operands.to_string());
                    }
                } else {
                    // The relocation line below, if any, names the target (a symbol, or the
                    // GOT entry of one); without one, the target is inside the object.
                    pending = Some(tail);
                    let target = local_target(operands).unwrap_or_default();
                    f.local.push((tail, target.to_string()));
                }
            }
            _ => {}
        }
        if let (Some(reg), "sub") = (probe_from.as_deref(), mnemonic) {
            if operands.ends_with(&format!(",{reg}")) {
                if let Some(n) = immediate(operands) {
                    f.frame += n;
                    in_probe = true;
                }
            }
        }
    }
    // A target resolved inside the object, with no relocation: a function if the
    // disassembly shows one by that name (objdump may name a jump inside a function after a
    // nearby label such as a constant pool's).
    let names: BTreeSet<String> = funcs.keys().cloned().collect();
    for f in funcs.values_mut() {
        for operands in std::mem::take(&mut f.reg_calls) {
            let reg = operands.trim_start_matches('*');
            let got: BTreeSet<&String> = f.got_loads.values().flatten().collect();
            let memory_only =
                !got.is_empty() && got.iter().all(|s| MEMORY_FUNCTIONS.contains(&s.as_str()));
            match f.got_loads.get(reg) {
                Some(symbols) if !f.other_writes.contains(reg) => {
                    f.calls.extend(symbols.iter().cloned());
                }
                // The register is reused for other values too (spilled and reloaded across
                // branches): when every GOT entry the function loads is a memory function,
                // the call is one of them.
                Some(_) if memory_only => {
                    f.calls.extend(got.iter().map(|s| s.to_string()));
                }
                // Likewise when every GOT entry loaded into this register is a memory function
                // (other registers may hold other entries): the straight-line scan lost it on a
                // path that jumps back to the call (LLVM keeps `memset` in `%r12` across the
                // zeroing of several tiles).
                Some(symbols)
                    if symbols
                        .iter()
                        .all(|s| MEMORY_FUNCTIONS.contains(&s.as_str())) =>
                {
                    f.calls.extend(symbols.iter().cloned());
                }
                _ => f.unknown.push(format!("call {operands}")),
            }
        }
    }
    for (name, f) in funcs.iter_mut() {
        for (tail, target) in std::mem::take(&mut f.local) {
            if names.contains(&target) && target != *name {
                let set = if tail { &mut f.tails } else { &mut f.calls };
                set.insert(target);
            }
        }
    }
    funcs
}

/// Function symbols (from the symbol table, `objdump -t`, printed before the disassembly) that
/// share another's code: LLVM merges identical functions and leaves one name an alias of the
/// other's address. Alias to the name the disassembly shows.
pub fn aliases(dump: &str) -> BTreeMap<String, String> {
    // (section, address) of each function the disassembly shows.
    let mut shown: BTreeMap<(String, u64), String> = BTreeMap::new();
    let mut section = String::new();
    for line in dump.lines() {
        if let Some(s) = line.strip_prefix("Disassembly of section ") {
            section = s.trim_end_matches(':').to_string();
        } else if let Some(name) = header(line) {
            let addr = line
                .split(' ')
                .next()
                .and_then(|a| u64::from_str_radix(a, 16).ok());
            shown.insert((section.clone(), addr.unwrap_or(0)), name.to_string());
        }
    }
    let mut out = BTreeMap::new();
    for line in dump.lines() {
        // `0000000000000000 g     F .text.stack_copy_f32\t0000000000000020 stack_copy_i32`
        let Some((left, right)) = line.split_once('\t') else {
            continue;
        };
        let fields: Vec<&str> = left.split_whitespace().collect();
        let (Some(addr), Some(&"F"), Some(section)) =
            (fields.first(), fields.iter().rev().nth(1), fields.last())
        else {
            continue;
        };
        let (Ok(addr), Some(name)) = (
            u64::from_str_radix(addr, 16),
            right.split_whitespace().nth(1),
        ) else {
            continue;
        };
        if let Some(canonical) = shown.get(&(section.to_string(), addr)) {
            if canonical != name {
                out.insert(name.to_string(), canonical.clone());
            }
        }
    }
    out
}

/// `0000000000000000 <name>:` gives `name`.
fn header(line: &str) -> Option<&str> {
    let (addr, rest) = line.split_once(" <")?;
    if addr.is_empty() || !addr.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    rest.strip_suffix(">:")
}

/// `\t\t\tb0: R_X86_64_PLT32\tname-0x4` gives `name` (a section symbol `.text.name` or
/// `.text.unlikely.name` gives `name`).
fn relocation(line: &str) -> Option<&str> {
    let rest = line.trim_start().split_once(": R_X86_64_")?.1;
    let symbol = rest.split_whitespace().nth(1)?;
    let symbol = symbol.split(['+', '-']).next()?;
    let Some(section) = symbol.strip_prefix(".text.") else {
        return Some(symbol);
    };
    // Cold functions live in `.text.unlikely.NAME`.
    Some(
        ["unlikely.", "hot.", "startup.", "exit."]
            .iter()
            .find_map(|p| section.strip_prefix(p))
            .unwrap_or(section),
    )
}

/// Whether an instruction stores a `ymm`/`zmm` register to a `%rsp`-relative slot by an
/// unaligned move (`vmovups %ymm3,0x60(%rsp)`; aligned moves fault rather than split).
fn unaligned_vector_spill(mnemonic: &str, operands: &str) -> bool {
    let unaligned = matches!(
        mnemonic,
        "vmovups" | "vmovupd" | "vmovdqu" | "vmovdqu8" | "vmovdqu16" | "vmovdqu32" | "vmovdqu64"
    );
    let wide = operands.starts_with("%ymm") || operands.starts_with("%zmm");
    unaligned && wide && operands.ends_with("(%rsp)")
}

/// `  a:\tsub    $0x8c8,%rsp` gives (`sub`, `$0x8c8,%rsp`).
fn instruction(line: &str) -> Option<(&str, &str)> {
    let (addr, rest) = line.split_once(":\t")?;
    let addr = addr.trim_start();
    if addr.is_empty() || !addr.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut parts = rest.splitn(2, char::is_whitespace);
    let mnemonic = parts.next()?;
    // Without objdump's comment (`# 7 <f+0x7>`: the address a rip-relative operand points at).
    let operands = parts.next().unwrap_or("");
    let operands = operands.split_once('#').map_or(operands, |(o, _)| o).trim();
    Some((mnemonic, operands))
}

/// The immediate of `$0x..,...`.
fn immediate(operands: &str) -> Option<u64> {
    let hex = operands.strip_prefix("$0x")?.split(',').next()?;
    u64::from_str_radix(hex, 16).ok()
}

/// `9a8 <name+0x10>` gives `name` (a target resolved inside the object).
fn local_target(operands: &str) -> Option<&str> {
    let inner = operands.split_once('<')?.1.strip_suffix('>')?;
    Some(inner.split('+').next().unwrap_or(inner))
}

/// The deepest stack below the caller's stack pointer when it calls `name`: the return address,
/// the frame, and the deepest of its callees (a tail call's callee replaces the frame). A
/// function not in the object (`memset`, `memcpy`) counts as its return address: the C
/// library's leaves take no frame. Errors name what cannot be followed.
pub fn worst(funcs: &BTreeMap<String, Func>, name: &str) -> Result<u64, String> {
    let mut memo = BTreeMap::new();
    let mut path = Vec::new();
    worst_in(funcs, name, &mut memo, &mut path)
}

fn worst_in(
    funcs: &BTreeMap<String, Func>,
    name: &str,
    memo: &mut BTreeMap<String, u64>,
    path: &mut Vec<String>,
) -> Result<u64, String> {
    if let Some(&w) = memo.get(name) {
        return Ok(w);
    }
    let Some(f) = funcs.get(name) else {
        return Ok(8);
    };
    if path.iter().any(|p| p == name) {
        return Err(format!("recursion through {name}"));
    }
    if let Some(u) = f.unknown.first() {
        return Err(format!("{name}: cannot follow `{u}`"));
    }
    path.push(name.to_string());
    let mut deepest = 8 + f.frame;
    for c in &f.calls {
        deepest = deepest.max(8 + f.frame + worst_in(funcs, c, memo, path)?);
    }
    for t in &f.tails {
        deepest = deepest.max(worst_in(funcs, t, memo, path)?);
    }
    path.pop();
    memo.insert(name.to_string(), deepest);
    Ok(deepest)
}

#[test]
fn frames_calls_and_tail_calls_add_up() {
    let text = "\
0000000000000000 <leaf>:
       0:\tpush   %rbx
       1:\tsub    $0x20,%rsp
       5:\tret

0000000000000000 <mid>:
       0:\tpush   %rbp
       1:\tadd    $0xffffffffffffff80,%rsp
       5:\tcall   a <mid+0xa>
\t\t\t6: R_X86_64_PLT32\tleaf-0x4
       a:\tcall   *0x0(%rip)        # 10 <mid+0x10>
\t\t\tc: R_X86_64_GOTPCREL\tmemset-0x4
      10:\tsub    $0x10,%rsp
      14:\tadd    $0x90,%rsp
      18:\tjmp    1d <mid+0x1d>
\t\t\t19: R_X86_64_PLT32\tbig-0x4

0000000000000000 <big>:
       0:\tpush   %rbp
       1:\tmov    %rsp,%r11
       4:\tsub    $0x3000,%r11
       b:\tsub    $0x1000,%rsp
      12:\tmovq   $0x0,(%rsp)
      1a:\tcmp    %r11,%rsp
      1d:\tjne    b <big+0xb>
      1f:\tsub    $0x18,%rsp
      26:\tret
";
    let funcs = parse(text);
    assert_eq!(funcs["leaf"].frame, 0x28);
    assert_eq!(funcs["mid"].frame, 8 + 0x80 + 0x10);
    assert_eq!(funcs["big"].frame, 8 + 0x3000 + 0x18);
    assert_eq!(worst(&funcs, "leaf"), Ok(8 + 0x28));
    // mid: its frame plus leaf's, or big's after mid's frame is gone.
    let big = 8 + 8 + 0x3000 + 0x18;
    assert_eq!(worst(&funcs, "big"), Ok(big));
    assert_eq!(worst(&funcs, "mid"), Ok(big.max(8 + 0x98 + 8 + 0x28)));
    let unknown = parse("0000000000000000 <f>:\n   0:\tcall   *%rax\n");
    assert!(worst(&unknown, "f").is_err());
    // A call through a register loaded from the GOT is a call of that symbol, until the
    // register is written again.
    let got = "\
0000000000000000 <f>:
       0:\tmov    0x0(%rip),%r14        # 7 <f+0x7>
\t\t\t3: R_X86_64_GOTPCREL\thelper-0x4
       7:\tcall   *%r14
       a:\tmov    %rdi,%r14
       d:\tcall   *%r14
";
    let funcs = parse(got);
    assert!(funcs["f"].calls.contains("helper"));
    assert_eq!(funcs["f"].unknown, ["call *%r14"]);
    // A copy of such a register is a call of the same symbol; a register also written otherwise,
    // in a function whose GOT entries are all memory functions, calls one of those.
    let copied = "\
0000000000000000 <g>:
       0:\tmov    0x0(%rip),%rbx        # 7 <g+0x7>
\t\t\t3: R_X86_64_GOTPCREL\tmemcpy-0x4
       7:\tmov    %rbx,%rax
       a:\tlea    0x8(%rsp),%rbx
       f:\tcall   *%rax
      11:\tcall   *%rbx
";
    let funcs = parse(copied);
    assert!(funcs["g"].calls.contains("memcpy"));
    assert!(funcs["g"].unknown.is_empty());
    // With another GOT entry in the function: a register whose own GOT loads are all memory
    // functions calls one of them; one that also held another entry stays unknown.
    let mixed = "\
0000000000000000 <h>:
       0:\tmov    0x0(%rip),%r12        # 7 <h+0x7>
\t\t\t3: R_X86_64_GOTPCREL\tmemset-0x4
       7:\tcall   *%r12
       a:\txor    %r12d,%r12d
       d:\tmov    0x0(%rip),%rbx        # 14 <h+0x14>
\t\t\t10: R_X86_64_GOTPCREL\thelper-0x4
      14:\tadd    $0x1,%rbx
      17:\tcall   *%r12
      1a:\tcall   *%rbx
";
    let funcs = parse(mixed);
    assert!(funcs["h"].calls.contains("memset"));
    assert!(!funcs["h"].calls.contains("helper"));
    assert_eq!(funcs["h"].unknown, ["call *%rbx"]);
}

#[test]
fn unaligned_vector_spills_and_realignment_are_seen() {
    let funcs = parse(
        "\
0000000000000000 <spills>:
       0:\tsub    $0x88,%rsp
       7:\tvmovups %ymm3,0x60(%rsp)
       d:\tvmovdqu64 %zmm1,(%rsp)
      14:\tvmovdqu 0x60(%rsp),%ymm3
      1a:\tvmovdqu %ymm2,(%rdi)
      1e:\tret

0000000000000000 <aligned>:
       0:\tpush   %rbp
       1:\tmov    %rsp,%rbp
       4:\tand    $0xffffffffffffffc0,%rsp
       8:\tsub    $0x80,%rsp
       f:\tvmovaps %ymm3,0x60(%rsp)
      15:\tvmovups %xmm0,0x10(%rsp)
      1b:\tret
",
    );
    assert_eq!(
        funcs["spills"].unaligned_spills,
        ["vmovups %ymm3,0x60(%rsp)", "vmovdqu64 %zmm1,(%rsp)"]
    );
    assert!(!funcs["spills"].realigned);
    assert!(funcs["aligned"].realigned);
    assert!(funcs["aligned"].unaligned_spills.is_empty());
    assert_eq!(funcs["aligned"].frame, 8 + 0x3f + 0x80);
}
