//! What the executor runs, decided once over each lowered node: the types of the keys it sorts, groups and joins by, and of the aggregations its kernels take.
//!
//! The executor's kernels take keys by their physical words: hash joins
//! integers and the types held as them, group-bys and distinct rows those
//! and texts, floats, booleans and small integers (widened), sorts
//! numbers, texts, booleans and categoricals (by their texts' ranks). Its
//! sums and means add in f64, so those of f32 (which Polars adds in f32)
//! are not its. [`refusal`] checks a lowered node against those classes,
//! so that a plan ir-lower accepts is one the executor takes; the executor
//! reads the same classes from here.

use crate::dtype::GpuDtype;
use crate::expr::{AggOp, ExprKind, GpuExpr};
use crate::plan::{JoinKind, PlanNode};

/// Whether `dtype` is an 8- or 16-bit integer type.
pub fn small_integer(dtype: GpuDtype) -> bool {
    matches!(
        dtype,
        GpuDtype::Int8 | GpuDtype::Int16 | GpuDtype::UInt8 | GpuDtype::UInt16
    )
}

/// Key types of hash joins.
pub fn hashable(dtype: GpuDtype) -> bool {
    matches!(
        dtype,
        GpuDtype::Int32
            | GpuDtype::Int64
            | GpuDtype::UInt32
            | GpuDtype::UInt64
            | GpuDtype::Date
            | GpuDtype::Datetime(_)
            | GpuDtype::Duration(_)
            | GpuDtype::Time
            | GpuDtype::ZonedDatetime(..)
            | GpuDtype::Categorical(_)
            | GpuDtype::Decimal(..)
    )
}

/// Physical types the comparison kernels take.
pub fn comparable(dtype: GpuDtype) -> bool {
    hashable(dtype) || dtype == GpuDtype::Float64
}

/// Types the executor groups by (and takes the distinct values of).
pub fn groupable(dtype: GpuDtype) -> bool {
    hashable(dtype) || matches!(dtype, GpuDtype::String | GpuDtype::Float64)
}

/// Types of the keys rows are grouped by (group-by, distinct rows, unique):
/// booleans too, as 0 and 1 (the Null type's all null), small integers as
/// 64-bit words, and f32 widened to f64.
pub fn group_key(dtype: GpuDtype) -> bool {
    groupable(dtype)
        || small_integer(dtype)
        || matches!(
            dtype,
            GpuDtype::Boolean | GpuDtype::Null | GpuDtype::Float32
        )
}

/// Types the radix sort orders (enums by code, categoricals by their
/// texts' ranks, as Polars orders them).
pub fn sortable(dtype: GpuDtype) -> bool {
    matches!(dtype, GpuDtype::Categorical(_)) || comparable(dtype) || dtype == GpuDtype::Float32
}

/// Types of the keys a frame is sorted by: those the radix sort orders,
/// small integers (widened), texts, booleans and the Null type.
pub fn sort_key(dtype: GpuDtype) -> bool {
    sortable(dtype)
        || small_integer(dtype)
        || matches!(dtype, GpuDtype::String | GpuDtype::Boolean | GpuDtype::Null)
}

/// `dtype` as a join's key words hold it: small integers as i64.
pub fn widened_key_type(dtype: GpuDtype) -> GpuDtype {
    if small_integer(dtype) {
        GpuDtype::Int64
    } else {
        dtype
    }
}

/// Which of a join's keys (widened) is hashed: the first of a hashable
/// type, else the first text, else the first float or boolean (compared as
/// its words); the other pairs are compared on the candidate pairs.
pub fn join_key(dtypes: &[GpuDtype]) -> Option<usize> {
    dtypes
        .iter()
        .position(|&dtype| hashable(dtype))
        .or_else(|| dtypes.iter().position(|&dtype| dtype == GpuDtype::String))
        .or_else(|| {
            dtypes.iter().position(|dtype| {
                matches!(
                    dtype,
                    GpuDtype::Float64 | GpuDtype::Float32 | GpuDtype::Boolean
                )
            })
        })
}

/// Why the executor cannot run `node` (the types of its sort, group, join
/// or distinct keys, a union's inputs, an aggregation's), in the user's
/// terms; `None` where it can. (Whether it computes the keys that are
/// expressions is the expressions' own check.)
pub(crate) fn refusal(node: &PlanNode) -> Option<String> {
    key_refusal(node).or_else(|| aggregation_refusal(node))
}

/// Why the executor's kernels do not take an aggregation of `node`: a sum
/// or mean of f32.
fn aggregation_refusal(node: &PlanNode) -> Option<String> {
    let added_in_f32 = |e: &GpuExpr| {
        matches!(
            e.kind,
            ExprKind::Agg {
                op: AggOp::Sum | AggOp::Mean,
                ..
            }
        ) && e.dtype == GpuDtype::Float32
    };
    let found = node
        .exprs()
        .into_iter()
        .find_map(|e| e.find(&added_in_f32))?;
    Some(format!(
        "`{found}`: a sum or mean of f32 is not supported on the GPU (Polars adds f32 values in \
         f32, the device in f64)"
    ))
}

