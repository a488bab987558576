//! The reader: one kernel of a compiled module, read back as one litmus thread.
//!
//! Each statement of the kernel's body is either bookkeeping (`ld.param`, `cvta`,
//! `mov`, an `add` of 0, `ret`), an observation (a plain `st` of a loaded register
//! to an output parameter), or a memory event of the model. Anything else — a
//! branch, a predicate, a `cas`, a cache operator, another size, a state space the
//! model lacks — makes the kernel "not a litmus test", with the statement and why:
//! the reader never guesses.

use std::collections::BTreeMap;

use ptxvec_oracle::model::{Event, Loc, Reg, Rmw, Scope, Sem, Val};

/// One kernel read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Its events in program order, each with the module line it came from.
    pub events: Vec<(Event, usize)>,
    /// Output parameter index (0 = the first after the locations) to the register
    /// whose value is stored there, and that store's line.
    pub observed: BTreeMap<usize, (Reg, usize)>,
}

/// Why a kernel is not a litmus test: the module line and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The module line (1-based), or 0 for the kernel as a whole.
    pub line: usize,
    /// What the reader cannot map.
    pub why: String,
}

/// What a PTX register holds, as far as the reader follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    /// The address in parameter `k`.
    Param(usize),
    /// A constant.
    Const(u32),
    /// What a load or atom of this thread returned.
    Loaded(Reg),
}

/// One statement: its first line and its text, comments removed.
struct Statement {
    line: usize,
    text: String,
}

/// The statements of `kernel`'s body in `module`, with its parameter names.
fn body(module: &str, kernel: &str) -> Result<(Vec<String>, Vec<Statement>), Refusal> {
    let head = format!(".entry {kernel}(");
    let start = module
        .find(&head)
        .ok_or_else(|| Refusal { line: 0, why: format!("no kernel `.entry {kernel}` in the module") })?;
    let rest = &module[start + head.len()..];
    let close = rest.find(')').ok_or_else(|| Refusal { line: 0, why: "unterminated parameter list".to_owned() })?;
    let params: Vec<String> = rest[..close]
        .split(',')
        .filter_map(|p| p.split_whitespace().last().map(str::to_owned))
        .collect();
    let open = rest[close..].find('{').ok_or_else(|| Refusal { line: 0, why: "no body".to_owned() })? + close;
    let base_line = module[..start].matches('\n').count() + 1 + rest[..open].matches('\n').count();
    let mut depth = 0usize;
    let mut end = None;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let end = end.ok_or_else(|| Refusal { line: 0, why: "unterminated body".to_owned() })?;
    let mut out = Vec::new();
    let mut pending = String::new();
    let mut pending_line = 0;
    for (k, raw) in rest[open + 1..end].split('\n').enumerate() {
        let line = base_line + k;
        let code = raw.split("//").next().unwrap_or("");
        for (j, piece) in code.split(';').enumerate() {
            // Inline-assembly braces scope registers; they order nothing.
            let piece = piece.replace(['{', '}'], " ");
            if j > 0 {
                let text = std::mem::take(&mut pending);
                if !text.trim().is_empty() {
                    out.push(Statement { line: pending_line, text: text.trim().to_owned() });
                }
            }
            if !piece.trim().is_empty() {
                if pending.is_empty() {
                    pending_line = line;
                }
                pending.push(' ');
                pending.push_str(&piece);
            }
        }
    }
    if !pending.trim().is_empty() {
        return Err(Refusal { line: pending_line, why: format!("`{}` has no `;`", pending.trim()) });
    }
    Ok((params, out))
}

/// The qualifiers of a memory instruction, sorted into their classes.
#[derive(Default)]
struct Quals {
    sem: Option<&'static str>,
    scope: Option<Scope>,
    op: Option<&'static str>,
}

