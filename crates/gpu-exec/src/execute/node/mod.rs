//! The plan operators, one module each: what each needs to run it.

use super::*;

mod asof_join;
mod distinct;
mod explode;
mod filter;
mod group_by;
mod hconcat;
mod join;
mod row_index;
mod select;
mod slice;
mod sort;
mod union;
mod unnest;
mod with_columns;

pub(crate) use group_by::typed_null_over_no_groups;
pub(crate) use join::*;
pub(crate) use select::*;
