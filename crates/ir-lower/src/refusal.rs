//! A refusal: a construct the GPU engine cannot run, named in Polars' notation, with the reason.

use std::fmt;

/// One construct of a plan that cannot run on the GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The plan node or expression, in Polars' notation (as `explain` shows it).
    pub subject: String,
    /// Why it cannot run on the GPU.
    pub reason: String,
    /// Whether no part of the plan may run on the device either (no mixed
    /// plan): where Polars' answer for the construct depends on how its own
    /// engine holds the columns below it (a literal column as one value),
    /// which a frame from the device cannot reproduce.
    pub whole_plan: bool,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.reason)
    }
}
