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
