//! Which rows a filter, slice or their like inside an expression keeps (`filter`, `drop_nulls`, `head`, a slice of a filter, ...), and expressions read through them.

use super::*;

/// Which rows of an expression a filter inside an expression keeps.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KeptRows {
    /// Where this boolean expression is true (`filter`).
    By(Node),
    /// The valid ones (`drop_nulls`).
    NotNull,
    /// Those not NaN (`drop_nans`).
    NotNan,
    /// Those whose place lies in the slice (`slice`, `head`, `tail`).
    Slice { offset: Node, length: Node },
    /// Every `n`-th from `offset` (`gather_every`).
    Every { n: usize, offset: usize },
    /// The first row of each distinct value, given by its place
    /// (`arg_unique`): the values kept are the rows' places (u32, in the
    /// frame or in the group), not the input's.
    FirstOfEach,
    /// The places of the rows where the input, a boolean, is true
    /// (`arg_where`): as `FirstOfEach`, the values kept are the places.
    PlacesWhere,
}

impl KeptRows {
    /// Whether the values kept are the rows' places (u32), not the input's.
    pub(crate) fn keeps_places(self) -> bool {
        matches!(self, KeptRows::FirstOfEach | KeptRows::PlacesWhere)
    }
}

/// Where an expression reads its columns through one filter or slice
/// ([`ExprLowering::filter_inside`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Inside {
    /// Under elementwise functions only: the rows it keeps.
    Elementwise(KeptRows),
    /// Under elementwise functions only, a slice (`bounds`: offset and
    /// length) of a filter (by `by`) of every row: the rows the filter
    /// keeps whose place among them lies in the slice.
    SliceOfFilter { by: Node, bounds: (Node, Node) },
    /// Under functions of the rows in order that skip nulls (`cum_sum`,
    /// `cum_max`, `forward_fill`, ...): the filter's node and its parts.
    SkippingNulls(Node, (Node, KeptRows)),
}

/// Of `values.filter(by)`, `values.drop_nulls()`, `values.drop_nans()`,
/// `values.slice(offset, length)`, `values.gather_every(n, offset)`,
/// `values.arg_unique()` or `arg_where(values)` at
/// `node`: the values' node and which of their rows are kept; `None` for any
/// other expression.
pub(crate) fn filtered_parts(arena: &Arena<AExpr>, node: Node) -> Option<(Node, KeptRows)> {
    match arena.get(node) {
        AExpr::Filter { input, by } => Some((*input, KeptRows::By(*by))),
        AExpr::Slice {
            input,
            offset,
            length,
        } => Some((
            *input,
            KeptRows::Slice {
                offset: *offset,
                length: *length,
            },
        )),
        AExpr::Function {
            input, function, ..
        } => {
            let rows = match function {
                IRFunctionExpr::DropNulls => KeptRows::NotNull,
                IRFunctionExpr::DropNans => KeptRows::NotNan,
                IRFunctionExpr::GatherEvery { n, offset } => KeptRows::Every {
                    n: *n,
                    offset: *offset,
                },
                IRFunctionExpr::ArgUnique => KeptRows::FirstOfEach,
                IRFunctionExpr::ArgWhere => KeptRows::PlacesWhere,
                _ => return None,
            };
            let [values] = input.as_slice() else {
                return None;
            };
            Some((values.node(), rows))
        }
        _ => None,
    }
}

/// Whether a filter's parts ([`filtered_parts`]) are values and, of a
/// `filter`, a predicate, of every row (no aggregation or change of length
/// in them).
pub(crate) fn of_every_row(arena: &Arena<AExpr>, (values, rows): (Node, KeptRows)) -> bool {
    let whole = |node| polars_plan::plans::is_length_preserving_ae(node, arena);
    // (A literal predicate, Polars' mask of one value, keeps every row or
    // none.)
    let by_whole = match rows {
        KeptRows::By(by) => whole(by) || matches!(arena.get(by), AExpr::Literal(_)),
        _ => true,
    };
    whole(values) && by_whole
}

/// Of an expression at `node` that reads its columns through one filter or
/// slice ([`filtered_parts`], of every row) under nodes that `through`
/// lets pass, with nothing but constants beside them: the filter's node
/// and parts. `None` for any other expression, and for a filter at the
/// root.
pub(crate) fn filter_below(
    arena: &Arena<AExpr>,
    node: Node,
    through: impl Fn(&AExpr) -> bool,
) -> Option<(Node, (Node, KeptRows))> {
    let mut at = node;
    loop {
        if let Some(parts) = filtered_parts(arena, at) {
            return (at != node && of_every_row(arena, parts)).then_some((at, parts));
        }
        if !through(arena.get(at)) {
            return None;
        }
        let mut children = Vec::new();
        arena.get(at).children_rev(&mut children);
        let mut reading = children.into_iter().filter(|&c| !is_constant(c, arena));
        match (reading.next(), reading.next()) {
            (Some(next), None) => at = next,
            _ => return None,
        }
    }
}

