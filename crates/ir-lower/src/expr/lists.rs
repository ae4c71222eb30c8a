//! What list expressions carry: the functions of a list column the GPU computes.

use super::*;

/// A function of each list of a list column (Polars' `list` namespace);
/// null of a null list.
#[derive(Debug, Clone, PartialEq)]
pub enum ListFunction {
    /// The number of values, as u32.
    Len,
    /// The value at `index` (counted from the end when negative): null
    /// where it is null or the list has no such place; there, without
    /// `null_on_oob`, Polars raises. `list.first()` and `list.last()` are
    /// places 0 and -1, null where outside.
    Get { index: i64, null_on_oob: bool },
    /// As `Get`, at each row's own place: `index`, an integer expression of
    /// the row (as i64), a child of the list expression (null where null).
    GetAt {
        index: Box<GpuExpr>,
        null_on_oob: bool,
    },
    /// Each list's values from `offset` on (counted from the list's end
    /// where negative), `length` of them (all the rest where negative),
    /// as far as the list goes: `list.slice` (`head`, `tail`) by bounds of
    /// each row, i64 expressions of the row (children of the list
    /// expression; a literal length -1 where Polars' is null), null where
    /// either is null. Of a frame of one row, Polars takes the bounds as
    /// single values: a null length the rest, a null offset its error.
    SliceAt {
        offset: Box<GpuExpr>,
        length: Box<GpuExpr>,
    },
    /// The list's values aggregated as one group (`list.sum`, `list.min`,
    /// `list.max`, their places, `list.join`, … of the value types
    /// `lower_expr/lists.rs` allows each), with the group's semantics (a
    /// sum of no values 0, an extreme of none null, a join of none the
    /// empty text).
    Aggregate(AggOp),
    /// Whether a list holds a value equal to this literal (not null, of
    /// the values' type): false of an empty list.
    Contains(Scalar),
    /// Each list's values sorted, nulls first or last (of floats, a list
    /// holding both -0.0 and 0.0 leaves the query to Polars).
    Sort { descending: bool, nulls_last: bool },
    /// `list.agg` of an aggregation of the values (column 0 of a frame of
    /// their own, each list a group of it, as a group-by takes a group):
    /// one value per list, null of a null list; `listed`, as `list.eval`
    /// of an aggregation gives it: each such value as a list of one.
    Agg {
        aggregation: Box<GpuExpr>,
        listed: bool,
    },
    /// `list.eval` of an expression of the values (column 0 of a frame of
    /// their own, each list a group of it, as a group-by's aggregation
    /// takes a group) giving one value per value: each list's results.
    Eval(Box<GpuExpr>),
    /// Each list's values where `by` holds (`list.slice`, `list.head`,
    /// `list.tail`, named by `what`): `by` reads the values as column 0 of
    /// a frame of their own, each list a group of it (its length `len()`,
    /// a value's place in its list the group's row places).
    Keep {
        what: &'static str,
        by: Box<GpuExpr>,
    },
}

impl ListFunction {
    /// The function as Polars' users write it (`list.get`, `list.std`,
    /// `list.eval`), without the arguments the lowered plan shows.
    pub fn name(&self) -> String {
        let name = match self {
            ListFunction::Agg { listed: false, .. } => "list.agg".to_string(),
            ListFunction::Agg { listed: true, .. } | ListFunction::Eval(_) => {
                "list.eval".to_string()
            }
            ListFunction::Aggregate(AggOp::Join { .. }) => "list.join".to_string(),
            ListFunction::GetAt { .. } => "list.get".to_string(),
            ListFunction::SliceAt { .. } => "list.slice".to_string(),
            ListFunction::Contains(_) => "list.contains".to_string(),
            other => other.to_string(),
        };
        match name.split_once('[') {
            Some((name, _)) => name.to_string(),
            None => name,
        }
    }
}

impl fmt::Display for ListFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListFunction::Len => f.write_str("list.len"),
            ListFunction::Get { index, null_on_oob } => {
                write!(f, "list.get[{index}, null_on_oob={null_on_oob}]")
            }
            ListFunction::GetAt { index, null_on_oob } => {
                write!(f, "list.get[{index}, null_on_oob={null_on_oob}]")
            }
            ListFunction::SliceAt { offset, length } => {
                write!(f, "list.slice[{offset}, {length}]")
            }
            ListFunction::Aggregate(AggOp::Join { separator, .. }) => {
                write!(f, "list.join({separator:?})")
            }
            ListFunction::Aggregate(op) => write!(f, "list.{op}"),
            ListFunction::Contains(item) => write!(f, "list.contains({item})"),
            ListFunction::Keep { what, .. } => write!(f, "list.{what}"),
            ListFunction::Eval(evaluation) => write!(f, "list.eval[{evaluation}]"),
            ListFunction::Agg {
                aggregation,
                listed: false,
            } => write!(f, "list.agg[{aggregation}]"),
            ListFunction::Agg {
                aggregation,
                listed: true,
            } => write!(f, "list.eval[{aggregation}]"),
            ListFunction::Sort {
                descending,
                nulls_last,
            } => write!(
                f,
                "list.sort[descending={descending}, nulls_last={nulls_last}]"
            ),
        }
    }
}
