//! A refusal: a construct the GPU engine cannot run, named in Polars' notation, with the reason.

use std::fmt;

use polars_plan::constants::CSE_REPLACED;
use polars_plan::plans::{AExpr, ArenaLpIter, ExprIRDisplay, IR};
use polars_utils::arena::{Arena, Node};

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

/// How reasons name the user's constructs: Polars' display, with the
/// columns its optimiser adds for common subexpressions
/// (`col("__POLARS_CSER_0x…")`, computed once by a select of the plan)
/// written as the expressions they stand for and each `sort_by` as users
/// pass it ([`sorts_written`]), so that each construct reads as the user
/// wrote it. Built once per plan; engine-select writes the reasons raised
/// at run time and by mixed plans with it too.
#[derive(Debug, Clone, Default)]
pub struct Notation {
    /// Each common subexpression's column, as Polars displays it, and the
    /// expression it stands for.
    columns: Vec<(String, String)>,
}

impl Notation {
    /// The notation of the plan under `root`.
    pub fn of_plan(root: Node, lp_arena: &Arena<IR>, expr_arena: &Arena<AExpr>) -> Notation {
        let mut columns = Vec::new();
        for (_, ir) in lp_arena.iter(root) {
            let exprs = match ir {
                IR::Select { expr, .. } => expr,
                IR::HStack { exprs, .. } => exprs,
                _ => continue,
            };
            for e in exprs.iter() {
                let name = e.output_name();
                if name.starts_with(CSE_REPLACED) {
                    let written = ExprIRDisplay::display_node(e.node(), expr_arena).to_string();
                    columns.push((format!("col(\"{name}\")"), written));
                }
            }
        }
        Notation { columns }
    }

    /// `text` (a subject or a reason) as users write its constructs.
    pub fn written(&self, text: &str) -> String {
        let mut text = text.to_string();
        // A common subexpression may hold another: until none is left.
        for _ in 0..=self.columns.len() {
            if !text.contains(CSE_REPLACED) {
                break;
            }
            for (column, expr) in &self.columns {
                text = text.replace(column.as_str(), expr);
            }
        }
        literals_written(&sorts_written(&text))
    }
}

/// `text` (Polars' display of expressions) with each number the user wrote
/// bare (`col("a") * 2`, `lit(0.5)`), whose type Polars picks later and
/// displays as `dyn int: 2` or `dyn float: 0.5`, written as the number (a
/// whole float with its `.0`: Polars displays `1.0` as `dyn float: 1`).
pub(crate) fn literals_written(text: &str) -> String {
    let mut written = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("dyn ") {
        written.push_str(&rest[..at]);
        let after = &rest[at..];
        let (number, float) = match (
            after.strip_prefix("dyn int: "),
            after.strip_prefix("dyn float: "),
        ) {
            (Some(number), _) => (number, false),
            (_, Some(number)) => (number, true),
            _ => {
                written.push_str("dyn ");
                rest = &after[4..];
                continue;
            }
        };
        let len = number_len(number, float);
        let (value, after_value) = number.split_at(len);
        written.push_str(value);
        let whole = float && !value.contains(['.', 'N', 'i']);
        if whole && !value.is_empty() {
            written.push_str(".0");
        }
        rest = after_value;
    }
    written.push_str(rest);
    written
}

/// The length of the number `text` starts with, as Rust displays an i64
/// or (`float`) an f64: a sign, digits, a point followed by digits, `NaN`,
/// `inf`.
fn number_len(text: &str, float: bool) -> usize {
    let bytes = text.as_bytes();
    let mut len = usize::from(bytes.first() == Some(&b'-'));
    if float && (text[len..].starts_with("NaN") || text[len..].starts_with("inf")) {
        return len + 3;
    }
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    len += digits(len);
    let point = bytes.get(len) == Some(&b'.');
    if float && point && bytes.get(len + 1).is_some_and(u8::is_ascii_digit) {
        len += 1 + digits(len + 1);
    }
    len
}

/// `refusals` with each subject and reason in the plan's [`Notation`].
pub(crate) fn written_out(
    mut refusals: Vec<Refusal>,
    root: Node,
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
) -> Vec<Refusal> {
    let notation = Notation::of_plan(root, lp_arena, expr_arena);
    for refusal in &mut refusals {
        refusal.subject = notation.written(&refusal.subject);
        refusal.reason = notation.written(&refusal.reason);
    }
    refusals
}

