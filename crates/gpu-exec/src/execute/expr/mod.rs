//! The expression families, one module each: how each is computed on the device.

use super::*;

mod aggregations;
mod categorical;
mod choices;
mod evaluate;
mod host_math;
mod lists;
mod membership;
mod modes;
mod parse;
mod predicate;
mod rolling;
mod row_order;
mod strings;
mod structs;
mod windows;
mod zeros;
mod zones;

pub(crate) use aggregations::*;
pub(crate) use evaluate::*;
pub(crate) use host_math::*;
pub(crate) use predicate::*;
pub(crate) use row_order::*;
pub(crate) use strings::*;
pub(crate) use windows::*;
pub(crate) use zones::*;
