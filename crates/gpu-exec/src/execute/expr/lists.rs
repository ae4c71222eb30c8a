//! Lists in expressions: `implode` (a group's values as one list; of each row's window group, for windows mapped by `join`), texts split, the functions of each list, and the dispatch of list- and struct-valued expressions.

use super::*;
use gpu_runtime::ops::ListSumPath;

/// Lists made by counts (see [`Executor::counted_lists`]): their offsets
/// and validity, and of each value its list (`rows`) and its place in it
/// (`places`, i64 from 0).
pub(crate) struct CountedLists {
    pub(crate) offsets: DeviceBuffer<i64>,
    pub(crate) validity: Option<DeviceBuffer<u32>>,
    pub(crate) rows: DeviceBuffer<i64>,
    pub(crate) places: DeviceColumn,
}

impl Executor<'_> {
    /// `input`'s values as one list per group (`sorted_rows` by group,
    /// each group's rows in row order, from `starts`), computed as in the
    /// group; of a filter (`Where`), the rows it keeps. The values
    /// gathered in that order; the groups' bounds (of the rows kept) the
    /// lists' offsets.
    pub(crate) fn imploded(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        dtype: GpuDtype,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let groups = Some((sorted_rows, starts));
        let n = sorted_rows.len();
        let (values, kept) = match &input.kind {
            ExprKind::Where { input, by } => (input.as_ref(), Some(by.as_ref())),
            _ => (input, None),
        };
        let mut owned = None;
        let values = self.column_in_groups(frame, values, "", &mut owned, groups)?;
        let (kept_rows, offsets);
        let rows = match kept {
            None => {
                offsets = self.group_bounds(starts, n)?;
                sorted_rows
            }
            Some(by) => {
                // The rows kept, in group order, and each group's number of them.
                let no = GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean);
                let kept = self.evaluate_in_groups(frame, &by.clone().fill_null(no), "", groups)?;
                let kept = self.gather_column(&kept, sorted_rows)?;
                let Values::Bits(kept) = kept.values() else {
                    return Err(ExecError::Unsupported(format!("a filter by `{by}`")));
                };
                let positions = ops.filter_indices(kept, None, n)?;
                kept_rows = ops.gather(sorted_rows, None, &positions)?.0;
                let counts = ops.widen(&ops.segment_count(Some(kept), starts, n)?)?;
                offsets = self.offsets_of(&counts)?;
                &kept_rows
            }
        };
        let (values, validity) =
            self.gather_values(values.values(), values.validity(), values.len(), rows)?;
        let child = Child {
            len: rows.len(),
            values,
            validity: Some(validity),
        };
        Ok(DeviceColumn::listed(dtype, offsets, child, None))
    }

    /// A list- or struct-valued expression over `frame`, row by row (within
    /// each group of `groups`): a copy of a list or struct column, texts
    /// split, a struct made, a column (a group) imploded on every row.
    pub(crate) fn nested_valued(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let mut made = match &expr.kind {
            ExprKind::Column { index, .. } => {
                let rows = self.ops().iota(frame.height, 0)?;
                self.gather_column(column_at(frame, *index)?, &rows)?
            }
            ExprKind::String { op, input } if op.makes_lists() => {
                let mut owned = None;
                let texts = self.strings_of(frame, input, &mut owned, groups)?;
                let (offsets, validity, pieces) = match op {
                    StringOp::ExtractAll(pattern) => self
                        .ops()
                        .string_extract_all(texts, device_pattern(pattern))?,
                    StringOp::Split {
                        separator,
                        inclusive,
                    } => self
                        .ops()
                        .string_split(texts, separator.as_bytes(), *inclusive)?,
                    _ => return Err(ExecError::Unsupported(format!("lists made by `{expr}`"))),
                };
                let DeviceStrings {
                    offsets: piece_offsets,
                    bytes,
                    validity: piece_validity,
                } = pieces;
                let child = Child {
                    len: piece_offsets.len() - 1,
                    values: Values::Str {
                        offsets: piece_offsets,
                        bytes,
                    },
                    validity: Some(piece_validity),
                };
                DeviceColumn::listed(expr.dtype, offsets, child, Some(validity))
            }
            ExprKind::MakeStruct(fields) => self.made_struct(frame, fields, expr.dtype, groups)?,
            ExprKind::WithFields { input, fields } => {
                self.with_fields(frame, input, fields, expr.dtype, groups)?
            }
            // A struct's fields renamed: its values under the new type.
            ExprKind::Cast { input, .. } if matches!(input.dtype, GpuDtype::Struct(_)) => {
                let mut renamed = self.nested_valued(frame, input, name, groups)?;
                renamed.dtype = expr.dtype;
                renamed
            }
            ExprKind::ConcatList(inputs) => {
                self.concat_listed(frame, inputs, expr.dtype, groups)?
            }
            ExprKind::List { function, input } => {
                self.list_function(frame, function, input, expr.dtype, groups)?
            }
            ExprKind::IntRanges { start, end, step } if groups.is_none() => {
                self.int_ranges(frame, (start, end, *step), expr.dtype)?
            }
            // A null list or struct; a choice between lists or structs.
            ExprKind::Literal(Scalar::Null) => self.null_column(expr.dtype, frame.height)?,
            ExprKind::Ternary { .. } | ExprKind::FillNull { .. } => {
                self.nested_choice(frame, expr, groups)?
            }
            // Moved whole to other rows (of each window group, too).
            ExprKind::Shift { .. }
            | ExprKind::Reverse(_)
            | ExprKind::Gather { .. }
            | ExprKind::Fill { .. }
            | ExprKind::SortedBy { .. } => self.moved(frame, expr, name, groups)?,
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } if function.moved_rows().is_some() || function.is_choice() => {
                let groups = self.window_groups(frame, partition_by, order_by.as_ref())?;
                let groups = Some((&groups.sorted_rows, &groups.starts));
                self.nested_valued(frame, function, name, groups)?
            }
            // Each row's window group's list (a window mapped by `join`).
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } => {
                let groups = self.window_groups(frame, partition_by, order_by.as_ref())?;
                self.aggregate_on_rows(frame, function, (&groups.sorted_rows, &groups.starts))?
            }
            // The column's list (each group's), repeated on every row.
            ExprKind::Agg { .. } => {
                let ops = self.ops();
                let whole;
                let (rows, starts, group_of_row) = match groups {
                    None => {
                        whole = self.one_group(frame.height)?;
                        (&whole.0, &whole.1, ops.repeat_first(frame.height)?)
                    }
                    Some((rows, starts)) => (rows, starts, self.group_of_rows(rows, starts)?),
                };
                let value = self.aggregate(frame, expr, rows, starts, groups.is_none())?;
                self.gather_column(&value, &group_of_row)?
            }
            _ => {
                return Err(ExecError::Unsupported(not_yet(format_args!(
                    "the values of `{expr}`"
                ))));
            }
        };
        made.name = name.into();
        Ok(made)
    }

    /// Polars' `concat_list` of `inputs` over `frame`: of k values of one
    /// type, the inputs stacked one after another, each row's list the k
    /// values at its row (child row i the stack's row (i % k)·n + i / k),
    /// every list k long; with lists among them, see [`Self::lists_joined`].
    fn concat_listed(
        &self,
        frame: &DeviceFrame,
        inputs: &[GpuExpr],
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let GpuDtype::List(of) = dtype else {
            return Err(ExecError::Unsupported(format!("concat_list into {dtype}")));
        };
        let (n, k) = (frame.height, inputs.len());
        let columns = inputs
            .iter()
            .map(|input| self.evaluate_in_groups(frame, input, "", groups))
            .collect::<Result<Vec<_>, _>>()?;
        if inputs.iter().any(|input| input.dtype == dtype) {
            return self.lists_joined(columns, dtype, n);
        }
        let parts: Vec<&DeviceColumn> = columns.iter().collect();
        let stacked = self.concat_column(&parts, "", of.values(), n * k)?;
        let ops = self.ops();
        let int64 = GpuDtype::Int64;
        let places = |len: usize| -> Result<DeviceFrame, ExecError> {
            Ok(DeviceFrame {
                columns: vec![DeviceColumn::of_i64(ops.iota(len, 0)?)],
                height: len,
            })
        };
        let int = |v: usize| GpuExpr::literal(Scalar::Int(v as i64), int64);
        let i = column_ref(0, int64);
        let source = i
            .clone()
            .binary(BinaryOp::Modulus, int(k), int64)
            .binary(BinaryOp::Multiply, int(n), int64)
            .binary(
                BinaryOp::Plus,
                i.clone().binary(BinaryOp::FloorDivide, int(k), int64),
                int64,
            );
        let rows = self.evaluate_i64(&places(n * k)?, &source)?;
        let child = self.gather_column(&stacked, &rows)?.into_child();
        let offsets = self.evaluate_i64(
            &places(n + 1)?,
            &i.binary(BinaryOp::Multiply, int(k), int64),
        )?;
        Ok(DeviceColumn::listed(dtype, offsets, child, None))
    }

    /// Polars' `concat_list` of `columns` (of `n` rows), lists of `dtype`
    /// and values of its value type (each a list of one, a null value too):
    /// each row's lists one after another, null where one of them is. The
    /// inputs' values are stacked; each value of a row's list takes the
    /// stacked value of the input whose span holds its place.
    fn lists_joined(
        &self,
        columns: Vec<DeviceColumn>,
        dtype: GpuDtype,
        n: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        let of = match dtype {
            GpuDtype::List(of) => of.values(),
            _ => return Err(ExecError::Unsupported(format!("concat_list into {dtype}"))),
        };
        // Each input's offsets (a value's: 0, 1, … n), values and validity.
        let (mut rows, mut children, mut valid) = (Vec::new(), Vec::new(), Vec::new());
        for column in columns {
            let listed = column.dtype == dtype;
            let (offsets, child, validity) = match column.into_parts() {
                (Values::List { offsets, child }, validity) if listed => (
                    offsets,
                    DeviceColumn::from_child("".into(), of, *child),
                    validity,
                ),
                (values, validity) => {
                    let value = DeviceColumn::from_parts("".into(), of, n, values, validity);
                    (ops.iota(n + 1, 0)?, value, None)
                }
            };
            rows.extend(self.list_bounds(&offsets, n)?);
            if let Some(validity) = validity {
                valid.push(self.validity_as_booleans(&validity, n)?);
            }
            children.push(child);
        }
        let k = children.len();
        // Each input's span in the stack (from its offset past the inputs
        // before it), and its length, per row.
        let mut base = 0;
        let mut spans = Vec::with_capacity(k);
        for (i, child) in children.iter().enumerate() {
            let int = GpuExpr::literal(Scalar::Int(base as i64), int64);
            let (start, end) = (column_ref(2 * i, int64), column_ref(2 * i + 1, int64));
            let length = end.binary(BinaryOp::Minus, start.clone(), int64);
            spans.push((start.binary(BinaryOp::Plus, int, int64), length));
            base += child.len();
        }
        let total = spans
            .iter()
            .map(|(_, length)| length.clone())
            .reduce(|a, b| a.binary(BinaryOp::Plus, b, int64))
            .ok_or_else(|| ExecError::Unsupported("concat_list of nothing".into()))?;
        let all_valid = (0..valid.len())
            .map(|v| column_ref(2 * k + v, boolean))
            .reduce(|a, b| a.binary(BinaryOp::And, b, boolean));
        let count = match all_valid {
            Some(valid) => GpuExpr {
                kind: ExprKind::Ternary {
                    predicate: Box::new(valid),
                    truthy: Box::new(total),
                    falsy: Box::new(GpuExpr::literal(Scalar::Null, int64)),
                },
                dtype: int64,
            },
            None => total,
        };
        rows.extend(valid);
        let rows = DeviceFrame {
            columns: rows,
            height: n,
        };
        let counted = self.counted_lists(&rows, count)?;
        // Per value: its row's spans, its place in the row's list; it
        // takes the first span its place falls in.
        let len = counted.rows.len();
        let mut columns = Vec::with_capacity(2 * k + 1);
        for (start, length) in spans {
            for per_row in [start, length] {
                let per_row = self.evaluate_i64(&rows, &per_row)?;
                let (values, _) = ops.gather(&per_row, None, &counted.rows)?;
                columns.push(DeviceColumn::of_i64(values));
            }
        }
        columns.push(counted.places);
        let values = DeviceFrame {
            columns,
            height: len,
        };
        let place = column_ref(2 * k, int64);
        let mut before = GpuExpr::literal(Scalar::Int(0), int64);
        let mut pieces = Vec::with_capacity(k);
        for i in 0..k {
            let (start, length) = (column_ref(2 * i, int64), column_ref(2 * i + 1, int64));
            let at = start.binary(
                BinaryOp::Plus,
                place.clone().binary(BinaryOp::Minus, before.clone(), int64),
                int64,
            );
            before = before.binary(BinaryOp::Plus, length, int64);
            pieces.push((before.clone(), at));
        }
        let last = pieces.pop().map(|(_, at)| at);
        let mut source =
            last.ok_or_else(|| ExecError::Unsupported("concat_list of nothing".into()))?;
        for (after, at) in pieces.into_iter().rev() {
            source = GpuExpr {
                kind: ExprKind::Ternary {
                    predicate: Box::new(place.clone().binary(BinaryOp::Lt, after, boolean)),
                    truthy: Box::new(at),
                    falsy: Box::new(source),
                },
                dtype: int64,
            };
        }
        let source = self.evaluate_i64(&values, &source)?;
        let parts: Vec<&DeviceColumn> = children.iter().collect();
        let stacked = self.concat_column(&parts, "", of, base)?;
        let child = self.gather_column(&stacked, &source)?.into_child();
        Ok(DeviceColumn::listed(
            dtype,
            counted.offsets,
            child,
            counted.validity,
        ))
    }

    /// Polars' `int_ranges(start, end, step)` over `frame` (see
    /// [`ExprKind::IntRanges`]): each row's list as long as the steps from
    /// its start short of its end, null where either is; its values the
    /// start and the steps from it.
    fn int_ranges(
        &self,
        frame: &DeviceFrame,
        (start, end, step): (&GpuExpr, &GpuExpr, i64),
        dtype: GpuDtype,
    ) -> Result<DeviceColumn, ExecError> {
        let int64 = GpuDtype::Int64;
        let int = |v: i64| GpuExpr::literal(Scalar::Int(v), int64);
        let n = frame.height;
        // The distance to go, and the start on every row (`end - end +
        // start`, where one of them is a single value), both null where
        // either is.
        let (from, to) = match step > 0 {
            true => (start, end),
            false => (end, start),
        };
        let distance = to.clone().binary(BinaryOp::Minus, from.clone(), int64);
        let starts = end
            .clone()
            .binary(BinaryOp::Minus, end.clone(), int64)
            .binary(BinaryOp::Plus, start.clone(), int64);
        let bounds = DeviceFrame {
            columns: vec![
                self.evaluate(frame, &distance, "")?,
                self.evaluate(frame, &starts, "")?,
            ],
            height: n,
        };
        // Each list's length: the steps short of the distance (none where
        // it is not ahead; null where it is null).
        let ahead = column_ref(0, int64);
        let steps = ahead
            .clone()
            .binary(BinaryOp::Minus, int(1), int64)
            .binary(
                BinaryOp::FloorDivide,
                int(step.unsigned_abs() as i64),
                int64,
            )
            .binary(BinaryOp::Plus, int(1), int64);
        let length = GpuExpr {
            kind: ExprKind::Ternary {
                predicate: Box::new(ahead.clone().is_null()),
                truthy: Box::new(GpuExpr::literal(Scalar::Null, int64)),
                falsy: Box::new(ahead.binary(BinaryOp::Gt, int(0), GpuDtype::Boolean).then(
                    steps,
                    int(0),
                    int64,
                )),
            },
            dtype: int64,
        };
        let counted = self.counted_lists(&bounds, length)?;
        // Each value: its list's start and its place in the list times
        // the step.
        let starts = bounds.columns.into_iter().nth(1);
        let starts = starts.ok_or_else(|| ExecError::Unsupported("int_ranges' starts".into()))?;
        let places = DeviceFrame {
            height: counted.rows.len(),
            columns: vec![self.gather_column(&starts, &counted.rows)?, counted.places],
        };
        let value = column_ref(1, int64)
            .binary(BinaryOp::Multiply, int(step), int64)
            .binary(BinaryOp::Plus, column_ref(0, int64), int64);
        let child = self.evaluate(&places, &value, "")?.into_child();
        Ok(DeviceColumn::listed(
            dtype,
            counted.offsets,
            child,
            counted.validity,
        ))
    }

    /// Polars' `list.get` at each row's own place (`at`, i64: from the
    /// list's end when negative) of `lists` (of `offsets`): the child rows
    /// to gather (-1, a null, where the list or the place is null or the
    /// list has no such place). Without `null_on_oob`, a valid list without
    /// its row's place sends the query to Polars (`function` of `input`),
    /// which raises, once the result is on the host.
    fn list_places(
        &self,
        lists: &DeviceColumn,
        offsets: &DeviceBuffer<i64>,
        at: DeviceColumn,
        null_on_oob: bool,
        function: &ListFunction,
        input: &GpuExpr,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let n = lists.len();
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        let [starts, ends] = self.list_bounds(offsets, n)?;
        let mut columns = vec![starts, ends, at];
        let valid_list = match lists.validity() {
            Some(validity) => {
                columns.push(self.validity_as_booleans(validity, n)?);
                column_ref(3, boolean)
            }
            None => GpuExpr::literal(Scalar::Boolean(true), boolean),
        };
        let places = DeviceFrame { columns, height: n };
        let (start, end, at) = (
            column_ref(0, int64),
            column_ref(1, int64),
            column_ref(2, int64),
        );
        let zero = GpuExpr::literal(Scalar::Int(0), int64);
        let from_end = at.clone().binary(BinaryOp::Lt, zero, boolean);
        let place = GpuExpr {
            kind: ExprKind::Ternary {
                predicate: Box::new(from_end),
                truthy: Box::new(end.clone().binary(BinaryOp::Plus, at.clone(), int64)),
                falsy: Box::new(start.clone().binary(BinaryOp::Plus, at.clone(), int64)),
            },
            dtype: int64,
        };
        let inside = (place.clone().binary(BinaryOp::GtEq, start, boolean)).binary(
            BinaryOp::And,
            place.clone().binary(BinaryOp::Lt, end, boolean),
            boolean,
        );
        let no = GpuExpr::literal(Scalar::Boolean(false), boolean);
        let none = GpuExpr::literal(Scalar::Int(-1), int64);
        let not = |e: GpuExpr| GpuExpr {
            kind: ExprKind::Not(Box::new(e)),
            dtype: boolean,
        };
        let source = GpuExpr {
            kind: ExprKind::Ternary {
                predicate: Box::new(inside.clone().fill_null(no)),
                truthy: Box::new(place),
                falsy: Box::new(none.clone()),
            },
            dtype: int64,
        };
        let rows = self.evaluate_i64(&places, &source.fill_null(none))?;
        if !null_on_oob {
            let outside = (valid_list.binary(BinaryOp::And, at.is_not_null(), boolean)).binary(
                BinaryOp::And,
                not(inside),
                boolean,
            );
            let what = format!(
                "{} of `{input}`: a list without its row's place",
                function.name()
            );
            self.check_any_later(&places, outside, what, ExecError::InvalidData)?;
        }
        Ok(rows)
    }

    /// Polars' `list.slice` of `lists` (of `offsets` into `child`) by each
    /// row's bounds (i64 columns of its rows): each list's values from its
    /// offset on (from the list's end where negative), as many as its
    /// length says (all the rest where negative), clamped to the list; null
    /// where the list, the offset or the length is. Of one row, Polars
    /// takes the bounds as single values: a null length takes the rest, and
    /// at a null offset it raises; of no rows or no list valid, it types the
    /// values Null (the query goes to it for both; `input` names the lists).
    fn sliced_lists(
        &self,
        lists: &DeviceColumn,
        (offsets, child): (&DeviceBuffer<i64>, &Child),
        (offset, length): (DeviceColumn, DeviceColumn),
        (input, dtype): (&GpuExpr, GpuDtype),
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let n = lists.len();
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        let [starts, ends] = self.list_bounds(offsets, n)?;
        let mut columns = vec![starts, ends, offset, length];
        if let Some(validity) = lists.validity() {
            columns.push(self.validity_as_booleans(validity, n)?);
        }
        let rows = DeviceFrame { columns, height: n };
        let [first, end, offset, mut length] = [0, 1, 2, 3].map(|i| column_ref(i, int64));
        let int = |v: i64| GpuExpr::literal(Scalar::Int(v), int64);
        if n == 1 {
            length = length.fill_null(int(-1));
            let what = format!("list.slice of `{input}` from a null offset (of one row)");
            self.check_any_later(
                &rows,
                offset.clone().is_null(),
                what,
                ExecError::InvalidData,
            )?;
        }
        let pick = |predicate: GpuExpr, truthy: GpuExpr, falsy: GpuExpr| GpuExpr {
            kind: ExprKind::Ternary {
                predicate: Box::new(predicate),
                truthy: Box::new(truthy),
                falsy: Box::new(falsy),
            },
            dtype: int64,
        };
        let len = end.binary(BinaryOp::Minus, first.clone(), int64);
        let clamped = |at: GpuExpr| {
            let below = at.clone().binary(BinaryOp::Lt, int(0), boolean);
            let above = at.clone().binary(BinaryOp::Gt, len.clone(), boolean);
            pick(below, int(0), pick(above, len.clone(), at))
        };
        let from_end = offset.clone().binary(BinaryOp::Lt, int(0), boolean);
        let start = pick(
            from_end,
            offset.clone().binary(BinaryOp::Plus, len.clone(), int64),
            offset,
        );
        // A negative length takes all the rest (Polars' length is then
        // usize::MAX), as does one past the list's end from a start within
        // it (so the stop stays within i64: from a start before the list,
        // it does).
        let rest = length.clone().binary(BinaryOp::Lt, int(0), boolean).binary(
            BinaryOp::Or,
            (start.clone().binary(BinaryOp::GtEq, int(0), boolean)).binary(
                BinaryOp::And,
                length.clone().binary(
                    BinaryOp::Gt,
                    len.clone().binary(BinaryOp::Minus, start.clone(), int64),
                    boolean,
                ),
                boolean,
            ),
            boolean,
        );
        let stop = pick(
            rest,
            len.clone(),
            start.clone().binary(BinaryOp::Plus, length, int64),
        );
        let stop = clamped(stop);
        let start = clamped(start);
        // Each list's count, null where it, its offset or its length is.
        let mut count = stop.binary(BinaryOp::Minus, start.clone(), int64);
        if lists.validity().is_some() {
            let null = GpuExpr::literal(Scalar::Null, int64);
            count = GpuExpr {
                kind: ExprKind::Ternary {
                    predicate: Box::new(column_ref(4, boolean)),
                    truthy: Box::new(count),
                    falsy: Box::new(null),
                },
                dtype: int64,
            };
        }
        // Each value kept: its list's first child row kept, and its place
        // after it.
        let firsts = self.evaluate_i64(&rows, &first.binary(BinaryOp::Plus, start, int64))?;
        let counted = self.counted_lists(&rows, count)?;
        // Polars makes the lists of more rows than one from each row's, and
        // of none valid (or no rows) gives lists of values of the Null type.
        let why = format!(
            "list.slice of `{input}` by each row's bounds giving no list (Polars then types \
             their values Null)"
        );
        match (&counted.validity, n) {
            (_, 0) => return Err(ExecError::DependsOnPolars(why)),
            (Some(validity), 2..) => self.check_some_valid(validity, n, why)?,
            _ => {}
        }
        let (firsts, _) = ops.gather(&firsts, None, &counted.rows)?;
        let len = counted.rows.len();
        let places = DeviceFrame {
            columns: vec![DeviceColumn::of_i64(firsts), counted.places],
            height: len,
        };
        let source = column_ref(0, int64).binary(BinaryOp::Plus, column_ref(1, int64), int64);
        let source = self.evaluate_i64(&places, &source)?;
        let (values, value_validity) =
            self.gather_values(&child.values, child.validity.as_ref(), child.len, &source)?;
        let child = Child {
            len,
            values,
            validity: Some(value_validity),
        };
        Ok(DeviceColumn::listed(
            dtype,
            counted.offsets,
            child,
            counted.validity,
        ))
    }

    /// Each list's first and end offsets (`offsets` of `n` lists), as
    /// columns of its rows.
    pub(crate) fn list_bounds(
        &self,
        offsets: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<[DeviceColumn; 2], ExecError> {
        let ops = self.ops();
        let bound = |from: i64| -> Result<DeviceColumn, ExecError> {
            let (bounds, _) = ops.gather(offsets, None, &ops.iota(n, from)?)?;
            Ok(DeviceColumn::of_i64(bounds))
        };
        Ok([bound(0)?, bound(1)?])
    }

    /// Lists of `count` values for each row of `rows` (an i64 expression
    /// of them; a null list where it is null): their offsets and validity,
    /// and of each value its row and its place in its row's list.
    pub(crate) fn counted_lists(
        &self,
        rows: &DeviceFrame,
        count: GpuExpr,
    ) -> Result<CountedLists, ExecError> {
        let int64 = GpuDtype::Int64;
        let validity = self.evaluate(rows, &count, "")?.into_parts().1;
        let zero = GpuExpr::literal(Scalar::Int(0), int64);
        let offsets = self.offsets_of(&self.evaluate_i64(rows, &count.fill_null(zero))?)?;
        let ops = self.ops();
        let values = ops.explode_lists(&offsets, None, false, false)?;
        let (firsts, _) = ops.gather(&offsets, None, &values.parents)?;
        let len = values.values.len();
        let frame = DeviceFrame {
            columns: vec![
                DeviceColumn::of_i64(values.values),
                DeviceColumn::of_i64(firsts),
            ],
            height: len,
        };
        let place = column_ref(0, int64).binary(BinaryOp::Minus, column_ref(1, int64), int64);
        Ok(CountedLists {
            places: self.evaluate(&frame, &place, "")?,
            offsets,
            validity,
            rows: values.parents,
        })
    }

    /// Lists' offsets from their lengths (`counts`): an exclusive scan of
    /// the counts and one more zero, so that it ends with the total.
    pub(crate) fn offsets_of(
        &self,
        counts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let memory = self.ctx.memory.clone();
        let counted = DeviceBuffer::zeroed(counts.len() + 1, memory, &self.ctx.stream)?;
        counted.copy_from_device(0, counts)?;
        Ok(self.ops().exclusive_scan_i64(&counted)?)
    }

    /// A function of each list of `input`, lists over `frame` (computed
    /// within each group of `groups`, when given), of type `dtype`.
    pub(crate) fn list_function(
        &self,
        frame: &DeviceFrame,
        function: &ListFunction,
        input: &GpuExpr,
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let mut owned = None;
        let lists = self.column_in_groups(frame, input, "", &mut owned, groups)?;
        let (Values::List { offsets, child }, GpuDtype::List(of)) = (lists.values(), lists.dtype)
        else {
            return Err(ExecError::Unsupported(format!(
                "{function} of `{input}`, a {} column",
                lists.dtype
            )));
        };
        let ops = self.ops();
        let column = |dtype, values, validity| {
            DeviceColumn::from_parts("".into(), dtype, frame.height, values, Some(validity))
        };
        let lengths = || -> Result<DeviceColumn, ExecError> {
            let (lengths, validity) = ops.list_lengths(offsets, lists.validity())?;
            Ok(column(GpuDtype::UInt32, Values::U32(lengths), validity))
        };
        // Each list a group of the child's rows (in order): an aggregation
        // of each (of the values equal to the item, for `contains`: their
        // number, above 0), null where the list is; or the values sorted
        // within each, or those a filter keeps.
        let rows = ops.iota(child.len, 0)?;
        let (starts, _) = ops.gather(offsets, None, &ops.iota(frame.height, 0)?)?;
        let child_frame = || self.list_values(lists);
        // (Named as the list column, for the reasons the values give.)
        let name = match &input.kind {
            ExprKind::Column { name, .. } => name.clone(),
            _ => String::new(),
        };
        let values = GpuExpr::column(0, name, of.values());
        // One result per value, computed within each list (`evaluation` of
        // the values as column 0, each list a group): the offsets kept.
        let relisted = |evaluation: GpuExpr| -> Result<DeviceColumn, ExecError> {
            let groups = Some((&rows, &starts));
            let results = self.evaluate_in_groups(&child_frame()?, &evaluation, "", groups)?;
            let (offsets, _) = ops.gather(offsets, None, &ops.iota(offsets.len(), 0)?)?;
            let (_, lists_validity) = ops.list_lengths(&offsets, lists.validity())?;
            let child = results.into_child();
            Ok(DeviceColumn::listed(
                dtype,
                offsets,
                child,
                Some(lists_validity),
            ))
        };
        // The values as a frame, where a check before the aggregation made
        // it already; the divisor of a decimal list's result (see below).
        let (mut values_frame, mut divisor) = (None, None);
        let (aggregated, of_aggregate) = match function {
            ListFunction::Keep { by, .. } => {
                // The values kept, listed per list as `implode` lists a
                // filter's; a null list stays null.
                let kept = GpuExpr {
                    kind: ExprKind::Where {
                        input: Box::new(values),
                        by: by.clone(),
                    },
                    dtype: of.values(),
                };
                let made = self.imploded(&child_frame()?, &kept, dtype, &rows, &starts)?;
                let (lists_kept, _) = made.into_parts();
                let (_, validity) = ops.list_lengths(offsets, lists.validity())?;
                return Ok(column(dtype, lists_kept, validity));
            }
            ListFunction::Sort {
                descending,
                nulls_last,
            } => {
                let order = RowOrder {
                    key: Box::new(values.clone()),
                    descending: *descending,
                    nulls_last: *nulls_last,
                };
                return relisted(GpuExpr {
                    kind: ExprKind::SortedBy {
                        input: Box::new(values),
                        order: vec![order],
                        unstable: None,
                    },
                    dtype: of.values(),
                });
            }
            ListFunction::Eval(evaluation) => return relisted(evaluation.as_ref().clone()),
            ListFunction::Len => return lengths(),
            ListFunction::Get { index, null_on_oob } => {
                let (rows, outside) = ops.list_get_rows(offsets, lists.validity(), *index)?;
                if !null_on_oob {
                    let what = format!(
                        "{} of `{input}`: a list without that place",
                        function.name()
                    );
                    self.check_later(outside, what, ExecError::InvalidData);
                }
                let (values, validity) =
                    self.gather_values(&child.values, child.validity.as_ref(), child.len, &rows)?;
                return Ok(column(dtype, values, validity));
            }
            ListFunction::GetAt { index, null_on_oob } => {
                let at = self.evaluate_in_groups(frame, index, "", groups)?;
                let rows = self.list_places(lists, offsets, at, *null_on_oob, function, input)?;
                let (values, validity) =
                    self.gather_values(&child.values, child.validity.as_ref(), child.len, &rows)?;
                return Ok(column(dtype, values, validity));
            }
            ListFunction::SliceAt { offset, length } => {
                let offset = self.evaluate_in_groups(frame, offset, "", groups)?;
                let length = self.evaluate_in_groups(frame, length, "", groups)?;
                let bounds = (offset, length);
                return self.sliced_lists(lists, (offsets, child), bounds, (input, dtype));
            }
            ListFunction::Contains(item) => {
                let (boolean, count) = (GpuDtype::Boolean, GpuDtype::UInt32);
                let no = GpuExpr::literal(Scalar::Boolean(false), boolean);
                let item = GpuExpr::literal(item.clone(), of.values());
                let equal = values.binary(BinaryOp::Eq, item, boolean).fill_null(no);
                let counted = cast_to(&equal, count).aggregated(AggOp::Sum, count);
                let zero = GpuExpr::literal(Scalar::UInt(0), count);
                let any = column_ref(0, count).binary(BinaryOp::Gt, zero, boolean);
                (counted, any)
            }
            ListFunction::Aggregate(op) => {
                // A decimal list's mean and median: of its scaled integers
                // (the mean in Polars' order below), divided by 10^scale as
                // Polars divides each list's, row by row (by a column: the
                // evaluator's scalar kernel would multiply by the
                // reciprocal of a literal).
                if let (AggOp::Mean | AggOp::Median, GpuDtype::Decimal(_, scale)) =
                    (op, of.values())
                {
                    divisor = Some(10_i128.pow(scale.into()) as f64);
                    let scaled = values.cast(GpuDtype::Int64, CastMode::Physical);
                    let of_scaled = column_ref(0, dtype).binary(
                        BinaryOp::TrueDivide,
                        column_ref(2, dtype),
                        dtype,
                    );
                    (scaled.aggregated(op.clone(), dtype), of_scaled)
                } else {
                    (values.aggregated(op.clone(), dtype), column_ref(0, dtype))
                }
            }
            ListFunction::Agg { aggregation, .. } => {
                // The place of an extreme of a list of no valid value (of
                // each such input): Polars, taking each list as a group,
                // gives 0 or null by its path.
                let mut places_of = Vec::new();
                aggregation.visit(&mut |e| {
                    if let ExprKind::Agg {
                        op: AggOp::ArgMin | AggOp::ArgMax,
                        input,
                    } = &e.kind
                    {
                        places_of.push(input.as_ref().clone());
                    }
                });
                if !places_of.is_empty() {
                    let what = "the place of an extreme of a list of no valid value (Polars \
                                gives 0 or null, by its path)";
                    let checked = values_frame.insert(child_frame()?);
                    for input in &places_of {
                        self.check_no_valid_value(checked, input, &rows, &starts, false, what)?;
                    }
                }
                let dtype = aggregation.dtype;
                (aggregation.as_ref().clone(), column_ref(0, dtype))
            }
        };
        // Sums and means of floats (means of 64-bit integers and decimals
        // too) in the order Polars adds each list's values (a decimal
        // list's as a column of its own, whatever the child holds).
        let summed = match (function, &child.values) {
            (ListFunction::Aggregate(op @ (AggOp::Sum | AggOp::Mean)), values) => {
                let path = match of.values() {
                    GpuDtype::Decimal(..) => ListSumPath::AsColumns,
                    _ => ListSumPath::ByNulls,
                };
                let mean = (*op == AggOp::Mean, path);
                let summed = (offsets, child.validity.as_ref());
                match values {
                    Values::F64(values) => {
                        Some(float_sums(&ops, summed, values, mean, Values::F64)?)
                    }
                    Values::F32(values) => {
                        Some(float_sums(&ops, summed, values, mean, Values::F32)?)
                    }
                    Values::I64(values) if mean.0 => {
                        Some(float_sums(&ops, summed, values, mean, Values::F64)?)
                    }
                    Values::U64(values) if mean.0 => {
                        Some(float_sums(&ops, summed, values, mean, Values::F64)?)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let value = match summed {
            Some((values, validity)) => column(dtype, values, validity),
            None => {
                let values_frame = match values_frame {
                    Some(made) => made,
                    None => child_frame()?,
                };
                match function {
                    // Polars takes a list's spread as a column's
                    // (`Series::var` of each list): in chunks.
                    ListFunction::Aggregate(AggOp::Std { .. } | AggOp::Var { .. }) => {
                        self.aggregate(&values_frame, &aggregated, &rows, &starts, true)?
                    }
                    _ => {
                        self.aggregate_expr(&values_frame, &aggregated, (&rows, &starts), false)?
                    }
                }
            }
        };
        let mut both = DeviceFrame {
            columns: vec![value, lengths()?],
            height: frame.height,
        };
        if let Some(divisor) = divisor {
            let divisor = GpuExpr::literal(Scalar::Float(divisor), GpuDtype::Float64);
            both.columns.push(self.evaluate(frame, &divisor, "")?);
        }
        let value_dtype = of_aggregate.dtype;
        let null = GpuExpr::literal(Scalar::Null, value_dtype);
        let of_valid_lists =
            column_ref(1, GpuDtype::UInt32)
                .is_not_null()
                .then(of_aggregate, null, value_dtype);
        let value = self.evaluate(&both, &of_valid_lists, "")?;
        match function {
            ListFunction::Agg { listed: true, .. } => {
                let (_, valid) = ops.list_lengths(offsets, lists.validity())?;
                self.lists_of_one(value, valid, dtype)
            }
            _ => Ok(value),
        }
    }

    /// Each row's `value` as a list of one (`dtype`), as `list.eval` of an
    /// aggregation gives it; null and empty where `valid` (the lists'
    /// validity) is not set.
    fn lists_of_one(
        &self,
        value: DeviceColumn,
        valid: DeviceBuffer<u32>,
        dtype: GpuDtype,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let n = value.len();
        let rows = ops.iota(n, 0)?;
        let counts = ops.widen(&ops.segment_count(Some(&valid), &rows, n)?)?;
        let offsets = self.offsets_of(&counts)?;
        let kept = ops.filter_indices(&valid, None, n)?;
        let (values, validity) = self.gather_values(value.values(), value.validity(), n, &kept)?;
        let child = Child {
            len: kept.len(),
            values,
            validity: Some(validity),
        };
        Ok(DeviceColumn::listed(dtype, offsets, child, Some(valid)))
    }
}

/// Polars' `list.sum` (or, `mean`, `list.mean`) of the lists `offsets`
/// delimit in `values` (with `validity`), in Polars' order by the path
/// given ([`Ops::list_float_sums`]): the results (as `held` holds them) and
/// their validity.
fn float_sums<T: gpu_runtime::ops::ListSummed>(
    ops: &Ops<'_>,
    (offsets, validity): (&DeviceBuffer<i64>, Option<&DeviceBuffer<u32>>),
    values: &DeviceBuffer<T>,
    mean: (bool, ListSumPath),
    held: fn(DeviceBuffer<T::Out>) -> Values,
) -> Result<(Values, DeviceBuffer<u32>), ExecError> {
    let (sums, valid) = ops.list_float_sums(offsets, (values, validity), mean)?;
    Ok((held(sums), valid))
}
