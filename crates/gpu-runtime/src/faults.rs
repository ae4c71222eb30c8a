//! Fault injection at the runtime's seams: with the `faults` feature (tests and the fault suite only), each seam can be made to fail as the driver would.
//!
//! Every seam is a fail point of the [`fail`](https://docs.rs/fail) crate,
//! named `gpu-runtime::<seam>` ([`Seam::name`]), and, while a thread runs a
//! named operator ([`operator`]), `gpu-runtime::<seam>@<operator>` too;
//! configure it with `fail::cfg` (`"3*off->1*return->off"`: the fourth call
//! fails, once; `"2%return"`: calls fail at random). Without the feature
//! the checks compile to nothing.

use crate::error::RuntimeError;

/// A place where the runtime calls the device and a real device may fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seam {
    /// A device buffer's allocation (from the buffer's memory resource):
    /// fails as out of memory.
    Allocate,
    /// A page-locked staging block's allocation (`cuMemHostAlloc`), for
    /// copies between the host and the device.
    AllocatePinned,
    /// A kernel launch.
    Launch,
    /// A copy from the host to the device.
    Upload,
    /// A copy from the device to the host.
    Download,
    /// A copy within device memory.
    CopyDevice,
    /// A wait for a stream's or an event's work.
    Synchronize,
    /// A kernel module's load into the device's context (on a GPU once per
    /// module and context; on the emulated device, a stream's first launch
    /// of the module's kernels).
    ModuleLoad,
    /// A kernel that faults (writes out of bounds): its launch fails with
    /// `CUDA_ERROR_ILLEGAL_ADDRESS`, and the device's context stays failed
    /// (every later call on the device fails so, as CUDA's sticky errors
    /// do) until it is rebuilt ([`crate::Device::reset`]).
    Sticky,
}

impl Seam {
    /// Every seam whose fault fails one call only (all but
    /// [`Seam::Sticky`]).
    pub const TRANSIENT: [Seam; 8] = [
        Seam::Allocate,
        Seam::AllocatePinned,
        Seam::Launch,
        Seam::Upload,
        Seam::Download,
        Seam::CopyDevice,
        Seam::Synchronize,
        Seam::ModuleLoad,
    ];

    /// The seam's fail point.
    pub fn name(self) -> &'static str {
        match self {
            Seam::Allocate => "gpu-runtime::allocate",
            Seam::AllocatePinned => "gpu-runtime::allocate-pinned",
            Seam::Launch => "gpu-runtime::launch",
            Seam::Upload => "gpu-runtime::upload",
            Seam::Download => "gpu-runtime::download",
            Seam::CopyDevice => "gpu-runtime::copy-device",
            Seam::Synchronize => "gpu-runtime::synchronize",
            Seam::ModuleLoad => "gpu-runtime::module-load",
            Seam::Sticky => "gpu-runtime::sticky",
        }
    }

    /// The error a failure at the seam gives, for `bytes` asked for (an
    /// injected driver error says so in its name).
    pub fn error(self, bytes: u64) -> RuntimeError {
        let (call, code) = match self {
            Seam::Allocate => {
                return RuntimeError::OutOfMemory {
                    requested: bytes,
                    available: 0,
                };
            }
            // CUDA_ERROR_OUT_OF_MEMORY, of host memory.
            Seam::AllocatePinned => ("cuMemHostAlloc", 2),
            // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: a launch that fails alone.
            Seam::Launch => ("cuLaunchKernel", 701),
            // CUDA_ERROR_UNKNOWN, not taken as sticky.
            Seam::Upload => ("cuMemcpyHtoDAsync", 999),
            Seam::Download => ("cuMemcpyDtoHAsync", 999),
            Seam::CopyDevice => ("cuMemcpyDtoDAsync", 999),
            Seam::Synchronize => ("cuStreamSynchronize", 999),
            // CUDA_ERROR_INVALID_PTX.
            Seam::ModuleLoad => ("cuModuleLoadData", 218),
            // CUDA_ERROR_ILLEGAL_ADDRESS, sticky.
            Seam::Sticky => ("cuLaunchKernel", 700),
        };
        RuntimeError::Driver {
            call,
            name: format!("a fault injected at {}", self.name()),
            code,
        }
    }
}

/// How many faults were injected in this process so far.
#[cfg(feature = "faults")]
static INJECTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many faults were injected in this process so far (0 without the
/// `faults` feature).
pub fn injected() -> u64 {
    #[cfg(feature = "faults")]
    return INJECTED.load(std::sync::atomic::Ordering::Acquire);
    #[cfg(not(feature = "faults"))]
    0
}

#[cfg(feature = "faults")]
thread_local! {
    /// The operator the calling thread runs ([`operator`]).
    static OPERATOR: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Names the operator the calling thread runs (the first word of `header`,
/// a plan node's header: `Join`, `GroupBy`, `Sort`, ...) until the guard
/// drops: meanwhile each seam's fail point has a second name,
/// `<seam>@<operator>` (`gpu-runtime::launch@Join`), so that a fault can be
/// injected into one operator's work. `header` is called only with the
/// `faults` feature.
pub fn operator(header: impl FnOnce() -> String) -> OperatorScope {
    #[cfg(feature = "faults")]
    {
        let header = header();
        let name = header.split(' ').next().unwrap_or_default().to_owned();
        let previous = OPERATOR.with(|current| current.replace(Some(name)));
        OperatorScope { previous }
    }
    #[cfg(not(feature = "faults"))]
    {
        let _ = header;
        OperatorScope {}
    }
}

/// Restores the operator named before [`operator`] when dropped.
#[must_use = "the operator is named until the scope drops"]
#[derive(Debug)]
pub struct OperatorScope {
    #[cfg(feature = "faults")]
    previous: Option<String>,
}

impl Drop for OperatorScope {
    fn drop(&mut self) {
        #[cfg(feature = "faults")]
        OPERATOR.with(|current| *current.borrow_mut() = self.previous.take());
    }
}

/// Fails as the device would where the seam's fail point says so, or its
/// fail point within the operator the thread runs (`bytes`: what an
/// allocation asks for).
#[cfg(feature = "faults")]
pub(crate) fn at(seam: Seam, bytes: u64) -> Result<(), RuntimeError> {
    let fail = || {
        INJECTED.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Err(seam.error(bytes))
    };
    fail::fail_point!(seam.name(), |_| fail());
    let scoped = OPERATOR.with(|current| {
        current
            .borrow()
            .as_ref()
            .map(|operator| format!("{}@{operator}", seam.name()))
    });
    if let Some(scoped) = scoped
        && fail::eval(&scoped, |_| ()).is_some()
    {
        return fail();
    }
    Ok(())
}

/// Never fails (the `faults` feature is off).
#[cfg(not(feature = "faults"))]
#[inline(always)]
pub(crate) fn at(_seam: Seam, _bytes: u64) -> Result<(), RuntimeError> {
    Ok(())
}
