//! Where a fact in the spec comes from: a seed document, the full PTX ISA, ptxas,
//! or silicon.

use serde::Deserialize;

/// The witness a fact rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A seed document in spec/seeds, by its number ("001").
    Seed(String),
    /// The full PTX ISA documentation, by its version ("PTX ISA 9.1").
    Doc(String),
    /// An observation of ptxas, by its release ("13.5").
    Ptxas(String),
    /// A measurement on a GPU, by its architecture ("sm_90"); the section names the
    /// evidence file and line under vectors/silicon/.
    Silicon(String),
    /// What a compiler emitted, by its recorded folder under vectors/clients/
    /// ("llvm-19.1.7"); the section names the module and line.
    Compiler(String),
}

/// A citation: the witness, plus where in it and what it says.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawSource")]
pub struct Source {
    /// The witness.
    pub origin: Origin,
    /// The section or heading, e.g. "Target ISA Notes".
    pub section: Option<String>,
    /// The witness's own words, verbatim.
    pub quote: Option<String>,
    /// Our remark on it.
    pub note: Option<String>,
}

/// The on-disk shape: exactly one of `seed`, `doc`, `ptxas`, `silicon`, `compiler`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSource {
    seed: Option<String>,
    doc: Option<String>,
    ptxas: Option<String>,
    silicon: Option<String>,
    compiler: Option<String>,
    section: Option<String>,
    quote: Option<String>,
    note: Option<String>,
}

impl TryFrom<RawSource> for Source {
    type Error = String;

    fn try_from(raw: RawSource) -> Result<Self, String> {
        let origin = match (raw.seed, raw.doc, raw.ptxas, raw.silicon, raw.compiler) {
            (Some(s), None, None, None, None) => Origin::Seed(s),
            (None, Some(d), None, None, None) => Origin::Doc(d),
            (None, None, Some(p), None, None) => Origin::Ptxas(p),
            (None, None, None, Some(a), None) => Origin::Silicon(a),
            (None, None, None, None, Some(c)) => Origin::Compiler(c),
            _ => {
                return Err(
                    "a source names exactly one of `seed` (a seed number such as \"001\"), \
                            `doc` (\"PTX ISA 9.1\"), `ptxas` (a release such as \"13.5\"), \
                            `silicon` (an architecture such as \"sm_90\") or `compiler` (a folder \
                            of vectors/clients such as \"llvm-19.1.7\")"
                        .to_owned(),
                )
            }
        };
        Ok(Source {
            origin,
            section: raw.section,
            quote: raw.quote,
            note: raw.note,
        })
    }
}

impl Source {
    /// The seed number, when the witness is a seed document.
    pub fn seed(&self) -> Option<&str> {
        match &self.origin {
            Origin::Seed(s) => Some(s),
            _ => None,
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.origin {
            Origin::Seed(s) => write!(f, "seed {s}")?,
            Origin::Doc(d) => write!(f, "{d}")?,
            Origin::Ptxas(p) => write!(f, "ptxas {p}")?,
            Origin::Silicon(a) => write!(f, "silicon {a}")?,
            Origin::Compiler(c) => write!(f, "compiler {c}")?,
        }
        if let Some(section) = &self.section {
            write!(f, ", {section}")?;
        }
        Ok(())
    }
}
