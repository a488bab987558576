//! The CUDA driver, through cudarc: open the device, load a PTX module, copy
//! buffers in, launch, copy the buffers back. libcuda is loaded at run time, so
//! this builds (and its callers fail cleanly) on a machine without a GPU.
// Kernel launches are unsafe in cudarc: the driver cannot check the argument
// list against the kernel. Every kernel here is ours and takes (u64, u64, u32).
#![allow(unsafe_code)]

use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

/// What can go wrong on the device.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No libcuda on this machine.
    #[error("no CUDA driver: libcuda could not be loaded (silicon-probe needs a machine with an NVIDIA GPU)")]
    NoDriver,
    /// A driver call failed.
    #[error("CUDA driver: {what}: {source}")]
    Driver {
        /// The step that failed.
        what: &'static str,
        /// The driver's error.
        source: result::DriverError,
    },
}

fn ctx(what: &'static str) -> impl FnOnce(result::DriverError) -> GpuError {
    move |source| GpuError::Driver { what, source }
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
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

impl Gpu {
    /// Opens device 0, or says why not.
    pub fn open() -> Result<Gpu, GpuError> {
        // cudarc panics when libcuda is missing; ask first.
        // SAFETY: only tries to dlopen the library and drops it.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        let ctx = CudaContext::new(0).map_err(ctx("opening device 0"))?;
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream })
    }

    /// Names the device and driver.
    pub fn info(&self) -> Result<DeviceInfo, GpuError> {
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

    /// Loads `module`, runs entry `entry(buf0, buf1, n)` on `grid` blocks of
    /// `block` threads, and returns both buffers as they are afterwards.
    pub fn run(
        &self,
        module: &str,
        entry: &str,
        bufs: [&[u8]; 2],
        n: u32,
        grid: u32,
        block: u32,
    ) -> Result<[Vec<u8>; 2], GpuError> {
        let m = self
            .ctx
            .load_module(Ptx::from_src(module))
            .map_err(ctx("loading the module"))?;
        let f = m.load_function(entry).map_err(ctx("finding the entry"))?;
        let b0 = self.stream.clone_htod(bufs[0]).map_err(ctx("copying in"))?;
        let b1 = self.stream.clone_htod(bufs[1]).map_err(ctx("copying in"))?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.stream.launch_builder(&f);
        launch.arg(&b0).arg(&b1).arg(&n);
        // SAFETY: every probe kernel's parameters are (.u64, .u64, .u32), and it
        // touches only [buf, buf + len) of each buffer for the n it is given.
        unsafe { launch.launch(cfg) }.map_err(ctx("launching"))?;
        self.stream
            .synchronize()
            .map_err(ctx("running the kernel"))?;
        let o0 = self.stream.clone_dtoh(&b0).map_err(ctx("copying out"))?;
        let o1 = self.stream.clone_dtoh(&b1).map_err(ctx("copying out"))?;
        Ok([o0, o1])
    }
}

impl Gpu {
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
    ) -> Result<Vec<u8>, GpuError> {
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
