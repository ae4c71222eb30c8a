//! The GPU plan: a typed tree of physical operators, and its explain display.

use std::fmt;
use std::sync::Arc;

use polars_core::prelude::{DataFrame, SchemaRef};
use polars_plan::dsl::{Expr, FileScanIR, ScanSources, UnifiedScanArgs};
use polars_plan::plans::FileInfo;
use polars_plan::plans::hive::HivePartitionsDf;
use polars_utils::arena::Node;
use polars_utils::slice_enum::Slice;

use crate::dtype::GpuDtype;
use crate::expr::{GpuExpr, NamedExpr};

/// A column of a node's output: its name and type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputColumn {
    pub name: String,
    pub dtype: GpuDtype,
}

impl NamedExpr {
    /// The column this expression makes in a node's output: its name and
    /// its type.
    pub fn output_column(&self) -> OutputColumn {
        OutputColumn {
            name: self.name.clone(),
            dtype: self.expr.dtype,
        }
    }
}

/// From how many rows Polars' in-memory engine may run a group-by of plain
/// keys through its partitioned hash path (when a sample of the keys
/// estimates at most 1,000 groups): 1,000 in Polars' release builds, 15 in
/// its debug builds; the smaller, as the engine cannot tell which it runs
/// beside.
pub const POLARS_PARTITIONED_ROWS: usize = 15;

/// The output columns of a plan node, in order.
pub type OutputSchema = Vec<OutputColumn>;

/// A sort key: an expression over the input and its order.
#[derive(Debug, Clone, PartialEq)]
pub struct SortKey {
    pub expr: GpuExpr,
    pub descending: bool,
    pub nulls_last: bool,
}

/// Which rows `Distinct` keeps of each set of duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    First,
    Last,
    /// Any one of them.
    Any,
    /// None: rows that have duplicates are dropped.
    None,
}

/// The kind of a join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    Semi,
    Anti,
    Cross,
}

/// Which right row an as-of join matches to a left key (Polars'
/// `AsofStrategy`), among right keys in ascending order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsofStrategy {
    /// The last right row whose key is at most the left key.
    Backward,
    /// The first right row whose key is at least the left key.
    Forward,
    /// The nearer of those (the later one where both are as near; of a
    /// run of equal keys, its last row).
    Nearest,
}

/// The largest distance between the keys of an as-of match (Polars'
/// `tolerance`, as an absolute value in the keys' unit): an integer for
/// integer and temporal keys, a float of the keys' type for float keys (an
/// f32's held exactly), which a NaN distance never is within.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AsofTolerance {
    Integer(u64),
    Float(f64),
}

impl std::fmt::Display for AsofTolerance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AsofTolerance::Integer(t) => write!(f, "{t}"),
            AsofTolerance::Float(t) => write!(f, "{t:?}"),
        }
    }
}

/// Which input's row order a join keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinOrder {
    /// Unspecified.
    None,
    Left,
    Right,
    LeftRight,
    RightLeft,
}

/// What a horizontal concatenation ([`PlanNode::HConcat`]) makes of inputs
/// of different heights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heights {
    /// The shorter ones padded (or broadcast).
    Padded,
    /// Polars' error (`strict`).
    Error,
    /// The query left to Polars, whose answer there is its own (a select
    /// whose expressions keep different numbers of rows: its error).
    ToPolars,
}

/// The file format of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    Parquet,
    Csv,
}

/// A file scan as Polars planned it, for the host read: Polars' own reader
/// runs it (with the projection, predicate and slice pushed into it), and the
/// result is copied to the device. Everything the reader needs is kept.
#[derive(Debug, Clone)]
pub struct HostScan {
    pub format: FileFormat,
    pub sources: ScanSources,
    pub file_info: FileInfo,
    pub hive_parts: Option<HivePartitionsDf>,
    /// The pushed-down predicate, as a Polars expression for the reader.
    pub predicate: Option<Expr>,
    /// The columns read, when not all.
    pub output_schema: Option<SchemaRef>,
    pub scan_type: Box<FileScanIR>,
    /// Projection, pre-slice (applied before the predicate), row index and the rest.
    pub unified_scan_args: Box<UnifiedScanArgs>,
    /// Its node in Polars' plan, for a reader that holds that plan and
    /// reads the scan in partitions.
    pub node: Node,
}

