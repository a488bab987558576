//! `ptxvec check-syntax`: one text from the command line, or JSON Lines from stdin.
//!
//! A text is legal, illegal (malformed or invalid), or not covered: an instruction
//! statement that no covered instruction reads, which lint counts and does not
//! judge ([`Covered::not_covered`]); ptxvec has no verdict on it. A text that is no
//! statement, or a covered instruction's text that does not parse, is malformed.

use std::io::Write;

use clap::Args as ClapArgs;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use ptxvec_spec::{PtxVersion, Spec, Target};

use std::borrow::Cow;

use crate::error::{Error, Outcome, Result};
use crate::io::output::write_error;
use crate::io::batch::flat_json::{self, Value};
use crate::io::batch::{self, json, Answers, InputLine};
use crate::syntax::context;
use crate::syntax::index::{Index, Tokens};
use crate::syntax::verdict::Verdict;
use crate::syntax::departure::{self, Prediction};
use crate::syntax::illegal::CHECK_PTXAS;
use crate::syntax::rule_id::RuleId;
use crate::syntax::judge::{Judgement, Order};
use crate::syntax::definition::judge;
use crate::syntax::defect::{Defect, Kind};
use crate::syntax::text;
use crate::lint::covered::Covered;

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

/// A batch line as the fast path reads it: [`Request`]'s fields and rules, borrowed
/// from the line (the text is copied only where it is written with an escape). A
/// line it cannot read (`ptx` or `target` with an escape, a missing or unknown key,
/// not JSON) is answered by [`answer_line`], which says why.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestRef<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
    #[serde(default)]
    ptx: Option<&'a str>,
    #[serde(default)]
    target: Option<&'a str>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct Answer<'a, I: Serialize + ?Sized> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a I>,
    /// `null` for a text not covered.
    legal: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'a RuleId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instruction: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    form: Option<&'a str>,
    message: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    warnings: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    ptxas: Option<PtxasNote<'a>>,
}

/// Where the ledger predicts that ptxas departs from an illegal verdict.
#[derive(Serialize)]
struct PtxasNote<'a> {
    accepts: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    fails: bool,
    erratum: &'a str,
}

/// The ledger's prediction for a verdict, where ptxas departs from it.
fn prediction(spec: &Spec, text: &str, ptx: PtxVersion, target: Target, j: &Judgement) -> Option<Prediction> {
    departure::predict(spec, text, crate::syntax::context::Module { ptx, target }, CHECK_PTXAS, j)
}

/// The JSON `kind` of a text not covered (its `legal` is `null`).
const NOT_COVERED: &str = "not_covered";

/// The message of the "not covered" answer on `text`, whose verdict is `defect`:
/// one when the verdict is malformed and `text` is an instruction statement that
/// lint counts as not covered ([`Covered::not_covered`]), so that the two readers
/// agree on what they do not judge. Only a malformed verdict is asked: every text
/// whose opcode is no covered instruction's is malformed to the judge.
/// `covered` is the spec's [`Covered`], made here when not given.
fn not_covered(spec: &Spec, covered: Option<&Covered>, text: &str, defect: Option<&Defect>) -> Option<String> {
    if defect?.kind != Kind::Malformed {
        return None;
    }
    let key = match covered {
        Some(c) => c.not_covered(text),
        None => Covered::of(spec).not_covered(text),
    }?;
    Some(format!(
        "`{key}` is not one of the instructions ptxvec covers ({}): its syntax is not judged",
        crate::syntax::judge::covered_names(spec)
    ))
}

fn answer<'a, I: Serialize + ?Sized>(
    j: &'a Judgement,
    id: Option<&'a I>,
    predicted: Option<&'a Prediction>,
) -> Answer<'a, I> {
    Answer {
        ptxas: predicted.map(|p| PtxasNote {
            accepts: p.accepts,
            fails: p.fails,
            erratum: &p.erratum,
        }),
        id,
        legal: Some(j.legal()),
        kind: j.defect.as_ref().map(|d| d.kind.name()),
        rule: j.defect.as_ref().map(|d| &d.rule),
        instruction: j.instruction.as_deref(),
        form: j.form.as_deref(),
        message: j.defect.as_ref().map_or("legal", |d| d.message.as_str()),
        warnings: &j.warnings,
    }
}

pub use crate::io::lines::MAX_LINE_BYTES;

