//! The fuzzer's plans: chains of lazy operations over the random tables, built as a `LazyFrame` and printed as Rust.

use polars::prelude::*;

use super::Compare;
use super::code::Code;
use super::expr::{Agg, E, Op};
use super::table::Table;

/// A lazy query over the tables `t0`, `t1`, ...
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Table `n`.
    Scan(usize),
    Filter(Box<Plan>, E),
    Select(Box<Plan>, Vec<E>),
    WithColumns(Box<Plan>, Vec<E>),
    Sort {
        input: Box<Plan>,
        by: Vec<E>,
        descending: Vec<bool>,
        nulls_last: Vec<bool>,
        maintain_order: bool,
    },
    GroupBy {
        input: Box<Plan>,
        keys: Vec<E>,
        aggs: Vec<E>,
        stable: bool,
    },
    /// `group_by_dynamic` by the date, timestamp or integer column `index`,
    /// in windows of `every` (its defaults otherwise), after a sort by it,
    /// of the rows [`window_filter`] keeps.
    /// With `rolling`, a rolling group-by instead: each row's window the
    /// `every` before its time, or moved by `offset` where it is not
    /// zero (the labels unused). Within the rows of each of `keys` (columns
    /// of the input) where there are some.
    GroupByDynamic {
        input: Box<Plan>,
        index: String,
        keys: Vec<String>,
        rolling: bool,
        every: &'static str,
        /// How long each window lasts (unused by a rolling group-by), and
        /// where the first starts.
        period: &'static str,
        start_by: StartBy,
        /// The windows' offset, which sides they are closed on, and their labels.
        offset: &'static str,
        closed: ClosedWindow,
        label: Label,
        /// Whether each window's boundaries are columns of the result.
        boundaries: bool,
        aggs: Vec<E>,
    },
    Join {
        left: Box<Plan>,
        right: Box<Plan>,
        left_on: Vec<E>,
        right_on: Vec<E>,
        how: JoinType,
        nulls_equal: bool,
        maintain_order: MaintainOrderJoin,
    },
    Unique {
        input: Box<Plan>,
        subset: Option<Vec<String>>,
        keep: UniqueKeepStrategy,
        stable: bool,
    },
    Slice(Box<Plan>, i64, u32),
    WithRowIndex(Box<Plan>, String, u32),
    /// The inputs one after the other (their schemas are equal).
    Union(Vec<Plan>),
    /// The inputs' columns side by side (`concat_lf_horizontal`), shorter
    /// inputs padded with nulls.
    HConcat(Vec<Plan>),
    /// `concat_lf_diagonal`: the inputs' rows stacked, each input's
    /// missing columns null (to supertypes).
    Diagonal(Vec<Plan>),
    DropNulls(Box<Plan>, Option<Vec<String>>),
    Reverse(Box<Plan>),
    /// The list columns named so exploded together: (empty_as_null,
    /// keep_nulls).
    Explode(Box<Plan>, Vec<String>, (bool, bool)),
    /// The struct column named so unnested.
    Unnest(Box<Plan>, String),
    /// Wide to long: the columns `on` (every other column where `None`)
    /// one after another as values, beside the `index` columns, under the
    /// names (variable, value).
    Unpivot {
        input: Box<Plan>,
        on: Option<Vec<String>>,
        index: Vec<String>,
        names: (String, String),
    },
}

fn exprs(es: &[E]) -> Vec<Expr> {
    es.iter().map(E::build).collect()
}

fn exprs_code(es: &[E]) -> String {
    let items: Vec<String> = es.iter().map(E::code).collect();
    format!("[{}]", items.join(", "))
}

/// `Some(vec![col("a"), ...])`, or `Some(cols(["a", ...]))` as a selector.
fn names_code(names: &Option<Vec<String>>, selector: bool) -> String {
    match names {
        None => "None".into(),
        Some(names) if selector => format!("Some(cols({names:?}))"),
        Some(names) => {
            let items: Vec<String> = names.iter().map(|n| format!("col({n:?})")).collect();
            format!("Some(vec![{}])", items.join(", "))
        }
    }
}

