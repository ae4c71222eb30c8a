//! Groups of rows by keys: rows in group order and group starts, and what operators read of them.

use super::*;

/// Rows grouped by their keys.
pub(crate) struct Groups {
    /// Every row, ordered by the keys (stable: each group in row order).
    pub(crate) sorted_rows: DeviceBuffer<i64>,
    /// Where each group starts in `sorted_rows`.
    pub(crate) starts: DeviceBuffer<i64>,
    /// The first row of each group, in the input's numbering.
    pub(crate) first_rows: DeviceBuffer<i64>,
}

impl Executor<'_> {
    /// Where each group of `n` sorted positions begins, then `n`: group g
    /// spans `bounds[g]..bounds[g + 1]`.
    pub(crate) fn group_bounds(
        &self,
        starts: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let count = starts.len();
        // Past the last start the gather gives null: n.
        let (bounds, valid) = ops.gather(starts, None, &ops.iota(count + 1, 0)?)?;
        let bounds = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                count + 1,
                Values::I64(bounds),
                Some(valid),
            )],
            height: count + 1,
        };
        let bound_or_n = column_ref(0, GpuDtype::Int64)
            .fill_null(GpuExpr::literal(Scalar::Int(n as i64), GpuDtype::Int64));
        self.evaluate_i64(&bounds, &bound_or_n)
    }

    /// Leaves the query to Polars (`what` says why) where a float key holds
    /// -0.0: Polars groups it with 0.0 or apart, and gives the group's key
    /// as the first row's value or as 0.0, by which path it takes (a
    /// group-by on several keys: by the hash path it takes for the frame's
    /// size, row-encoded keys losing the sign; a window ordered within its
    /// partitions groups them, its aggregations do not).
    pub(crate) fn check_negative_zero_keys(
        &self,
        frame: &DeviceFrame,
        keys: &[GpuExpr],
        what: &str,
    ) -> Result<(), ExecError> {
        let (float, boolean) = (GpuDtype::Float64, GpuDtype::Boolean);
        let value = |v: f64| GpuExpr::literal(Scalar::Float(v), float);
        for key in keys.iter().filter(|key| key.dtype.is_float()) {
            let key = cast_to(key, float);
            let zero = key.clone().binary(BinaryOp::Eq, value(0.0), boolean);
            let negative = value(1.0).binary(BinaryOp::TrueDivide, key, float).binary(
                BinaryOp::Eq,
                value(f64::NEG_INFINITY),
                boolean,
            );
            self.check_any_later(
                frame,
                zero.binary(BinaryOp::And, negative, boolean),
                what.into(),
                ExecError::DependsOnPolars,
            )?;
        }
        Ok(())
    }

    /// The group of each row (by row), from groups given as the rows sorted
    /// by group and the groups' starts.
    pub(crate) fn group_of_rows(
        &self,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let n = rows.len();
        let group_of_position = ops.widen(&ops.segment_ids(starts, n)?)?;
        let group_of_row = DeviceBuffer::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
        let scratch =
            DeviceBuffer::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        ops.scatter(&group_of_position, None, rows, &group_of_row, &scratch)?;
        Ok(group_of_row)
    }

    /// [`Executor::group_of_rows`] as an i64 column, a sort or group key.
    pub(crate) fn group_column(
        &self,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let group_of_row = self.group_of_rows(rows, starts)?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Int64,
            rows.len(),
            Values::I64(group_of_row),
            None,
        ))
    }

    /// `input` computed over `frame`, in a frame of its own, after the
    /// number of each row's group where there are `groups`: the frame and
    /// its key columns (the group first).
    pub(crate) fn keyed_by_group(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<(DeviceFrame, Vec<GpuExpr>), ExecError> {
        let mut keyed = match ir_lower::support::struct_of_keys(input) {
            Some(fields) => DeviceFrame {
                columns: vec![self.struct_codes(frame, fields, groups)?],
                height: frame.height,
            },
            None => self.computed_in_groups(frame, [&widened_key(input)], groups)?,
        };
        if let Some((rows, starts)) = groups {
            keyed.columns.insert(0, self.group_column(rows, starts)?);
        }
        let keys = keyed
            .columns
            .iter()
            .enumerate()
            .map(|(index, column)| column_ref(index, column.dtype))
            .collect();
        Ok((keyed, keys))
    }

    /// A code per row of `frame` for the struct of `fields` (each computed
    /// within `groups`): rows equal in every field, as grouping counts them
    /// equal (nulls alike), share a code, the number of their group.
    pub(crate) fn struct_codes(
        &self,
        frame: &DeviceFrame,
        fields: &[GpuExpr],
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let fields: Vec<GpuExpr> = fields.iter().map(widened_key).collect();
        let computed = self.computed_in_groups(frame, &fields, groups)?;
        let keys: Vec<GpuExpr> = computed
            .columns
            .iter()
            .enumerate()
            .map(|(index, column)| column_ref(index, column.dtype))
            .collect();
        let equal = self.groups(&computed, &keys.iter().collect::<Vec<_>>())?;
        let codes = self.group_of_rows(&equal.sorted_rows, &equal.starts)?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Int64,
            frame.height,
            Values::I64(codes),
            None,
        ))
    }

    /// The values of the lists of `lists` (a list column), a frame of one
    /// column (also the values a slice of lists keeps outside its rows).
    pub(crate) fn list_values(&self, lists: &DeviceColumn) -> Result<DeviceFrame, ExecError> {
        let (Values::List { child, .. }, GpuDtype::List(of)) = (lists.values(), lists.dtype) else {
            return Err(ExecError::Unsupported(format!(
                "the values of a {} column as lists",
                lists.dtype
            )));
        };
        let rows = self.ops().iota(child.len, 0)?;
        let (values, validity) =
            self.gather_values(&child.values, child.validity.as_ref(), child.len, &rows)?;
        let values =
            DeviceColumn::from_parts("".into(), of.values(), child.len, values, Some(validity));
        Ok(DeviceFrame {
            columns: vec![values],
            height: child.len,
        })
    }

    /// A code per list of `lists` (a list column of values the GPU groups
    /// by): lists equal value by value, as Polars' row encoding counts
    /// them equal (nulls alike; floats as grouping counts them), share a
    /// code; the codes' validity is the lists' (a null list's code is an
    /// empty one's). The values' codes (in the values' order, nulls first)
    /// are paired, each pair of neighbours coded again in the order of the
    /// pairs (the last value of an odd list paired with an end before
    /// every value), halving every list, until each is one code. So the
    /// codes also order the lists as Polars' row encoding does: value by
    /// value, a list before the longer ones it begins, an empty list
    /// first.
    pub(crate) fn list_codes(&self, lists: &DeviceColumn) -> Result<DeviceColumn, ExecError> {
        let (Values::List { offsets, .. }, GpuDtype::List(_)) = (lists.values(), lists.dtype)
        else {
            return Err(ExecError::Unsupported(format!(
                "codes of a {} column as lists",
                lists.dtype
            )));
        };
        let ops = self.ops();
        let (n, int64) = (lists.len(), GpuDtype::Int64);
        // Codes of the frame's rows, equal where its columns all are (the
        // columns widened first where the groups take a wider type: the
        // pairs' codes, i64, are grouped as they are).
        let codes_of = |frame: &DeviceFrame| -> Result<DeviceBuffer<i64>, ExecError> {
            let keys: Vec<GpuExpr> = (frame.columns.iter().enumerate())
                .map(|(i, column)| widened_key(&column_ref(i, column.dtype)))
                .collect();
            let widened = (keys.iter().zip(&frame.columns)).any(|(k, c)| k.dtype != c.dtype);
            let computed;
            let (keyed, keys) = match widened {
                true => {
                    computed = self.computed_in_groups(frame, &keys, None)?;
                    let columns = computed.columns.iter().enumerate();
                    let keys: Vec<GpuExpr> = columns
                        .map(|(i, column)| column_ref(i, column.dtype))
                        .collect();
                    (&computed, keys)
                }
                false => (frame, keys),
            };
            let equal = self.groups(keyed, &keys.iter().collect::<Vec<_>>())?;
            self.group_of_rows(&equal.sorted_rows, &equal.starts)
        };
        let mut codes = codes_of(&self.list_values(lists)?)?;
        let [first, end] = self.list_bounds(offsets, n)?;
        let mut bounds = DeviceFrame {
            columns: vec![first, end],
            height: n,
        };
        let (first, end) = (column_ref(0, int64), column_ref(1, int64));
        let length = end.clone().binary(BinaryOp::Minus, first.clone(), int64);
        let lengths = self.evaluate_i64(&bounds, &length)?;
        let longest = ops.reduce_extreme(&lengths, None, true)?.to_host()?;
        let mut longest = longest.first().copied().unwrap_or(0);
        let literal = |value: i64| GpuExpr::literal(Scalar::Int(value), int64);
        while longest > 1 {
            // Each list's pairs: half its length, rounded up.
            let half = length
                .clone()
                .binary(BinaryOp::Plus, literal(1), int64)
                .binary(BinaryOp::FloorDivide, literal(2), int64);
            let counted = self.counted_lists(&bounds, half)?;
            let per_pair = |per_list: GpuExpr| -> Result<DeviceColumn, ExecError> {
                let per_list = self.evaluate_i64(&bounds, &per_list)?;
                Ok(DeviceColumn::of_i64(
                    ops.gather(&per_list, None, &counted.rows)?.0,
                ))
            };
            let pairs = DeviceFrame {
                columns: vec![
                    per_pair(first.clone())?,
                    per_pair(end.clone())?,
                    counted.places,
                ],
                height: counted.rows.len(),
            };
            // The pair's first value's place, and its second's (-1 past
            // the list's end).
            let at = first.clone().binary(
                BinaryOp::Plus,
                column_ref(2, int64).binary(BinaryOp::Multiply, literal(2), int64),
                int64,
            );
            let next = at.clone().binary(BinaryOp::Plus, literal(1), int64);
            let inside = next
                .clone()
                .binary(BinaryOp::Lt, end.clone(), GpuDtype::Boolean);
            let code_at = |place: GpuExpr| -> Result<DeviceColumn, ExecError> {
                let place = self.evaluate_i64(&pairs, &place)?;
                let (code, valid) = ops.gather(&codes, None, &place)?;
                let code = DeviceColumn::from_parts(
                    "".into(),
                    int64,
                    place.len(),
                    Values::I64(code),
                    Some(valid),
                );
                let none = DeviceFrame {
                    columns: vec![code],
                    height: place.len(),
                };
                Ok(DeviceColumn::of_i64(self.evaluate_i64(
                    &none,
                    &column_ref(0, int64).fill_null(literal(-1)),
                )?))
            };
            let pair = DeviceFrame {
                columns: vec![
                    code_at(at)?,
                    code_at(inside.then(next, literal(-1), int64))?,
                ],
                height: pairs.height,
            };
            codes = codes_of(&pair)?;
            let [first, end] = self.list_bounds(&counted.offsets, n)?;
            bounds = DeviceFrame {
                columns: vec![first, end],
                height: n,
            };
            longest = (longest + 1) / 2;
        }
        // Each list's one code (-1, before every other, where it is
        // empty), coded again from 0.
        let single = length
            .clone()
            .binary(BinaryOp::Gt, literal(0), GpuDtype::Boolean)
            .then(first, literal(-1), int64);
        let single = self.evaluate_i64(&bounds, &single)?;
        let (code, valid) = ops.gather(&codes, None, &single)?;
        let code = DeviceColumn::from_parts("".into(), int64, n, Values::I64(code), Some(valid));
        let code = DeviceFrame {
            columns: vec![code],
            height: n,
        };
        let code = self.evaluate_i64(&code, &column_ref(0, int64).fill_null(literal(-1)))?;
        let codes = DeviceFrame {
            columns: vec![DeviceColumn::of_i64(code)],
            height: n,
        };
        let validity = match lists.validity() {
            Some(valid) => Some(self.copied_bits(valid, n)?),
            None => None,
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            int64,
            n,
            Values::I64(codes_of(&codes)?),
            validity,
        ))
    }

    pub(crate) fn one_group(
        &self,
        height: usize,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<i64>), ExecError> {
        let ops = self.ops();
        Ok((ops.iota(height, 0)?, ops.iota(1, 0)?))
    }

    /// `walk` of the rows in group order: those of `groups`, or the `height`
    /// rows of a frame as one group (for the kernels that walk each group).
    pub(crate) fn in_group_order<R>(
        &self,
        height: usize,
        groups: InGroups<'_>,
        walk: impl FnOnce((&DeviceBuffer<i64>, &DeviceBuffer<i64>)) -> Result<R, ExecError>,
    ) -> Result<R, ExecError> {
        match groups {
            Some(groups) => walk(groups),
            None => {
                let (rows, starts) = self.one_group(height)?;
                walk((&rows, &starts))
            }
        }
    }

    /// The groups of equal `keys` (columns of `frame`; nulls equal), by
    /// sorting on the keys and marking where one changes.
    pub(crate) fn groups(
        &self,
        frame: &DeviceFrame,
        keys: &[&GpuExpr],
    ) -> Result<Groups, ExecError> {
        let keys: Vec<(&GpuExpr, bool, bool)> =
            keys.iter().map(|&key| (key, false, false)).collect();
        self.sorted_groups(frame, &keys)
    }

    /// As [`Executor::groups`], with the rows sorted by each key in the
    /// order given with it (descending, nulls last).
    pub(crate) fn sorted_groups(
        &self,
        frame: &DeviceFrame,
        keys: &[(&GpuExpr, bool, bool)],
    ) -> Result<Groups, ExecError> {
        self.sorted_groups_marked(frame, keys, keys.len())
    }

    /// As [`Executor::sorted_groups`], where only the first `marked` keys
    /// make groups: the others order each group's rows.
    pub(crate) fn sorted_groups_marked(
        &self,
        frame: &DeviceFrame,
        keys: &[(&GpuExpr, bool, bool)],
        marked: usize,
    ) -> Result<Groups, ExecError> {
        Ok(self.sorted_groups_checked(frame, keys, marked, false)?.0)
    }

    /// As [`Executor::sorted_groups_marked`]; with `check_ties`, also
    /// whether no two rows are equal on every key (else `true`).
    pub(crate) fn sorted_groups_checked(
        &self,
        frame: &DeviceFrame,
        keys: &[(&GpuExpr, bool, bool)],
        marked: usize,
        check_ties: bool,
    ) -> Result<(Groups, bool), ExecError> {
        let ops = self.ops();
        let n = frame.height;
        let words = self.sort_words(frame, keys)?;
        let mut permutation = None;
        for (key, &(_, descending, nulls_last)) in words.iter().zip(keys).rev() {
            permutation = Some(self.sort_by_key(permutation, key, descending, nulls_last)?);
        }
        let permutation = permutation.map_or_else(|| ops.rows(n), Ok)?;
        let sorted_rows = ops.widen(&permutation)?;
        let flags = ops.group_flags(n)?;
        for key in words.iter().take(marked) {
            self.mark_key_changes(key, &sorted_rows, &flags)?;
        }
        if marked == 0 && n > 0 {
            // One group of every row: its start is the only mark.
            ops.mark_group_starts(&ops.repeat_first(n)?, None, &flags)?;
        }
        let starts = ops.group_starts(&flags, n)?;
        let (first_rows, _) = ops.gather(&sorted_rows, None, &starts)?;
        let mut distinct = true;
        if check_ties {
            let every_key = ops.group_flags(n)?;
            for key in &words {
                self.mark_key_changes(key, &sorted_rows, &every_key)?;
            }
            distinct = ops.group_starts(&every_key, n)?.len() == n;
        }
        let groups = Groups {
            sorted_rows,
            starts,
            first_rows,
        };
        Ok((groups, distinct))
    }
}