/// Runs the subcommand onto `out`: one text gives its verdict (illegal is a
/// finding); batch mode answers every line, and a line it could not judge makes
/// the run an input error once every line is answered.
pub fn run(spec: &Spec, args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    if args.text != "-" {
        let order = if args.strict {
            Order::Strict
        } else {
            Order::Lenient
        };
        let (ptx, target) = context::module(spec, args.ptx.as_deref(), args.target.as_deref())?;
        let j = judge(spec, &args.text, ptx, target, order);
        if let Some(message) = not_covered(spec, None, &args.text, j.defect.as_ref()) {
            writeln!(out, "not covered: {message}").map_err(write_error)?;
            return Ok(Outcome::NotCovered);
        }
        for w in &j.warnings {
            let _ = writeln!(std::io::stderr(), "warning: {w}");
        }
        let note = prediction(spec, &args.text, ptx, target, &j).map_or_else(String::new, |p| departure::note(&p));
        let line = match &j.defect {
            None => "legal".to_owned(),
            Some(d) => format!("illegal ({}): {}: {}{note}", d.kind, d.rule, d.message),
        };
        writeln!(out, "{line}").map_err(write_error)?;
        return Ok(Outcome::findings_if(j.defect.is_some()));
    }
    let mut index = Index::new(spec);
    let outcome = run_lines(&mut index, args, std::io::stdin(), out);
    // The process ends once this returns. Its exit hands the index's pages back at
    // once; dropping it here would free its readings one by one (a long stream's
    // tens of thousands of chains: a twentieth of the run's CPU time, on one
    // thread, after the last answer is written).
    std::mem::forget(index);
    outcome
}

/// Batch mode over `input`: every line answered, in order, a chunk of lines at a
/// time in parallel ([`crate::io::batch`]), the chains' readings kept in `index`;
/// a line it could not judge makes the run an input error once every line is
/// answered.
pub fn run_lines(
    index: &mut Index<'_>,
    args: &Args,
    input: impl std::io::Read + Send,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let order = if args.strict {
        Order::Strict
    } else {
        Order::Lenient
    };
    let bad_lines = batch::run("<stdin>", input, out, |lines, answers| {
        answer_lines(index, args, order, lines, answers);
    })?;
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

/// Fills `answers` with the answers to a chunk of batch lines, in order: equal,
/// line for line, to [`answer_line`]'s, in one parallel pass. Each line is read,
/// judged and written into its block's buffer by the worker that takes it; a chain
/// met for the first time is read there ([`Index::with_reading`]) and kept for the
/// chunks after.
pub fn answer_lines(
    index: &mut Index<'_>,
    args: &Args,
    order: Order,
    lines: &[InputLine<'_>],
    answers: &mut Answers,
) {
    let this = &*index;
    let covered = Covered::of(this.spec());
    answers.fill(lines, |l, buf| {
        if answer_fast(this, &covered, args, order, l.bytes, buf) {
            return Ok(());
        }
        let text = answer_line(this.spec(), args, order, l.no, l.bytes)?;
        buf.extend_from_slice(text.as_bytes());
        Ok(())
    });
    index.keep_met();
}

/// Appends a batch line's answer (bytes without the line end) to `buf`, as
/// [`answer_line`] writes it, and says so; false, with nothing appended, for a
/// line that [`answer_line`] answers: an error (bytes that are not UTF-8, no
/// request, a `ptx` or `target` written with an escape, a module the target model
/// does not know), or an `id` that serde_json would write otherwise than the line
/// does.
fn answer_fast(index: &Index<'_>, covered: &Covered, args: &Args, order: Order, bytes: &[u8], buf: &mut Vec<u8>) -> bool {
    let Ok(line) = std::str::from_utf8(bytes) else {
        return false;
    };
    // A blank line's answer is a blank line (a request opens with `{`: no trim).
    if !line.starts_with('{') && line.trim().is_empty() {
        return true;
    }
    let Some(req) = plain_request(line).or_else(|| {
        let r = serde_json::from_str::<RequestRef<'_>>(line).ok()?;
        Some(Plain {
            text: r.text,
            ptx: r.ptx,
            target: r.target,
            id: r.id.map(RawValue::get),
        })
    }) else {
        return false;
    };
    if req.id.is_some_and(|id| !written_as_serde_json_writes(id)) {
        return false;
    }
    let (ptx, target) = (req.ptx.or(args.ptx.as_deref()), req.target.or(args.target.as_deref()));
    // Most lines write a module by its canonical words: looked up, not parsed.
    let listed = ptx.zip(target).and_then(|(p, t)| index.listed_module(p, t));
    let Some((ptx, target)) = listed.or_else(|| context::module(index.spec(), ptx, target).ok()) else {
        return false;
    };
    let line = Line {
        id: req.id,
        ptx,
        target,
        order,
        covered,
    };
    let tokens = Tokens::of(&req.text);
    // A text with comments or whitespace inside its chain is judged as its plain
    // form (`text::plain_form`: the same tokens, so the same verdict).
    if tokens.chain().is_none() {
        if let Some(plain) = text::plain_form_unchecked(&req.text) {
            // `plain_form`'s check, by the tokens the answer needs: tokens of the
            // plain form are the definition's, and the definition is asked only
            // where they are not made.
            let plain_tokens = Tokens::of(&plain);
            if plain_tokens.parsed.is_ok() || text::tokenize_borrowed(&plain).is_ok() {
                line.answer(index, &plain, &plain_tokens, buf);
                return true;
            }
        }
    }
    line.answer(index, &req.text, &tokens, buf);
    true
}

/// Whether a JSON value's text is what serde_json writes for it once read into a
/// `serde_json::Value` (what [`answer_line`] echoes): a string without escapes,
/// `true`, `false`, or an integer of at most 18 digits without a leading zero.
fn written_as_serde_json_writes(raw: &str) -> bool {
    let integer = |d: &[u8]| {
        (1..=18).contains(&d.len()) && d[0] != b'0' && d.iter().all(u8::is_ascii_digit)
    };
    match raw.as_bytes() {
        [b'"', .., b'"'] => !raw.contains('\\'),
        b"true" | b"false" | b"0" => true,
        [b'-', d @ ..] => integer(d),
        d => integer(d),
    }
}

/// A request as the fast path reads it: [`RequestRef`]'s fields, the `id` as
/// written.
struct Plain<'a> {
    text: Cow<'a, str>,
    ptx: Option<&'a str>,
    target: Option<&'a str>,
    id: Option<&'a str>,
}

/// The request of a line of the plain form ([`flat_json`]), read as serde reads a
/// [`RequestRef`]: each field at most once, `text` present, no other key; `None`
/// for any other line, which serde reads.
fn plain_request(line: &str) -> Option<Plain<'_>> {
    let (mut text, mut ptx, mut target, mut id) = (None, None, None, None);
    let plain = flat_json::object(line, &["text", "ptx", "target", "id"], |key, value| {
        let (slot, v) = match (key, value) {
            (0, Value::Str(s)) => (&mut text, s),
            (1, Value::Str(s)) => (&mut ptx, s),
            (2, Value::Str(s)) => (&mut target, s),
            (3, v) => (&mut id, v.raw(line)),
            _ => return false,
        };
        slot.replace(v).is_none()
    });
    Some(Plain {
        text: Cow::Borrowed(text.filter(|_| plain)?),
        ptx,
        target,
        id,
    })
}

