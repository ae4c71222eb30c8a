//! Medians and quantiles over partitions: each group's valid values sorted by keys and value (a sort by ranges), its counts added up beside the other aggregations, and its quantile read at its ranks.
//!
//! A group's quantile needs the values at one or two ranks of its valid
//! values, and where those ranks are follows from how many there are. So
//! a group-by of quantiles need not hold a group's rows at once: the
//! counts add up over partitions (with the other aggregations, where
//! those do), the valid values sorted by keys then value (a stable sort
//! by ranges, which splits a key of many rows over many ranges) put every
//! group's values in one run in order of its keys, and a group's run
//! starts where the counts of the groups before it end.

use crate::dtype::GpuDtype;
use crate::expr::{AggOp, BinaryOp, CastMode, ExprKind, GpuExpr, NamedExpr, Scalar};
use crate::plan::{OutputSchema, PlanNode, SortKey};

use super::{named, placeholder};

/// A group-by of medians and quantiles beside aggregations that add up
/// (or a select of such over the whole frame), as plans over placeholder
/// inputs (see [`PlanNode::ranked_quantiles`]).
#[derive(Debug, Clone)]
pub struct RankedQuantiles {
    /// The group-by (or select) of the other aggregations, with each
    /// quantile's counts and the groups' lengths in place of the
    /// quantiles: of aggregations that add up (see
    /// [`PlanNode::partial_aggregation`]), the groups in the order of
    /// their first rows. Its first `keys` columns are the keys (named as
    /// the node's), then the other aggregations (named as the node's).
    pub counts: PlanNode,
    /// How many keys the node has.
    pub keys: usize,
    /// The column of `counts` holding each group's number of rows.
    pub length: String,
    /// The values the quantiles read, each expression's once.
    pub sorted: Vec<RankedValues>,
    /// Each quantile, in the order of the node's aggregations.
    pub quantiles: Vec<RankedQuantile>,
}

/// The valid values of one expression that quantiles read, sorted by the
/// keys, of a [`RankedQuantiles`].
#[derive(Debug, Clone)]
pub struct RankedValues {
    /// A select over the node's input of its keys (named as the node's)
    /// and the value as f64 ([`QUANTILE_VALUE`], last), filtered to the
    /// rows where the value is valid; without keys, a first column of a
    /// literal beside it (a frame of one float column is sorted as
    /// Polars' own where it holds both zeros).
    pub values: PlanNode,
    /// The stable sort of `values`' rows by the keys, then the value
    /// (nulls first, ascending): each group's valid values one run in
    /// order, the runs in the order of their keys.
    pub sort: PlanNode,
    /// The column of `counts` holding each group's valid values' number.
    pub count: String,
    /// The columns of `counts` holding each group's numbers of -0.0 and of
    /// 0.0 (of floats): where a group holds both and its quantile is a
    /// zero, which zero Polars gives is its own.
    pub zeros: Option<(String, String)>,
}

/// One quantile of a [`RankedQuantiles`].
#[derive(Debug, Clone)]
pub struct RankedQuantile {
    /// The node's column it gives (f64).
    pub name: String,
    /// The probability, in [0, 1], and Polars' method name.
    pub quantile: f64,
    pub method: &'static str,
    /// Which of [`RankedQuantiles::sorted`] it reads.
    pub of: usize,
}

/// The name of the value beside the keys in [`RankedValues::values`].
pub const QUANTILE_VALUE: &str = "__polars_gpu_quantile_value";

