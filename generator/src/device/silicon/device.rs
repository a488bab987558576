//! The CUDA driver, through cudarc: open the device, load a PTX module, copy
//! buffers in, launch, copy the buffers back. libcuda is loaded at run time, so
//! this builds (and its callers fail cleanly) on a machine without a GPU.
//!
//! The one module of the crate with `unsafe` code. Kernel launches are unsafe in
//! cudarc: the driver cannot check an argument list against the kernel. So a
//! kernel is launched only through a function here that knows its calling
//! convention (the self-checking entries, the sweep entries) and checks what the
//! kernel will touch against the buffers it is given.
#![allow(unsafe_code)]

use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

/// What can go wrong on the device.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// No libcuda on this machine.
    #[error(
        "no CUDA driver: libcuda could not be loaded (this needs a machine with an NVIDIA GPU)"
    )]
    NoDriver,
    /// A launch that would touch memory outside its buffers.
    #[error("{0}")]
    Shape(String),
    /// A driver call failed.
    #[error("CUDA driver: {what}: {source}")]
    Driver {
        /// The step that failed.
        what: &'static str,
        /// The driver's error.
        source: result::DriverError,
    },
}

impl From<DeviceError> for crate::error::Error {
    fn from(e: DeviceError) -> Self {
        crate::error::Error::Device(Box::new(e))
    }
}

impl DeviceError {
    /// Where the driver refused: its error's name (`CUDA_ERROR_ILLEGAL_INSTRUCTION`)
    /// and the step that got it (`running the kernel`); `None` for an error of ours.
    pub fn driver_code(&self) -> Option<(String, &'static str)> {
        match self {
            // The driver's code, as its enum names it (cuGetErrorName's words).
            DeviceError::Driver { what, source } => Some((format!("{:?}", source.0), *what)),
            DeviceError::NoDriver | DeviceError::Shape(_) => None,
        }
    }
}

fn ctx(what: &'static str) -> impl FnOnce(result::DriverError) -> DeviceError {
    move |source| DeviceError::Driver { what, source }
}

/// The device and driver, as the evidence header names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// `cuDeviceGetName`.
    pub name: String,
    /// (major, minor).
    pub cc: (i32, i32),
    /// `cuDriverGetVersion`.
    pub driver_api: i32,
    /// The kernel module's version from /proc/driver/nvidia/version, if readable.
    pub driver: Option<String>,
}

impl DeviceInfo {
    /// The compute capability as the evidence writes it: `9.0`.
    pub fn cc_text(&self) -> String {
        format!("{}.{}", self.cc.0, self.cc.1)
    }
}

/// The line each runner announces the device with.
impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (cc {}), driver {} (API {})",
            self.name,
            self.cc_text(),
            self.driver.as_deref().unwrap_or("?"),
            self.driver_api
        )
    }
}

/// An open device 0.
#[derive(Debug)]
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

impl Device {
    /// Opens device 0, or says why not.
    pub fn open() -> Result<Device, DeviceError> {
        // cudarc panics when libcuda is missing; ask first.
        // SAFETY: only tries to dlopen the library and drops it.
        if !unsafe { sys::is_culib_present() } {
            return Err(DeviceError::NoDriver);
        }
        let ctx = CudaContext::new(0).map_err(ctx("opening device 0"))?;
        let stream = ctx.default_stream();
        Ok(Device { ctx, stream })
    }

    /// Names the device and driver.
    pub fn info(&self) -> Result<DeviceInfo, DeviceError> {
        let name = self.ctx.name().map_err(ctx("cuDeviceGetName"))?;
        let cc = self
            .ctx
            .compute_capability()
            .map_err(ctx("compute capability"))?;
        let mut v = 0i32;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut v) }
            .result()
            .map_err(ctx("cuDriverGetVersion"))?;
        Ok(DeviceInfo {
            name,
            cc,
            driver_api: v,
            driver: kernel_module_version(),
        })
    }
}

