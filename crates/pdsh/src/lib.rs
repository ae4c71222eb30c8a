//! PDS-H, the TPC-H derived benchmark: its tables, generated in-process, and its 22 queries.
//!
//! [`Tables::generate`] builds the eight tables at any scale factor with the
//! `tpchgen` crate (output identical to TPC's `dbgen`), in parallel, as Polars
//! DataFrames with the types PDS-H uses: 64-bit integer keys, `Float64`
//! money and quantities, `Date` dates, `String` text. [`query`] returns query
//! `n` as a `LazyFrame` over the tables, following the Polars versions of the
//! PDS-H definitions. [`answers`] parses the reference answers `tpchgen` ships
//! for scale factor 1.

pub mod answers;
mod queries;
mod tables;

pub use queries::{QUERY_COUNT, query, query_csv, query_parquet};
pub use tables::Tables;