/// Reads `kernel` of `module`: `nlocs` leading parameters are the locations
/// `Loc(0)..`, the rest outputs.
pub fn read(module: &str, kernel: &str, nlocs: usize) -> Result<Kernel, Refusal> {
    let (params, statements) = body(module, kernel)?;
    let mut regs: BTreeMap<String, Value> = BTreeMap::new();
    let mut k = Kernel { events: Vec::new(), observed: BTreeMap::new() };
    let mut next_reg = 0u8;
    for s in &statements {
        let refuse = |why: String| Refusal { line: s.line, why: format!("`{}`: {why}", s.text) };
        if s.text.starts_with('@') {
            return Err(refuse("not modelled: a predicated instruction (control flow)".to_owned()));
        }
        if s.text.starts_with('.') {
            // .reg and other declarations.
            continue;
        }
        if s.text.ends_with(':') || s.text.contains(": ") {
            return Err(refuse("not modelled: a label (control flow)".to_owned()));
        }
        let (opcode, operands) = s.text.split_once(char::is_whitespace).unwrap_or((s.text.as_str(), ""));
        let ops: Vec<String> = operands.split(',').map(|o| o.trim().to_owned()).filter(|o| !o.is_empty()).collect();
        let parts: Vec<&str> = opcode.split('.').collect();
        let value_of = |o: &str, regs: &BTreeMap<String, Value>| -> Option<Value> {
            if o.starts_with('%') {
                regs.get(o).copied()
            } else {
                parse_int(o).map(Value::Const)
            }
        };
        let address = |o: &str, regs: &BTreeMap<String, Value>| -> Result<usize, String> {
            let inner = o.strip_prefix('[').and_then(|x| x.strip_suffix(']')).ok_or(format!("`{o}` is not an address"))?;
            match regs.get(inner.trim()) {
                Some(Value::Param(p)) => Ok(*p),
                _ => Err(format!("not modelled: the address `{o}` is not a parameter's")),
            }
        };
        match parts[0] {
            "ret" | "exit" => break,
            "ld" if parts.get(1) == Some(&"param") => {
                let [d, a] = &ops[..] else { return Err(refuse("expected `d, [param]`".to_owned())) };
                let name = a.trim_start_matches('[').trim_end_matches(']');
                let p = params.iter().position(|q| q == name).ok_or_else(|| refuse(format!("{name} is not a parameter")))?;
                regs.insert(d.clone(), Value::Param(p));
            }
            "cvta" | "mov" => {
                let [d, a] = &ops[..] else { return Err(refuse("expected two operands".to_owned())) };
                let v = value_of(a, &regs).ok_or_else(|| refuse(format!("not modelled: the value of `{a}`")))?;
                regs.insert(d.clone(), v);
            }
            "add" => {
                let [d, a, b] = &ops[..] else { return Err(refuse("expected three operands".to_owned())) };
                match (value_of(a, &regs), value_of(b, &regs)) {
                    (Some(v @ Value::Param(_)), Some(Value::Const(0))) | (Some(Value::Const(0)), Some(v @ Value::Param(_))) => {
                        regs.insert(d.clone(), v);
                    }
                    _ => return Err(refuse("not modelled: address arithmetic other than +0 (another location)".to_owned())),
                }
            }
            "ld" | "st" | "atom" | "red" => {
                let q = quals(parts[0], &parts[1..]).map_err(refuse)?;
                let sem_scope = sem_scope(parts[0], &q).map_err(refuse)?;
                match parts[0] {
                    "ld" => {
                        let [d, a] = &ops[..] else { return Err(refuse("expected `d, [a]`".to_owned())) };
                        let p = address(a, &regs).map_err(refuse)?;
                        let loc = location(p, nlocs).map_err(refuse)?;
                        let r = Reg(next_reg);
                        next_reg += 1;
                        regs.insert(d.clone(), Value::Loaded(r));
                        k.events.push((with(Event::ld_weak(loc, r), sem_scope), s.line));
                    }
                    "st" => {
                        let [a, v] = &ops[..] else { return Err(refuse("expected `[a], b`".to_owned())) };
                        let p = address(a, &regs).map_err(refuse)?;
                        let v = value_of(v, &regs).ok_or_else(|| refuse(format!("not modelled: the value of `{v}`")))?;
                        if p >= nlocs {
                            let (Value::Loaded(r), None) = (v, sem_scope.1) else {
                                return Err(refuse("an output is written something other than a loaded register, or by a strong store".to_owned()));
                            };
                            if k.observed.insert(p - nlocs, (r, s.line)).is_some() {
                                return Err(refuse("an output written twice".to_owned()));
                            }
                            continue;
                        }
                        let val = match v {
                            Value::Const(c) => Val::Const(c),
                            Value::Loaded(r) => Val::Reg(r),
                            Value::Param(_) => return Err(refuse("not modelled: an address stored as a value".to_owned())),
                        };
                        k.events.push((with(Event::st_weak(Loc(p as u8), val), sem_scope), s.line));
                    }
                    _ => {
                        let atom = parts[0] == "atom";
                        let (d, a, b) = match (&ops[..], atom) {
                            ([d, a, b], true) => (Some(d), a, b),
                            ([a, b], false) => (None, a, b),
                            _ => return Err(refuse(format!("not modelled: {} operands (cas, cache hints)", ops.len()))),
                        };
                        let p = address(a, &regs).map_err(refuse)?;
                        let loc = location(p, nlocs).map_err(refuse)?;
                        let Some(Value::Const(c)) = value_of(b, &regs) else {
                            return Err(refuse(format!("not modelled: the operand `{b}` is not a constant")));
                        };
                        let rmw = match q.op {
                            Some("add") => Rmw::Add(c),
                            Some("exch") => Rmw::Exch(c),
                            other => return Err(refuse(format!("not modelled: the operation {}", other.unwrap_or("(none)")))),
                        };
                        let (sem, scope) = sem_scope;
                        let scope = scope.unwrap_or(Scope::Gpu);
                        let e = match d {
                            Some(d) => {
                                let r = Reg(next_reg);
                                next_reg += 1;
                                regs.insert(d.clone(), Value::Loaded(r));
                                Event::atom(sem, scope, loc, r, rmw)
                            }
                            None => Event::red(sem, scope, loc, rmw),
                        };
                        k.events.push((e, s.line));
                    }
                }
            }
            "fence" => {
                if !ops.is_empty() || parts.len() > 3 {
                    return Err(refuse("not modelled: a proxy or restricted fence".to_owned()));
                }
                // PTX ISA 9.7.13.4: "If the optional .sem qualifier is absent, .acq_rel
                // is assumed by default."
                let (sem, scope) = match &parts[1..] {
                    [sc] => (Sem::AcqRel, scope_of(sc)),
                    [sem, sc] => (fence_sem(sem).ok_or_else(|| refuse(format!("not modelled: .{sem}")))?, scope_of(sc)),
                    _ => (Sem::AcqRel, None),
                };
                let scope = scope.ok_or_else(|| refuse("a fence takes a scope".to_owned()))?;
                k.events.push((Event::fence(sem, scope), s.line));
            }
            "membar" => {
                // PTX ISA 9.7.13.4 (membar/fence): "On sm_70 and higher membar is a synonym
                // for fence.sc" and "The membar levels cta, gl and sys are synonymous with
                // the fence scopes cta, gpu and sys respectively."
                let scope = match &parts[1..] {
                    ["cta"] => Scope::Cta,
                    ["gl"] => Scope::Gpu,
                    ["sys"] => Scope::Sys,
                    _ => return Err(refuse("not modelled: a proxy membar".to_owned())),
                };
                k.events.push((Event::fence(Sem::Sc, scope), s.line));
            }
            other => return Err(refuse(format!("not modelled: `{other}`"))),
        }
    }
    Ok(k)
}