impl Device {
    /// Loads `module`, runs `entry(buf)` with one buffer of `len` bytes, each `fill`,
    /// on `grid` blocks of `block` threads, and returns the buffer afterwards: the
    /// calling convention of the self-checking modules (crate::device::selfcheck; the raw
    /// entry's buffer starts as `selfcheck::raw::POISON`, the check entry's as 0).
    pub fn run_one(
        &self,
        module: &str,
        entry: &str,
        (len, fill): (usize, u8),
        grid: u32,
        block: u32,
    ) -> Result<Vec<u8>, DeviceError> {
        let m = self
            .ctx
            .load_module(Ptx::from_src(module))
            .map_err(ctx("loading the module"))?;
        let f = m.load_function(entry).map_err(ctx("finding the entry"))?;
        let buf = self
            .stream
            .clone_htod(&vec![fill; len.max(1)])
            .map_err(ctx("allocating"))?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.stream.launch_builder(&f);
        launch.arg(&buf);
        // SAFETY: the self-checking entries take one .u64 pointer and write at most
        // `len` bytes from it for the launch shape they state (selfcheck::emit::Launch).
        unsafe { launch.launch(cfg) }.map_err(ctx("launching"))?;
        self.stream
            .synchronize()
            .map_err(ctx("running the kernel"))?;
        self.stream.clone_dtoh(&buf).map_err(ctx("copying out"))
    }

    /// Loads a sweep module (crate::sweep::gpu::bits16::module, crate::sweep::gpu::wide::module):
    /// its `entries`, a chunk buffer for `shape.chunk_pairs` pairs of `shape.stride`
    /// bytes, and `shape.rows` row digests.
    pub fn sweep_module(
        &self,
        module: &str,
        entries: &[SweepEntry],
        shape: SweepShape,
    ) -> Result<SweepModule, DeviceError> {
        if shape.base_bits != 32 && shape.base_bits != 64 || shape.row_shift >= 64 {
            return Err(DeviceError::Shape(format!(
                "no sweep module has the shape {shape:?}"
            )));
        }
        let m = self
            .ctx
            .load_module(Ptx::from_src(module))
            .map_err(ctx("loading the module"))?;
        let mut functions = Vec::new();
        for &e in entries {
            let f = m.load_function(e.name()).map_err(ctx(e.name()))?;
            functions.push((e, f));
        }
        let buf = self
            .stream
            .alloc_zeros::<u8>(shape.chunk_pairs as usize * shape.stride as usize)
            .map_err(ctx("allocating the chunk"))?;
        let rows = self
            .stream
            .alloc_zeros::<u64>(shape.rows)
            .map_err(ctx("allocating the row digests"))?;
        Ok(SweepModule {
            stream: self.stream.clone(),
            entries: functions,
            buf,
            rows,
            shape,
        })
    }
}

/// An entry of a sweep module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepEntry {
    /// Writes the memory words of the chunk's pairs.
    Init,
    /// Runs the instruction on them.
    Reduce,
    /// Adds each pair's digest term into its row's digest.
    Digest,
    /// Writes each pair's operand value (a wide sweep's set, checked on the CPU).
    Values,
}

impl SweepEntry {
    /// The entry's name in the module.
    pub fn name(self) -> &'static str {
        match self {
            SweepEntry::Init => "init",
            SweepEntry::Reduce => "reduce",
            SweepEntry::Digest => "digest",
            SweepEntry::Values => "values",
        }
    }
}

/// What a sweep module's buffers hold and how its entries are launched: the
/// calling convention its emitter and [`SweepModule::launch`] share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepShape {
    /// The most pairs one launch covers; the chunk buffer holds their words.
    pub chunk_pairs: u32,
    /// Bytes of one pair's word.
    pub stride: u32,
    /// Threads per block, every launch: the module's shared buffers and its bulk
    /// reductions are sized for exactly this many.
    pub threads: u32,
    /// Pair `p`'s row digest is `rows[p >> row_shift]`.
    pub row_shift: u32,
    /// Row digests.
    pub rows: usize,
    /// The width of the entries' `p_base` parameter: 32 (`.u32`) or 64 (`.u64`).
    pub base_bits: u32,
}