/// The expression at `node` as the user wrote it: Polars' notation, its
/// sorts written out ([`sorts_written`]).
pub(crate) fn written(node: Node, arena: &Arena<AExpr>) -> String {
    literals_written(&sorts_written(
        &ExprIRDisplay::display_node(node, arena).to_string(),
    ))
}

/// `text` (Polars' display of expressions) with each `sort_by` written as
/// users pass it: Polars shows `x.sort_by(by=[k], sort_option=
/// SortMultipleOptions { descending: [true], .. })`, which becomes
/// `x.sort_by([k], descending=true)`, naming only the options not at their
/// defaults (`descending`, `nulls_last`, one flag or one per key;
/// `maintain_order`).
pub(crate) fn sorts_written(text: &str) -> String {
    const OPTIONS: &str = ", sort_option=SortMultipleOptions { ";
    let mut text = text.replace(".sort_by(by=", ".sort_by(");
    while let Some(start) = text.find(OPTIONS) {
        let Some(len) = text[start..].find(" }") else {
            break;
        };
        let options = &text[start + OPTIONS.len()..start + len];
        let field = |name: &str| {
            let from = options.find(&format!("{name}: "))? + name.len() + 2;
            let rest = &options[from..];
            let end = match rest.starts_with('[') {
                true => rest.find(']')? + 1,
                false => rest.find(',').unwrap_or(rest.len()),
            };
            Some(&rest[..end])
        };
        let mut written = String::new();
        for name in ["descending", "nulls_last"] {
            match field(name) {
                Some(flags) if flags.contains("true") => {
                    let flags = match flags.contains(',') {
                        true => flags,
                        false => flags.trim_matches(['[', ']']),
                    };
                    written.push_str(&format!(", {name}={flags}"));
                }
                _ => {}
            }
        }
        if field("maintain_order") == Some("true") {
            written.push_str(", maintain_order=true");
        }
        text.replace_range(start..start + len + 2, &written);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{literals_written, sorts_written};

    #[test]
    fn bare_numbers_are_written_as_numbers() {
        let cases = [
            (
                "dyn int: 5.clip([col(\"a\"), dyn int: -9])",
                "5.clip([col(\"a\"), -9])",
            ),
            ("dyn int: -1000.rle_id()", "-1000.rle_id()"),
            ("dyn float: 0.1.is_not_nan()", "0.1.is_not_nan()"),
            ("(col(\"x\") * dyn float: 1)", "(col(\"x\") * 1.0)"),
            ("dyn float: -0 + dyn float: NaN", "-0.0 + NaN"),
            ("dyn float: -inf.abs()", "-inf.abs()"),
            ("dyn float: 250.5e", "250.5e"),
            ("col(\"dyn \") + dyn str: a", "col(\"dyn \") + dyn str: a"),
        ];
        for (polars, written) in cases {
            assert_eq!(literals_written(polars), written, "{polars}");
        }
    }

    #[test]
    fn sort_by_options_are_written_as_passed() {
        let polars = |options: &str| {
            format!(
                "col(\"i\").sort_by(by=[col(\"t\"), col(\"u\")], sort_option=\
                 SortMultipleOptions {{ {options} }}).first()"
            )
        };
        let cases = [
            (
                "descending: [false], nulls_last: [false], multithreaded: true, \
                 maintain_order: false, limit: None",
                "col(\"i\").sort_by([col(\"t\"), col(\"u\")]).first()",
            ),
            (
                "descending: [false, true], nulls_last: [true], multithreaded: true, \
                 maintain_order: true, limit: Some(3)",
                "col(\"i\").sort_by([col(\"t\"), col(\"u\")], descending=[false, true], \
                 nulls_last=true, maintain_order=true).first()",
            ),
        ];
        for (options, written) in cases {
            assert_eq!(sorts_written(&polars(options)), written);
        }
        // Two sorts, one inside the other's keys.
        let inner = polars(
            "descending: [true], nulls_last: [false], multithreaded: true, \
                            maintain_order: false, limit: None",
        );
        let outer = format!(
            "col(\"x\").sort_by(by=[{inner}], sort_option=SortMultipleOptions {{ \
             descending: [false], nulls_last: [false], multithreaded: true, \
             maintain_order: true, limit: None }})"
        );
        assert_eq!(
            sorts_written(&outer),
            "col(\"x\").sort_by([col(\"i\").sort_by([col(\"t\"), col(\"u\")], \
             descending=true).first()], maintain_order=true)"
        );
    }
}
