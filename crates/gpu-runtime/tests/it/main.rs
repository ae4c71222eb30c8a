//! gpu-runtime on the device under test (emulated unless `GPU_TEST_DEVICE` names a GPU): the memory-resource suite, buffers and copies, every kernel, and the CUDA backend.

mod cuda;
mod kernels;
mod memory;
