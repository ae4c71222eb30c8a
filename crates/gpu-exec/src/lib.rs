//! Execution of GPU plans on a device (not written yet).
//!
//! This crate will hold device columns and one operator per GPU plan node,
//! built on `gpu-runtime` and the `kernels` crate. It contains no `unsafe`
//! code: everything that touches the driver goes through `gpu-runtime`.
#![forbid(unsafe_code)]
