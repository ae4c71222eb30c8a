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

/// `refusals` with each construct and reason once, in order (a frame read
/// twice, as by a self-join, refuses its columns once); a repeat that
/// keeps the whole plan on the CPU makes the one kept do so.
pub(crate) fn distinct(refusals: Vec<Refusal>) -> Vec<Refusal> {
    let mut kept: Vec<Refusal> = Vec::with_capacity(refusals.len());
    for refusal in refusals {
        match kept
            .iter_mut()
            .find(|k| k.subject == refusal.subject && k.reason == refusal.reason)
        {
            Some(first) => first.whole_plan |= refusal.whole_plan,
            None => kept.push(refusal),
        }
    }
    kept
}