/// A sweep module on the device, with its chunk buffer and row digests.
pub struct SweepModule {
    stream: Arc<CudaStream>,
    entries: Vec<(SweepEntry, CudaFunction)>,
    buf: CudaSlice<u8>,
    rows: CudaSlice<u64>,
    shape: SweepShape,
}

impl SweepModule {
    /// Launches `entry(buf, rows, base)` over `pairs` pairs from pair `base`, in
    /// blocks of the shape's threads: an error where the entry was not loaded,
    /// `pairs` is no multiple of the threads, the words would not fit the chunk
    /// buffer, a pair's row has no digest, or `base` and the pairs outrun the
    /// parameter's width.
    pub fn launch(&mut self, entry: SweepEntry, base: u64, pairs: u32) -> Result<(), DeviceError> {
        let sh = self.shape;
        let bad = |why: String| Err(DeviceError::Shape(why));
        let Some((_, f)) = self.entries.iter().find(|(e, _)| *e == entry) else {
            return bad(format!("the module has no entry {}", entry.name()));
        };
        let bytes = u64::from(pairs) * u64::from(sh.stride);
        if sh.threads == 0
            || pairs == 0
            || !pairs.is_multiple_of(sh.threads)
            || bytes > self.buf.len() as u64
        {
            return bad(format!(
                "{pairs} pairs in blocks of {} do not fit a chunk of {} bytes",
                sh.threads,
                self.buf.len()
            ));
        }
        // The last pair, and every row up to its, must have a digest; a 32-bit base
        // must not wrap when a thread adds its index.
        let end = u128::from(base) + u128::from(pairs);
        let rows_end = (self.rows.len() as u128) << sh.row_shift;
        let base_end = 1u128 << sh.base_bits;
        if end > rows_end || end > base_end {
            return bad(format!(
                "pairs {base:#x}..{end:#x} reach past the {} rows of 2^{} pairs, or past a {}-bit base",
                self.rows.len(),
                sh.row_shift,
                sh.base_bits
            ));
        }
        let cfg = LaunchConfig {
            grid_dim: (pairs / sh.threads, 1, 1),
            block_dim: (sh.threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let base32 = base as u32;
        let mut l = self.stream.launch_builder(f);
        l.arg(&self.buf).arg(&self.rows);
        if sh.base_bits == 32 {
            l.arg(&base32);
        } else {
            l.arg(&base);
        }
        // SAFETY: every sweep entry takes (.u64 buf, .u64 rows, p_base) with p_base
        // `.u32` or `.u64` as `base_bits` says, as sweep::gpu::bits16::module and
        // sweep::gpu::wide::module emit them for the shape they pass. Thread t of the
        // grid touches buf at [t * stride, (t + 1) * stride), and the bulk forms'
        // thread 0 of block k the words of its block's threads, all below
        // pairs * stride, checked above to lie in the buffer; shared memory at
        // [tid * stride, (tid + 1) * stride) of a buffer the module sizes for
        // `threads`, the block size used here; and one row digest, of the pair's
        // row `(base + t) >> row_shift`, below `rows` as checked above. The
        // modules' tables are read at masked indices inside their lengths.
        unsafe { l.launch(cfg) }.map_err(ctx("launching"))?;
        Ok(())
    }

    /// Zeroes the row digests.
    pub fn zero_rows(&mut self) -> Result<(), DeviceError> {
        self.stream
            .memset_zeros(&mut self.rows)
            .map_err(ctx("zeroing the row digests"))
    }

    /// Waits for every launch.
    pub fn synchronize(&self) -> Result<(), DeviceError> {
        self.stream
            .synchronize()
            .map_err(ctx("running the kernels"))
    }

    /// The row digests.
    pub fn rows(&self) -> Result<Vec<u64>, DeviceError> {
        self.stream
            .clone_dtoh(&self.rows)
            .map_err(ctx("copying the row digests out"))
    }

    /// The first `bytes` of the chunk buffer.
    pub fn chunk(&self, bytes: usize) -> Result<Vec<u8>, DeviceError> {
        self.stream
            .clone_dtoh(&self.buf.slice(0..bytes.min(self.buf.len())))
            .map_err(ctx("copying the chunk out"))
    }
}

impl Device {
    /// Streaming multiprocessors on the device: what a launch is sized by.
    pub fn multiprocessors(&self) -> Result<u32, DeviceError> {
        let n = self
            .ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(ctx("multiprocessor count"))?;
        Ok(u32::try_from(n).unwrap_or(1).max(1))
    }

    /// Loads a litmus module (crate::device::silicon::litmus::emit::module) and
    /// allocates the buffers its entries share, every one zero, for `shape`.
    pub fn litmus_module(&self, module: &str, shape: LitmusShape) -> Result<LitmusModule, DeviceError> {
        let bad = |why: String| Err(DeviceError::Shape(why));
        let threads = u64::from(shape.ctas) * u64::from(shape.block);
        let loc_words = u64::from(shape.locs) * u64::from(shape.instances) * u64::from(shape.stride);
        if shape.block == 0
            || !shape.block.is_multiple_of(32)
            || shape.cluster == 0
            || !shape.ctas.is_multiple_of(shape.cluster)
            || shape.instances == 0
            || shape.stride == 0
            || shape.width == 0
            || !shape.scratch_lines.is_power_of_two()
            || u64::from(shape.instances) >= 1 << (32 - LITMUS_THREAD_BITS)
            || loc_words > u64::from(u32::MAX)
        {
            return bad(format!("no litmus module has the shape {shape:?}"));
        }
        let m = self
            .ctx
            .load_module(Ptx::from_src(module))
            .map_err(ctx("loading the module"))?;
        let litmus = m.load_function("litmus").map_err(ctx("finding the entry litmus"))?;
        let collect = m.load_function("collect").map_err(ctx("finding the entry collect"))?;
        let alloc = |n: u64, what: &'static str| self.stream.alloc_zeros::<u32>(n.max(1) as usize).map_err(ctx(what));
        Ok(LitmusModule {
            stream: self.stream.clone(),
            litmus,
            collect,
            roles: alloc(threads, "allocating the roles")?,
            locs: alloc(loc_words, "allocating the locations")?,
            out: alloc(u64::from(shape.instances) * u64::from(shape.width), "allocating the outputs")?,
            sync: alloc(u64::from(shape.instances), "allocating the arrival counts")?,
            scratch: alloc(u64::from(shape.scratch_lines) * 32, "allocating the stress lines")?,
            shape,
        })
    }
}

/// The role of a stress thread in a litmus module's role table; any other role is
/// `instance << LITMUS_THREAD_BITS | thread`.
pub const LITMUS_STRESS: u32 = u32::MAX;
/// Bits of a litmus role that hold the test thread.
pub const LITMUS_THREAD_BITS: u32 = 3;

/// What a litmus module's buffers hold and how it is launched: the calling
/// convention its emitter (crate::device::silicon::litmus::emit) and
/// [`LitmusModule::run`] share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LitmusShape {
    /// CTAs in the grid: a multiple of `cluster`.
    pub ctas: u32,
    /// Threads per CTA: a multiple of 32.
    pub block: u32,
    /// CTAs per cluster, as the module's `.reqnctapercluster` fixes it (1: none).
    pub cluster: u32,
    /// Instances a launch runs.
    pub instances: u32,
    /// The test's threads: a role's thread is below it.
    pub threads: u32,
    /// Locations of an instance.
    pub locs: u32,
    /// Words of an instance's output row (registers, then locations).
    pub width: u32,
    /// Words between two instances' copies of a location.
    pub stride: u32,
    /// 128-byte lines of the stress region: a power of two.
    pub scratch_lines: u32,
}

/// A litmus module on the device, with its buffers.
pub struct LitmusModule {
    stream: Arc<CudaStream>,
    litmus: CudaFunction,
    collect: CudaFunction,
    roles: CudaSlice<u32>,
    locs: CudaSlice<u32>,
    out: CudaSlice<u32>,
    sync: CudaSlice<u32>,
    scratch: CudaSlice<u32>,
    shape: LitmusShape,
}

impl LitmusModule {
    /// One launch: `roles` (one per thread of the grid), `litmus`, then `collect`;
    /// returns every instance's output row, and leaves the locations and arrival
    /// counts zero for the next launch. An error where a role names a thread or an
    /// instance the shape does not have, or the table is not one role a thread.
    pub fn run(&mut self, roles: &[u32], stress_iters: u32, seed: u32) -> Result<Vec<u32>, DeviceError> {
        let sh = self.shape;
        let threads = sh.ctas as usize * sh.block as usize;
        let mask = (1u32 << LITMUS_THREAD_BITS) - 1;
        let fits = |r: u32| {
            r == LITMUS_STRESS || ((r & mask) < sh.threads && (r >> LITMUS_THREAD_BITS) < sh.instances)
        };
        if roles.len() != threads || !roles.iter().all(|&r| fits(r)) {
            return Err(DeviceError::Shape(format!(
                "a role table of {} entries for {threads} threads, or a role outside {} threads of {} instances",
                roles.len(),
                sh.threads,
                sh.instances
            )));
        }
        self.stream
            .memcpy_htod(roles, &mut self.roles)
            .map_err(ctx("copying the roles in"))?;
        let cfg = LaunchConfig {
            grid_dim: (sh.ctas, 1, 1),
            block_dim: (sh.block, 1, 1),
            shared_mem_bytes: 0,
        };
        let lines = sh.scratch_lines - 1;
        let mut l = self.stream.launch_builder(&self.litmus);
        l.arg(&self.roles)
            .arg(&self.locs)
            .arg(&self.out)
            .arg(&self.sync)
            .arg(&self.scratch)
            .arg(&sh.instances)
            .arg(&sh.stride)
            .arg(&lines)
            .arg(&stress_iters)
            .arg(&seed);
        // SAFETY: `litmus` takes (.u64 roles, locs, out, sync, scratch, .u32
        // instances, stride, lines, iters, seed) as litmus::emit::module writes it
        // for a test whose layout gave this shape. Thread g reads roles[g], below
        // ctas * block, the table's length, checked above; a test thread of
        // instance i < instances (checked above) touches sync[i], locs at
        // (l * instances + i) * stride for l below `locs` (the buffer holds
        // locs * instances * stride words) and out[i * width .. (i + 1) * width];
        // a stress thread scratch at (line & lines) * 32 + lane, below
        // scratch_lines * 32. The module's cluster size divides `ctas`.
        unsafe { l.launch(cfg) }.map_err(ctx("launching litmus"))?;
        let cfg = LaunchConfig {
            grid_dim: (sh.instances.div_ceil(256), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut c = self.stream.launch_builder(&self.collect);
        c.arg(&self.locs).arg(&self.out).arg(&self.sync).arg(&sh.instances).arg(&sh.stride);
        // SAFETY: `collect` takes (.u64 locs, out, sync, .u32 instances, stride);
        // thread i < instances (it returns otherwise) touches the same words of
        // locs, out and sync as instance i's test threads, in bounds as above.
        unsafe { c.launch(cfg) }.map_err(ctx("launching collect"))?;
        self.stream.clone_dtoh(&self.out).map_err(ctx("running the kernels"))
    }
}

/// "580.65.06" from "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  ...".
fn kernel_module_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    parse_module_version(&text)
}

fn parse_module_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.contains("Kernel Module"))?;
    let rest = line.split("Kernel Module").nth(1)?;
    let v = rest.split_whitespace().next()?;
    // Open kernel modules say "for x86_64  580.65.06"; skip words without a digit.
    let v = if v.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        v
    } else {
        rest.split_whitespace()
            .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))?
    };
    Some(v.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_version_lines() {
        let table = [
            ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:25 UTC 2025\n", Some("580.65.06")),
            ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.82.07  Release Build\n", Some("580.82.07")),
            ("nothing here\n", None),
        ];
        for (text, want) in table {
            assert_eq!(
                parse_module_version(text).as_deref(),
                want,
                "case: {text:?}"
            );
        }
    }
}