impl HostScan {
    /// About how many rows of its files the scan reads, before its
    /// predicate (its pre-slice applied): Polars' count where it knows it
    /// (a Parquet scan of one file), else its estimate (of several files,
    /// from the first; of a CSV file, from its size); `None` where Polars
    /// has none. Sizes the scan before it is read.
    pub fn estimated_rows(&self) -> Option<usize> {
        let rows = match self.file_info.row_estimation {
            (Some(known), _) => known,
            (None, usize::MAX) => return None,
            (None, estimate) => estimate,
        };
        Some(match self.unified_scan_args.pre_slice {
            None => rows,
            Some(Slice::Positive { offset, len }) => len.min(rows.saturating_sub(offset)),
            Some(Slice::Negative { len, .. }) => len.min(rows),
        })
    }
}

/// A physical operator of a GPU plan. Each node knows its output columns.
#[derive(Debug, Clone)]
pub enum PlanNode {
    /// An in-memory frame, copied to the device (only the projected columns).
    DataFrameScan {
        df: Arc<DataFrame>,
        /// Positions of the columns to transfer, in output order.
        projection: Vec<usize>,
        schema: OutputSchema,
    },
    /// Files read on the host by Polars, then copied to the device.
    FileScan {
        scan: HostScan,
        schema: OutputSchema,
    },
    /// Selects and reorders columns by position.
    SimpleProjection {
        input: Box<PlanNode>,
        columns: Vec<usize>,
        schema: OutputSchema,
    },
    /// Evaluates expressions into a new frame (`select`).
    Select {
        input: Box<PlanNode>,
        exprs: Vec<NamedExpr>,
        schema: OutputSchema,
    },
    /// Adds or replaces columns (`with_columns`). Without `broadcast` (the
    /// temporaries Polars' common-subexpression elimination adds for the
    /// select above) a column of one value, such as a whole-column
    /// aggregation, stays one row instead of filling every row.
    WithColumns {
        input: Box<PlanNode>,
        exprs: Vec<NamedExpr>,
        broadcast: bool,
        schema: OutputSchema,
    },
    Filter {
        input: Box<PlanNode>,
        predicate: GpuExpr,
        schema: OutputSchema,
    },
    /// `with_row_index`: a first column `name` (u32) numbering the rows
    /// from `offset`, then the input's columns.
    RowIndex {
        input: Box<PlanNode>,
        name: String,
        offset: u32,
        schema: OutputSchema,
    },
    /// Polars' explode of the list columns at `columns` (of lists spanning
    /// as many values row by row, else Polars' error): each row repeated
    /// for each value of its lists (by the first column's), the lists
    /// replaced by their values. An empty list gives one row of
    /// nulls where `empty_as_null` (else none), a null list where
    /// `keep_nulls` (else none).
    Explode {
        input: Box<PlanNode>,
        columns: Vec<usize>,
        empty_as_null: bool,
        keep_nulls: bool,
        schema: OutputSchema,
    },
    /// The struct columns at `columns` replaced by their fields (named
    /// as the schema says).
    Unnest {
        input: Box<PlanNode>,
        columns: Vec<usize>,
        schema: OutputSchema,
    },
    /// Rows `offset..offset + len` (negative offset: from the end).
    Slice {
        input: Box<PlanNode>,
        offset: i64,
        len: usize,
        schema: OutputSchema,
    },
    /// Sorts by keys; with `slice`, only those rows of the result (a top-k).
    Sort {
        input: Box<PlanNode>,
        keys: Vec<SortKey>,
        stable: bool,
        slice: Option<(i64, usize)>,
        schema: OutputSchema,
    },
    GroupBy {
        input: Box<PlanNode>,
        keys: Vec<NamedExpr>,
        aggs: Vec<NamedExpr>,
        /// Groups in order of first appearance.
        maintain_order: bool,
        slice: Option<(i64, usize)>,
        /// From how many input rows Polars' in-memory engine may run this
        /// group-by through its partitioned hash path (one or two plain
        /// column keys, aggregations it pre-aggregates: it samples the keys
        /// to choose), whose key for a group of -0.0 and 0.0 is not its first
        /// row's zero ([`POLARS_PARTITIONED_ROWS`]); `None` where it never
        /// does.
        polars_partitions_from: Option<usize>,
        schema: OutputSchema,
    },
    Join {
        left: Box<PlanNode>,
        right: Box<PlanNode>,
        left_on: Vec<GpuExpr>,
        right_on: Vec<GpuExpr>,
        kind: JoinKind,
        nulls_equal: bool,
        /// Whether the key columns of both sides are merged into one.
        coalesce: bool,
        suffix: String,
        /// Rows of the joined frame to keep (a cross join fused with a filter).
        predicate: Option<GpuExpr>,
        order: JoinOrder,
        slice: Option<(i64, usize)>,
        /// Polars' validation (`1:m`, `m:1`, `1:1`): whether the left and
        /// the right keys must be unique.
        unique: (bool, bool),
        schema: OutputSchema,
    },
    /// Polars' `join_asof`: every left row, in order, with the columns of
    /// the right row its key matches (nulls where none does; see
    /// [`AsofStrategy`]), among the right rows of its group where it is
    /// by groups.
    AsofJoin {
        left: Box<PlanNode>,
        right: Box<PlanNode>,
        /// The key columns, of one integer, temporal or float type.
        left_on: GpuExpr,
        right_on: GpuExpr,
        /// The keys (left, right) as Polars writes them, for the reasons
        /// a run gives where they are not sorted.
        keys_written: [String; 2],
        /// Polars' `by`: pairs of columns (one of each side, of one type)
        /// whose equal values make a group (a row with a null among them
        /// matches nothing); none without groups.
        by: Vec<(GpuExpr, GpuExpr)>,
        strategy: AsofStrategy,
        /// Whether a right key equal to the left key matches.
        allow_eq: bool,
        /// The largest distance between the keys a match may have.
        tolerance: Option<AsofTolerance>,
        /// Whether Polars checks that both keys are sorted, raising where
        /// not (without it Polars' scans read unsorted keys as they come).
        check_sortedness: bool,
        /// The right columns the output leaves out: the right `by` column,
        /// and the right key where the keys are coalesced and named alike.
        drop_right: Vec<usize>,
        slice: Option<(i64, usize)>,
        schema: OutputSchema,
    },
    Distinct {
        input: Box<PlanNode>,
        /// Positions of the columns that define duplicates; all when `None`.
        subset: Option<Vec<usize>>,
        keep: Keep,
        maintain_order: bool,
        slice: Option<(i64, usize)>,
        schema: OutputSchema,
    },
    /// Inputs stacked vertically.
    Union {
        inputs: Vec<PlanNode>,
        slice: Option<(i64, usize)>,
        schema: OutputSchema,
    },
    /// Inputs side by side. Shorter inputs are padded with nulls, or, with
    /// `broadcast_unit_length`, a one-row input repeats; `heights` may make
    /// different heights an error instead.
    HConcat {
        inputs: Vec<PlanNode>,
        heights: Heights,
        broadcast_unit_length: bool,
        schema: OutputSchema,
    },
    /// A subplan whose result is shared by several parents (same `id`; the
    /// id is Polars' and differs between runs, so the explain tree omits it).
    Cache {
        input: Box<PlanNode>,
        id: String,
        schema: OutputSchema,
    },
}

