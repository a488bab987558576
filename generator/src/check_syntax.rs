//! `ptxvec check-syntax`: one text from the command line, or JSON Lines from stdin.

use std::io::Write;

use clap::Args as ClapArgs;
use serde::{Deserialize, Serialize};

use ptxvec_spec::{PtxVersion, Spec, Target};

use crate::error::{Error, Outcome, Result};
use crate::output::write_error;
use crate::output::ErrorAnswer;
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

/// Parses the module's `.version` and `.target`, and holds them to what the target
/// model knows: a version or target it does not list cannot be judged, so it is a
/// usage error, never a verdict.
fn module(spec: &Spec, ptx: Option<&str>, target: Option<&str>) -> Result<(PtxVersion, Target)> {
    let usage = |m: &str| Error::Usage(m.to_owned());
    let ptx = ptx
        .ok_or_else(|| usage("missing the PTX ISA version (--ptx 8.6, or \"ptx\" in the line)"))?;
    let target = target
        .ok_or_else(|| usage("missing the target (--target sm_90, or \"target\" in the line)"))?;
    let v: PtxVersion = ptx.parse().map_err(|e| Error::Usage(format!("{e}")))?;
    let t: Target = target.parse().map_err(|e| Error::Usage(format!("{e}")))?;
    let versions = &spec.targets.ptx_versions.values;
    if !versions.contains(&v) {
        let range = match (versions.first(), versions.last()) {
            (Some(a), Some(b)) => format!(" (it lists {a} to {b})"),
            _ => String::new(),
        };
        return Err(Error::Usage(format!(
            "unknown PTX ISA version {v}: spec/targets.yaml does not list it{range}"
        )));
    }
    if spec.targets.info(t).is_none() {
        return Err(Error::Usage(format!(
            "unknown target {t}: spec/targets.yaml does not list it"
        )));
    }
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
        message: j
            .defect
            .as_ref()
            .map_or_else(|| "legal".to_owned(), |d| d.message.clone()),
        warnings: &j.warnings,
    }
}

pub use crate::lines::MAX_LINE_BYTES;
use crate::lines::{read_line, skip_line, Line};

/// Runs the subcommand onto `out`: one text gives its verdict (illegal is a
/// finding); batch mode answers every line, and a line it could not judge makes
/// the run an input error once every line is answered.
pub fn run(spec: &Spec, args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let order = if args.strict {
        Order::Strict
    } else {
        Order::Lenient
    };
    if args.text != "-" {
        let (ptx, target) = module(spec, args.ptx.as_deref(), args.target.as_deref())?;
        let j = judge(spec, &args.text, ptx, target, order);
        for w in &j.warnings {
            let _ = writeln!(std::io::stderr(), "warning: {w}");
        }
        let line = match &j.defect {
            None => "legal".to_owned(),
            Some(d) => format!("illegal ({}): {}: {}", d.kind, d.rule, d.message),
        };
        writeln!(out, "{line}").map_err(write_error)?;
        return Ok(Outcome::findings_if(j.defect.is_some()));
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut bad_lines = Vec::new();
    let mut buf = Vec::new();
    for line_no in 1.. {
        let text = match read_line(&mut input, &mut buf)
            .map_err(|e| Error::Input(format!("<stdin>:{line_no}: {e}")))?
        {
            Line::End => break,
            Line::TooLong => {
                // Answered before the rest is skipped, so that a reader sees it even
                // when the line never ends.
                bad_lines.push(line_no);
                let e = format!("<stdin>:{line_no}: line longer than {MAX_LINE_BYTES} bytes");
                writeln!(out, "{}", ErrorAnswer::line(e))
                    .and_then(|()| out.flush())
                    .map_err(write_error)?;
                skip_line(&mut input)
                    .map_err(|e| Error::Input(format!("<stdin>:{line_no}: {e}")))?;
                continue;
            }
            Line::Read => answer_line(spec, args, order, line_no, &buf),
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                bad_lines.push(line_no);
                ErrorAnswer::line(e)
            }
        };
        writeln!(out, "{text}").map_err(write_error)?;
    }
    if bad_lines.is_empty() {
        Ok(Outcome::Pass)
    } else {
        Err(Error::Input(format!(
            "{} input line(s) could not be judged: {:?}",
            bad_lines.len(),
            bad_lines
        )))
    }
}

