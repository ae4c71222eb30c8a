//! A refusal: a construct the GPU engine cannot run, named as the user wrote it (Polars' notation, arguments as passed, numbers as written), with the reason.

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
/// written as the expressions they stand for ([`user_written`]), each
/// `sort_by` as users pass it ([`sorts_written`]) and bare numbers as
/// numbers ([`literals_written`]), so that each construct reads as the
/// user wrote it. Built once per plan; engine-select writes the reasons raised
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
                    columns.push((format!("col(\"{name}\")"), written(e.node(), expr_arena)));
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
        // (Free text: its brackets may be lists the reason shows.)
        literals_written(&sorts_written(&text))
    }
}

/// `text` (Polars' display of expressions) as users write it: each
/// `sort_by` with its options ([`sorts_written`]), bare numbers as numbers
/// ([`literals_written`]), a function's arguments without the list Polars
/// shows them in ([`arguments_written`]).
pub(crate) fn user_written(text: &str) -> String {
    arguments_written(&literals_written(&sorts_written(text)))
}

/// `text` with each function's arguments as users pass them: Polars shows
/// them as a list (`x.pow([2])`, `x.str.slice([0, 3])`), written `x.pow(2)`
/// and `x.str.slice(0, 3)`. Brackets inside texts are left as they are
/// (and all of `text`, where its brackets do not pair up).
pub(crate) fn arguments_written(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut dropped = vec![false; chars.len()];
    // Each open bracket's place, and whether it opens a call's arguments.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let mut in_text = false;
    let mut escaped = false;
    for (i, &c) in chars.iter().enumerate() {
        if in_text {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => in_text = false,
                _ => escaped = false,
            }
            continue;
        }
        match c {
            '"' => in_text = true,
            '[' => open.push((i, i > 0 && chars[i - 1] == '(')),
            ']' => {
                let Some((start, arguments)) = open.pop() else {
                    return text.to_string();
                };
                if arguments && chars.get(i + 1) == Some(&')') {
                    dropped[start] = true;
                    dropped[i] = true;
                }
            }
            _ => {}
        }
    }
    if !open.is_empty() || in_text {
        return text.to_string();
    }
    chars
        .iter()
        .zip(&dropped)
        .filter(|(_, dropped)| !**dropped)
        .map(|(c, _)| c)
        .collect()
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

/// The expression at `node` as the user wrote it ([`user_written`]).
pub fn written(node: Node, arena: &Arena<AExpr>) -> String {
    user_written(&ExprIRDisplay::display_node(node, arena).to_string())
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
    use super::{arguments_written, literals_written, sorts_written};

    #[test]
    fn arguments_are_written_without_polars_list() {
        let cases = [
            ("col(\"q\").pow([11])", "col(\"q\").pow(11)"),
            (
                "col(\"s\").str.slice([col(\"a\"), 2]).abs()",
                "col(\"s\").str.slice(col(\"a\"), 2).abs()",
            ),
            ("col(\"k\").is_in([[1, 3]])", "col(\"k\").is_in([1, 3])"),
            (
                "col(\"s\").str.extract([\"([a-z]])\"])",
                "col(\"s\").str.extract(\"([a-z]])\")",
            ),
            (
                "col(\"s\").str.contains([\"\\\"([\"])",
                "col(\"s\").str.contains(\"\\\"([\")",
            ),
            ("SELECT [col(\"a\")]", "SELECT [col(\"a\")]"),
            (
                "x.over(partition_by: [col(\"g\")])",
                "x.over(partition_by: [col(\"g\")])",
            ),
            ("f([a], b)", "f([a], b)"),
            ("f([a]", "f([a]"),
        ];
        for (polars, written) in cases {
            assert_eq!(arguments_written(polars), written, "{polars}");
        }
    }

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