impl PlanNode {
    /// A group-by by keys of integers, booleans, texts, dates, times,
    /// datetimes or durations (row-wise, which sort as the group-by
    /// groups them) of medians and quantiles of row-wise expressions of
    /// integers or f64 that read a column, beside aggregations that add up
    /// over partitions; or a select over the whole frame of such. `None`
    /// for other nodes, and where no aggregation is a quantile.
    pub fn ranked_quantiles(&self) -> Option<RankedQuantiles> {
        let (input, keys, aggs) = match self {
            PlanNode::GroupBy {
                input, keys, aggs, ..
            } => (input, keys.as_slice(), aggs),
            PlanNode::Select { input, exprs, .. } => (input, &[][..], exprs),
            _ => return None,
        };
        let sortable = |dtype: GpuDtype| {
            dtype.is_integer()
                || matches!(
                    dtype,
                    GpuDtype::Boolean
                        | GpuDtype::String
                        | GpuDtype::Date
                        | GpuDtype::Datetime(_)
                        | GpuDtype::Duration(_)
                        | GpuDtype::Time
                )
        };
        if !keys
            .iter()
            .all(|key| key.expr.is_row_wise() && sortable(key.expr.dtype))
        {
            return None;
        }
        let (f64, u32, boolean) = (GpuDtype::Float64, GpuDtype::UInt32, GpuDtype::Boolean);
        let k = keys.len();
        let length = "__polars_gpu_quantile_length".to_string();
        let mut others = Vec::new();
        let mut helpers = vec![named(
            length.clone(),
            GpuExpr {
                kind: ExprKind::Len,
                dtype: u32,
            },
        )];
        let (mut quantiles, mut sorted, mut read) = (Vec::new(), Vec::new(), Vec::new());
        for agg in aggs {
            let Some((of, quantile, method)) = quantile_of(&agg.expr) else {
                others.push(agg.clone());
                continue;
            };
            let i = read.iter().position(|e| e == of).unwrap_or(read.len());
            quantiles.push(RankedQuantile {
                name: agg.name.clone(),
                quantile,
                method,
                of: i,
            });
            if i < read.len() {
                continue;
            }
            read.push(of.clone());
            let x = of.clone().cast(f64, CastMode::NonStrict);
            let count = format!("__polars_gpu_quantile_count_{i}");
            let valid = AggOp::Count {
                include_nulls: false,
            };
            helpers.push(named(
                count.clone(),
                x.clone().aggregated(valid.clone(), u32),
            ));
            let zeros = of.dtype.is_float().then(|| {
                // -0.0 and 0.0 are the zeros whose inverse is below or
                // above 0.
                let zero = |of: BinaryOp| {
                    let literal = |v: f64| GpuExpr::literal(Scalar::Float(v), f64);
                    let inverse = literal(1.0).binary(BinaryOp::TrueDivide, x.clone(), f64);
                    let is = (x.clone().binary(BinaryOp::Eq, literal(0.0), boolean)).binary(
                        BinaryOp::And,
                        inverse.binary(of, literal(0.0), boolean),
                        boolean,
                    );
                    is.then(literal(1.0), GpuExpr::literal(Scalar::Null, f64), f64)
                        .aggregated(valid.clone(), u32)
                };
                let names = (
                    format!("__polars_gpu_quantile_negative_zeros_{i}"),
                    format!("__polars_gpu_quantile_positive_zeros_{i}"),
                );
                helpers.push(named(names.0.clone(), zero(BinaryOp::Lt)));
                helpers.push(named(names.1.clone(), zero(BinaryOp::Gt)));
                names
            });
            let mut value_exprs: Vec<NamedExpr> = keys.to_vec();
            if k == 0 {
                let one = GpuExpr::literal(Scalar::UInt(1), GpuDtype::UInt8);
                value_exprs.push(named("__polars_gpu_quantile_one".into(), one));
            }
            value_exprs.push(named(QUANTILE_VALUE.into(), x.clone()));
            let value_schema: OutputSchema =
                value_exprs.iter().map(NamedExpr::output_column).collect();
            let selected = PlanNode::Select {
                input: Box::new(placeholder(input.schema().clone())),
                exprs: value_exprs,
                schema: value_schema.clone(),
            };
            let value = GpuExpr::column(value_schema.len() - 1, QUANTILE_VALUE, f64);
            let values = PlanNode::Filter {
                input: Box::new(selected),
                predicate: GpuExpr {
                    kind: ExprKind::Not(Box::new(value.clone().is_null())),
                    dtype: boolean,
                },
                schema: value_schema.clone(),
            };
            let sort_keys = (0..k)
                .map(|j| {
                    let c = &value_schema[j];
                    GpuExpr::column(j, c.name.clone(), c.dtype)
                })
                .chain([value])
                .map(|expr| SortKey {
                    expr,
                    descending: false,
                    nulls_last: false,
                })
                .collect();
            let sort = PlanNode::Sort {
                input: Box::new(placeholder(value_schema.clone())),
                keys: sort_keys,
                stable: true,
                slice: None,
                schema: value_schema,
            };
            sorted.push(RankedValues {
                values,
                sort,
                count,
                zeros,
            });
        }
        if quantiles.is_empty() {
            return None;
        }
        others.extend(helpers);
        let counts = match self {
            PlanNode::GroupBy {
                input,
                keys,
                polars_partitions_from,
                ..
            } => PlanNode::GroupBy {
                input: Box::new(placeholder(input.schema().clone())),
                keys: keys.clone(),
                schema: keys
                    .iter()
                    .chain(&others)
                    .map(NamedExpr::output_column)
                    .collect(),
                aggs: others,
                maintain_order: true,
                slice: None,
                polars_partitions_from: *polars_partitions_from,
            },
            _ => PlanNode::Select {
                input: Box::new(placeholder(input.schema().clone())),
                schema: others.iter().map(NamedExpr::output_column).collect(),
                exprs: others,
            },
        };
        counts.partial_aggregation()?;
        Some(RankedQuantiles {
            counts,
            keys: k,
            length,
            sorted,
            quantiles,
        })
    }
}

/// The input, probability and method of a median or quantile (f64) of a
/// row-wise expression of integers or f64 that reads a column.
fn quantile_of(expr: &GpuExpr) -> Option<(&GpuExpr, f64, &'static str)> {
    let ExprKind::Agg { op, input } = &expr.kind else {
        return None;
    };
    let (quantile, method) = match op {
        AggOp::Median => (0.5, "linear"),
        AggOp::Quantile { quantile, method } => (*quantile, *method),
        _ => return None,
    };
    // (Medians and quantiles of f32 are Polars' own: it interpolates in
    // f32.)
    (input.is_row_wise()
        && input.reads_a_column()
        && input.dtype.is_numeric()
        && input.dtype != GpuDtype::Float32
        && expr.dtype == GpuDtype::Float64
        && (0.0..=1.0).contains(&quantile))
    .then_some((input, quantile, method))
}
