//! `ptxvec check-syntax`: one text from the command line, or JSON Lines from stdin.

use std::io::{BufRead, Write};

use clap::Args as ClapArgs;
use serde::{Deserialize, Serialize};

use ptxvec_spec::{PtxVersion, Spec, Target};

use crate::cli::{EXIT_ILLEGAL, EXIT_INPUT};
use crate::syntax::judge::{judge, Judgement, Kind, Order};

/// The arguments of `check-syntax`.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The instruction text, or `-` to read JSON Lines from stdin.
    pub text: String,
    /// The module's `.version` (in batch mode, the default for lines without `ptx`).
    #[arg(long)]
    pub ptx: Option<String>,
    /// The module's `.target` (in batch mode, the default for lines without `target`).
    #[arg(long)]
    pub target: Option<String>,
    /// Hold qualifiers to the document's order.
    #[arg(long)]
    pub strict: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    text: String,
    #[serde(default)]
    ptx: Option<String>,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    id: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct Answer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a serde_json::Value>,
    legal: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<Kind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instruction: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    form: Option<&'a str>,
    message: String,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    warnings: &'a [String],
}

fn module(ptx: Option<&str>, target: Option<&str>) -> Result<(PtxVersion, Target), String> {
    let ptx = ptx.ok_or("missing the PTX ISA version (--ptx 8.6, or \"ptx\" in the line)")?;
    let target = target.ok_or("missing the target (--target sm_90, or \"target\" in the line)")?;
    let v: PtxVersion = ptx.parse().map_err(|e| format!("{e}"))?;
    let t: Target = target.parse().map_err(|e| format!("{e}"))?;
    Ok((v, t))
}

fn answer<'a>(j: &'a Judgement, id: Option<&'a serde_json::Value>) -> Answer<'a> {
    Answer {
        id,
        legal: j.legal(),
        kind: j.defect.as_ref().map(|d| d.kind),
        rule: j.defect.as_ref().map(|d| d.rule.as_str()),
        instruction: j.instruction.as_deref(),
        form: j.form.as_deref(),
        message: j.defect.as_ref().map_or_else(|| "legal".to_owned(), |d| d.message.clone()),
        warnings: &j.warnings,
    }
}

/// Runs the subcommand; returns the exit status.
pub fn run(spec: &Spec, args: &Args) -> Result<u8, String> {
    let order = if args.strict { Order::Strict } else { Order::Lenient };
    if args.text != "-" {
        let (ptx, target) = module(args.ptx.as_deref(), args.target.as_deref()).map_err(|e| format!("error: {e}"))?;
        let j = judge(spec, &args.text, ptx, target, order);
        for w in &j.warnings {
            eprintln!("warning: {w}");
        }
        return Ok(match &j.defect {
            None => {
                println!("legal");
                0
            }
            Some(d) => {
                println!("illegal ({}): {}: {}", d.kind, d.rule, d.message);
                EXIT_ILLEGAL
            }
        });
    }
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut bad_lines = Vec::new();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line_no = n + 1;
        let line = line.map_err(|e| format!("error: <stdin>:{line_no}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Request>(&line) {
            Err(e) => Err(format!("<stdin>:{line_no}:{}: {e} (expected {{\"text\": ..., \"ptx\": \"8.6\", \"target\": \"sm_100a\"}})", e.column())),
            Ok(req) => module(req.ptx.as_deref().or(args.ptx.as_deref()), req.target.as_deref().or(args.target.as_deref()))
                .map_err(|e| format!("<stdin>:{line_no}: {e}"))
                .map(|(ptx, target)| {
                    let j = judge(spec, &req.text, ptx, target, order);
                    serde_json::to_string(&answer(&j, req.id.as_ref())).unwrap_or_default()
                }),
        };
        let text = match reply {
            Ok(t) => t,
            Err(e) => {
                bad_lines.push(line_no);
                serde_json::json!({ "error": e }).to_string()
            }
        };
        writeln!(out, "{text}").map_err(|e| format!("error: stdout: {e}"))?;
    }
    if bad_lines.is_empty() {
        Ok(0)
    } else {
        eprintln!("error: {} input line(s) could not be judged: {:?}", bad_lines.len(), bad_lines);
        Ok(EXIT_INPUT)
    }
}

/// `emit-ptx`: a text (or the case with this id) wrapped in a module.
pub fn emit(spec: &Spec, text: &str, ptx: Option<&str>, target: Option<&str>) -> Result<String, String> {
    let case = spec.instructions.iter().find_map(|f| {
        let name = &f.instruction.instruction;
        text.starts_with(&format!("{name}/"))
            .then(|| crate::syntax::vectors::cases(spec, &f.instruction).into_iter().find(|c| c.id == text))
            .flatten()
    });
    let (body, ptx, target) = match &case {
        Some(c) => (c.text.as_str(), ptx.or(Some(c.ptx.as_str())), target.or(Some(c.target.as_str()))),
        None => (text, ptx, target),
    };
    let (v, t) = module(ptx, target).map_err(|e| format!("error: {e}"))?;
    Ok(crate::ptx_module::wrap(spec, crate::syntax::context::Module { ptx: v, target: t }, &[body]).text)
}
