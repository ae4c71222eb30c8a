//! The join operator: inner, left, right, full, semi, anti and cross joins, their keys and validation.

use super::*;

/// How [`Executor::concatenated`] joins its inputs' texts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Joining<'a> {
    /// Polars' `concat_str`.
    Concat {
        separator: &'a str,
        ignore_nulls: bool,
    },
    /// The first that is not null (`coalesce`, `fill_null`).
    Coalesce,
}

/// Which of a join's keys the hash table is built on: the first hashable
/// one, else the first text key (as dense integer codes), else the first
/// float or boolean key (as integer keys, see `Executor::hashable_key`).
pub(crate) fn join_key(keys: &[GpuExpr]) -> Option<usize> {
    let dtypes: Vec<GpuDtype> = keys.iter().map(|key| key.dtype).collect();
    ir_lower::support::join_key(&dtypes)
}

/// A join's keys: the frames that hold them (the inputs themselves where
/// every key is a column, else the keys computed into frames of their own),
/// the pairs of their key columns, and the keys as columns of those frames.
pub(crate) struct JoinKeys<'a> {
    pub(crate) left: &'a DeviceFrame,
    pub(crate) right: &'a DeviceFrame,
    pub(crate) pairs: Vec<(usize, usize)>,
    pub(crate) left_on: &'a [GpuExpr],
    pub(crate) right_on: &'a [GpuExpr],
}

impl<'a> JoinKeys<'a> {
    /// Keys that are all columns of the inputs.
    pub(crate) fn columns(
        left: &'a DeviceFrame,
        right: &'a DeviceFrame,
        left_on: &'a [GpuExpr],
        right_on: &'a [GpuExpr],
    ) -> Result<Self, ExecError> {
        let pairs = left_on
            .iter()
            .zip(right_on)
            .map(|(l, r)| Ok((column_index(l)?, column_index(r)?)))
            .collect::<Result<_, ExecError>>()?;
        Ok(JoinKeys {
            left,
            right,
            pairs,
            left_on,
            right_on,
        })
    }
}

/// `keys` as the columns of a frame of them, in order.
pub(crate) fn column_refs(keys: &[GpuExpr]) -> Vec<GpuExpr> {
    keys.iter()
        .enumerate()
        .map(|(index, key)| column_ref(index, key.dtype))
        .collect()
}

/// The input column a coalesced join key is: a column, or a cast of one
/// (Polars casts keys of different types to a common one, and names the
/// key after the column).
pub(crate) fn key_column(key: &GpuExpr) -> Result<usize, ExecError> {
    match &key.kind {
        ExprKind::Cast { input, .. } => column_index(input),
        _ => column_index(key),
    }
}

