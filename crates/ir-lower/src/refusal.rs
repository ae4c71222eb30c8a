//! A refusal: a construct the GPU engine cannot run, named in Polars' notation, with the reason.

use std::fmt;

/// One construct of a plan that cannot run on the GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The plan node or expression, in Polars' notation (as `explain` shows it).
    pub subject: String,
    /// Why it cannot run on the GPU.
    pub reason: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.reason)
    }
}