fn columns_of(names: &Option<Vec<String>>) -> Option<Vec<Expr>> {
    names
        .as_ref()
        .map(|names| names.iter().map(|n| col(n.as_str())).collect())
}

impl Plan {
    /// The query over `tables` (each read as in memory or from a file).
    pub fn build(&self, tables: &[LazyFrame]) -> LazyFrame {
        match self {
            Plan::Scan(n) => tables[*n].clone(),
            Plan::Filter(input, p) => input.build(tables).filter(p.build()),
            Plan::Select(input, es) => input.build(tables).select(exprs(es)),
            Plan::WithColumns(input, es) => input.build(tables).with_columns(exprs(es)),
            Plan::Sort {
                input,
                by,
                descending,
                nulls_last,
                maintain_order,
            } => input.build(tables).sort_by_exprs(
                exprs(by),
                SortMultipleOptions::default()
                    .with_order_descending_multi(descending.clone())
                    .with_nulls_last_multi(nulls_last.clone())
                    .with_maintain_order(*maintain_order),
            ),
            Plan::GroupBy {
                input,
                keys,
                aggs,
                stable,
            } => {
                let lf = input.build(tables);
                let grouped = if *stable {
                    lf.group_by_stable(exprs(keys))
                } else {
                    lf.group_by(exprs(keys))
                };
                grouped.agg(exprs(aggs))
            }
            Plan::GroupByDynamic {
                input,
                index,
                keys,
                rolling,
                every,
                period,
                start_by,
                offset,
                closed,
                label,
                boundaries,
                aggs,
            } => {
                let keys: Vec<Expr> = keys.iter().map(|k| col(k.as_str())).collect();
                let sorted = input
                    .build(tables)
                    .filter(window_filter(index, every).0)
                    .sort(
                        [index.as_str()],
                        SortMultipleOptions::default().with_maintain_order(true),
                    );
                if *rolling {
                    let options = RollingGroupOptions {
                        index_column: index.as_str().into(),
                        period: Duration::parse(every),
                        offset: Duration::parse(&rolling_offset(every, offset)),
                        closed_window: *closed,
                    };
                    return sorted
                        .rolling(col(index.as_str()), keys, options)
                        .agg(exprs(aggs));
                }
                sorted
                    .group_by_dynamic(
                        col(index.as_str()),
                        keys,
                        DynamicGroupOptions {
                            every: Duration::parse(every),
                            period: Duration::parse(period),
                            offset: Duration::parse(offset),
                            closed_window: *closed,
                            label: *label,
                            include_boundaries: *boundaries,
                            start_by: *start_by,
                            ..Default::default()
                        },
                    )
                    .agg(exprs(aggs))
            }
            Plan::Join {
                left,
                right,
                left_on,
                right_on,
                how,
                nulls_equal,
                maintain_order,
            } => {
                let args = JoinArgs {
                    nulls_equal: *nulls_equal,
                    maintain_order: *maintain_order,
                    ..JoinArgs::new(how.clone())
                };
                left.build(tables)
                    .join(right.build(tables), exprs(left_on), exprs(right_on), args)
            }
            Plan::Unique {
                input,
                subset,
                keep,
                stable,
            } => {
                let lf = input.build(tables);
                let subset = columns_of(subset);
                if *stable {
                    lf.unique_stable_generic(subset, *keep)
                } else {
                    lf.unique_generic(subset, *keep)
                }
            }
            Plan::Slice(input, offset, len) => input.build(tables).slice(*offset, *len),
            Plan::WithRowIndex(input, name, offset) => input
                .build(tables)
                .with_row_index(name.as_str(), Some(*offset)),
            Plan::Union(inputs) => concat(
                inputs.iter().map(|p| p.build(tables)).collect::<Vec<_>>(),
                UnionArgs::default(),
            )
            .unwrap(),
            Plan::Diagonal(inputs) => concat_lf_diagonal(
                inputs.iter().map(|p| p.build(tables)).collect::<Vec<_>>(),
                UnionArgs {
                    to_supertypes: true,
                    ..Default::default()
                },
            )
            .unwrap(),
            Plan::HConcat(inputs) => concat_lf_horizontal(
                inputs.iter().map(|p| p.build(tables)).collect::<Vec<_>>(),
                HConcatOptions::default(),
            )
            .unwrap(),
            Plan::DropNulls(input, subset) => {
                input.build(tables).drop_nulls(subset.clone().map(cols))
            }
            Plan::Reverse(input) => input.build(tables).reverse(),
            Plan::Unnest(input, name) => input
                .build(tables)
                .unnest(by_name([name.as_str()], true, false), None),
            Plan::Unpivot {
                input,
                on,
                index,
                names: (variable, value),
            } => input.build(tables).unpivot(UnpivotArgsDSL {
                on: on
                    .as_ref()
                    .map(|on| by_name(on.iter().map(String::as_str), true, false)),
                index: by_name(index.iter().map(String::as_str), true, false),
                variable_name: Some(variable.as_str().into()),
                value_name: Some(value.as_str().into()),
            }),
            Plan::Explode(input, names, (empty_as_null, keep_nulls)) => {
                input.build(tables).explode(
                    by_name(names.iter().map(String::as_str), true, false),
                    ExplodeOptions {
                        empty_as_null: *empty_as_null,
                        keep_nulls: *keep_nulls,
                    },
                )
            }
        }
    }

