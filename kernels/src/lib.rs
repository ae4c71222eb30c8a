//! The CUDA kernel library (no kernels yet).
//!
//! This crate will embed the PTX that `cargo xtask kernels` generates from
//! the CUDA C sources beside it, with typed kernel identifiers, and build the
//! same sources for the host so that they run on the emulated device.
