//! The oracle: a query on Polars' CPU engine and on the GPU engine (fallback allowed), compared exactly.
//!
//! Exactly means: the same column names and dtypes, the same nulls, and
//! the same values, floats by their bits (any NaN equals any NaN; -0.0 is
//! not 0.0). Rows are compared in order where the query defines the order,
//! else as multisets. A query Polars answers differently on two runs, or
//! on which Polars itself panics, is skipped.

use std::panic::{AssertUnwindSafe, catch_unwind};

use engine_select::{Engine, EngineError, ExecutedBy, FallbackKind, LazyFrameExt};
use polars::prelude::*;

use crate::under_test;

/// Where the GPU engine's (correct) answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ran {
    /// Wholly on the device.
    Gpu,
    /// Partly on the device, the rest on the CPU.
    Mixed,
    /// On the CPU, by fallback.
    Fallback,
    /// Both engines raised an error.
    BothRaised,
}

/// What is wrong with the GPU engine's outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// A different frame.
    WrongAnswer(String),
    /// An error where Polars answers.
    Error(String),
    /// An answer where Polars raises an error.
    AnsweredWherePolarsRaises(String),
    /// Polars' answer, but reached by an internal error of the engine (a
    /// plan the executor refused after lowering accepted it, a panic).
    InternalFallback(String),
    /// The GPU engine panicked through the API.
    Panicked(String),
}

impl Failure {
    /// The kind, for shrinking: a smaller case must fail the same way.
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::WrongAnswer(_) => "wrong answer",
            Failure::Error(_) => "error where Polars answers",
            Failure::AnsweredWherePolarsRaises(_) => "answer where Polars raises",
            Failure::InternalFallback(_) => "internal error (fell back)",
            Failure::Panicked(_) => "panic",
        }
    }

    pub fn detail(&self) -> &str {
        match self {
            Failure::WrongAnswer(s)
            | Failure::Error(s)
            | Failure::AnsweredWherePolarsRaises(s)
            | Failure::InternalFallback(s)
            | Failure::Panicked(s) => s,
        }
    }
}

/// The verdict on one query.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Same(Ran),
    Skipped(&'static str),
    Failed(Failure),
}

thread_local! {
    /// Set while the fuzzer expects panics on this thread (Polars' debug
    /// checks): the panic hook stays quiet.
    pub static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs, once, a panic hook that is silent on threads that set [`QUIET`].
pub fn quiet_panics() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                previous(info);
            }
        }));
    });
}

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

pub fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    QUIET.with(|q| q.set(true));
    let out = catch_unwind(AssertUnwindSafe(f)).map_err(panic_message);
    QUIET.with(|q| q.set(false));
    out
}

/// How two frames are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compare {
    /// Whether the query defines the order of the rows (else the rows are
    /// compared as multisets).
    pub ordered: bool,
    /// Whether the query holds float aggregations whose last bits
    /// docs/operations.md documents as Polars' own (per-group sums, means,
    /// variances): floats then compare within a relative 1e-9, and -0.0
    /// equals 0.0; timestamps and durations (means and medians through
    /// f64, cast back) within the documented bound on their ticks.
    pub floats_close: bool,
    /// Where the GPU engine runs the query partitioned: rows per partition.
    pub partition_rows: Option<usize>,
    /// Whether every result the executor keeps for later goes to host
    /// memory and back (`GpuEngine::with_spill_kept_results`).
    pub spill_kept: bool,
}

impl Compare {
    /// Whether -0.0 equals 0.0: with close floats, and where the rows have
    /// no defined order (which of a group's rows comes first, and so which
    /// zero a group's key takes, is then undefined too).
    fn zeros_alike(self) -> bool {
        self.floats_close || !self.ordered
    }
}

/// One cell of a row: a float, a timestamp's or duration's ticks (with
/// its type's name), a struct's fields (compared as cells, so that their
/// floats are as close as a column's), or anything else as text.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Float(f64),
    Ticks(i64, String),
    Fields(Vec<Cell>),
    Other(String),
}

/// How far apart close values may be: floats, and the ticks of timestamps
/// and durations.
#[derive(Debug, Clone, Copy, Default)]
struct Bounds {
    floats: f64,
    ticks: f64,
}