/// A node's inputs, in order, borrowed as `$node` is (`&` or `&mut`): one
/// body for [`PlanNode::inputs`] and [`PlanNode::inputs_mut`].
macro_rules! inputs {
    ($node:expr) => {
        match $node {
            PlanNode::DataFrameScan { .. } | PlanNode::FileScan { .. } => Vec::new(),
            PlanNode::SimpleProjection { input, .. }
            | PlanNode::Select { input, .. }
            | PlanNode::WithColumns { input, .. }
            | PlanNode::Filter { input, .. }
            | PlanNode::Slice { input, .. }
            | PlanNode::RowIndex { input, .. }
            | PlanNode::Explode { input, .. }
            | PlanNode::Unnest { input, .. }
            | PlanNode::Sort { input, .. }
            | PlanNode::GroupBy { input, .. }
            | PlanNode::Distinct { input, .. }
            | PlanNode::Cache { input, .. } => vec![input],
            PlanNode::Join { left, right, .. } | PlanNode::AsofJoin { left, right, .. } => {
                vec![left, right]
            }
            PlanNode::Union { inputs, .. } | PlanNode::HConcat { inputs, .. } => {
                inputs.into_iter().collect()
            }
        }
    };
}

impl PlanNode {
    /// `parts`, of one row each, side by side, their columns put back in
    /// the order of `schema` (the columns of a node of one row made in
    /// parts): the parts' columns, one after another, are the node's
    /// columns at the places `order` lists. `None` where `order` misses
    /// one of `schema`'s places.
    pub(crate) fn side_by_side(
        parts: Vec<PlanNode>,
        order: &[usize],
        schema: OutputSchema,
    ) -> Option<PlanNode> {
        let side_by_side: OutputSchema = parts
            .iter()
            .flat_map(|part| part.schema().iter().cloned())
            .collect();
        let columns = (0..schema.len())
            .map(|i| order.iter().position(|&j| j == i))
            .collect::<Option<Vec<usize>>>()?;
        Some(PlanNode::SimpleProjection {
            input: Box::new(PlanNode::HConcat {
                inputs: parts,
                heights: Heights::ToPolars,
                broadcast_unit_length: false,
                schema: side_by_side,
            }),
            columns,
            schema,
        })
    }

