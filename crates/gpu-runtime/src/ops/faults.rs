//! Operations of the faulting kernel (`kernels/cuda/faults.cu`): a fault on purpose, as a kernel with a bad address makes one, for the tests of what a device fault costs.

use super::*;

/// An address no allocation holds (in the first page, which the driver
/// never maps).
const UNMAPPED: u64 = 8;

impl Ops<'_> {
    /// Makes the GPU fault: a kernel writes through an unmapped address,
    /// so that the stream's next wait fails with
    /// `CUDA_ERROR_ILLEGAL_ADDRESS`, which the device's context keeps
    /// (every later call fails so) until [`crate::Device::reset`]. Refused
    /// on the emulated device, where the write would land in host memory.
    pub fn fault_on_purpose(&self) -> Result<(), RuntimeError> {
        fault_on_purpose(self.stream)
    }
}

/// [`Ops::fault_on_purpose`] on `stream`.
pub(crate) fn fault_on_purpose(stream: &Stream) -> Result<(), RuntimeError> {
    if stream.is_emulated() {
        return Err(RuntimeError::InvalidArgument(
            "a fault on purpose needs a GPU: on the emulated device the kernel would write to \
             host memory"
                .into(),
        ));
    }
    stream.check_health()?;
    let args = KernelArgs::new().arg(UNMAPPED);
    // SAFETY: the kernel takes one u64, an address; it writes through it on
    // the GPU only (refused above on the emulated device), where an
    // unmapped address stops the kernel with an error and touches no
    // memory of the host or of any allocation.
    unsafe {
        stream.launch_unseamed(
            &ids::fault_write_unmapped.into(),
            LaunchConfig::linear(1, 1, 1),
            args,
        )
    }
}
