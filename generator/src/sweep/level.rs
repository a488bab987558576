//! The CPU's instruction-set levels that the sweeps' SIMD code is compiled for, and
//! the one run-time detection of each. Both fast oracles choose from these: the
//! 16-bit kernels (`sweep::fast`) have code for every level; the wide sweeps' row
//! loop (`sweep::wide`) has an AVX-512 and an AVX2 compilation, which
//! [`Level::compiled_as`] maps the levels onto.

use std::fmt;

/// The environment variable that forces a level (the 16-bit sweeps' replays and
/// `ptxvec bench`).
pub const LEVEL_VAR: &str = "PTXVEC_SWEEP_LEVEL";

/// An instruction-set level, best first. Each level's features include those of
/// every level after it but the portable one's (none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// AVX-512 F, BW, DQ, VL and FP16: f16 adds in f16.
    Avx512Fp16,
    /// AVX-512 F, BW, DQ and VL: adds through f32, 8-lane 64-bit digest.
    Avx512,
    /// AVX2 and F16C: adds through f32, 4-lane digest.
    Avx2F16c,
    /// Plain Rust: host f32 adds, integer rounding, scalar digest.
    Portable,
}

/// A level that cannot be had: forced by a name no level has, or missing on this
/// CPU.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LevelError {
    /// `PTXVEC_SWEEP_LEVEL` names no level.
    #[error(
        "{LEVEL_VAR}={0:?}: no such level (expected one of avx512fp16, avx512, avx2, portable)"
    )]
    Unknown(String),
    /// The level needs instructions this CPU lacks.
    #[error("sweep level {0} is not available on this CPU")]
    Unavailable(Level),
}

impl Level {
    /// Every level, best first.
    pub const ALL: &'static [Level] = &[
        Level::Avx512Fp16,
        Level::Avx512,
        Level::Avx2F16c,
        Level::Portable,
    ];

    /// The name `PTXVEC_SWEEP_LEVEL` takes and reports print.
    pub fn name(self) -> &'static str {
        match self {
            Level::Avx512Fp16 => "avx512fp16",
            Level::Avx512 => "avx512",
            Level::Avx2F16c => "avx2",
            Level::Portable => "portable",
        }
    }

    /// Whether this CPU has the level's features (run-time detection). The
    /// `unsafe` calls into `#[target_feature]` code rely on this answer.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let avx512 = || has!("avx512f") && has!("avx512bw") && has!("avx512dq") && has!("avx512vl");
            match self {
                Level::Avx512Fp16 => avx512() && has!("avx512fp16"),
                Level::Avx512 => avx512(),
                Level::Avx2F16c => has!("avx2") && has!("f16c"),
                Level::Portable => true,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Level::Portable
        }
    }

    /// The levels this CPU runs, best first.
    pub fn available_all() -> Vec<Level> {
        Level::ALL.iter().copied().filter(|l| l.available()).collect()
    }

    /// The best level this CPU runs.
    pub fn best() -> Level {
        Level::available_all()
            .first()
            .copied()
            .unwrap_or(Level::Portable)
    }

    /// The level a forcing value names (`None` or empty: the best), which must be
    /// available here.
    pub fn choose(forced: Option<&str>) -> Result<Level, LevelError> {
        let name = match forced.map(str::trim) {
            None | Some("") => return Ok(Level::best()),
            Some(n) => n,
        };
        let level = Level::ALL
            .iter()
            .copied()
            .find(|l| l.name() == name)
            .ok_or_else(|| LevelError::Unknown(name.to_owned()))?;
        if level.available() {
            Ok(level)
        } else {
            Err(LevelError::Unavailable(level))
        }
    }

    /// The level `PTXVEC_SWEEP_LEVEL` forces, or the best.
    pub fn from_env() -> Result<Level, LevelError> {
        Level::choose(std::env::var(LEVEL_VAR).ok().as_deref())
    }

    /// The level whose compilation runs where code exists only for some of
    /// `compiled` (best first, ending with the portable level): the best of them
    /// whose features this level includes.
    pub fn compiled_as(self, compiled: &[Level]) -> Level {
        compiled
            .iter()
            .copied()
            .find(|&c| c >= self)
            .unwrap_or(Level::Portable)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_named_forced_and_refused() {
        for &l in Level::ALL {
            match Level::choose(Some(l.name())) {
                Ok(got) => assert!(l.available() && got == l, "{l}"),
                Err(e) => assert!(!l.available() && e == LevelError::Unavailable(l), "{l}: {e}"),
            }
        }
        assert_eq!(Level::choose(None), Ok(Level::best()));
        assert_eq!(Level::choose(Some(" ")), Ok(Level::best()));
        let e = Level::choose(Some("sse9")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "PTXVEC_SWEEP_LEVEL=\"sse9\": no such level (expected one of avx512fp16, avx512, avx2, portable)"
        );
        assert_eq!(Level::best(), Level::available_all()[0]);
        assert!(Level::Portable.available());
    }

    /// A better level has every feature of a worse one (but the portable level's
    /// none), so a level that is available makes every worse one available.
    #[test]
    fn the_levels_nest() {
        for (i, &l) in Level::ALL.iter().enumerate() {
            if l.available() {
                for &worse in &Level::ALL[i..] {
                    assert!(worse.available(), "{l} without {worse}");
                }
            }
        }
    }

    #[test]
    fn a_level_runs_the_best_compilation_it_includes() {
        let wide = [Level::Avx512, Level::Avx2F16c, Level::Portable];
        let table = [
            (Level::Avx512Fp16, Level::Avx512),
            (Level::Avx512, Level::Avx512),
            (Level::Avx2F16c, Level::Avx2F16c),
            (Level::Portable, Level::Portable),
        ];
        for (l, want) in table {
            assert_eq!(l.compiled_as(&wide), want, "case: {l}");
        }
        assert_eq!(Level::Avx512.compiled_as(&[Level::Portable]), Level::Portable);
    }
}