    /// Its Rust source, over variables `t0`, `t1`, ...
    pub fn code(&self) -> String {
        match self {
            Plan::Scan(n) => format!("t{n}.clone().lazy()"),
            Plan::Filter(input, p) => format!("{}\n        .filter({})", input.code(), p.code()),
            Plan::Select(input, es) => {
                format!("{}\n        .select({})", input.code(), exprs_code(es))
            }
            Plan::WithColumns(input, es) => {
                format!(
                    "{}\n        .with_columns({})",
                    input.code(),
                    exprs_code(es)
                )
            }
            Plan::Sort {
                input,
                by,
                descending,
                nulls_last,
                maintain_order,
            } => format!(
                "{}\n        .sort_by_exprs({}, SortMultipleOptions::default()\
                 .with_order_descending_multi({})\
                 .with_nulls_last_multi({})\
                 .with_maintain_order({maintain_order}))",
                input.code(),
                exprs_code(by),
                descending.code(),
                nulls_last.code()
            ),
            Plan::GroupBy {
                input,
                keys,
                aggs,
                stable,
            } => format!(
                "{}\n        .{}({})\n        .agg({})",
                input.code(),
                if *stable {
                    "group_by_stable"
                } else {
                    "group_by"
                },
                exprs_code(keys),
                exprs_code(aggs)
            ),
            Plan::GroupByDynamic {
                input,
                index,
                keys,
                rolling: true,
                every,
                offset,
                closed,
                aggs,
                ..
            } => format!(
                "{}\n        .filter({})\
                 \n        .sort([{index:?}], SortMultipleOptions::default().with_maintain_order(true))\
                 \n        .rolling(col({index:?}), {}, \
                 RollingGroupOptions {{ index_column: {index:?}.into(), \
                 period: Duration::parse({every:?}), offset: Duration::parse({:?}), \
                 closed_window: ClosedWindow::{closed:?} }})\n        .agg({})",
                input.code(),
                window_filter(index, every).1,
                keys_code(keys),
                rolling_offset(every, offset),
                exprs_code(aggs)
            ),
            Plan::GroupByDynamic {
                input,
                index,
                keys,
                every,
                period,
                start_by,
                offset,
                closed,
                label,
                boundaries,
                aggs,
                ..
            } => format!(
                "{}\n        .filter({})\
                 \n        .sort([{index:?}], SortMultipleOptions::default().with_maintain_order(true))\
                 \n        .group_by_dynamic(col({index:?}), {}, \
                 DynamicGroupOptions {{ every: Duration::parse({every:?}), \
                 period: Duration::parse({period:?}), offset: Duration::parse({offset:?}), \
                 closed_window: ClosedWindow::{closed:?}, label: Label::{label:?}, \
                 include_boundaries: {boundaries}, start_by: StartBy::{start_by:?}, \
                 ..Default::default() }})\n        .agg({})",
                input.code(),
                window_filter(index, every).1,
                keys_code(keys),
                exprs_code(aggs)
            ),
            Plan::Join {
                left,
                right,
                left_on,
                right_on,
                how,
                nulls_equal,
                maintain_order,
            } => format!(
                "{}\n        .join({}, {}, {}, JoinArgs {{ nulls_equal: {nulls_equal}, \
                 maintain_order: {}, ..JoinArgs::new({}) }})",
                left.code(),
                right.code().replace("\n        ", "\n            "),
                exprs_code(left_on),
                exprs_code(right_on),
                maintain_order.code(),
                how.code()
            ),
            Plan::Unique {
                input,
                subset,
                keep,
                stable,
            } => format!(
                "{}\n        .{}({}, {})",
                input.code(),
                if *stable {
                    "unique_stable_generic"
                } else {
                    "unique_generic"
                },
                names_code(subset, false),
                keep.code()
            ),
            Plan::Slice(input, offset, len) => {
                format!("{}\n        .slice({offset}, {len})", input.code())
            }
            Plan::WithRowIndex(input, name, offset) => format!(
                "{}\n        .with_row_index({name:?}, Some({offset}))",
                input.code()
            ),
            Plan::Union(inputs) => {
                let items: Vec<String> = inputs.iter().map(Plan::code).collect();
                format!(
                    "concat([{}], UnionArgs::default()).unwrap()",
                    items.join(", ")
                )
            }
            Plan::Diagonal(inputs) => {
                let items: Vec<String> = inputs.iter().map(Plan::code).collect();
                format!(
                    "concat_lf_diagonal([{}], UnionArgs {{ to_supertypes: true, ..Default::default() }}).unwrap()",
                    items.join(", ")
                )
            }
            Plan::HConcat(inputs) => {
                let items: Vec<String> = inputs.iter().map(Plan::code).collect();
                format!(
                    "concat_lf_horizontal([{}], HConcatOptions::default()).unwrap()",
                    items.join(", ")
                )
            }
            Plan::DropNulls(input, subset) => format!(
                "{}\n        .drop_nulls({})",
                input.code(),
                names_code(subset, true)
            ),
            Plan::Reverse(input) => format!("{}\n        .reverse()", input.code()),
            Plan::Unnest(input, name) => format!(
                "{}\n        .unnest(by_name([{name:?}], true, false), None)",
                input.code()
            ),
            Plan::Unpivot {
                input,
                on,
                index,
                names: (variable, value),
            } => format!(
                "{}\n        .unpivot(UnpivotArgsDSL {{ on: {}, index: by_name({index:?}, true, \
                 false), variable_name: Some({variable:?}.into()), value_name: \
                 Some({value:?}.into()) }})",
                input.code(),
                match on {
                    Some(on) => format!("Some(by_name({on:?}, true, false))"),
                    None => "None".into(),
                }
            ),
            Plan::Explode(input, names, (empty_as_null, keep_nulls)) => format!(
                "{}\n        .explode(by_name({names:?}, true, false), ExplodeOptions \
                 {{ empty_as_null: {empty_as_null}, keep_nulls: {keep_nulls} }})",
                input.code()
            ),
        }
    }

