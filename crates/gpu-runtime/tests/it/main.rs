//! gpu-runtime on the emulated device: the memory-resource suite, buffers and copies.

mod memory;
