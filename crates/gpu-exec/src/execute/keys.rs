//! Keys as the words the sort and hash kernels compare: columns, widened integers, floats, texts.

use super::*;

/// The 64-bit type scans take values of `dtype` as: floats as f64,
/// unsigned integers and booleans as u64, the others as i64.
pub(crate) fn word_dtype(dtype: GpuDtype) -> GpuDtype {
    if dtype.is_float() {
        GpuDtype::Float64
    } else if dtype.is_unsigned() || dtype == GpuDtype::Boolean {
        GpuDtype::UInt64
    } else {
        GpuDtype::Int64
    }
}

/// `expr` as a key the sorts and groups take: small integers widened to
/// i64 (which keeps their order and equality; the type is ir-lower's
/// `widened_key_type`).
pub(crate) fn widened_key(expr: &GpuExpr) -> GpuExpr {
    widened_to(expr, ir_lower::support::widened_key_type(expr.dtype))
}

/// `expr` as a join key: as [`widened_key`] makes it, booleans as u32 and
/// f32 as f64 (the type is ir-lower's `widened_join_key_type`).
pub(crate) fn widened_join_key(expr: &GpuExpr) -> GpuExpr {
    widened_to(expr, ir_lower::support::widened_join_key_type(expr.dtype))
}

/// `expr` cast to `wide`, where that is another type.
fn widened_to(expr: &GpuExpr, wide: GpuDtype) -> GpuExpr {
    if wide == expr.dtype {
        expr.clone()
    } else {
        cast_to(expr, wide)
    }
}

/// Each join key as [`widened_join_key`] makes it.
pub(crate) fn widened_join_keys(keys: &[GpuExpr]) -> Vec<GpuExpr> {
    keys.iter().map(widened_join_key).collect()
}