    /// The node's output columns.
    pub fn schema(&self) -> &OutputSchema {
        match self {
            PlanNode::DataFrameScan { schema, .. }
            | PlanNode::FileScan { schema, .. }
            | PlanNode::SimpleProjection { schema, .. }
            | PlanNode::Select { schema, .. }
            | PlanNode::WithColumns { schema, .. }
            | PlanNode::Filter { schema, .. }
            | PlanNode::Slice { schema, .. }
            | PlanNode::RowIndex { schema, .. }
            | PlanNode::Explode { schema, .. }
            | PlanNode::Unnest { schema, .. }
            | PlanNode::Sort { schema, .. }
            | PlanNode::GroupBy { schema, .. }
            | PlanNode::Join { schema, .. }
            | PlanNode::AsofJoin { schema, .. }
            | PlanNode::Distinct { schema, .. }
            | PlanNode::Union { schema, .. }
            | PlanNode::HConcat { schema, .. }
            | PlanNode::Cache { schema, .. } => schema,
        }
    }

    /// Whether Polars gives this node's rows in an order the query
    /// defines (a frame's, kept by every node above it), where a row's
    /// place may decide an answer (which of two equal values a group shows
    /// as its key). An unordered group-by, distinct or join, or an unstable
    /// sort, leaves the order its own.
    pub fn rows_in_defined_order(&self) -> bool {
        let inputs_ordered = || {
            self.inputs()
                .into_iter()
                .all(PlanNode::rows_in_defined_order)
        };
        match self {
            PlanNode::DataFrameScan { .. } | PlanNode::FileScan { .. } => true,
            PlanNode::Sort { stable, .. } => *stable && inputs_ordered(),
            PlanNode::GroupBy { maintain_order, .. }
            | PlanNode::Distinct { maintain_order, .. } => *maintain_order && inputs_ordered(),
            PlanNode::Join { order, .. } => *order != JoinOrder::None && inputs_ordered(),
            _ => inputs_ordered(),
        }
    }

    /// The node's inputs, in order.
    pub fn inputs(&self) -> Vec<&PlanNode> {
        inputs!(self)
    }

    /// The node's inputs, in order, to change in place.
    pub fn inputs_mut(&mut self) -> Vec<&mut PlanNode> {
        inputs!(self)
    }

