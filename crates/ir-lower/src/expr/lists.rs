//! What list expressions carry: the functions of a list column the GPU computes.

use super::*;

/// A function of each list of a list column (Polars' `list` namespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFunction {
    /// The number of values, as u32 (null of a null list).
    Len,
}

impl fmt::Display for ListFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ListFunction::Len => "list.len",
        })
    }
}