    /// Whether the query defines the order of its rows (else results are
    /// compared as multisets).
    pub fn ordered(&self) -> bool {
        match self {
            Plan::Scan(_) => true,
            // Polars gives unsorted counts, and modes and distinct values
            // not kept in order, in its hash table's order.
            Plan::Select(input, es) => {
                let hashed = |op: &Op| {
                    matches!(
                        op,
                        Op::ValueCounts(false, _) | Op::Mode(false) | Op::Unique(false)
                    )
                };
                let unsorted_counts = |e: &E| match &e.op {
                    Op::Alias(_) => e.args.first().is_some_and(|x| hashed(&x.op)),
                    op => hashed(op),
                };
                input.ordered() && !es.iter().any(unsorted_counts)
            }
            Plan::Filter(input, _)
            | Plan::WithColumns(input, _)
            | Plan::Slice(input, _, _)
            | Plan::WithRowIndex(input, _, _)
            | Plan::DropNulls(input, _)
            | Plan::Explode(input, ..)
            | Plan::Unnest(input, _)
            | Plan::Unpivot { input, .. }
            | Plan::Reverse(input) => input.ordered(),
            Plan::Sort {
                input,
                maintain_order,
                ..
            } => *maintain_order && input.ordered(),
            Plan::GroupBy { input, stable, .. } | Plan::Unique { input, stable, .. } => {
                *stable && input.ordered()
            }
            // In the windows' order (sorted first: ties of the time in the
            // input's order, read by first and last).
            Plan::GroupByDynamic { input, .. } => input.ordered(),
            Plan::Join {
                left,
                right,
                maintain_order,
                how,
                ..
            } => {
                // The order Polars defines: by the side whose rows all come
                // out (a semi, anti or left join's left rows; a right join's
                // right rows), or both sides' for inner and cross joins and
                // for full joins kept by both.
                use MaintainOrderJoin as M;
                // (Polars' optimiser drops the order of an input it takes as
                // unread: only the orders led by the left rows are kept
                // whole, the right join's by its right rows.)
                let kept = match how {
                    // Every left row in order, each with its match.
                    JoinType::AsOf(_) => true,
                    JoinType::Right => *maintain_order == M::RightLeft,
                    JoinType::Full => *maintain_order == M::LeftRight,
                    _ => matches!(maintain_order, M::Left | M::LeftRight),
                };
                kept && left.ordered() && right.ordered()
            }
            Plan::Union(inputs) | Plan::HConcat(inputs) | Plan::Diagonal(inputs) => {
                inputs.iter().all(Plan::ordered)
            }
        }
    }

