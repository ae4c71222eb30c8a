//! gpu-runtime on the emulated device: the memory-resource suite, buffers and copies, and every kernel.

mod kernels;
mod memory;