/// The location of parameter `p`, which must be one.
fn location(p: usize, nlocs: usize) -> Result<Loc, String> {
    if p < nlocs {
        Ok(Loc(p as u8))
    } else {
        Err(format!("parameter {p} is an output, not a location"))
    }
}

/// An integer literal (decimal or 0x hex).
fn parse_int(o: &str) -> Option<u32> {
    match o.strip_prefix("0x").or_else(|| o.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => o.parse().ok(),
    }
}

fn scope_of(q: &str) -> Option<Scope> {
    match q {
        "cta" => Some(Scope::Cta),
        "cluster" => Some(Scope::Cluster),
        "gpu" => Some(Scope::Gpu),
        "sys" => Some(Scope::Sys),
        _ => None,
    }
}

fn fence_sem(q: &str) -> Option<Sem> {
    match q {
        "sc" => Some(Sem::Sc),
        "acq_rel" => Some(Sem::AcqRel),
        _ => None,
    }
}

/// Sorts the qualifiers of `ld`/`st`/`atom`/`red` (in any order: libcu++ writes
/// `atom.exch.release.sys.b32`). 32-bit types only: every access the same size.
fn quals(inst: &str, qs: &[&str]) -> Result<Quals, String> {
    let mut q = Quals::default();
    let mut typed = false;
    for &x in qs {
        match x {
            "weak" | "relaxed" | "acquire" | "release" | "acq_rel" | "volatile" if q.sem.is_none() => {
                q.sem = Some(match x {
                    "weak" => "weak",
                    "relaxed" => "relaxed",
                    "acquire" => "acquire",
                    "release" => "release",
                    "acq_rel" => "acq_rel",
                    _ => "volatile",
                });
            }
            "cta" | "cluster" | "gpu" | "sys" if q.scope.is_none() => q.scope = scope_of(x),
            // The model has no state spaces (8.3): global and generic addresses alike.
            "global" => {}
            "add" | "exch" if inst == "atom" || inst == "red" => q.op = Some(if x == "add" { "add" } else { "exch" }),
            "u32" | "s32" | "b32" if !typed => typed = true,
            "u8" | "s8" | "b8" | "u16" | "s16" | "b16" | "u64" | "s64" | "b64" | "f32" | "f64" => {
                return Err(format!("not modelled: .{x}, an access that is not 32-bit integer (sizes, floats)"));
            }
            _ => return Err(format!("not modelled: the qualifier .{x}")),
        }
    }
    if !typed {
        return Err("not modelled: an access that is not 32-bit".to_owned());
    }
    if (inst == "atom" || inst == "red") && q.op.is_none() {
        return Err("not modelled: an operation other than add and exch (cas, min, ...)".to_owned());
    }
    Ok(q)
}