    /// The expressions this node evaluates (not those of its inputs).
    pub fn exprs(&self) -> Vec<&GpuExpr> {
        match self {
            PlanNode::Select { exprs, .. } | PlanNode::WithColumns { exprs, .. } => {
                exprs.iter().map(|e| &e.expr).collect()
            }
            PlanNode::Filter { predicate, .. } => vec![predicate],
            PlanNode::Sort { keys, .. } => keys.iter().map(|key| &key.expr).collect(),
            PlanNode::GroupBy { keys, aggs, .. } => {
                keys.iter().chain(aggs).map(|e| &e.expr).collect()
            }
            PlanNode::Join {
                left_on,
                right_on,
                predicate,
                ..
            } => left_on.iter().chain(right_on).chain(predicate).collect(),
            PlanNode::AsofJoin {
                left_on,
                right_on,
                by,
                ..
            } => {
                let by = by.iter().flat_map(|(l, r)| [l, r]);
                [left_on, right_on].into_iter().chain(by).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The first expression (or part of one) that this node or one below
    /// it evaluates for which `f` holds, this node's first.
    pub fn find_expr(&self, f: &impl Fn(&GpuExpr) -> bool) -> Option<&GpuExpr> {
        (self.exprs().into_iter().find_map(|e| e.find(f))).or_else(|| {
            self.inputs()
                .into_iter()
                .find_map(|input| input.find_expr(f))
        })
    }

    /// Whether Polars' answer may read the values a sliced list column
    /// holds outside its lists (see [`GpuExpr::sums_lists_in_polars_order`]:
    /// a slice of a list column keeps its whole child).
    pub fn reads_values_outside_lists(&self) -> bool {
        self.find_expr(&GpuExpr::sums_lists_in_polars_order)
            .is_some()
    }

    /// The first sum or mean of lists in Polars' order (see
    /// [`GpuExpr::sums_lists_in_polars_order`]) that this node or one below
    /// it takes of a frame made by a union of list columns (of floats or
    /// 64-bit integers), below it: Polars keeps each input of a union as
    /// chunks of its own and evaluates a with_columns, select or filter
    /// over such a frame chunk by chunk, each chunk adding its lists in the
    /// order its own nulls choose.
    pub fn sums_lists_of_a_union(&self) -> Option<&GpuExpr> {
        let listed = |values| {
            matches!(
                values,
                GpuDtype::Float32 | GpuDtype::Float64 | GpuDtype::Int64 | GpuDtype::UInt64
            )
        };
        self.of_a_union(&GpuExpr::sums_lists_in_polars_order, &listed)
    }

    /// The first `list.slice` by each row's bounds (see
    /// [`GpuExpr::slices_lists_by_rows`]) that this node or one below it
    /// takes of a frame made by a union of list columns: Polars evaluates
    /// it input by input (as [`Self::sums_lists_of_a_union`] says), and
    /// over an input of one row takes the bounds as single values.
    pub fn slices_lists_of_a_union(&self) -> Option<&GpuExpr> {
        self.of_a_union(&GpuExpr::slices_lists_by_rows, &|_| true)
    }

    /// Whether Polars evaluates the nodes above this one part by part (its
    /// frame held as chunks of their own, which a with_columns, select or
    /// filter takes chunk by chunk): a union (input by input), a scan of
    /// several files (file by file), a frame in memory of several chunks
    /// (as a scan of several files read on the host gives).
    pub fn of_parts(&self) -> bool {
        match self {
            PlanNode::Union { .. } => true,
            PlanNode::FileScan { scan, .. } => scan.sources.len() > 1,
            PlanNode::DataFrameScan { df, .. } => {
                df.columns().iter().any(|column| column.n_chunks() > 1)
            }
            _ => false,
        }
    }

    /// The first expression `found` holds for that this node or one below
    /// it takes of a frame made of parts (a union, a scan of several files,
    /// a frame of several chunks: [`Self::of_parts`]) holding lists of
    /// values `listed` holds for, below it.
    fn of_a_union(
        &self,
        found: &dyn Fn(&GpuExpr) -> bool,
        listed: &dyn Fn(GpuDtype) -> bool,
    ) -> Option<&GpuExpr> {
        fn union_of_lists(node: &PlanNode, listed: &dyn Fn(GpuDtype) -> bool) -> bool {
            match node {
                PlanNode::Union { schema, .. }
                | PlanNode::FileScan { schema, .. }
                | PlanNode::DataFrameScan { schema, .. }
                    if node.of_parts() =>
                {
                    schema.iter().any(
                        |column| matches!(column.dtype, GpuDtype::List(of) if listed(of.values())),
                    )
                }
                _ => node
                    .inputs()
                    .into_iter()
                    .any(|input| union_of_lists(input, listed)),
            }
        }
        let here = self
            .exprs()
            .into_iter()
            .find_map(|e| e.find(&found))
            .filter(|_| {
                self.inputs()
                    .into_iter()
                    .any(|input| union_of_lists(input, listed))
            });
        here.or_else(|| {
            self.inputs()
                .into_iter()
                .find_map(|input| input.of_a_union(found, listed))
        })
    }

    /// Whether this node or one below it slices rows so that Polars keeps
    /// what a list column holds outside the rows kept (a slice of a frame,
    /// of a union or of distinct rows).
    pub fn slices_rows(&self) -> bool {
        let slices = match self {
            PlanNode::Slice { .. } => true,
            PlanNode::Union { slice, .. } | PlanNode::Distinct { slice, .. } => slice.is_some(),
            _ => false,
        };
        slices || self.inputs().iter().any(|input| input.slices_rows())
    }

    /// One line describing this node alone.
    pub fn header(&self) -> String {
        fn list<T: fmt::Display>(items: &[T]) -> String {
            items
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        }
        fn slice_note(slice: &Option<(i64, usize)>) -> String {
            match slice {
                Some((offset, len)) => format!(" slice=({offset}, {len})"),
                None => String::new(),
            }
        }
        match self {
            PlanNode::DataFrameScan { df, projection, .. } => format!(
                "DataFrameScan rows={} columns={projection:?} of {}",
                df.height(),
                df.width()
            ),
            PlanNode::FileScan { scan, schema } => {
                let columns: Vec<&str> = schema.iter().map(|c| c.name.as_str()).collect();
                let predicate = scan
                    .predicate
                    .as_ref()
                    .map(|p| format!(" predicate={p}"))
                    .unwrap_or_default();
                let slice = scan
                    .unified_scan_args
                    .pre_slice
                    .as_ref()
                    .map(|s| format!(" pre_slice={s:?}"))
                    .unwrap_or_default();
                format!(
                    "FileScan {:?} files={} columns={columns:?}{predicate}{slice}",
                    scan.format,
                    scan.sources.len()
                )
            }
            PlanNode::SimpleProjection { columns, .. } => {
                format!("SimpleProjection columns={columns:?}")
            }
            PlanNode::Select { exprs, .. } => format!("Select [{}]", list(exprs)),
            PlanNode::WithColumns {
                exprs, broadcast, ..
            } => format!(
                "WithColumns [{}]{}",
                list(exprs),
                if *broadcast { "" } else { " unbroadcast" }
            ),
            PlanNode::Filter { predicate, .. } => format!("Filter {predicate}"),
            PlanNode::Slice { offset, len, .. } => format!("Slice offset={offset} len={len}"),
            PlanNode::RowIndex { name, offset, .. } => {
                format!("RowIndex name={name:?} offset={offset}")
            }
            PlanNode::Unnest { columns, .. } => format!("Unnest columns={columns:?}"),
            PlanNode::Explode {
                columns,
                empty_as_null,
                keep_nulls,
                ..
            } => format!(
                "Explode columns={columns:?} empty_as_null={empty_as_null} keep_nulls={keep_nulls}"
            ),
            PlanNode::Sort {
                keys,
                stable,
                slice,
                ..
            } => {
                let keys: Vec<String> = keys
                    .iter()
                    .map(|k| {
                        format!(
                            "{} {}{}",
                            k.expr,
                            if k.descending { "desc" } else { "asc" },
                            if k.nulls_last { " nulls_last" } else { "" }
                        )
                    })
                    .collect();
                let name = if slice.is_some() { "TopK" } else { "Sort" };
                format!(
                    "{name} [{}]{}{}",
                    keys.join(", "),
                    if *stable { " stable" } else { "" },
                    slice_note(slice)
                )
            }
            PlanNode::GroupBy {
                keys,
                aggs,
                maintain_order,
                slice,
                ..
            } => format!(
                "GroupBy keys=[{}] aggs=[{}]{}{}",
                list(keys),
                list(aggs),
                if *maintain_order {
                    " maintain_order"
                } else {
                    ""
                },
                slice_note(slice)
            ),
            PlanNode::Join {
                left_on,
                right_on,
                kind,
                nulls_equal,
                coalesce,
                suffix,
                predicate,
                order,
                slice,
                unique,
                ..
            } => format!(
                "Join {kind:?} left_on=[{}] right_on=[{}]{}{}{}{} suffix={suffix:?} order={order:?}{}",
                list(left_on),
                list(right_on),
                if *nulls_equal { " nulls_equal" } else { "" },
                if *coalesce { " coalesce" } else { "" },
                match unique {
                    (false, false) => "",
                    (true, false) => " validate=1:m",
                    (false, true) => " validate=m:1",
                    (true, true) => " validate=1:1",
                },
                predicate
                    .as_ref()
                    .map(|p| format!(" predicate={p}"))
                    .unwrap_or_default(),
                slice_note(slice)
            ),
            PlanNode::AsofJoin {
                left_on,
                right_on,
                by,
                strategy,
                allow_eq,
                tolerance,
                check_sortedness,
                drop_right,
                slice,
                ..
            } => format!(
                "AsofJoin {strategy:?} left_on={left_on} right_on={right_on}{}{}{}{}{}{}",
                by.iter()
                    .map(|(l, r)| format!(" by=({l}, {r})"))
                    .collect::<String>(),
                if *allow_eq { " allow_eq" } else { "" },
                tolerance
                    .map(|t| format!(" tolerance={t}"))
                    .unwrap_or_default(),
                if *check_sortedness {
                    " check_sortedness"
                } else {
                    ""
                },
                if drop_right.is_empty() {
                    String::new()
                } else {
                    format!(" drop_right={drop_right:?}")
                },
                slice_note(slice)
            ),
            PlanNode::Distinct {
                subset,
                keep,
                maintain_order,
                slice,
                ..
            } => format!(
                "Distinct keep={keep:?} subset={}{}{}",
                subset
                    .as_ref()
                    .map_or_else(|| "all".to_owned(), |s| format!("{s:?}")),
                if *maintain_order {
                    " maintain_order"
                } else {
                    ""
                },
                slice_note(slice)
            ),
            PlanNode::Union { inputs, slice, .. } => {
                format!("Union inputs={}{}", inputs.len(), slice_note(slice))
            }
            PlanNode::HConcat {
                inputs,
                heights,
                broadcast_unit_length,
                ..
            } => format!(
                "HConcat inputs={}{}{}",
                inputs.len(),
                match heights {
                    Heights::Padded => "",
                    Heights::Error => " strict",
                    Heights::ToPolars => " equal_heights",
                },
                if *broadcast_unit_length {
                    " broadcast_unit_length"
                } else {
                    ""
                }
            ),
            PlanNode::Cache { .. } => "Cache".to_owned(),
        }
    }

    fn fmt_tree(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        let columns: Vec<String> = self
            .schema()
            .iter()
            .map(|c| format!("{}: {}", c.name, c.dtype))
            .collect();
        writeln!(
            f,
            "{:indent$}{}  -> [{}]",
            "",
            self.header(),
            columns.join(", "),
            indent = depth * 2
        )?;
        for input in self.inputs() {
            input.fmt_tree(f, depth + 1)?;
        }
        Ok(())
    }
}

/// A lowered plan, ready for the executor.
#[derive(Debug, Clone)]
pub struct GpuPlan {
    pub root: PlanNode,
}

impl GpuPlan {
    /// The plan's output columns.
    pub fn schema(&self) -> &OutputSchema {
        self.root.schema()
    }
}

/// An explain tree: one node per line, inputs indented under their parent,
/// each with its output columns.
impl fmt::Display for GpuPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.root.fmt_tree(f, 0)
    }
}