    /// The inputs of this node.
    pub fn inputs(&self) -> Vec<&Plan> {
        match self {
            Plan::Scan(_) => vec![],
            Plan::Filter(input, _)
            | Plan::Select(input, _)
            | Plan::WithColumns(input, _)
            | Plan::Slice(input, _, _)
            | Plan::WithRowIndex(input, _, _)
            | Plan::DropNulls(input, _)
            | Plan::Reverse(input)
            | Plan::Explode(input, ..)
            | Plan::Unnest(input, _)
            | Plan::Unpivot { input, .. }
            | Plan::Sort { input, .. }
            | Plan::GroupBy { input, .. }
            | Plan::GroupByDynamic { input, .. }
            | Plan::Unique { input, .. } => vec![input],
            Plan::Join { left, right, .. } => vec![left, right],
            Plan::Union(inputs) | Plan::HConcat(inputs) | Plan::Diagonal(inputs) => {
                inputs.iter().collect()
            }
        }
    }

    /// Every expression of the query.
    pub fn expressions(&self) -> Vec<&E> {
        let own: Vec<&E> = match self {
            Plan::Filter(_, e) => vec![e],
            Plan::Select(_, es) | Plan::WithColumns(_, es) => es.iter().collect(),
            Plan::Sort { by, .. } => by.iter().collect(),
            Plan::GroupBy { keys, aggs, .. } => keys.iter().chain(aggs).collect(),
            Plan::GroupByDynamic { aggs, .. } => aggs.iter().collect(),
            Plan::Join {
                left_on, right_on, ..
            } => left_on.iter().chain(right_on).collect(),
            _ => vec![],
        };
        let inputs = self.inputs().into_iter().flat_map(Plan::expressions);
        own.into_iter().chain(inputs).collect()
    }

    /// The tables the query reads.
    pub fn tables(&self) -> Vec<usize> {
        match self {
            Plan::Scan(n) => vec![*n],
            other => other.inputs().into_iter().flat_map(Plan::tables).collect(),
        }
    }
}

