//! Lowering of Polars' optimized IR to a GPU plan (not written yet).
//!
//! This crate will turn the `IR`/`AExpr` arenas that Polars' optimizer
//! produces into a typed GPU plan, collecting every construct it cannot lower
//! with its reason. It must never depend on CUDA nor contain `unsafe` code.
//! Until it lands, `engine-select` reports GPU lowering as not implemented.
#![forbid(unsafe_code)]
