//! Shared helpers of the criterion benchmarks.