/// A whole fuzz case: tables and a query over them.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub tables: Vec<Table>,
    pub plan: Plan,
    /// Rows per partition where the GPU engine runs it partitioned.
    pub partition_rows: Option<usize>,
    /// Where the tables are read from: memory, or files (which the
    /// partitioned executor reads in partitions).
    pub files: super::Files,
    /// Whether every result the executor keeps for later goes to host
    /// memory and back.
    pub spill_kept: bool,
}

impl Case {
    pub fn frames(&self) -> Vec<DataFrame> {
        self.tables.iter().map(Table::frame).collect()
    }

    pub fn lazy(&self) -> LazyFrame {
        let tables: Vec<LazyFrame> = self.frames().iter().map(|df| self.files.scan(df)).collect();
        self.plan.build(&tables)
    }

    /// How its result is compared with Polars'.
    pub fn compare(&self) -> Compare {
        Compare {
            ordered: self.plan.ordered(),
            // (Spreads are Polars' to the bit in memory; over partitions
            // they are merged by Chan's combination.)
            floats_close: self.plan.expressions().iter().any(|e| {
                e.nodes().iter().any(|n| match n.op {
                    Op::Agg(Agg::Sum | Agg::Mean | Agg::Entropy(..)) => true,
                    Op::Agg(Agg::Std(_) | Agg::Var(_)) | Op::ListStd(_) | Op::ListVar(_) => {
                        self.partition_rows.is_some()
                    }
                    _ => false,
                })
            }),
            partition_rows: self.partition_rows,
            spill_kept: self.spill_kept,
        }
    }

    /// A self-contained Rust test of this case, named `name`.
    pub fn test_code(&self, name: &str, note: &str) -> String {
        let used = self.plan.tables();
        let tables: Vec<String> = self
            .tables
            .iter()
            .enumerate()
            .filter(|(n, _)| used.contains(n))
            .map(|(n, t)| format!("    {}", t.code(&format!("t{n}"))))
            .collect();
        let mut plan = self.plan.code();
        for n in used {
            let name = format!("t{n}");
            plan = plan.replace(&super::Files::Memory.code(&name), &self.files.code(&name));
        }
        format!(
            "/// {note}\n#[test]\nfn {name}() {{\n{}\n    let lf = {plan};\n    \
             crate::fuzz::assert_same_as_cpu(lf, crate::fuzz::{:?});\n}}\n",
            tables.join("\n"),
            self.compare()
        )
    }
}

/// A rolling group-by's offset: the period before each row (`-every`) where
/// the drawn `offset` is zero, else that offset.
fn rolling_offset(every: &str, offset: &str) -> String {
    match offset {
        "0ns" | "0i" => format!("-{every}"),
        _ => offset.to_string(),
    }
}

/// The code of the key columns `keys` of a time-window group-by.
fn keys_code(keys: &[String]) -> String {
    match keys.is_empty() {
        true => "[] as [Expr; 0]".to_string(),
        false => {
            let cols: Vec<String> = keys.iter().map(|k| format!("col({k:?})")).collect();
            format!("[{}]", cols.join(", "))
        }
    }
}

/// The rows a time-window group-by by `index` in windows of `every` keeps
/// (Polars walks every window between the first time and the last:
/// extreme times would take it years), and its code: of a date or
/// timestamp index the years 1900 to 2100, of an integer one (windows of
/// `"2i"`) -100,000 to 100,000.
fn window_filter(index: &str, every: &str) -> (Expr, String) {
    match every.ends_with('i') {
        true => (
            col(index).is_between(lit(-100_000), lit(100_000), ClosedInterval::Both),
            format!("col({index:?}).is_between(lit(-100_000), lit(100_000), ClosedInterval::Both)"),
        ),
        false => (
            col(index)
                .dt()
                .year()
                .is_between(lit(1900), lit(2100), ClosedInterval::Both),
            format!(
                "col({index:?}).dt().year().is_between(lit(1900), lit(2100), \
                 ClosedInterval::Both)"
            ),
        ),
    }
}