/// What a batch line asks besides its text.
struct Line<'a> {
    /// The `id`, as written.
    id: Option<&'a str>,
    ptx: PtxVersion,
    target: Target,
    order: Order,
    /// The covered instructions' opcodes, for the "not covered" answer.
    covered: &'a Covered,
}

impl Line<'_> {
    /// Appends the answer on `text` (whose tokens are `tokens`) to `buf`.
    fn answer(&self, index: &Index<'_>, text: &str, tokens: &Tokens<'_>, buf: &mut Vec<u8>) {
        let (ptx, target, order) = (self.ptx, self.target, self.order);
        match index.parsed(text, tokens, ptx, target, order) {
            Ok(parsed) => index.with_reading(tokens.chain, &parsed.tokens.words, |r| {
                let v = index.verdict(&r.chain, parsed, order);
                if self.not_covered(index, text, v.defect.as_deref(), buf) {
                    return;
                }
                let departures = &r.departures;
                let module = crate::syntax::context::Module { ptx, target };
                let predicted = departure::predict_from(departures, parsed.tokens, module, v.defect.as_deref(), &|t, m| {
                    index.is_legal_tokens(t, m.ptx, m.target)
                });
                self.write(&v, predicted, buf);
            }),
            Err(j) => {
                if self.not_covered(index, text, j.defect.as_ref(), buf) {
                    return;
                }
                let predicted = index.predict(text, ptx, target, &j);
                self.write(&Verdict::from(j), predicted, buf)
            }
        }
    }

    /// Appends the "not covered" answer on `text`, whose verdict is `defect`, and
    /// says so; false, with nothing appended, when the verdict stands. Written as
    /// serde_json writes [`Answer`]: `legal` null, `kind`, `message`.
    fn not_covered(&self, index: &Index<'_>, text: &str, defect: Option<&Defect>, buf: &mut Vec<u8>) -> bool {
        let Some(message) = not_covered(index.spec(), Some(self.covered), text, defect) else {
            return false;
        };
        buf.push(b'{');
        if let Some(id) = self.id {
            buf.extend_from_slice(b"\"id\":");
            buf.extend_from_slice(id.as_bytes());
            buf.push(b',');
        }
        buf.extend_from_slice(b"\"legal\":null,\"kind\":\"not_covered\"");
        json::field(buf, b",\"message\":", &message);
        buf.push(b'}');
        true
    }

    /// Appends the answer record of verdict `v`, with the ledger's prediction, as
    /// serde_json writes [`Answer`]: the same keys in the same order, the same
    /// escapes.
    fn write(&self, v: &Verdict<'_>, predicted: Option<Prediction>, buf: &mut Vec<u8>) {
        buf.push(b'{');
        if let Some(id) = self.id {
            buf.extend_from_slice(b"\"id\":");
            buf.extend_from_slice(id.as_bytes());
            buf.push(b',');
        }
        let defect = v.defect.as_deref();
        buf.extend_from_slice(if defect.is_none() { b"\"legal\":true" } else { b"\"legal\":false" });
        if let Some(d) = defect {
            buf.extend_from_slice(match d.kind {
                Kind::Malformed => b",\"kind\":\"malformed\"",
                Kind::Invalid => b",\"kind\":\"invalid\"",
            });
            let (namespace, name) = d.rule.parts();
            json::field_parts(buf, b",\"rule\":", namespace, name);
        }
        if let Some(i) = &v.instruction {
            json::field(buf, b",\"instruction\":", i);
        }
        if let Some(f) = &v.form {
            json::field(buf, b",\"form\":", f);
        }
        json::field(buf, b",\"message\":", defect.map_or("legal", |d| d.message.as_str()));
        if !v.warnings.is_empty() {
            buf.extend_from_slice(b",\"warnings\":[");
            for (k, w) in v.warnings.iter().enumerate() {
                if k > 0 {
                    buf.push(b',');
                }
                json::string(buf, w);
            }
            buf.push(b']');
        }
        if let Some(p) = predicted {
            buf.extend_from_slice(if p.accepts { b",\"ptxas\":{\"accepts\":true" } else { b",\"ptxas\":{\"accepts\":false" });
            if p.fails {
                buf.extend_from_slice(b",\"fails\":true");
            }
            json::field(buf, b",\"erratum\":", &p.erratum);
            buf.push(b'}');
        }
        buf.push(b'}');
    }
}