/// The model's qualifier and scope for the sorted qualifiers.
fn sem_scope(inst: &str, q: &Quals) -> Result<(Sem, Option<Scope>), String> {
    let rmw = inst == "atom" || inst == "red";
    match q.sem {
        // PTX ISA 9.7.9.8 (ld) and 9.7.9.10 (st): "ld.volatile ... has the same memory
        // synchronization semantics as ld.relaxed.sys" (st.volatile as st.relaxed.sys).
        Some("volatile") if !rmw => match q.scope {
            None => Ok((Sem::Relaxed, Some(Scope::Sys))),
            Some(_) => Err(".volatile takes no scope".to_owned()),
        },
        None | Some("weak") if !rmw => match q.scope {
            None => Ok((Sem::Weak, None)),
            Some(_) => Err("a weak access takes no scope".to_owned()),
        },
        // PTX ISA 9.7.13.5 (atom) and 9.7.13.6 (red): "The optional .sem qualifier
        // specifies a memory synchronizing effect ... If the .sem qualifier is absent,
        // .relaxed is assumed by default", and "If no scope is specified, the atomic
        // operation is performed with .gpu scope".
        None if rmw => Ok((Sem::Relaxed, Some(q.scope.unwrap_or(Scope::Gpu)))),
        Some(s) => {
            let sem = match s {
                "relaxed" => Sem::Relaxed,
                "acquire" => Sem::Acquire,
                "release" => Sem::Release,
                "acq_rel" => Sem::AcqRel,
                _ => return Err(format!("not modelled: .{s} on {inst}")),
            };
            let scope = match (q.scope, rmw) {
                (Some(sc), _) => sc,
                (None, true) => Scope::Gpu,
                (None, false) => return Err(format!("`{inst}.{s}` without a scope")),
            };
            Ok((sem, Some(scope)))
        }
        None => Ok((Sem::Weak, None)),
    }
}