/// Why the executor cannot take `node`'s keys; `None` where it can.
fn key_refusal(node: &PlanNode) -> Option<String> {
    match node {
        PlanNode::Sort { keys, .. } => {
            keys.iter()
                .find(|key| !sort_key(key.expr.dtype))
                .map(|key| {
                    format!(
                        "sorting by {} is not supported on the GPU",
                        typed_key(&key.expr)
                    )
                })
        }
        PlanNode::GroupBy { keys, .. } => {
            keys.iter()
                .find(|key| !group_key(key.expr.dtype))
                .map(|key| {
                    format!(
                        "grouping by {} is not supported on the GPU",
                        typed_key(&key.expr)
                    )
                })
        }
        PlanNode::Distinct { schema, subset, .. } => {
            let mut columns = (0..schema.len()).filter(|&i| match subset {
                Some(subset) => subset.contains(&i),
                None => true,
            });
            columns.find(|&i| !group_key(schema[i].dtype)).map(|i| {
                format!(
                    "distinct rows by `{}` ({}) are not supported on the GPU",
                    schema[i].name, schema[i].dtype
                )
            })
        }
        PlanNode::Union { inputs, schema, .. } => {
            let dtypes = |schema: &crate::OutputSchema| -> Vec<GpuDtype> {
                schema.iter().map(|column| column.dtype).collect()
            };
            inputs
                .iter()
                .any(|input| dtypes(input.schema()) != dtypes(schema))
                .then(|| "a union of inputs of different types is not supported on the GPU".into())
        }
        PlanNode::Join { .. } => join_refusal(node),
        _ => None,
    }
}

/// Why the executor cannot join as `node` (a join) asks: its keys' types,
/// their pairs, or its columns.
fn join_refusal(node: &PlanNode) -> Option<String> {
    let PlanNode::Join {
        left,
        right,
        left_on,
        right_on,
        kind,
        nulls_equal,
        coalesce,
        predicate,
        schema,
        ..
    } = node
    else {
        return None;
    };
    if *kind == JoinKind::Cross {
        if !left_on.is_empty() || !right_on.is_empty() {
            return Some("a cross join on keys is not supported on the GPU".into());
        }
    } else {
        if predicate.is_some() {
            return Some(format!(
                "a {kind:?} join fused with a filter is not supported on the GPU"
            ));
        }
        if left_on.len() != right_on.len() {
            return Some("a join of unequal numbers of keys is not supported on the GPU".into());
        }
        let widened = |keys: &[GpuExpr]| -> Vec<GpuDtype> {
            keys.iter().map(|key| widened_key_type(key.dtype)).collect()
        };
        let (left_types, right_types) = (widened(left_on), widened(right_on));
        let Some(hashed) = join_key(&left_types) else {
            let types: Vec<String> = left_on.iter().map(|key| key.dtype.to_string()).collect();
            return Some(format!(
                "a join on keys of type {} is not supported on the GPU",
                types.join(", ")
            ));
        };
        // A coalesced pair becomes one column of the left's: of (a cast
        // of) a column, a small integer of a column itself (the executor
        // widens it to i64 by a cast of its own).
        let column = |e: &GpuExpr| matches!(e.kind, ExprKind::Column { .. });
        let coalescible = |key: &GpuExpr| match &key.kind {
            ExprKind::Column { .. } => true,
            ExprKind::Cast { input, .. } => !small_integer(key.dtype) && column(input),
            _ => false,
        };
        if *coalesce && let Some(key) = left_on.iter().chain(right_on).find(|key| !coalescible(key))
        {
            return Some(match &key.kind {
                ExprKind::Cast { input, .. } if column(input) => format!(
                    "a coalescing join on {input}, cast to {} (the sides' key types differ), is \
                     not supported on the GPU",
                    key.dtype
                ),
                _ => format!(
                    "a coalescing join on the computed key {} is not supported on the GPU",
                    typed_key(key)
                ),
            });
        }
        for (i, (l, r)) in left_on.iter().zip(right_on).enumerate() {
            let (lt, rt) = (left_types[i], right_types[i]);
            if lt != rt {
                return Some(format!(
                    "a join of {} with {}: keys of two types are not supported on the GPU",
                    typed_key(l),
                    typed_key(r)
                ));
            }
            if !(comparable(lt) || lt == GpuDtype::String || i == hashed) {
                return Some(format!(
                    "a join on {} besides another key is not supported on the GPU",
                    typed_key(l)
                ));
            }
            if *nulls_equal && !group_key(lt) {
                return Some(format!(
                    "a join on {} with nulls equal is not supported on the GPU",
                    typed_key(l)
                ));
            }
        }
    }
    // Coalesced keys merge each pair into one column; Polars keeps a key
    // column that several pairs name once.
    let dropped = if *coalesce { left_on.len() } else { 0 };
    let width = match kind {
        JoinKind::Semi | JoinKind::Anti => left.schema().len(),
        JoinKind::Cross => left.schema().len() + right.schema().len(),
        _ => (left.schema().len() + right.schema().len()).saturating_sub(dropped),
    };
    (width != schema.len()).then(|| {
        "a join coalescing keys that name a column twice is not supported on the GPU".into()
    })
}

fn typed_key(key: &GpuExpr) -> String {
    format!("`{key}` ({})", key.dtype)
}