/// The answer to batch line `line_no` (its bytes without the line end): the answer
/// record, a blank line for a blank line (so that answers stay aligned with inputs),
/// or the message of its error record. `args` gives the defaults for `ptx` and
/// `target`. Public for the fuzzer (`crate::cmd::fuzz::check_syntax_line`).
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
    let (ptx, target) = context::module(
        spec,
        req.ptx.as_deref().or(args.ptx.as_deref()),
        req.target.as_deref().or(args.target.as_deref()),
    )
    .map_err(|e| format!("<stdin>:{line_no}: {e}"))?;
    let j = judge(spec, &req.text, ptx, target, order);
    if let Some(message) = not_covered(spec, None, &req.text, j.defect.as_ref()) {
        let answer = Answer::<serde_json::Value> {
            id: req.id.as_ref(),
            legal: None,
            kind: Some(NOT_COVERED),
            rule: None,
            instruction: None,
            form: None,
            message: &message,
            warnings: &[],
            ptxas: None,
        };
        return serde_json::to_string(&answer).map_err(|e| format!("<stdin>:{line_no}: {e}"));
    }
    let predicted = prediction(spec, &req.text, ptx, target, &j);
    serde_json::to_string(&answer(&j, req.id.as_ref(), predicted.as_ref()))
        .map_err(|e| format!("<stdin>:{line_no}: {e}"))
}

/// `emit-ptx`: a text (or the case with this id) wrapped in a module. A text is
/// judged in that module first: a malformed one (not one instruction statement) is
/// refused, naming the rule it breaks, unless `force`; an invalid one is emitted, for
/// an assembler to judge. Whatever `force` says, a text that could reach outside
/// its entry (a line break, a `;` before its end, unbalanced or nested braces, a
/// control character) is refused, and so is a register numbered above
/// [`crate::device::wrap::MAX_REGISTER`].
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
    // No instruction text holds a `/` outside a comment, and a case id holds no
    // whitespace: a text with a `/`, without whitespace or a comment, is a case id,
    // and must name a case.
    let id_like = text.contains('/')
        && !text.contains(char::is_whitespace)
        && !text.contains("//")
        && !text.contains("/*");
    if case.is_none() && id_like {
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
    let (v, t) = context::module(spec, ptx, target)?;
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
    let over = crate::device::wrap::registers_over_cap(body);
    if let Some(name) = over.first() {
        return Err(Error::Usage(format!(
            "`{name}`: register numbers above {} are not declared by emit-ptx",
            crate::device::wrap::MAX_REGISTER
        )));
    }
    Ok(crate::device::wrap::wrap(
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
    // Comments are whitespace: what could reach outside is what stands outside them.
    let Ok(code) = crate::syntax::text::uncommented(t) else {
        return refuse("a `/*` comment left open");
    };
    let t = code.trim();
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