/// `base` with the qualifier and scope read.
fn with(base: Event, (sem, scope): (Sem, Option<Scope>)) -> Event {
    Event { sem, scope, ..base }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with one kernel `k(x, y, out)` whose body is `body`.
    fn module(body: &str) -> String {
        format!(
            ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1,\n\t.param .u64 k_param_2\n)\n{{\n\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u64 %rd2, [k_param_1];\n\tld.param.u64 %rd3, [k_param_2];\n\tcvta.to.global.u64 %rd4, %rd3;\n{body}\n\tret;\n}}\n"
        )
    }

    /// Each mapped statement and the event it reads as (the PTX ISA's meanings
    /// quoted in `read` and `sem_scope`).
    #[test]
    fn statements_map_to_events() {
        let cases: [(&str, Event); 11] = [
            ("st.global.u32 [%rd1], 1;", Event::st_weak(Loc(0), Val::Const(1))),
            ("mov.u32 %r2, 1;\n\tst.relaxed.gpu.b32 [%rd1],%r2;", Event::st(Sem::Relaxed, Scope::Gpu, Loc(0), Val::Const(1))),
            ("st.volatile.global.u32 [%rd2], 1;", Event::st(Sem::Relaxed, Scope::Sys, Loc(1), Val::Const(1))),
            ("ld.acquire.sys.global.b32 %r1, [%rd2];", Event::ld(Sem::Acquire, Scope::Sys, Loc(1), Reg(0))),
            ("atom.global.add.u32 %r1, [%rd2], 1;", Event::atom(Sem::Relaxed, Scope::Gpu, Loc(1), Reg(0), Rmw::Add(1))),
            ("atom.exch.release.sys.b32 %r2,[%rd1],1;", Event::atom(Sem::Release, Scope::Sys, Loc(0), Reg(0), Rmw::Exch(1))),
            ("fence.sc.cta;", Event::fence(Sem::Sc, Scope::Cta)),
            ("membar.gl;", Event::fence(Sem::Sc, Scope::Gpu)),
            ("fence.gpu;", Event::fence(Sem::AcqRel, Scope::Gpu)),
            // LLVM 22's syncscope("cluster").
            ("st.release.cluster.global.b32 \t[%rd2], 1;", Event::st(Sem::Release, Scope::Cluster, Loc(1), Val::Const(1))),
            ("fence.sc.cluster;", Event::fence(Sem::Sc, Scope::Cluster)),
        ];
        for (body, want) in cases {
            let k = read(&module(body), "k", 2).unwrap_or_else(|r| panic!("{body}: {r:?}"));
            assert_eq!(k.events.iter().map(|(e, _)| *e).collect::<Vec<_>>(), [want], "{body}");
        }
    }

    /// A plain store of a loaded register to an output is an observation, not an
    /// event, and its line is kept.
    #[test]
    fn an_output_store_is_an_observation() {
        let k = read(&module("\tld.relaxed.gpu.b32 %r1, [%rd1];\n\tst.global.u32 [%rd4], %r1;"), "k", 2).unwrap();
        assert_eq!(k.events.len(), 1);
        assert_eq!(k.observed.get(&0).map(|(r, _)| *r), Some(Reg(0)));
        assert_eq!(k.events[0].1, 14);
    }

    /// What the reader cannot map it refuses, naming the statement and why.
    #[test]
    fn unmappable_statements_are_refused() {
        let cases = [
            ("@%p1 bra $L1;", "predicated"),
            ("atom.global.cas.b32 %r1, [%rd1], 0, 1;", "not modelled"),
            ("ld.global.nc.u32 %r1, [%rd1];", ".nc"),
            ("ld.global.u64 %rd5, [%rd1];", "not 32-bit"),
            ("ld.relaxed.global.u32 %r1, [%rd1];", "without a scope"),
            ("add.s64 %rd5, %rd1, 4;", "address arithmetic"),
            ("st.global.u32 [%rd4], 1;", "output"),
            ("fence.proxy.alias;", "proxy"),
            ("bar.sync 0;", "not modelled: `bar`"),
        ];
        for (body, why) in cases {
            let r = read(&module(body), "k", 2).expect_err(body);
            assert!(r.why.contains(why), "{body}: {}", r.why);
        }
        assert!(read(&module(""), "other", 2).expect_err("no kernel").why.contains("no kernel"));
    }
}