impl Executor<'_> {
    /// A join (`node`) of its two inputs.
    pub(crate) fn join(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        let PlanNode::Join {
            left,
            right,
            left_on,
            right_on,
            kind,
            coalesce,
            nulls_equal,
            predicate,
            slice,
            unique,
            schema,
            order,
            ..
        } = node
        else {
            return Err(ExecError::Unsupported(format!(
                "`{}` is not a join",
                node.header()
            )));
        };
        // The two sides on two streams, the left one kept in the spill
        // manager while the right one runs.
        let left_frame = self.keep(self.run(left)?);
        let right_frame = self.run_beside(right)?;
        let left_frame = self.take_kept(left_frame)?;
        // Small integers hashed and compared as i64, booleans as u32, f32
        // as f64.
        let (left_on, right_on) = (&widened_join_keys(left_on), &widened_join_keys(right_on));
        // Keys that are expressions are computed into frames of their own.
        let computed;
        let keys = if left_on.iter().chain(right_on).all(is_column) {
            JoinKeys::columns(&left_frame, &right_frame, left_on, right_on)?
        } else {
            computed = (
                self.computed_frame(&left_frame, left_on)?,
                self.computed_frame(&right_frame, right_on)?,
                column_refs(left_on),
                column_refs(right_on),
            );
            JoinKeys {
                left: &computed.0,
                right: &computed.1,
                pairs: (0..left_on.len()).map(|i| (i, i)).collect(),
                left_on: &computed.2,
                right_on: &computed.3,
            }
        };
        self.validate_join(&keys, *unique)?;
        // The input columns the keys are, for coalescing.
        let key_columns = if *coalesce {
            left_on
                .iter()
                .zip(right_on)
                .map(|(l, r)| Ok((key_column(l)?, key_column(r)?)))
                .collect::<Result<Vec<_>, ExecError>>()?
        } else {
            Vec::new()
        };
        if matches!(kind, JoinKind::Right | JoinKind::Full) {
            let mut out = self.outer_join(
                (&left_frame, &right_frame),
                &keys,
                &key_columns,
                *kind == JoinKind::Full,
                *nulls_equal,
                matches!(order, JoinOrder::Left | JoinOrder::LeftRight),
            )?;
            for (column, output) in out.columns.iter_mut().zip(schema) {
                column.name = output.name.as_str().into();
            }
            return match slice {
                Some(slice) => self.slice_frame(&out, *slice),
                None => Ok(out),
            };
        }
        let indices = if *kind == JoinKind::Cross {
            if matches!(order, JoinOrder::Right | JoinOrder::RightLeft) {
                // Each right row with every left row, the right rows in order.
                let swapped = self
                    .ops()
                    .cross_join(right_frame.height, left_frame.height)?;
                let right = swapped.right.ok_or_else(|| {
                    ExecError::Unsupported("a cross join gave no right rows".into())
                })?;
                JoinIndices {
                    left: right,
                    right: Some(swapped.left),
                }
            } else {
                self.ops()
                    .cross_join(left_frame.height, right_frame.height)?
            }
        } else {
            self.key_join(
                keys.left,
                keys.right,
                &keys.pairs,
                keys.left_on,
                *kind,
                *nulls_equal,
            )?
        };
        // In the right rows' order (each right row's left rows in order,
        // a left join's unmatched rows last, in order), as Polars sorts
        // the pairs stably by right row.
        let by_right = matches!(order, JoinOrder::Right | JoinOrder::RightLeft)
            && matches!(kind, JoinKind::Inner | JoinKind::Left);
        let indices = if by_right {
            self.pairs_sorted_by(indices, true)?
        } else {
            indices
        };
        let mut out = self.gather_frame(&left_frame, &indices.left)?;
        if let Some(right_rows) = &indices.right {
            for (i, column) in right_frame.columns.iter().enumerate() {
                if !key_columns.iter().any(|&(_, r)| r == i) {
                    out.columns.push(self.gather_column(column, right_rows)?);
                }
            }
        }
        for (column, output) in out.columns.iter_mut().zip(schema) {
            column.name = output.name.as_str().into();
        }
        if let Some(predicate) = predicate {
            // A cross join fused with a filter of the joined rows.
            out = self.filter(&out, predicate)?;
        }
        match slice {
            Some(slice) => self.slice_frame(&out, *slice),
            None => Ok(out),
        }
    }

    pub(crate) fn join_indices(
        &self,
        left: &DeviceColumn,
        right: &DeviceColumn,
        kind: DeviceJoin,
    ) -> Result<JoinIndices, ExecError> {
        let ops = self.ops();
        let (lv, rv) = (left.validity(), right.validity());
        Ok(match (left.values(), right.values()) {
            (Values::I32(l), Values::I32(r)) => ops.hash_join((l, lv), (r, rv), kind)?,
            (Values::I64(l), Values::I64(r)) => ops.hash_join((l, lv), (r, rv), kind)?,
            (Values::U32(l), Values::U32(r)) => ops.hash_join((l, lv), (r, rv), kind)?,
            (Values::U64(l), Values::U64(r)) => ops.hash_join((l, lv), (r, rv), kind)?,
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "joining {} with {}",
                    left.dtype, right.dtype
                )));
            }
        })
    }

    /// Every one of `height` rows as a single group, as `aggregate` takes
    /// groups: the rows in order, and the group's start.
    /// Polars' join validation: the keys of the sides in `unique` (left,
    /// right) must be unique. A side with a duplicate key, or with a null
    /// key (Polars' rules for nulls differ by join), is invalid data: the
    /// collect falls back and Polars' engine validates, raising its error
    /// or joining.
    pub(crate) fn validate_join(
        &self,
        keys: &JoinKeys<'_>,
        unique: (bool, bool),
    ) -> Result<(), ExecError> {
        let sides = [
            (unique.0, keys.left, keys.left_on, "1:m"),
            (unique.1, keys.right, keys.right_on, "m:1"),
        ];
        for (check, frame, on, validation) in sides {
            if !check {
                continue;
            }
            let invalid = || {
                let both = if unique == (true, true) {
                    "1:1"
                } else {
                    validation
                };
                ExecError::InvalidData(format!("join keys did not fulfill {both} validation"))
            };
            let ops = self.ops();
            for key in on {
                let column = column_at(frame, column_index(key)?)?;
                if let Some(validity) = column.validity() {
                    let valid = ops.count_set(validity, frame.height)?;
                    if valid.to_host()?.first() != Some(&(frame.height as u64)) {
                        return Err(invalid());
                    }
                }
            }
            if frame.height < 2 {
                continue;
            }
            let groups = self.groups(frame, &on.iter().collect::<Vec<_>>())?;
            if groups.starts.len() != frame.height {
                return Err(invalid());
            }
        }
        Ok(())
    }

    /// The rows of a join on key columns (`key_pairs`: left and right
    /// column numbers) of `kind`.
    pub(crate) fn key_join(
        &self,
        left_frame: &DeviceFrame,
        right_frame: &DeviceFrame,
        key_pairs: &[(usize, usize)],
        left_on: &[GpuExpr],
        kind: JoinKind,
        nulls_equal: bool,
    ) -> Result<JoinIndices, ExecError> {
        let nested = left_on
            .iter()
            .any(|key| matches!(key.dtype, GpuDtype::Struct(_) | GpuDtype::List(_)));
        if (nulls_equal && key_pairs.len() > 1) || nested {
            // Every key as codes, in which null is one more value where
            // nulls are equal: then a plain join on the codes matches them.
            // (Of structs and lists too, nulls equal or not: equal codes
            // where every field or value is; a null struct's or list's code
            // null unless nulls are equal.)
            let (mut left_codes, mut right_codes) = (Vec::new(), Vec::new());
            for &(l, r) in key_pairs {
                let (left, right) = (column_at(left_frame, l)?, column_at(right_frame, r)?);
                let (a, b) = self.key_codes(left, right, nulls_equal)?;
                left_codes.push(a);
                right_codes.push(b);
            }
            let on: Vec<GpuExpr> = (0..key_pairs.len())
                .map(|index| column_ref(index, GpuDtype::Int64))
                .collect();
            let pairs: Vec<(usize, usize)> = (0..key_pairs.len()).map(|i| (i, i)).collect();
            let frame = |columns, height| DeviceFrame { columns, height };
            return self.key_join(
                &frame(left_codes, left_frame.height),
                &frame(right_codes, right_frame.height),
                &pairs,
                &on,
                kind,
                false,
            );
        }
        let hashed = join_key(left_on).ok_or_else(|| {
            ExecError::Unsupported(not_yet(
                "a join without an integer, temporal, text, float or boolean key",
            ))
        })?;
        let (left_key, right_key) = key_pairs[hashed];
        let kind = match kind {
            JoinKind::Inner => DeviceJoin::Inner,
            JoinKind::Left => DeviceJoin::Left,
            JoinKind::Semi => DeviceJoin::Semi,
            JoinKind::Anti => DeviceJoin::Anti,
            other => {
                return Err(ExecError::Unsupported(not_yet(format_args!(
                    "a {other:?} join"
                ))));
            }
        };
        let (left_column, right_column) = (
            column_at(left_frame, left_key)?,
            column_at(right_frame, right_key)?,
        );
        let codes;
        let (left_column, right_column) = if nulls_equal || left_column.dtype == GpuDtype::String {
            codes = self.key_codes(left_column, right_column, nulls_equal)?;
            (&codes.0, &codes.1)
        } else if hashable(left_column.dtype) {
            (left_column, right_column)
        } else {
            codes = (
                self.hashable_key(left_frame, left_key)?,
                self.hashable_key(right_frame, right_key)?,
            );
            (&codes.0, &codes.1)
        };
        if key_pairs.len() == 1 {
            return self.join_indices(left_column, right_column, kind);
        }
        // Several keys: the pairs equal on the hashed key, kept where the
        // others are equal too; the other kinds follow from those matches.
        let candidates = self.join_indices(left_column, right_column, DeviceJoin::Inner)?;
        let matched = self.refine_pairs(left_frame, right_frame, key_pairs, hashed, candidates)?;
        if kind == DeviceJoin::Inner {
            return Ok(matched);
        }
        self.complete_join(left_frame.height, right_frame.height, matched, kind)
    }

    /// A left, semi or anti join from the matched pairs of an inner join
    /// (in (left row, right row) order) of `n_left` rows with `n_right`.
    pub(crate) fn complete_join(
        &self,
        n_left: usize,
        n_right: usize,
        matched: JoinIndices,
        kind: DeviceJoin,
    ) -> Result<JoinIndices, ExecError> {
        let ops = self.ops();
        let rows = ops.iota(n_left, 0)?;
        // The left rows with (semi) or without (anti) a match, in order.
        let rows_by_match = |kind| ops.hash_join((&rows, None), (&matched.left, None), kind);
        if kind != DeviceJoin::Left {
            return Ok(rows_by_match(kind)?);
        }
        let unmatched = rows_by_match(DeviceJoin::Anti)?.left;
        let right_rows = matched
            .right
            .as_ref()
            .ok_or_else(|| ExecError::Unsupported("an inner join gave no right rows".into()))?;
        // Unmatched rows pair with a right row past the end: nulls.
        let nulls = ops.iota(unmatched.len(), n_right as i64)?;
        let both = JoinIndices {
            left: self.concat_indices(&matched.left, &unmatched)?,
            right: Some(self.concat_indices(right_rows, &nulls)?),
        };
        // By left row, stably: each row's matches keep the right order.
        self.pairs_sorted_by(both, false)
    }

    /// The pairs of `indices` sorted stably by left row, or `by_right` row
    /// (a left join's unmatched rows pair with rows past the right's end:
    /// last, in order).
    pub(crate) fn pairs_sorted_by(
        &self,
        indices: JoinIndices,
        by_right: bool,
    ) -> Result<JoinIndices, ExecError> {
        let ops = self.ops();
        let right = indices
            .right
            .ok_or_else(|| ExecError::Unsupported("a join gave no right rows".into()))?;
        let by = if by_right { &right } else { &indices.left };
        let order = ops.widen(&ops.sorted_rows(by, None, false, false)?)?;
        Ok(JoinIndices {
            left: ops.gather(&indices.left, None, &order)?.0,
            right: Some(ops.gather(&right, None, &order)?.0),
        })
    }

    /// `first` then `second`, one index buffer.
    pub(crate) fn concat_indices(
        &self,
        first: &DeviceBuffer<i64>,
        second: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let total = first.len() + second.len();
        let out = DeviceBuffer::zeroed(total, self.ctx.memory.clone(), &self.ctx.stream)?;
        out.copy_from_device(0, first)?;
        out.copy_from_device(first.len(), second)?;
        Ok(out)
    }

    /// A right or full join, as Polars orders and shapes it: the right rows
    /// in order, each with its matching left rows in order (or with nulls),
    /// then, for a full join, the left rows that matched nothing (with
    /// nulls); `by_left` (a join keeping the left's order, then the
    /// right's), the pairs sorted stably by left row, the right rows that
    /// matched nothing last, in order. Columns: the left ones then the right ones; coalescing (of
    /// the input columns `key_columns`, none without it) drops the left keys
    /// of a right join, and puts each key of a full join at its left place,
    /// the left value or else the right one.
    pub(crate) fn outer_join(
        &self,
        (left_frame, right_frame): (&DeviceFrame, &DeviceFrame),
        keys: &JoinKeys<'_>,
        key_columns: &[(usize, usize)],
        full: bool,
        nulls_equal: bool,
        by_left: bool,
    ) -> Result<DeviceFrame, ExecError> {
        let swapped: Vec<(usize, usize)> = keys.pairs.iter().map(|&(l, r)| (r, l)).collect();
        let by_right = self.key_join(
            keys.right,
            keys.left,
            &swapped,
            keys.right_on,
            JoinKind::Left,
            nulls_equal,
        )?;
        let (mut right_rows, mut left_rows) = (
            by_right.left,
            by_right
                .right
                .ok_or_else(|| ExecError::Unsupported("a left join gave no right rows".into()))?,
        );
        if full {
            let unmatched = self
                .key_join(
                    keys.left,
                    keys.right,
                    &keys.pairs,
                    keys.left_on,
                    JoinKind::Anti,
                    nulls_equal,
                )?
                .left;
            let nulls = self
                .ops()
                .iota(unmatched.len(), right_frame.height as i64)?;
            left_rows = self.concat_indices(&left_rows, &unmatched)?;
            right_rows = self.concat_indices(&right_rows, &nulls)?;
        }
        if by_left {
            // A right row that matched nothing has a left row past the
            // end: last, in the order of the right rows.
            let pairs = JoinIndices {
                left: left_rows,
                right: Some(right_rows),
            };
            let sorted = self.pairs_sorted_by(pairs, false)?;
            left_rows = sorted.left;
            right_rows = sorted
                .right
                .ok_or_else(|| ExecError::Unsupported("sorted pairs gave no right rows".into()))?;
        }
        let left_out = self.gather_frame(left_frame, &left_rows)?;
        let right_out = self.gather_frame(right_frame, &right_rows)?;
        let height = left_rows.len();
        let mut right_columns: Vec<Option<DeviceColumn>> =
            right_out.columns.into_iter().map(Some).collect();
        let mut columns = Vec::new();
        for (i, column) in left_out.columns.into_iter().enumerate() {
            match key_columns.iter().find(|&&(l, _)| l == i) {
                Some(_) if !full => {}
                Some(&(_, r)) => {
                    let other = right_columns[r].take().ok_or_else(|| {
                        ExecError::Unsupported("a right key column used twice".into())
                    })?;
                    columns.push(self.coalesce_columns(column, other, height)?);
                }
                None => columns.push(column),
            }
        }
        columns.extend(right_columns.into_iter().flatten());
        Ok(DeviceFrame { columns, height })
    }

    /// `first`'s values, or `second`'s where `first` is null (one launch).
    pub(crate) fn coalesce_columns(
        &self,
        first: DeviceColumn,
        second: DeviceColumn,
        height: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let dtype = first.dtype;
        if let (
            Values::Str { offsets, bytes },
            Values::Str {
                offsets: o2,
                bytes: b2,
            },
        ) = (first.values(), second.values())
        {
            let part = |offsets, bytes, validity| ConcatPart {
                offsets,
                bytes,
                validity,
                mask: None,
                repeated: false,
            };
            let parts = [
                part(offsets, bytes, first.validity()),
                part(o2, b2, second.validity()),
            ];
            let strings = self.ops().string_coalesce(&parts, height)?;
            return Ok(strings_column(&first.name, strings));
        }
        if let GpuDtype::Struct(_) | GpuDtype::List(_) = dtype {
            return self.coalesce_structs(first, second, height);
        }
        let column = |index| Box::new(column_ref(index, dtype));
        let expr = GpuExpr {
            kind: ExprKind::FillNull {
                input: column(0),
                value: column(1),
            },
            dtype,
        };
        let frame = DeviceFrame {
            columns: vec![first, second],
            height,
        };
        self.evaluate(&frame, &expr, "")
    }

    /// [`Executor::coalesce_columns`] of structs (or lists): both stacked,
    /// each row gathered from `first` where its struct is valid, else from
    /// `second`.
    fn coalesce_structs(
        &self,
        first: DeviceColumn,
        second: DeviceColumn,
        height: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let (dtype, int64, boolean) = (first.dtype, GpuDtype::Int64, GpuDtype::Boolean);
        let valid = match first.validity() {
            None => return Ok(first),
            Some(valid) => self.copied_bits(valid, height)?,
        };
        let rows = DeviceFrame {
            columns: vec![
                DeviceColumn::from_parts("".into(), boolean, height, Values::Bits(valid), None),
                DeviceColumn::from_parts(
                    "".into(),
                    int64,
                    height,
                    Values::I64(self.ops().iota(height, 0)?),
                    None,
                ),
            ],
            height,
        };
        let row = column_ref(1, int64);
        let second_row = row.clone().binary(
            BinaryOp::Plus,
            GpuExpr::literal(Scalar::Int(height as i64), int64),
            int64,
        );
        let source = column_ref(0, boolean).then(row, second_row, int64);
        let sources = self.evaluate_i64(&rows, &source)?;
        let stacked = self.concat_column(&[&first, &second], &first.name, dtype, 2 * height)?;
        self.gather_column(&stacked, &sources)
    }

    /// Keeps the pairs of an inner join on `key_pairs[hashed]` whose other
    /// keys are equal too (a null key matches nothing), in the same order.
    pub(crate) fn refine_pairs(
        &self,
        left: &DeviceFrame,
        right: &DeviceFrame,
        key_pairs: &[(usize, usize)],
        hashed: usize,
        pairs: JoinIndices,
    ) -> Result<JoinIndices, ExecError> {
        let ops = self.ops();
        let right_rows = pairs
            .right
            .as_ref()
            .ok_or_else(|| ExecError::Unsupported("an inner join gave no right rows".into()))?;
        let n = pairs.left.len();
        let mut equal: Option<(DeviceBuffer<u32>, DeviceBuffer<u32>)> = None;
        for (i, &(l, r)) in key_pairs.iter().enumerate() {
            if i == hashed {
                continue;
            }
            let a = self.gather_column(column_at(left, l)?, &pairs.left)?;
            let b = self.gather_column(column_at(right, r)?, right_rows)?;
            let this = self.compare_columns(&a, &b, n, Comparison::Eq)?;
            equal = Some(match equal {
                None => this,
                Some((bits, valid)) => ops.kleene(
                    (&bits, Some(&valid)),
                    (&this.0, Some(&this.1)),
                    n,
                    Logic::And,
                )?,
            });
        }
        let Some((bits, valid)) = equal else {
            return Ok(pairs);
        };
        let keep = ops.filter_indices(&bits, Some(&valid), n)?;
        Ok(JoinIndices {
            left: ops.gather(&pairs.left, None, &keep)?.0,
            right: Some(ops.gather(right_rows, None, &keep)?.0),
        })
    }
}
