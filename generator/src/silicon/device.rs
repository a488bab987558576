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
    /// Loads `module`, runs `entry(buf)` with one zeroed buffer of `len` bytes on
    /// `grid` blocks of `block` threads, and returns the buffer afterwards: the
    /// calling convention of the self-checking modules (crate::selfcheck).
    pub fn run_one(
        &self,
        module: &str,
        entry: &str,
        len: usize,
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
            .alloc_zeros::<u8>(len.max(1))
            .map_err(ctx("allocating"))?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.stream.launch_builder(&f);
        launch.arg(&buf);
        // SAFETY: the self-checking entries take one .u64 pointer and write at most
        // `len` bytes from it for the launch shape they state (selfcheck::ptx::Launch).
        unsafe { launch.launch(cfg) }.map_err(ctx("launching"))?;
        self.stream
            .synchronize()
            .map_err(ctx("running the kernel"))?;
        self.stream.clone_dtoh(&buf).map_err(ctx("copying out"))
    }

    /// Loads a sweep module (crate::silicon::sweep::module): its entries `init`,
    /// `reduce` and `digest`, a chunk buffer for `chunk_pairs` pairs of `stride`
    /// bytes, and `rows` row digests.
    pub fn sweep_module(
        &self,
        module: &str,
        chunk_pairs: u32,
        stride: u32,
        rows: usize,
    ) -> Result<SweepModule, DeviceError> {
        let m = self
            .ctx
            .load_module(Ptx::from_src(module))
            .map_err(ctx("loading the module"))?;
        let entry = |name: &'static str| m.load_function(name).map_err(ctx(name));
        let entries = [entry("init")?, entry("reduce")?, entry("digest")?];
        let buf = self
            .stream
            .alloc_zeros::<u8>(chunk_pairs as usize * stride as usize)
            .map_err(ctx("allocating the chunk"))?;
        let rows = self
            .stream
            .alloc_zeros::<u64>(rows)
            .map_err(ctx("allocating the row digests"))?;
        Ok(SweepModule {
            stream: self.stream.clone(),
            entries,
            buf,
            rows,
            stride,
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
}

/// A sweep module on the device, with its chunk buffer and row digests.
pub struct SweepModule {
    stream: Arc<CudaStream>,
    entries: [CudaFunction; 3],
    buf: CudaSlice<u8>,
    rows: CudaSlice<u64>,
    stride: u32,
}

impl SweepModule {
    /// Launches `entry(buf, rows, base)` over `pairs` pairs from pair `base`, in
    /// blocks of `threads`: an error where `pairs` is no multiple of `threads` or
    /// its words would not fit the chunk buffer.
    pub fn launch(
        &mut self,
        entry: SweepEntry,
        base: u32,
        pairs: u32,
        threads: u32,
    ) -> Result<(), DeviceError> {
        let bytes = u64::from(pairs) * u64::from(self.stride);
        // A pair's row is its top 16 bits: every row of a sweep needs a digest.
        if threads == 0
            || !pairs.is_multiple_of(threads)
            || bytes > self.buf.len() as u64
            || self.rows.len() < 1 << 16
        {
            return Err(DeviceError::Shape(format!(
                "{pairs} pairs in blocks of {threads} do not fit a chunk of {} bytes",
                self.buf.len()
            )));
        }
        let cfg = LaunchConfig {
            grid_dim: (pairs / threads, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let f = &self.entries[entry as usize];
        let mut l = self.stream.launch_builder(f);
        l.arg(&self.buf).arg(&self.rows).arg(&base);
        // SAFETY: every sweep entry takes (.u64 buf, .u64 rows, .u32 base), as
        // silicon::sweep::module emits them, and thread t of the grid touches buf at
        // [t * stride, (t + 1) * stride), checked above to lie in the buffer, and one
        // row digest of the pair's row (`(base + t) >> 16`), below the 2^16 rows
        // a sweep allocates.
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