/// Each row's place (u32, from 0, in the frame or in its group), as
/// `arg_unique` and `arg_where` give them.
fn places_from_zero_u32() -> GpuExpr {
    let one = GpuExpr::literal(Scalar::UInt(1), GpuDtype::UInt32);
    places_from_one().binary(BinaryOp::Minus, one, GpuDtype::UInt32)
}

impl ExprLowering<'_> {
    /// Of an expression at `node` that keeps the rows of one filter or
    /// slice it reads its columns through: where ([`Inside`]); `None` for
    /// any other expression. (Polars' optimiser moves a slice of an
    /// elementwise expression onto its columns: `(1.5 % col("c")).head(3)`
    /// becomes `1.5 % col("c").slice(0, 3)`.)
    pub(crate) fn filter_inside(&self, node: Node) -> Option<Inside> {
        match self.common_slice(node) {
            Some(((offset, length), None)) => {
                return Some(Inside::Elementwise(KeptRows::Slice { offset, length }));
            }
            Some((bounds, Some(by))) => return Some(Inside::SliceOfFilter { by, bounds }),
            None => {}
        }
        if let Some(by) = self.common_filter(node) {
            return Some(Inside::Elementwise(KeptRows::By(by)));
        }
        // Functions of the rows in order that skip nulls, one over the
        // other, over the filter.
        let skips_nulls = |e: &AExpr| {
            matches!(
                e,
                AExpr::Function {
                    function: IRFunctionExpr::CumSum { .. }
                        | IRFunctionExpr::CumProd { .. }
                        | IRFunctionExpr::CumMin { .. }
                        | IRFunctionExpr::CumMax { .. }
                        | IRFunctionExpr::CumCount { .. }
                        | IRFunctionExpr::FillNullWithStrategy(
                            FillNullStrategy::Forward(None) | FillNullStrategy::Backward(None)
                        ),
                    ..
                }
            )
        };
        let (filter, parts) = filter_below(self.arena, node, skips_nulls)?;
        Some(Inside::SkippingNulls(filter, parts))
    }

    /// The expression at `node`, whose filter or slice keeps rows as
    /// `inside` says ([`Self::filter_inside`]), computed over every row,
    /// and a boolean per row, true where the filter keeps it: at each kept
    /// row the value the expression has there after the filter.
    pub(crate) fn through_filter(
        &mut self,
        node: Node,
        inside: Inside,
    ) -> Option<(GpuExpr, GpuExpr)> {
        let (values, kept) = match inside {
            // Elementwise functions give each row the value they give it
            // alone (aggregations and lengths beside them are of every
            // row in Polars too).
            Inside::Elementwise(KeptRows::Slice { offset, length }) => {
                let outer = self.unsliced.replace((offset, length));
                let values = self.expr(node);
                self.unsliced = outer;
                (values, self.kept_by_place(node, (offset, length)))
            }
            Inside::SliceOfFilter { by, bounds } => {
                let outer = (self.unsliced.replace(bounds), self.unfiltered);
                self.unfiltered = true;
                let values = self.expr(node);
                (self.unsliced, self.unfiltered) = outer;
                let by = self.expr(by);
                let kept = by.and_then(|by| self.kept_in_slice_of(node, by, bounds));
                (values, kept)
            }
            Inside::Elementwise(KeptRows::By(by)) => {
                let outer = std::mem::replace(&mut self.unfiltered, true);
                let values = self.expr(node);
                self.unfiltered = outer;
                (values, self.expr(by))
            }
            // Running sums, products, extremes, counts and fills skip a
            // null as a row the filter drops: of the values with null
            // where it drops them, the same at every kept row.
            Inside::SkippingNulls(filter, parts) => {
                let (values, kept) = self.filtered(filter, parts)?;
                let null = GpuExpr::literal(Scalar::Null, values.dtype);
                let dtype = values.dtype;
                let nulled = kept.clone().then(values, null, dtype);
                let outer = self.nulled.replace((filter, nulled));
                let values = self.expr(node);
                self.nulled = outer;
                (values, Some(kept))
            }
            // (Not made by `filter_inside`.)
            Inside::Elementwise(_) => {
                self.refuse(
                    node,
                    "filter inside an expression is not supported on the GPU",
                );
                return None;
            }
        };
        Some((values?, kept?))
    }

    /// The values of [`filtered_parts`] and a boolean per row
    /// of them, true where the row is kept, both lowered (so that the
    /// reasons of both are reported).
    pub fn filtered(
        &mut self,
        node: Node,
        (values, rows): (Node, KeptRows),
    ) -> Option<(GpuExpr, GpuExpr)> {
        if let KeptRows::Slice { offset, length } = rows
            && let Some((input, by)) = self.filter_of_every_row(values)
        {
            return self.slice_of_filter(node, (input, by), (offset, length));
        }
        let lowered = self.expr(values);
        let kept = match rows {
            KeptRows::By(by) => self.expr(by),
            KeptRows::Slice { offset, length } => self.kept_by_place(node, (offset, length)),
            KeptRows::Every { n: 0, .. } => self.refuse(node, "gather_every(0)"),
            KeptRows::Every { n, offset } => {
                // Rows offset, offset + n, ... of the frame or group.
                let int64 = GpuDtype::Int64;
                let int = |v: usize| GpuExpr::literal(Scalar::Int(v as i64), int64);
                let from_offset = place_from_zero().binary(BinaryOp::Minus, int(offset), int64);
                Some(
                    from_offset
                        .clone()
                        .binary(BinaryOp::GtEq, int(0), GpuDtype::Boolean)
                        .binary(
                            BinaryOp::And,
                            from_offset.binary(BinaryOp::Modulus, int(n), int64).binary(
                                BinaryOp::Eq,
                                int(0),
                                GpuDtype::Boolean,
                            ),
                            GpuDtype::Boolean,
                        ),
                )
            }
            KeptRows::NotNull => lowered.clone().map(GpuExpr::is_not_null),
            KeptRows::FirstOfEach => return self.first_of_each(node, lowered?),
            KeptRows::PlacesWhere => {
                let condition = lowered?;
                if condition.dtype != GpuDtype::Boolean {
                    self.refuse(node, format!("arg_where of {}", condition.dtype));
                    return None;
                }
                return Some((places_from_zero_u32(), condition));
            }
            // Per group Polars tests the value it stores under a null as if
            // it were valid (a null of `mean_horizontal` is dropped, one of
            // a column kept): not ours to know, nor, in a mixed plan, the
            // values the device stores under the nulls of the columns it
            // hands Polars (`(a % a)` of a null is NaN under it in Polars'
            // own columns): the whole query is Polars'.
            KeptRows::NotNan
                if self.per_group && lowered.as_ref().is_some_and(|v| v.dtype.is_float()) =>
            {
                self.refuse_whole(
                    node,
                    "drop_nans of floats per group (in a group-by or a window): Polars keeps or \
                     drops each null there by the value it stores under the null",
                )
            }
            // Those not NaN (nulls are kept; only floats hold NaN).
            KeptRows::NotNan => lowered.as_ref().map(|values| {
                let every = GpuExpr::literal(Scalar::Boolean(true), GpuDtype::Boolean);
                if !values.dtype.is_float() {
                    return every;
                }
                GpuExpr {
                    kind: ExprKind::FloatCheck {
                        check: FloatCheck::IsNotNan,
                        input: Box::new(values.clone()),
                    },
                    dtype: GpuDtype::Boolean,
                }
                .fill_null(every)
            }),
        };
        Some((lowered?, kept?))
    }

    /// Of `values.arg_unique()` at `node` ([`KeptRows::FirstOfEach`]): the
    /// rows' places (u32, from 0, in the frame or the group) and whether
    /// each row is where its value first comes (null a value too).
    fn first_of_each(&mut self, node: Node, values: GpuExpr) -> Option<(GpuExpr, GpuExpr)> {
        if values.dtype.is_float() {
            // (Polars' equality of floats there is its own.)
            self.refuse(node, "arg_unique of floats is not supported on the GPU");
            return None;
        }
        let first = GpuExpr {
            kind: ExprKind::Distinct {
                input: Box::new(values),
                test: DistinctTest::FirstDistinct,
            },
            dtype: GpuDtype::Boolean,
        };
        Some((places_from_zero_u32(), first))
    }

    /// The bounds (offset, length nodes) of the slices in `node` where
    /// every column it reads is read through a slice of the same literal
    /// bounds, under elementwise functions only (aggregations and lengths
    /// beside them, one value each, aside): the slice of the whole
    /// expression. `None` otherwise
    /// (no slice, or slices Polars takes otherwise).
    pub(super) fn common_slice(&self, node: Node) -> Option<((Node, Node), Option<Node>)> {
        let mut bounds: Option<(Node, Node)> = None;
        // The predicate of the filter every slice is of, if any.
        let mut filtered: Option<Option<Node>> = None;
        self.through_elementwise(node, |e| {
            // Its input any expression of rows that does not itself read
            // through slices (the slice of a whole column, or of an
            // expression of columns); columns read otherwise end it.
            let AExpr::Slice {
                input,
                offset,
                length,
            } = e
            else {
                return None;
            };
            let value = |n: Node| self.constant(n);
            match bounds {
                None => bounds = Some((*offset, *length)),
                Some((o, l)) => {
                    let same = value(o).is_some()
                        && value(o) == value(*offset)
                        && value(l).is_some()
                        && value(l) == value(*length);
                    if !same {
                        return None;
                    }
                }
            }
            let by = self.filter_of_every_row(*input).map(|(_, by)| by);
            if filtered.is_some_and(|other| other != by) {
                return None;
            }
            filtered = Some(by);
            let nested = self
                .arena
                .iter(*input)
                .any(|(_, e)| matches!(e, AExpr::Slice { .. } | AExpr::Agg(_) | AExpr::Len));
            (by.is_some()
                || (!nested && polars_plan::plans::is_length_preserving_ae(*input, self.arena)))
            .then_some(())
        })?;
        Some((bounds?, filtered.flatten()))
    }

    /// Walks `node` down through elementwise functions (binary operators,
    /// casts, ternaries, elementwise functions) and past what is one value
    /// beside them (literals; aggregations and lengths: `(x.slice(-1, 1) -
    /// x.first()).last()`, Polars' optimiser's form of `(x -
    /// x.first()).last()`, is one value in every row the slice keeps),
    /// handing every other node to `visit`; `None` where `visit` gives
    /// none.
    fn through_elementwise(
        &self,
        node: Node,
        mut visit: impl FnMut(&AExpr) -> Option<()>,
    ) -> Option<()> {
        let mut pending = vec![node];
        while let Some(at) = pending.pop() {
            match self.arena.get(at) {
                AExpr::Literal(_) | AExpr::Len | AExpr::Agg(_) => {}
                AExpr::BinaryExpr { left, right, .. } => pending.extend([*left, *right]),
                AExpr::Cast { expr, .. } => pending.push(*expr),
                AExpr::Ternary {
                    predicate,
                    truthy,
                    falsy,
                } => pending.extend([*predicate, *truthy, *falsy]),
                AExpr::Function { input, options, .. } if options.is_elementwise() => {
                    pending.extend(input.iter().map(ExprIR::node));
                }
                other => visit(other)?,
            }
        }
        Some(())
    }

    /// The predicate of the one filter in `node` where every column it
    /// reads is read through that filter, under elementwise functions only
    /// (aggregations and lengths beside it, one value each, aside), the
    /// filter's input and predicate of every row (not themselves filtered,
    /// sliced or aggregated; not a literal predicate, whose spreads Polars
    /// takes its own way): the filter of the whole expression. `None`
    /// otherwise.
    fn common_filter(&self, node: Node) -> Option<Node> {
        let mut by_node: Option<Node> = None;
        self.through_elementwise(node, |e| {
            let AExpr::Filter { input, by } = e else {
                return None;
            };
            let literal = matches!(self.arena.get(*by), AExpr::Literal(_));
            if by_node.is_some()
                || literal
                || !self.each_row_alone(*input)
                || !self.each_row_alone(*by)
            {
                return None;
            }
            by_node = Some(*by);
            Some(())
        })?;
        by_node
    }

    /// The literal bounds of a slice (`offset`, `length` nodes) as
    /// [`Self::kept_by_place`] takes them: an integer offset, and a length
    /// (all, when null; beyond i64, i64's greatest). `None` where they are
    /// not such literals.
    pub(crate) fn literal_slice_bounds(
        &self,
        (offset, length): (Node, Node),
    ) -> Option<(i64, i64)> {
        let offset = self.literal_i64(offset)?;
        let length = match self.constant(length)? {
            AnyValue::Null => i64::MAX,
            value => value.extract::<u64>()?.min(i64::MAX as u64) as i64,
        };
        Some((offset, length))
    }

    /// Of a filter at `node` whose input and predicate are of every row
    /// (not themselves filtered, sliced or aggregated): its input and
    /// predicate. `None` otherwise.
    fn filter_of_every_row(&self, node: Node) -> Option<(Node, Node)> {
        let AExpr::Filter { input, by } = self.arena.get(node) else {
            return None;
        };
        (self.each_row_alone(*input) && self.each_row_alone(*by)).then_some((*input, *by))
    }

    /// Whether the expression at `n` gives a value of every row, not
    /// itself filtered, sliced or aggregated (a filter's input and
    /// predicate that [`Self::common_filter`] and
    /// [`Self::filter_of_every_row`] take).
    fn each_row_alone(&self, n: Node) -> bool {
        polars_plan::plans::is_length_preserving_ae(n, self.arena)
            && !self.arena.iter(n).any(|(_, e)| {
                matches!(
                    e,
                    AExpr::Filter { .. } | AExpr::Slice { .. } | AExpr::Agg(_) | AExpr::Len
                )
            })
    }

    /// `input.filter(by).slice(offset, length)` (at `node`; `head`, a
    /// slice from a place): the input's values, and the rows kept (see
    /// [`Self::kept_in_slice_of`]).
    fn slice_of_filter(
        &mut self,
        node: Node,
        (input, by): (Node, Node),
        bounds: (Node, Node),
    ) -> Option<(GpuExpr, GpuExpr)> {
        let values = self.expr(input);
        let by = self.expr(by);
        let (values, by) = (values?, by?);
        Some((values, self.kept_in_slice_of(node, by, bounds)?))
    }

    /// The rows of a slice (`bounds`; at `node`) of the rows a filter by
    /// `by` keeps: those it keeps whose place among them (from 0, in the
    /// frame or in the group) lies in the slice (from the end, `tail`:
    /// from the number of rows kept).
    fn kept_in_slice_of(&mut self, node: Node, by: GpuExpr, bounds: (Node, Node)) -> Lowered {
        let Some((offset, length)) = self.literal_slice_bounds(bounds) else {
            return self.refuse(node, "a slice with bounds that are not literals");
        };
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        let int = |v| GpuExpr::literal(Scalar::Int(v), int64);
        let kept = by.fill_null(GpuExpr::literal(Scalar::Boolean(false), boolean));
        let offset = match offset < 0 {
            true => {
                let u32 = GpuDtype::UInt32;
                (kept.clone().cast(u32, CastMode::NonStrict))
                    .aggregated(AggOp::Sum, u32)
                    .cast(int64, CastMode::NonStrict)
                    .binary(BinaryOp::Plus, int(offset), int64)
            }
            false => int(offset),
        };
        // Each kept row's place among the kept ones, from 0.
        let place = GpuExpr {
            kind: ExprKind::CumSum(Box::new(kept.clone())),
            dtype: GpuDtype::UInt32,
        }
        .cast(int64, CastMode::NonStrict)
        .binary(BinaryOp::Minus, int(1), int64);
        let from_offset = place.binary(BinaryOp::Minus, offset, int64);
        let in_slice = (from_offset.clone().binary(BinaryOp::GtEq, int(0), boolean)).binary(
            BinaryOp::And,
            from_offset.binary(BinaryOp::Lt, int(length), boolean),
            boolean,
        );
        Some(kept.binary(BinaryOp::And, in_slice, boolean))
    }

    /// Whether each row's place p (from 0, in the frame or in its group)
    /// lies in Polars' slice of literal bounds: from `offset` (counted from
    /// the end when negative), `length` rows (all, when null).
    pub(crate) fn kept_by_place(&mut self, node: Node, bounds: (Node, Node)) -> Lowered {
        let Some((offset, length)) = self.literal_slice_bounds(bounds) else {
            return self.refuse(node, "a slice with bounds that are not literals");
        };
        let int64 = GpuDtype::Int64;
        let int = |v| GpuExpr::literal(Scalar::Int(v), int64);
        let start = if offset < 0 {
            let rows = GpuExpr {
                kind: ExprKind::Len,
                dtype: GpuDtype::UInt32,
            };
            rows.cast(int64, CastMode::NonStrict)
                .binary(BinaryOp::Plus, int(offset), int64)
        } else {
            int(offset)
        };
        let from_start = place_from_zero().binary(BinaryOp::Minus, start.clone(), int64);
        Some(
            place_from_zero()
                .binary(BinaryOp::GtEq, start, GpuDtype::Boolean)
                .binary(
                    BinaryOp::And,
                    from_start.binary(BinaryOp::Lt, int(length), GpuDtype::Boolean),
                    GpuDtype::Boolean,
                ),
        )
    }
}