/// A sort or group key as the radix sort takes it.
pub(crate) enum KeyWords<'a> {
    /// A numeric or temporal column, sorted as it is.
    Column(&'a DeviceColumn),
    /// u64 words the radix sort orders as they are, most significant first,
    /// and the column's validity: a string column's key words
    /// (`Ops::string_sort_keys`), or a grouped float column's total-order
    /// keys (equal exactly when Polars groups the floats together).
    Words(Vec<DeviceBuffer<u64>>, Option<&'a DeviceBuffer<u32>>),
}

/// The fields of `expr`, structs of `of`, each read by `struct.field`.
pub(crate) fn struct_fields(expr: &GpuExpr, of: ir_lower::StructOf) -> Vec<GpuExpr> {
    (of.fields().into_iter().enumerate())
        .map(|(field, (name, dtype))| GpuExpr {
            kind: ExprKind::StructField {
                field,
                name,
                input: Box::new(expr.clone()),
            },
            dtype,
        })
        .collect()
}

impl Executor<'_> {
    /// The keys (columns of `frame`) as the radix sort and the marking of
    /// groups take them.
    pub(crate) fn sort_words<'f>(
        &self,
        frame: &'f DeviceFrame,
        keys: &[(&GpuExpr, bool, bool)],
    ) -> Result<Vec<KeyWords<'f>>, ExecError> {
        keys.iter()
            .map(|&(key, _, _)| {
                if let Some(words) = self.widened_words(frame, key)? {
                    return Ok(words);
                }
                let column = column_at(frame, column_index(key)?)?;
                if let Values::F32(_) = column.values() {
                    // Widened exactly, then grouped as f64 is.
                    let (keys, _) = self.float_keys(frame, key)?;
                    return Ok(KeyWords::Words(vec![keys], column.validity()));
                }
                self.group_key_words(column, key)
            })
            .collect()
    }

    /// `expr` (a column of `frame`) as the radix sort takes it: the column,
    /// or for strings their key words. `what` names the use in errors.
    pub(crate) fn key_words<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
        what: &str,
    ) -> Result<KeyWords<'f>, ExecError> {
        if let Some(words) = self.widened_words(frame, expr)? {
            return Ok(words);
        }
        self.column_key_words(column_at(frame, column_index(expr)?)?, expr, what)
    }

    /// A key column (`expr`, a column of `frame`) of a categorical (not an
    /// enum) as the rank of each code's text among the dictionary's, one
    /// u64 word per row: Polars orders categoricals by their texts (byte
    /// by byte), and distinct texts have distinct codes, so the ranks
    /// group as the codes do. `None` for other keys.
    pub(crate) fn text_rank_words<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<Option<KeyWords<'f>>, ExecError> {
        let GpuDtype::Categorical(dictionary) = expr.dtype else {
            return Ok(None);
        };
        if dictionary.is_enum() {
            return Ok(None);
        }
        let column = column_at(frame, column_index(expr)?)?;
        let Values::U32(codes) = column.values() else {
            return Err(ExecError::Unsupported(format!("the codes of `{expr}`")));
        };
        // The ranks of the dictionary's texts (codes naming none first).
        let texts = dictionary.texts("");
        let texts = texts.str()?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by(|&a, &b| texts.get(a).cmp(&texts.get(b)));
        let mut ranks = vec![0u64; texts.len()];
        for (rank, &code) in order.iter().enumerate() {
            ranks[code] = rank as u64;
        }
        let ranks = DeviceBuffer::from_host(&ranks, self.ctx.memory.clone(), &self.ctx.stream)?;
        let ops = self.ops();
        let (words, _) = ops.gather(&ranks, None, &ops.widen(codes)?)?;
        Ok(Some(KeyWords::Words(vec![words], column.validity())))
    }

    /// A key column (`expr`, a column of `frame`) of booleans, small
    /// integers or categoricals as one u64 word per row, in the same order
    /// and equal where the values are (booleans 0 or 1; signed integers
    /// with the sign bit flipped; categoricals by [`Executor::text_rank_words`]),
    /// with the column's validity; `None` for other keys.
    pub(crate) fn widened_words<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<Option<KeyWords<'f>>, ExecError> {
        if let Some(words) = self.text_rank_words(frame, expr)? {
            return Ok(Some(words));
        }
        let column = column_at(frame, column_index(expr)?)?;
        let nested = match expr.dtype {
            // A struct of keys: a code per row, equal where every field is
            // (see `struct_codes`); null where the struct is, a group apart
            // from a struct of null fields, as Polars' row encoding has it.
            GpuDtype::Struct(of) => {
                Some(self.struct_codes(frame, &struct_fields(expr, of), None)?)
            }
            // Lists of keys: a code per list, equal where the lists are
            // value by value (see `list_codes`); null where the list is.
            GpuDtype::List(_) => Some(self.list_codes(column)?),
            _ => None,
        };
        if let Some(codes) = nested {
            let codes = DeviceFrame {
                height: codes.len(),
                columns: vec![codes],
            };
            let words = column_ref(0, GpuDtype::Int64).cast(GpuDtype::UInt64, CastMode::Wrapping);
            let Values::U64(words) = self.evaluate(&codes, &words, "")?.into_parts().0 else {
                return Err(ExecError::Unsupported(format!("the codes of `{expr}`")));
            };
            return Ok(Some(KeyWords::Words(vec![words], column.validity())));
        }
        let words = match column.values() {
            Values::Bits(_) | Values::U8(_) | Values::U16(_) => cast_to(expr, GpuDtype::UInt64),
            Values::I8(_) | Values::I16(_) => {
                let wide = GpuDtype::Int64;
                let flipped = cast_to(expr, wide).binary(
                    BinaryOp::Minus,
                    GpuExpr::literal(Scalar::Int(i64::MIN), wide),
                    wide,
                );
                flipped.cast(GpuDtype::UInt64, CastMode::Wrapping)
            }
            _ => return Ok(None),
        };
        let (values, _) = self.evaluate(frame, &words, "")?.into_parts();
        let Values::U64(words) = values else {
            return Err(ExecError::Unsupported(format!(
                "a key `{expr}` widened to other values"
            )));
        };
        Ok(Some(KeyWords::Words(vec![words], column.validity())))
    }

    /// A group key (`column`, the values of `expr`) as the radix sort takes
    /// it, equal exactly where Polars groups values together: floats by
    /// their total-order keys.
    pub(crate) fn group_key_words<'c>(
        &self,
        column: &'c DeviceColumn,
        expr: &GpuExpr,
    ) -> Result<KeyWords<'c>, ExecError> {
        Ok(match self.column_key_words(column, expr, "grouping by")? {
            KeyWords::Column(column) => match column.values() {
                // Sorted and compared by one set of total-order keys.
                Values::F64(v) => {
                    KeyWords::Words(vec![self.ops().total_order_keys(v)?], column.validity())
                }
                _ => KeyWords::Column(column),
            },
            words => words,
        })
    }

    pub(crate) fn column_key_words<'c>(
        &self,
        column: &'c DeviceColumn,
        expr: &GpuExpr,
        what: &str,
    ) -> Result<KeyWords<'c>, ExecError> {
        let validity = column.validity();
        match column.values() {
            Values::I32(_)
            | Values::I64(_)
            | Values::U32(_)
            | Values::U64(_)
            | Values::F32(_)
            | Values::F64(_) => Ok(KeyWords::Column(column)),
            Values::Str { offsets, bytes } => Ok(KeyWords::Words(
                self.ops().string_sort_keys(offsets, bytes, validity)?,
                validity,
            )),
            _ => Err(ExecError::Unsupported(not_yet(format_args!(
                "{what} `{expr}`"
            )))),
        }
    }

    /// One key of a stable multi-key sort (see `Ops::sort_by`), from
    /// `permutation`, or from the rows in order where that is `None` (the
    /// first key sorted: `Ops::sorted_rows` reads the key as it is).
    pub(crate) fn sort_by_key(
        &self,
        permutation: Option<DeviceBuffer<u32>>,
        key: &KeyWords<'_>,
        descending: bool,
        nulls_last: bool,
    ) -> Result<DeviceBuffer<u32>, ExecError> {
        let column = match key {
            KeyWords::Column(column) => column,
            KeyWords::Words(words, validity) => {
                // Least significant word first; nulls placed by the last pass.
                let mut permutation = permutation;
                for (i, word) in words.iter().enumerate().rev() {
                    let validity = if i == 0 { *validity } else { None };
                    permutation = Some(self.ops().sort_rows(
                        permutation,
                        word,
                        validity,
                        descending,
                        nulls_last,
                    )?);
                }
                return permutation
                    .ok_or_else(|| ExecError::Unsupported("a text sort key of no words".into()));
            }
        };
        let validity = column.validity();
        macro_rules! by {
            ($values:expr) => {
                self.ops()
                    .sort_rows(permutation, $values, validity, descending, nulls_last)?
            };
        }
        Ok(match column.values() {
            Values::I32(v) => by!(v),
            Values::I64(v) => by!(v),
            Values::U32(v) => by!(v),
            Values::U64(v) => by!(v),
            Values::F32(v) => by!(v),
            Values::F64(v) => by!(v),
            _ => return Err(ExecError::Unsupported(not_yet("this sort key"))),
        })
    }

    /// Sets `flags` where `key`, read in `sorted_rows` order, changes.
    pub(crate) fn mark_key_changes(
        &self,
        key: &KeyWords<'_>,
        sorted_rows: &DeviceBuffer<i64>,
        flags: &DeviceBuffer<u8>,
    ) -> Result<(), ExecError> {
        let ops = self.ops();
        macro_rules! mark {
            ($values:expr, $validity:expr) => {{
                let (sorted, valid) = ops.gather($values, $validity, sorted_rows)?;
                ops.mark_group_starts(&sorted, Some(&valid), flags)?
            }};
        }
        match key {
            KeyWords::Words(words, validity) => {
                for word in words {
                    mark!(word, *validity);
                }
            }
            KeyWords::Column(column) => match column.values() {
                Values::I32(v) => mark!(v, column.validity()),
                Values::I64(v) => mark!(v, column.validity()),
                Values::U32(v) => mark!(v, column.validity()),
                Values::U64(v) => mark!(v, column.validity()),
                _ => return Err(ExecError::Unsupported(not_yet("this group key"))),
            },
        }
        Ok(())
    }

    /// Column `index` of `frame`, a float or boolean join key, as keys the
    /// hash table takes, equal exactly where Polars' join counts the values
    /// equal: booleans as integers, floats (f32 widened exactly) as their
    /// total-order keys (every NaN one value, -0.0 equal to 0.0). Nulls stay
    /// null, so they match nothing.
    pub(crate) fn hashable_key(
        &self,
        frame: &DeviceFrame,
        index: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let source = column_at(frame, index)?;
        let key = GpuExpr::column(index, source.name.to_string(), source.dtype);
        if source.dtype == GpuDtype::Boolean {
            return self.evaluate(frame, &cast_to(&key, GpuDtype::Int64), "");
        }
        let (keys, validity) = self.float_keys(frame, &key)?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::UInt64,
            frame.height,
            Values::U64(keys),
            validity,
        ))
    }

    /// `expr`, floats of `frame` (f32 widened exactly), as their total-order
    /// keys (equal exactly where Polars counts the floats equal: every NaN
    /// one value, -0.0 equal to 0.0), with their validity.
    pub(crate) fn float_keys(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<(DeviceBuffer<u64>, Option<DeviceBuffer<u32>>), ExecError> {
        let floats = self.evaluate(frame, &cast_to(expr, GpuDtype::Float64), "")?;
        let (values, validity) = floats.into_parts();
        let Values::F64(values) = values else {
            return Err(ExecError::Unsupported(format!(
                "float keys `{expr}` evaluated to other values"
            )));
        };
        Ok((self.ops().total_order_keys(&values)?, validity))
    }

    /// Dense i64 codes of two key columns of one type, equal exactly where
    /// the keys are (as grouping counts them equal): both columns are put
    /// one after the other, grouped, and each row gets its group's number.
    /// A null key stays null, so it matches nothing, unless `nulls_equal`
    /// (nulls are then one group, matching each other).
    pub(crate) fn key_codes(
        &self,
        left: &DeviceColumn,
        right: &DeviceColumn,
        nulls_equal: bool,
    ) -> Result<(DeviceColumn, DeviceColumn), ExecError> {
        self.row_codes(&[(left, right)], nulls_equal)
    }

    /// [`Executor::key_codes`] of rows of several key columns (`pairs`, a
    /// left and a right column of one type each): equal where every key
    /// is; null where any key is, unless `nulls_equal`.
    pub(crate) fn row_codes(
        &self,
        pairs: &[(&DeviceColumn, &DeviceColumn)],
        nulls_equal: bool,
    ) -> Result<(DeviceColumn, DeviceColumn), ExecError> {
        let ops = self.ops();
        let Some((first_left, first_right)) = pairs.first() else {
            return Err(ExecError::Unsupported("codes of no key".into()));
        };
        let (n_left, n) = (first_left.len(), first_left.len() + first_right.len());
        let columns = pairs
            .iter()
            .map(|(left, right)| self.concat_column(&[left, right], "", left.dtype, n))
            .collect::<Result<Vec<_>, _>>()?;
        let keys: Vec<GpuExpr> = (columns.iter().enumerate())
            .map(|(i, column)| column_ref(i, column.dtype))
            .collect();
        let frame = DeviceFrame { columns, height: n };
        let keys: Vec<&GpuExpr> = keys.iter().collect();
        let Groups {
            sorted_rows,
            starts,
            ..
        } = self.groups(&frame, &keys)?;
        let group_of_position = ops.widen(&ops.segment_ids(&starts, n)?)?;
        let codes = DeviceBuffer::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
        let scratch =
            DeviceBuffer::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        ops.scatter(&group_of_position, None, &sorted_rows, &codes, &scratch)?;
        // The keys' validity, so that null keys match nothing (of rows of
        // several, valid where every key is).
        let every_valid;
        let validity = match (nulls_equal, &frame.columns[..]) {
            (true, _) => None,
            (false, [only]) => only.validity(),
            (false, _) => {
                let valid = (keys.iter())
                    .map(|key| (*key).clone().is_not_null())
                    .reduce(|a, b| a.binary(BinaryOp::And, b, GpuDtype::Boolean));
                let valid = valid.ok_or_else(|| ExecError::Unsupported("no key".into()))?;
                let Values::Bits(bits) = self.evaluate(&frame, &valid, "")?.into_parts().0 else {
                    return Err(ExecError::Unsupported("the validity of keys".into()));
                };
                every_valid = bits;
                Some(&every_valid)
            }
        };
        let part = |start: usize, len: usize| -> Result<DeviceColumn, ExecError> {
            let rows = ops.iota(len, start as i64)?;
            let (values, valid) = ops.gather(&codes, validity, &rows)?;
            Ok(DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                len,
                Values::I64(values),
                Some(valid),
            ))
        };
        Ok((part(0, n_left)?, part(n_left, n - n_left)?))
    }
}