/// The answer to batch line `line_no` (its bytes without the line end): the answer
/// record, a blank line for a blank line (so that answers stay aligned with inputs),
/// or the message of its error record. `args` gives the defaults for `ptx` and
/// `target`. Public for the fuzzer (`fuzz/fuzz_targets/check_syntax_line.rs`).
pub fn answer_line(
    spec: &Spec,
    args: &Args,
    order: Order,
    line_no: usize,
    bytes: &[u8],
) -> std::result::Result<String, String> {
    let line = std::str::from_utf8(bytes).map_err(|e| {
        let column = String::from_utf8_lossy(&bytes[..e.valid_up_to()])
            .chars()
            .count()
            + 1;
        format!(
            "<stdin>:{line_no}:{column}: not UTF-8 (byte 0x{:02x})",
            bytes[e.valid_up_to()]
        )
    })?;
    if line.trim().is_empty() {
        return Ok(String::new());
    }
    let req = serde_json::from_str::<Request>(line).map_err(|e| {
        let mut message = e.to_string();
        // serde_json appends " at line 1 column C": the position is given once, first.
        if let Some(i) = message.rfind(" at line ") {
            message.truncate(i);
        }
        // serde_json counts columns in bytes; positions here count characters.
        let byte = e.column().saturating_sub(1);
        let column = line.get(..byte).map_or(e.column(), |p| p.chars().count() + 1);
        format!("<stdin>:{line_no}:{column}: {message} (expected {{\"text\": ..., \"ptx\": \"8.6\", \"target\": \"sm_100a\"}})")
    })?;
    let (ptx, target) = module(
        spec,
        req.ptx.as_deref().or(args.ptx.as_deref()),
        req.target.as_deref().or(args.target.as_deref()),
    )
    .map_err(|e| format!("<stdin>:{line_no}: {e}"))?;
    let j = judge(spec, &req.text, ptx, target, order);
    serde_json::to_string(&answer(&j, req.id.as_ref()))
        .map_err(|e| format!("<stdin>:{line_no}: {e}"))
}

/// `emit-ptx`: a text (or the case with this id) wrapped in a module. A text is
/// judged in that module first: a malformed one (not one instruction statement) is
/// refused, naming the rule it breaks, unless `force`; an invalid one is emitted, for
/// an assembler to judge. Whatever `force` says, a text that could reach outside
/// its entry (a line break, a `;` before its end, unbalanced or nested braces, a
/// control character) is refused, and so is a register numbered above
/// [`crate::ptx_module::MAX_REGISTER`].
pub fn emit(
    spec: &Spec,
    text: &str,
    ptx: Option<&str>,
    target: Option<&str>,
    force: bool,
) -> Result<String> {
    let case = spec.instructions.iter().find_map(|f| {
        let name = &f.instruction.instruction;
        text.starts_with(&format!("{name}/"))
            .then(|| {
                crate::syntax::vectors::cases(spec, &f.instruction)
                    .into_iter()
                    .find(|c| c.id == text)
            })
            .flatten()
    });
    // No instruction text holds a `/` (PTX has no such token outside comments): a
    // text with one is a case id, and must name a case.
    if case.is_none() && text.contains('/') {
        return Err(Error::Usage(format!(
            "unknown case id `{text}`: no case of vectors/syntax has it (ids look like `red/scalar/.add.u32/reg`)"
        )));
    }
    let (body, ptx, target) = match &case {
        Some(c) => (
            c.text.as_str(),
            ptx.or(Some(c.ptx.as_str())),
            target.or(Some(c.target.as_str())),
        ),
        None => (text, ptx, target),
    };
    let (v, t) = module(spec, ptx, target)?;
    if case.is_none() {
        contained(body)?;
        let j = judge(spec, body, v, t, Order::Lenient);
        if let Some(d) = j.defect.filter(|d| d.kind == Kind::Malformed && !force) {
            return Err(Error::Usage(format!(
                "`{body}` is not one instruction statement: illegal (malformed): {}: {} (--force emits it anyway)",
                d.rule, d.message
            )));
        }
    }
    let over = crate::ptx_module::registers_over_cap(body);
    if let Some(name) = over.first() {
        return Err(Error::Usage(format!(
            "`{name}`: register numbers above {} are not declared by emit-ptx",
            crate::ptx_module::MAX_REGISTER
        )));
    }
    Ok(crate::ptx_module::wrap(
        spec,
        crate::syntax::context::Module { ptx: v, target: t },
        &[body],
    )
    .text)
}

/// Refuses a text that could reach outside the entry it is pasted into: a line
/// break or other control character, a `;` before its end, a `}` before its `{`, or
/// braces nested or left open (a vector operand `{%r1, %r2}` is one level).
fn contained(text: &str) -> Result<()> {
    let t = text.trim();
    let refuse = |what: &str| {
        Err(Error::Usage(format!(
            "`{}`: {what}; emit-ptx pastes one instruction statement into its entry, and this could reach outside it",
            t.escape_debug()
        )))
    };
    if t.chars().any(char::is_control) {
        return refuse("a line break or control character");
    }
    if t.trim_end_matches(';').contains(';') {
        return refuse("a `;` before the end");
    }
    let mut depth = 0i32;
    for c in t.chars() {
        depth += match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        };
        if !(0..=1).contains(&depth) {
            return refuse("braces nested or closed before they open");
        }
    }
    if depth != 0 {
        return refuse("a brace left open");
    }
    Ok(())
}