impl Cell {
    /// The cell as text, floats by their bits (any NaN alike), or with
    /// `rounded`, to 9 significant digits (a sort key for close floats);
    /// with `zeros_alike`, -0.0 as 0.0.
    fn text(&self, rounded: bool, zeros_alike: bool) -> String {
        match self {
            Cell::Float(x) if x.is_nan() => "NaN".into(),
            Cell::Float(x) if *x == 0.0 && zeros_alike => "0".into(),
            Cell::Float(x) if rounded => format!("{:.8e}", if *x == 0.0 { 0.0 } else { *x }),
            Cell::Float(x) => format!("{x:?}/{:016x}", x.to_bits()),
            Cell::Ticks(ticks, kind) if rounded => format!("{kind}({:.8e})", *ticks as f64),
            Cell::Ticks(ticks, kind) => format!("{kind}({ticks})"),
            Cell::Fields(fields) => {
                let fields: Vec<String> = fields
                    .iter()
                    .map(|field| field.text(rounded, zeros_alike))
                    .collect();
                format!("{{{}}}", fields.join(", "))
            }
            Cell::Other(text) => text.clone(),
        }
    }

    fn matches(&self, other: &Cell, close: bool, zeros_alike: bool, within: Bounds) -> bool {
        match (self, other) {
            (Cell::Float(a), Cell::Float(b)) if zeros_alike && *a == 0.0 && *b == 0.0 => true,
            (Cell::Float(a), Cell::Float(b)) if close && (a - b).abs() <= within.floats => true,
            (Cell::Ticks(a, x), Cell::Ticks(b, y)) => {
                x == y && (a == b || (close && (*a as f64 - *b as f64).abs() <= within.ticks))
            }
            // (Where the values overflow, docs/operations.md's bound is infinite: an
            // infinity or NaN may stand for another.)
            (Cell::Float(a), Cell::Float(b)) if close => {
                a.to_bits() == b.to_bits()
                    || (a.is_nan() && b.is_nan())
                    || *a == *b
                    || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
                    || (!a.is_finite() && !b.is_finite())
            }
            (Cell::Float(a), Cell::Float(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            (Cell::Fields(a), Cell::Fields(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(a, b)| a.matches(b, close, zeros_alike, within))
            }
            // Such a float made text (`cast(String)`): its digits are as
            // close as its bits.
            (Cell::Other(a), Cell::Other(b)) if close && a != b => {
                let number = |text: &str| {
                    let digits = text.strip_prefix("String(\"")?.strip_suffix("\")")?;
                    digits.parse::<f64>().ok()
                };
                match (number(a), number(b)) {
                    (Some(x), Some(y)) => {
                        Cell::Float(x).matches(&Cell::Float(y), true, true, within)
                    }
                    _ => false,
                }
            }
            (a, b) => a == b,
        }
    }
}

/// A list's elements as text, in order, or sorted where the rows (and so
/// the lists made of them) have no defined order.
fn list_text(list: &Series, ordered: bool) -> String {
    // Each item as a cell: a struct by its fields' values alone, a list
    // by its items (not by the arrays Polars' values point into).
    let mut items: Vec<String> = (0..list.len())
        .map(|i| match list.get(i).unwrap() {
            value @ (AnyValue::Struct(..) | AnyValue::List(_)) => {
                format!("{:?}", cell(value, ordered))
            }
            value => value_text(&value),
        })
        .collect();
    if !ordered {
        items.sort();
    }
    format!("[{}]", items.join(", "))
}

/// A value as a cell.
fn cell(value: AnyValue, ordered: bool) -> Cell {
    match value {
        AnyValue::Float64(x) => Cell::Float(x),
        AnyValue::Float32(x) => Cell::Float(x.into()),
        // As numbers: Polars' display panics on some (far years).
        AnyValue::Date(days) => Cell::Other(format!("Date({days})")),
        AnyValue::Datetime(v, unit, _) => Cell::Ticks(v, format!("Datetime({unit})")),
        AnyValue::Duration(v, unit) => Cell::Ticks(v, format!("Duration({unit})")),
        AnyValue::List(list) => Cell::Other(list_text(&list, ordered)),
        // By its fields' values (a struct's value shows the whole array it
        // is a row of).
        value @ AnyValue::Struct(..) => Cell::Fields(
            value
                ._iter_struct_av()
                .map(|field| cell(field, ordered))
                .collect(),
        ),
        other => Cell::Other(value_text(&other)),
    }
}

/// A plain value as text: a categorical or enum by its category's text
/// (the debug form of its mapping shows how many categories the global
/// mapping holds, which grows while other queries run beside this one).
fn value_text(value: &AnyValue) -> String {
    match value {
        AnyValue::Categorical(code, mapping) | AnyValue::Enum(code, mapping) => {
            format!("Category({:?})", mapping.cat_to_str(*code))
        }
        AnyValue::CategoricalOwned(code, mapping) | AnyValue::EnumOwned(code, mapping) => {
            format!("Category({:?})", mapping.cat_to_str(*code))
        }
        other => format!("{other:?}"),
    }
}

fn cells(df: &DataFrame, ordered: bool) -> Vec<Vec<Cell>> {
    let columns: Vec<Vec<Cell>> = df
        .columns()
        .iter()
        .map(|c| {
            let s = c.as_materialized_series();
            (0..s.len())
                .map(|i| cell(s.get(i).unwrap(), ordered))
                .collect()
        })
        .collect();
    (0..df.height())
        .map(|r| columns.iter().map(|c| c[r].clone()).collect())
        .collect()
}

fn row_text(row: &[Cell], rounded: bool, zeros_alike: bool) -> String {
    let cells: Vec<String> = row.iter().map(|c| c.text(rounded, zeros_alike)).collect();
    cells.join(" | ")
}

/// The rows, in order or sorted.
fn canonical(df: &DataFrame, how: Compare) -> Vec<Vec<Cell>> {
    let mut rows = cells(df, how.ordered);
    if !how.ordered {
        rows.sort_by_cached_key(|row| row_text(row, how.floats_close, how.zeros_alike()));
    }
    rows
}

/// A frame as Polars prints it, or a note where its display panics (dates
/// far outside chrono's range).
pub fn show(df: &DataFrame) -> String {
    quietly(|| format!("{df}"))
        .unwrap_or_else(|_| format!("{:?} (Polars cannot print it)", df.schema()))
}

/// Why `actual` is not `expected`, if it is not.
pub fn difference(expected: &DataFrame, actual: &DataFrame, how: Compare) -> Option<String> {
    difference_within(expected, actual, how, Bounds::default())
}

/// As [`difference`], close values also equal within `within` of each other.
fn difference_within(
    expected: &DataFrame,
    actual: &DataFrame,
    how: Compare,
    within: Bounds,
) -> Option<String> {
    if expected.schema() != actual.schema() {
        return Some(format!(
            "schemas differ: expected {:?}, got {:?}",
            expected.schema(),
            actual.schema()
        ));
    }
    let (e, a) = (canonical(expected, how), canonical(actual, how));
    if e.len() != a.len() {
        return Some(format!(
            "{} rows expected, {} given\nexpected {}\nactual {}",
            e.len(),
            a.len(),
            show(expected),
            show(actual)
        ));
    }
    let same = |x: &Vec<Cell>, y: &Vec<Cell>| {
        x.iter()
            .zip(y)
            .all(|(x, y)| x.matches(y, how.floats_close, how.zeros_alike(), within))
    };
    let at = e.iter().zip(&a).position(|(x, y)| !same(x, y))?;
    Some(format!(
        "row {at}{}: expected [{}], got [{}]\nexpected {}\nactual {}",
        if how.ordered { "" } else { " (rows sorted)" },
        row_text(&e[at], false, false),
        row_text(&a[at], false, false),
        show(expected),
        show(actual)
    ))
}

/// Errors of Polars' engine that are bugs of its own, not of the query: the
/// GPU engine answers, and the case is skipped. Polars' `arg_max` of a
/// column a with_columns made of a literal (held as a scalar column) gives
/// one value for all groups and then fails its own length check.
/// Polars also takes a literal column a with_columns made (held as a
/// scalar column) as one value in later expressions, and raises that its
/// one value does not fit the frame's height (or, as a sort key, that it
/// is not the frame's length).
fn polars_bug(error: &PolarsError) -> bool {
    let error = error.to_string();
    error.contains("returned aggregation is of different length: 1 than the groups length")
        || error.contains("length 1 doesn't match the DataFrame height")
        || error
            .contains("sort expressions must have same length as DataFrame, got DataFrame height")
            && error.contains("and Series length: 1")
        // A column whose type Polars planned but lost on an empty frame
        // (an aggregation of no groups), met by a temporal function.
        || error.contains("operation not supported for dtype `null`")
}

/// Whether Polars' optimised plan of `lf` takes a slice of rows it leaves
/// in no order (its optimiser drops a join's `maintain_order` where a later
/// step does not read the order, though a slice between them does): which
/// rows the answer holds is then Polars' own.
fn slices_unordered_rows(lf: &LazyFrame) -> bool {
    use polars_plan::plans::IR;
    use polars_utils::arena::{Arena, Node};
    fn unordered(node: Node, arena: &Arena<IR>) -> bool {
        match arena.get(node) {
            IR::Join { options, .. } => options.args.maintain_order == MaintainOrderJoin::None,
            IR::GroupBy { maintain_order, .. } => !maintain_order,
            IR::Distinct { options, .. } => !options.maintain_order,
            IR::Sort { sort_options, .. } => !sort_options.maintain_order,
            IR::DataFrameScan { .. } | IR::Scan { .. } | IR::Union { .. } => false,
            other => other
                .inputs()
                .next()
                .is_some_and(|input| unordered(input, arena)),
        }
    }
    let Ok(plan) = quietly(|| lf.clone().to_alp_optimized())
        .map_err(|_| ())
        .and_then(|p| p.map_err(|_| ()))
    else {
        return false;
    };
    let arena = &plan.lp_arena;
    let mut stack = vec![plan.lp_top];
    while let Some(node) = stack.pop() {
        let ir = arena.get(node);
        let sliced = match ir {
            IR::Slice { input, .. } => unordered(*input, arena),
            IR::Join { options, .. } => {
                options.args.slice.is_some()
                    && options.args.maintain_order == MaintainOrderJoin::None
            }
            IR::GroupBy {
                options,
                maintain_order,
                ..
            } => options.slice.is_some() && !maintain_order,
            IR::Distinct { options, .. } => options.slice.is_some() && !options.maintain_order,
            _ => false,
        };
        if sliced {
            return true;
        }
        stack.extend(ir.inputs());
    }
    false
}

/// Whether `lf` divides floats by one value (a literal, an aggregation)
/// over rows a filter kept. Polars' filter splits a frame among its
/// threads, and its projections then run chunk by chunk: a chunk of one
/// row divides exactly where the others multiply by the reciprocal, so its
/// answer depends on how many threads it has (seed 2988 case 22); the
/// device gives its answer on one thread, the reciprocal's.
fn divides_by_one_value_after_a_filter(lf: &LazyFrame) -> bool {
    use polars_plan::dsl::Operator;
    use polars_plan::plans::{AExpr, ArenaExprIter, IR, is_scalar_ae};
    let Ok(Ok(plan)) = quietly(|| lf.clone().to_alp_optimized()) else {
        return false;
    };
    let (arena, exprs) = (&plan.lp_arena, &plan.expr_arena);
    let filtered = |top| {
        let mut stack = vec![top];
        while let Some(node) = stack.pop() {
            let ir = arena.get(node);
            if matches!(ir, IR::Filter { .. }) {
                return true;
            }
            stack.extend(ir.inputs());
        }
        false
    };
    let divides = |root| {
        exprs.iter(root).any(|(_, e)| match e {
            AExpr::BinaryExpr {
                op:
                    Operator::RustDivide
                    | Operator::TrueDivide
                    | Operator::FloorDivide
                    | Operator::Modulus,
                right,
                ..
            } => is_scalar_ae(*right, exprs),
            _ => false,
        })
    };
    let mut stack = vec![plan.lp_top];
    while let Some(node) = stack.pop() {
        let ir = arena.get(node);
        let (input, projected) = match ir {
            IR::Select { input, expr, .. } => (Some(*input), expr.as_slice()),
            IR::HStack { input, exprs, .. } => (Some(*input), exprs.as_slice()),
            _ => (None, &[][..]),
        };
        if let Some(input) = input
            && projected.iter().any(|e| divides(e.node()))
            && filtered(input)
        {
            return true;
        }
        stack.extend(ir.inputs());
    }
    false
}

/// Whether `lf` has a `group_by_dynamic` by keys: Polars flags its index
/// column sorted, though it is sorted within each key only, and a later
/// step that reads the flag (`max` as the last value) answers by it (seed
/// 3457 case 38), where the device reads the values.
fn keyed_dynamic_group_by(lf: &LazyFrame) -> bool {
    use polars_plan::plans::IR;
    any_plan_node(lf, |ir, _, _| {
        matches!(ir, IR::GroupBy { keys, options, .. }
            if options.dynamic.is_some() && !keys.is_empty())
    })
}

/// Whether `lf` groups by a window partitioned by literals alone over an
/// input Polars' optimiser left without columns
/// (`group_by([int_range(0, len()).over([lit(1)])]).agg([])`): Polars then
/// computes the window over one row, not the frame's (or, for `len()`,
/// reads memory it did not write: seed 3178 case 26), where the GPU engine
/// computes it over every row, as Polars' select does.
fn windows_over_literals_of_no_columns(lf: &LazyFrame) -> bool {
    use polars_plan::plans::{AExpr, ArenaExprIter, IR};
    any_plan_node(lf, |ir, arena, exprs| {
        let over_literals = |root| {
            exprs.iter(root).any(|(_, e)| match e {
                AExpr::Over { partition_by, .. } => partition_by
                    .iter()
                    .all(|key| matches!(exprs.get(*key), AExpr::Literal(_))),
                _ => false,
            })
        };
        matches!(ir, IR::GroupBy { input, keys, .. }
            if arena.get(*input).schema(arena).is_empty()
                && keys.iter().any(|key| over_literals(key.node())))
    })
}

/// Whether `lf` tests membership of items in a list per row
/// (`is_in` of a list column, `list.contains`) over rows a filter kept.
/// Polars' filter splits a frame among its threads and may keep a run of
/// rows as a slice of a list array; its membership test then takes the
/// lists' offsets from the rechunked column but their values from each
/// chunk's whole buffer, so it reads the lists of other rows (seed 3690
/// case 237), where the device reads each row's own.
fn lists_per_row_tested_after_a_filter(lf: &LazyFrame) -> bool {
    use polars_plan::plans::{
        AExpr, ArenaExprIter, IR, IRAggExpr, IRBooleanFunction, IRFunctionExpr, IRListFunction,
    };
    any_plan_node(lf, |ir, arena, exprs| {
        // (`is_in` of a literal list or of a column imploded is another
        // path.)
        let per_row = |lists: Option<polars_utils::arena::Node>| {
            lists.is_some_and(|lists| {
                !matches!(
                    exprs.get(lists),
                    AExpr::Literal(_) | AExpr::Agg(IRAggExpr::Implode { .. })
                )
            })
        };
        let tests_lists = |root| {
            exprs.iter(root).any(|(_, e)| match e {
                AExpr::Function {
                    function: IRFunctionExpr::Boolean(IRBooleanFunction::IsIn { .. }),
                    input,
                    ..
                } => per_row(input.get(1).map(|e| e.node())),
                AExpr::Function {
                    function: IRFunctionExpr::ListExpr(IRListFunction::Contains { .. }),
                    input,
                    ..
                } => per_row(input.first().map(|e| e.node())),
                _ => false,
            })
        };
        let (input, projected) = match ir {
            IR::Select { input, expr, .. } => (*input, expr.as_slice()),
            IR::HStack { input, exprs, .. } => (*input, exprs.as_slice()),
            _ => return false,
        };
        projected.iter().any(|e| tests_lists(e.node())) && {
            let mut stack = vec![input];
            let mut filtered = false;
            while let Some(node) = stack.pop() {
                let ir = arena.get(node);
                filtered |= matches!(ir, IR::Filter { .. });
                stack.extend(ir.inputs());
            }
            filtered
        }
    })
}

/// Whether a node of `lf`'s optimised plan is one `found` says.
fn any_plan_node(
    lf: &LazyFrame,
    found: impl Fn(
        &polars_plan::plans::IR,
        &polars_utils::arena::Arena<polars_plan::plans::IR>,
        &polars_utils::arena::Arena<polars_plan::plans::AExpr>,
    ) -> bool,
) -> bool {
    let Ok(Ok(plan)) = quietly(|| lf.clone().to_alp_optimized()) else {
        return false;
    };
    let (arena, exprs) = (&plan.lp_arena, &plan.expr_arena);
    let mut stack = vec![plan.lp_top];
    while let Some(node) = stack.pop() {
        let ir = arena.get(node);
        if found(ir, arena, exprs) {
            return true;
        }
        stack.extend(ir.inputs());
    }
    false
}

/// Whether Polars' optimiser drops an order `lf` asks for (a
/// `maintain_order` of a distinct, a group-by or a join) where it judges a
/// later step not to read it, though one does (a stable group-by over a
/// cross join of a stable distinct reads the distinct's order): the rows,
/// and what later steps make of their order, are then Polars' own.
fn optimiser_drops_an_order(lf: &LazyFrame) -> bool {
    use polars_plan::plans::IR;
    use polars_utils::arena::{Arena, Node};
    fn ordered_nodes(top: Node, arena: &Arena<IR>) -> usize {
        let mut stack = vec![top];
        let mut count = 0;
        while let Some(node) = stack.pop() {
            let ir = arena.get(node);
            count += usize::from(match ir {
                IR::Distinct { options, .. } => options.maintain_order,
                IR::GroupBy { maintain_order, .. } => *maintain_order,
                IR::Join { options, .. } => options.args.maintain_order != MaintainOrderJoin::None,
                _ => false,
            });
            stack.extend(ir.inputs());
        }
        count
    }
    let plan = |optimised: bool| {
        quietly(|| {
            if optimised {
                lf.clone().to_alp_optimized()
            } else {
                lf.clone().to_alp()
            }
        })
        .ok()
        .and_then(Result::ok)
        .map(|plan| ordered_nodes(plan.lp_top, &plan.lp_arena))
    };
    matches!((plan(false), plan(true)), (Some(asked), Some(kept)) if kept < asked)
}

/// docs/operations.md's bound on float aggregations in Polars' own order,
/// for `lf`'s inputs: for n values, a sum within (n + 1)·2⁻⁵²·Σ|x| and a
/// variance within (n + 1)·2⁻⁵⁰·Σx² / (n − ddof), taken over every number
/// of its input frames and files (n their rows, |x| at most their largest
/// finite magnitude), so that terms that cancel (`i64::MIN + 3 + i64::MAX`)
/// may differ by as much as the bound says; and for timestamps and
/// durations (whose means and medians go through f64, cast back), a mean
/// within (n + 1)·2⁻⁵²·max|x| ticks (Polars adds each chunk of a column
/// apart, so the last bits of its sums depend on how its input came).
fn documented_bound(lf: &LazyFrame) -> Bounds {
    use polars_plan::plans::IR;
    let Ok(plan) = lf.clone().to_alp() else {
        return Bounds::default();
    };
    let (mut rows, mut largest, mut ticks) = (0usize, 0f64, 0f64);
    let mut pending = vec![plan.lp_top];
    while let Some(node) = pending.pop() {
        let ir = plan.lp_arena.get(node);
        pending.extend(ir.inputs());
        let df = match ir {
            IR::DataFrameScan { df, .. } => df.as_ref().clone(),
            IR::Scan { .. } => {
                let (mut lp_arena, mut expr_arena) =
                    (plan.lp_arena.clone(), plan.expr_arena.clone());
                let read = polars_mem_engine::create_physical_plan(
                    node,
                    &mut lp_arena,
                    &mut expr_arena,
                    polars::lazy::frame::BUILD_STREAMING_EXECUTOR,
                )
                .and_then(|mut reader| {
                    reader.execute(&mut polars_expr::state::ExecutionState::new())
                });
                match read {
                    Ok(df) => df,
                    Err(_) => continue,
                }
            }
            _ => continue,
        };
        rows += df.height();
        for column in df.columns() {
            let temporal = matches!(
                column.dtype(),
                DataType::Datetime(..) | DataType::Duration(_)
            );
            if !column.dtype().is_primitive_numeric() && !temporal {
                continue;
            }
            let Ok(values) = column.to_physical_repr().cast(&DataType::Float64) else {
                continue;
            };
            let Ok(values) = values.f64().cloned() else {
                continue;
            };
            for x in values.iter().flatten().filter(|x| x.is_finite()) {
                match temporal {
                    true => ticks = ticks.max(x.abs()),
                    false => largest = largest.max(x.abs()),
                }
            }
        }
    }
    let n = rows as f64;
    Bounds {
        floats: (n + 1.0) * n * 2f64.powi(-50) * largest.max(largest * largest),
        ticks: (n + 1.0) * 2f64.powi(-52) * ticks,
    }
}

/// Runs `lf` on both engines and judges the GPU engine's outcome.
pub fn judge(lf: &LazyFrame, how: Compare) -> Verdict {
    let cpu = |lf: &LazyFrame| quietly(|| lf.clone().collect());
    let expected = match cpu(lf) {
        Err(_) => return Verdict::Skipped("Polars panicked"),
        Ok(result) => result,
    };
    // (Windows mapped by `join` and explodes can square the rows: seed 4948
    // case 136 gave 20 million rows of text, whose copies here took every
    // byte of the machine's memory.)
    if let Ok(df) = &expected
        && df.height() > 1 << 20
    {
        return Verdict::Skipped("Polars' result is of over a million rows");
    }
    // A result whose schema is not the one Polars planned (a dtype left
    // unresolved by a window of a dynamic literal, a `shift_and_fill` of
    // another time unit): the GPU engine gives the planned schema.
    if let Ok(df) = &expected {
        // (Polars' result may name two columns alike, whose schema panics:
        // a group_by_dynamic over no rows, exploded after a join.)
        let Ok(schema) = quietly(|| df.schema().clone()) else {
            return Verdict::Skipped("Polars' result names two columns alike");
        };
        let planned = quietly(|| lf.clone().collect_schema())
            .ok()
            .and_then(Result::ok);
        if planned.is_some_and(|planned| *planned != *schema) {
            return Verdict::Skipped("Polars' result is not of the schema it planned");
        }
    }
    if let Ok(df) = &expected {
        // (Polars may panic reading its own result: a scalar column of a
        // decimal beyond its precision, which its `round` makes.)
        let same = |again: &DataFrame| match quietly(|| difference(df, again, how)) {
            Ok(difference) => Some(difference.is_none()),
            Err(_) => None,
        };
        match cpu(lf) {
            Ok(Ok(again)) => match same(&again) {
                Some(true) => {}
                Some(false) => return Verdict::Skipped("Polars answered differently twice"),
                None => return Verdict::Skipped("Polars panicked reading its own result"),
            },
            _ => return Verdict::Skipped("Polars answered differently twice"),
        }
    }
    // Whether Polars gives `answer` on another run (where its answer, or its
    // error, depends on its threads: the order of an unordered group-by a
    // later step reads).
    let same = |one: &DataFrame, other: &DataFrame| {
        quietly(|| difference(one, other, how)).is_ok_and(|difference| difference.is_none())
    };
    let polars_gives = |answer: &DataFrame| {
        (0..4).any(|_| matches!(cpu(lf), Ok(Ok(again)) if same(&again, answer)))
    };
    // Whether Polars' streaming engine gives `answer`: where Polars' two
    // engines disagree, the in-memory one's answer is Polars' own (a sorted
    // flag it sets on values that are not sorted, read by a later
    // `n_unique`, seed 8023 case 573).
    let streaming_gives = |answer: &DataFrame| {
        let streaming = quietly(|| {
            lf.clone()
                .collect_with_engine(polars::prelude::Engine::Streaming)
                .map(polars_core::query_result::QueryResult::unwrap_single)
        });
        matches!(streaming, Ok(Ok(again)) if same(&again, answer))
    };
    let engine = match how.partition_rows {
        Some(rows) => under_test()
            .with_executor(engine_select::Executor::Partitioned)
            .with_partition_rows(rows),
        None => under_test(),
    };
    let engine = Engine::Gpu(engine.with_spill_kept_results(how.spill_kept));
    let actual = match quietly(|| lf.clone().collect_with_report(&engine)) {
        // Polars' own panic, which the GPU engine's fallback passes on as
        // the CPU engine does, where Polars panics on some runs only (the
        // thread that fails first raises or panics: where Polars raised,
        // its debug build's overflow check on another thread may panic
        // first, seed 772 case 273).
        Err(_) if expected.is_err() || (0..4).any(|_| cpu(lf).is_err()) => {
            return Verdict::Skipped("Polars panicked");
        }
        Err(message) => return Verdict::Failed(Failure::Panicked(message)),
        Ok(actual) => actual,
    };
    match (expected, actual) {
        (Ok(expected), Ok((actual, report))) => {
            let within = if how.floats_close {
                documented_bound(lf)
            } else {
                Bounds::default()
            };
            let differs = match quietly(|| difference_within(&expected, &actual, how, within)) {
                Ok(differs) => differs,
                Err(_) => return Verdict::Skipped("Polars panicked reading a result"),
            };
            if let Some(why) = differs {
                if polars_gives(&actual) {
                    return Verdict::Skipped("Polars gives this answer on another run");
                }
                if streaming_gives(&actual) {
                    return Verdict::Skipped("Polars' streaming engine gives this answer");
                }
                if slices_unordered_rows(lf) {
                    return Verdict::Skipped("Polars' plan slices rows it left in no order");
                }
                if keyed_dynamic_group_by(lf) {
                    return Verdict::Skipped(
                        "Polars flags a keyed group_by_dynamic's index column sorted, and a \
                         later step reads the flag",
                    );
                }
                if windows_over_literals_of_no_columns(lf) {
                    return Verdict::Skipped(
                        "Polars computes a window over literals in a group-by key of no columns \
                         over one row",
                    );
                }
                if lists_per_row_tested_after_a_filter(lf) {
                    return Verdict::Skipped(
                        "Polars' membership test in lists per row reads other rows' lists in a \
                         filter's slices",
                    );
                }
                if how.ordered && optimiser_drops_an_order(lf) {
                    return Verdict::Skipped("Polars' optimiser drops an order a later step reads");
                }
                let close = Compare {
                    floats_close: true,
                    ..how
                };
                if divides_by_one_value_after_a_filter(lf)
                    && difference_within(&expected, &actual, close, Bounds::default()).is_none()
                {
                    return Verdict::Skipped(
                        "Polars divides by one value exactly in a one-row chunk of a filter's \
                         split among its threads",
                    );
                }
                // The GPU engine fell back wholly: Polars' in-memory engine
                // answered over Polars' own plan, otherwise than on the
                // oracle's runs (an answer that depends on how a parallel
                // group-by chunks its result: a literal clipped by bounds
                // of every row, seed 24072 case 798).
                if matches!(report.executed_by, ExecutedBy::Cpu(_)) {
                    return Verdict::Skipped("Polars' own engine answered otherwise on its run");
                }

                return Verdict::Failed(Failure::WrongAnswer(format!("{why}\n{report}")));
            }
            if std::env::var("FUZZ_REASONS").is_ok() {
                for r in &report.fallback_reasons {
                    let at = r.subject.as_deref().unwrap_or("-");
                    eprintln!("REASON {:?} {} @ {at}", r.kind, r.message);
                }
            }
            let internal = report
                .fallback_reasons
                .iter()
                .find(|r| r.kind == FallbackKind::Internal);
            if let Some(reason) = internal {
                // Polars' debug build panics on an integer overflow its
                // release build wraps, on the path it takes for the run (it
                // samples the keys to choose how to group): the CPU part of
                // a mixed plan may meet it where the CPU's whole run did not.
                let overflow = reason.message.contains("Polars panicked")
                    && reason.message.contains("with overflow");
                if overflow && cfg!(debug_assertions) {
                    return Verdict::Skipped("Polars' debug build panics on an overflow");
                }
                return Verdict::Failed(Failure::InternalFallback(reason.to_string()));
            }
            Verdict::Same(match report.executed_by {
                ExecutedBy::Gpu { .. } => Ran::Gpu,
                ExecutedBy::Mixed { .. } => Ran::Mixed,
                ExecutedBy::Cpu(_) => Ran::Fallback,
            })
        }
        (Ok(_), Err(e)) => Verdict::Failed(Failure::Error(e.to_string())),
        (Err(e), Ok(_)) if polars_bug(&e) => Verdict::Skipped("an error Polars should not raise"),
        (Err(_), Ok((actual, _))) if polars_gives(&actual) => {
            Verdict::Skipped("Polars raises on one run and answers on another")
        }
        (Err(_), Ok((actual, _))) if streaming_gives(&actual) => {
            Verdict::Skipped("Polars raises; its streaming engine gives this answer")
        }
        // The GPU engine fell back wholly: Polars' in-memory engine
        // answered where it raised on the oracle's run (a slice of the
        // groups of a group-by in no order keeps groups of its hash order,
        // an `item` of two values among them or not: seed 4322 case 287).
        (Err(_), Ok((_, report))) if matches!(report.executed_by, ExecutedBy::Cpu(_)) => {
            Verdict::Skipped("Polars' own engine answered on its run, where it raised on ours")
        }
        (Err(e), Ok((actual, report))) => {
            Verdict::Failed(Failure::AnsweredWherePolarsRaises(format!(
                "Polars raises: {e}\nthe GPU engine gave {}\n{report}",
                show(&actual)
            )))
        }
        (Err(_), Err(EngineError::Polars(_))) => Verdict::Same(Ran::BothRaised),
        (Err(e), Err(other)) => Verdict::Failed(Failure::Error(format!(
            "Polars raises: {e}\nthe GPU engine raised instead: {other}"
        ))),
    }
}

/// A categorical's cells do not change when the global mapping grows (as
/// it does while other queries run beside this one): a CI run compared
/// two equal frames as different once.
#[test]
fn categories_compare_by_text_while_the_global_mapping_grows() {
    let categorical = DataType::from_categories(Categories::global());
    let frame = df!("c" => [Some("oracle-a"), None, Some("oracle-b")])
        .unwrap()
        .lazy()
        .with_columns([col("c").cast(categorical.clone())])
        .group_by_stable([lit(1).alias("k")])
        .agg([col("c"), col("c").first().alias("first")])
        .collect()
        .unwrap();
    let how = crate::gpu::EXACTLY;
    let before = canonical(&frame, how);
    let grown = df!("c" => [format!("oracle-{:p}", &frame)])
        .unwrap()
        .lazy()
        .select([col("c").cast(categorical)])
        .collect()
        .unwrap();
    assert_eq!(before, canonical(&frame, how), "{grown}");
    assert_eq!(difference(&frame, &frame.clone(), how), None);
}
