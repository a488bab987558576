//! sm_90's choices for the memory reductions, each measured
//! (vectors/silicon/sm_90/, replayed by the tests).

use super::{Element, KeptNan, Reduction, Space};
use crate::float::{self, Format, Ftz, MinMaxMode, MinMaxNan, NanOut};

/// The NaN sm_90 returns for an f64 add that is invalid (inf + −inf): the sign
/// bit set, the quiet bit and nothing else (silicon: red.global.add.f64 and
/// red.shared.add.f64 of 0x7ff0… and 0xfff0… give 0xfff8000000000000).
pub const F64_DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;

/// Whether an f32 add flushes subnormals on sm_90, by the engine's
/// `sm90_f32_flush` (atom: as red, until its own silicon runs say otherwise;
/// vectors.json holds them).
// A generic address behaves as the space it points into (measured in every
// window); `Reduction::element` asks for each, and `Generic` alone is read as
// global.
pub fn flushes(r: &Reduction) -> bool {
    if r.element != Element::Float(Format::F32) || r.noftz {
        return false;
    }
    r.engine
        .sm90_f32_flush
        .at(r.space, r.engine.generic_points_global(r.vector()))
        .unwrap_or(true)
}

/// `mem + operand` as sm_90 computes it, NaN bits included.
// Measured: every f16, bf16 and f32 add whose result is NaN gives the canonical
// NaN (0x7fff, 0x7fffffff), signalling inputs included. f64 keeps NaN payloads:
// to global memory (red and the bulk reduce) the operand's NaN wins over the
// memory's and a signalling NaN stays signalling; to shared memory the memory's
// NaN wins and is quieted. An invalid f64 add gives [`F64_DEFAULT_NAN`].
pub fn add(r: &Reduction, fmt: Format, mem: u64, operand: u64) -> u64 {
    let ftz = if flushes(r) {
        Ftz::Flush
    } else {
        Ftz::Preserve
    };
    let sum = float::add(fmt, mem, operand, ftz, NanOut::Canonical);
    if fmt != Format::F64 || !fmt.is_nan(sum) {
        return sum;
    }
    let (m, o) = (fmt.is_nan(mem), fmt.is_nan(operand));
    match r.space {
        Space::SharedCta | Space::SharedCluster if r.engine.sm90_f64_shared_nan == KeptNan::Memory => match (m, o) {
            (true, _) => fmt.quiet(mem),
            (false, true) => fmt.quiet(operand),
            (false, false) => F64_DEFAULT_NAN,
        },
        _ => match (o, m) {
            (true, _) => operand,
            (false, true) => mem,
            (false, false) => F64_DEFAULT_NAN,
        },
    }
}

/// How a 16-bit min/max treats NaN and zeros on sm_90.
// Measured on red.global.v2.{f16,bf16,f16x2,bf16x2}.{min,max}.noftz and
// cp.reduce.async.bulk.{min,max}.{f16,bf16}: a NaN operand, signalling or
// quiet, yields the other operand; two NaNs the canonical NaN; −0 < +0 in either
// order; subnormals kept.
pub fn min_max_mode(_r: &Reduction) -> MinMaxMode {
    MinMaxMode {
        ftz: Ftz::Preserve,
        nan: MinMaxNan::Ignore,
        abs: false,
    }
}
