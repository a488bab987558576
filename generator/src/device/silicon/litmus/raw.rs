//! The raw litmus module: one test's instances in a single entry
//! `ptxvec_raw(.param .u64 out)`, the runner protocol's kernel (runner/README.md),
//! so that any engine a runner drives can run the litmus tests
//! (`ptxvec litmus-engine`).
//!
//! It is [`super::emit`]'s `litmus` entry with what the host gives that entry held
//! in the module instead: the role table, drawn once from a fixed seed by
//! [`super::plan`], is `.global` data, and so are the locations and the arrival
//! counts (zero before the launch). No warp stresses memory. The collect step
//! happens in the same launch: each test thread, once done, counts itself on its
//! instance's `done` word, and the one that counts last (of whichever CTA or
//! cluster) reads the instance's final memory into its output row. Its count is an
//! `atom` between two `membar.gl` (`fence.sc.gpu`): every other thread's writes
//! precede its own fence before its count, the counts form one chain, so they
//! precede the last thread's reads (causality order, 8.10.6), which read the
//! coherence-latest values. That holds for every placement, where a CTA barrier
//! would hold only within one CTA.
//!
//! The racing start and the collect use only spellings older than the `.sem`
//! qualifiers (`atom.global.add.u32`, `ld.volatile.global.u32`, `membar.gl`), so
//! that an engine whose parser lacks those still runs the tests that do not use
//! them.

use std::fmt::Write as _;

use rand::SeedableRng;

use ptxvec_oracle::model::Litmus;

use super::emit::{self, Layout, Start};
use super::plan::{self, Grid, Placement};

/// The entry's name: the runner protocol's.
pub const ENTRY: &str = crate::device::selfcheck::emit::RAW;
/// Words between two copies of a location: each on a 128-byte line of its own.
pub const STRIDE: u32 = 32;
/// Instances come in groups of a warp's 32 lanes (the plan deals warps); `--instances`
/// is a multiple of it. A test in one warp packs fewer a warp (`32 / n` for `n`
/// threads): its module deals enough warps for the instances and leaves the
/// instances past them unrun (their roles stress, which here returns).
pub const GROUP: u32 = 32;

/// The raw module's racing start.
const RAW_START: Start = Start {
    arrive: "atom.global.add.u32 %v, [%s], 1",
    poll: "ld.volatile.global.u32 %v, [%s]",
};

/// A raw module and how to launch it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawModule {
    /// The PTX text.
    pub ptx: String,
    /// CTAs in the grid.
    pub grid: u32,
    /// Threads per CTA.
    pub block: u32,
    /// Instances the launch runs.
    pub instances: u32,
    /// The registers and locations of each instance's output row.
    pub layout: Layout,
}

impl RawModule {
    /// Bytes of the output buffer: one row of 32-bit words per instance.
    pub fn out_bytes(&self) -> usize {
        self.instances as usize * self.layout.width() * 4
    }
}

/// The raw module of `test` (with `opcodes` as [`emit::module`] takes them) that
/// runs `instances` instances (a positive multiple of [`GROUP`]) with the role
/// table drawn by `seed`, in a module of `.version version` and `.target target`;
/// with every test thread of an instance in one warp where `one_warp`.
pub fn module(
    test: &Litmus,
    opcodes: &[Vec<String>],
    one_warp: bool,
    instances: u32,
    seed: u64,
    version: &str,
    target: &str,
) -> crate::error::Result<RawModule> {
    let bad = |why: String| crate::error::Error::Input(why);
    if instances == 0 || !instances.is_multiple_of(GROUP) {
        return Err(bad(format!("{instances} instances: expected a positive multiple of {GROUP}")));
    }
    let lay = emit::checked(test, opcodes)?;
    let p = Placement::of(test, one_warp).map_err(bad)?;
    let k = p.cluster_size().max(1);
    // One round: every CTA gives a group's count of warps, and each group of
    // instances gets clusters of its own.
    let warps = p.warps_per_group().max(1);
    let groups = instances.div_ceil(p.per_group());
    let ctas = groups * p.clusters.len() as u32 * k;
    let grid = Grid { ctas, warps, test_warps: warps };
    debug_assert!(grid.instances(&p) >= instances);
    let mut roles = plan::roles(&p, &grid, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    // A last group packed short of a whole warp's worth: its instances past the
    // count do not run.
    for r in roles.iter_mut().filter(|r| **r != emit::STRESS && (**r >> emit::THREAD_BITS) >= instances) {
        *r = emit::STRESS;
    }
    let ptx = write(test, opcodes, &lay, &roles, instances, version, target)?;
    Ok(RawModule { ptx, grid: ctas, block: warps * 32, instances, layout: lay })
}

// Every `writeln!` here writes to a String, which cannot fail.
fn write(
    test: &Litmus,
    opcodes: &[Vec<String>],
    lay: &Layout,
    roles: &[u32],
    instances: u32,
    version: &str,
    target: &str,
) -> crate::error::Result<String> {
    let mut text = String::new();
    let t = &mut text;
    let _ = writeln!(t, "// Generated by `ptxvec litmus-engine`: one litmus test, {instances} instances in one launch.");
    let _ = writeln!(t, ".version {version}\n.target {target}\n.address_size 64\n");
    let _ = write!(t, ".global .align 4 .u32 ptxvec_roles[{}] = {{", roles.len());
    for (i, r) in roles.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let brk = if i % 16 == 0 { "\n\t" } else { " " };
        let _ = write!(t, "{sep}{brk}{r}");
    }
    let _ = writeln!(t, "\n}};");
    let words = lay.locs.len().max(1) * instances as usize * STRIDE as usize;
    let _ = writeln!(t, ".global .align 4 .u32 ptxvec_locs[{words}];");
    let _ = writeln!(t, ".global .align 4 .u32 ptxvec_sync[{instances}];");
    let _ = writeln!(t, ".global .align 4 .u32 ptxvec_done[{instances}];\n");
    let _ = writeln!(t, ".visible .entry {ENTRY}(.param .u64 p_out)");
    emit::write_cluster(t, lay);
    let _ = writeln!(t, "{{");
    emit::write_decls(t, lay);
    let _ = writeln!(t, "\t.reg .b64 %done;");
    let _ = writeln!(t, "\tmov.u64 %roles, ptxvec_roles;");
    emit::write_role(t);
    let _ = writeln!(
        t,
        "\tmov.u64 %locs, ptxvec_locs;\n\tld.param.u64 %out, [p_out];\n\tcvta.to.global.u64 %out, %out;\n\tmov.u64 %sync, ptxvec_sync;\n\tmov.u32 %n, {instances};\n\tmov.u32 %stride, {STRIDE};"
    );
    emit::write_body(t, test, opcodes, lay, RAW_START, "bra.uni FINISH;")?;
    // The collect, by the instance's last thread to finish.
    let _ = writeln!(
        t,
        "FINISH:\n\tmembar.gl;\n\tmov.u64 %done, ptxvec_done;\n\tmul.wide.u32 %a, %inst, 4;\n\tadd.s64 %a, %done, %a;\n\tatom.global.add.u32 %v, [%a], 1;\n\tsetp.ne.u32 %p0, %v, {};\n\t@%p0 bra STRESS;\n\tmembar.gl;",
        lay.threads - 1
    );
    for l in 0..lay.locs.len() {
        let _ = writeln!(t, "\tld.volatile.global.u32 %v, [%m{l}];\n\tst.global.u32 [%o+{}], %v;", (lay.regs.len() + l) * 4);
    }
    let _ = writeln!(t, "STRESS:\n\tret;\n}}");
    Ok(text)
}
