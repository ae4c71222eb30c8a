//! The as-of join operator: each left row with the right row its sorted key matches (Polars' `join_asof`, by groups too).

use gpu_runtime::ops::{
    AsofGroups, AsofMatch, AsofStrategy as DeviceStrategy, AsofTolerance as DeviceTolerance,
};
use ir_lower::{AsofStrategy, AsofTolerance};

use super::*;

impl Executor<'_> {
    /// A `join_asof` (`node`): the left frame, in order, with the right
    /// columns (but those dropped) gathered from the row each left key
    /// matches (see [`gpu_runtime::ops::Ops::asof_search`]), of its group
    /// by groups (rows of the `by` columns' values, as
    /// [`Executor::row_codes`] numbers them; a row with a null among them
    /// matches nothing), nulls where none does. Both keys must be sorted as Polars
    /// reads them: ascending, nulls first where Polars checks
    /// (`check_sortedness`), else the right key's in one run at either end
    /// and the left key's anywhere; by groups, so within each group. Where
    /// they are not the query goes to Polars, which raises its error or
    /// answers from keys as they come.
    pub(crate) fn asof_join(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        let PlanNode::AsofJoin {
            left,
            right,
            left_on,
            right_on,
            keys_written: [left_written, right_written],
            by,
            strategy,
            allow_eq,
            tolerance,
            check_sortedness,
            drop_right,
            slice,
            schema,
        } = node
        else {
            return Err(ExecError::Unsupported(format!(
                "`{}` is not an as-of join",
                node.header()
            )));
        };
        let left_frame = self.keep(self.run(left)?);
        let right_frame = self.run_beside(right)?;
        let left_frame = self.take_kept(left_frame)?;
        // Both keys (columns or expressions of their side's rows) as the
        // search reads them: integers, booleans and temporal values as
        // 64-bit integers, texts as their ranks (below), decimals as their scaled ones (`cast_to` of them to i64
        // is physical; one scale on both sides); floats
        // as they are (their total order, NaN greatest, -0.0 equal to 0.0),
        // checked sorted by their total-order keys, as Polars' scans and its
        // check of their order compare them.
        let float = left_on.dtype.is_float();
        let wide = match float {
            true => GpuDtype::UInt64,
            false => word_dtype(left_on.dtype),
        };
        let keys = |frame: &DeviceFrame, key: &GpuExpr| -> Result<SideKeys, ExecError> {
            Ok(match float {
                true => {
                    let values = self.computed_frame(frame, [key])?;
                    SideKeys {
                        checked: DeviceFrame {
                            columns: vec![self.hashable_key(&values, 0)?],
                            height: frame.height,
                        },
                        floats: Some(values),
                    }
                }
                false => SideKeys {
                    checked: self.computed_frame(frame, [&cast_to(key, wide)])?,
                    floats: None,
                },
            })
        };
        let (left_keys, right_keys) = match left_on.dtype {
            // Texts as their ranks among both sides' texts (one sort of
            // them all, by their bytes, as Polars' scans compare them).
            GpuDtype::String => {
                let (mut left_owned, mut right_owned) = (None, None);
                let texts = (
                    self.column_in_groups(&left_frame, left_on, "", &mut left_owned, None)?,
                    self.column_in_groups(&right_frame, right_on, "", &mut right_owned, None)?,
                );
                let (left_codes, right_codes) = self.row_codes(&[texts], false)?;
                let ranks = |codes: DeviceColumn| SideKeys {
                    checked: DeviceFrame {
                        height: codes.len(),
                        columns: vec![codes],
                    },
                    floats: None,
                };
                (ranks(left_codes), ranks(right_codes))
            }
            _ => (keys(&left_frame, left_on)?, keys(&right_frame, right_on)?),
        };
        let left_key = left_keys.searched()?;
        let how = AsofMatch {
            strategy: match strategy {
                AsofStrategy::Backward => DeviceStrategy::Backward,
                AsofStrategy::Forward => DeviceStrategy::Forward,
                AsofStrategy::Nearest => DeviceStrategy::Nearest,
            },
            allow_eq: *allow_eq,
            tolerance: tolerance.map(|t| match t {
                AsofTolerance::Integer(t) => DeviceTolerance::Integer(t),
                AsofTolerance::Float(t) => DeviceTolerance::Float(t),
            }),
        };
        let rows = match by.as_slice() {
            [] => {
                // Nulls first where Polars checks; else the right key's at
                // either end, the left key's anywhere (the scans pass a null
                // left key by).
                let nulls_last = check_sortedness.then_some(false);
                let sides = [
                    ("left", &left_keys, left_written),
                    ("right", &right_keys, right_written),
                ];
                for (side, keys, key) in sides {
                    let keys = &keys.checked;
                    let value = column_ref(0, wide);
                    let broken = match (side, check_sortedness) {
                        ("left", false) => valid_out_of_order(&value, None),
                        _ => order_broken(&value, false, nulls_last),
                    };
                    let what = format!("join_asof: the {side} key `{key}` is not sorted");
                    self.check_any_later(keys, broken, what, ExecError::DependsOnPolars)?;
                }
                self.asof_search(left_key, right_keys.searched()?, None, how)?
            }
            by => {
                let pairs = by
                    .iter()
                    .map(|(left_by, right_by)| {
                        Ok((
                            column_at(&left_frame, column_index(left_by)?)?,
                            column_at(&right_frame, column_index(right_by)?)?,
                        ))
                    })
                    .collect::<Result<Vec<_>, ExecError>>()?;
                let (left_groups, right_groups) = self.row_codes(&pairs, false)?;
                let (left_groups, right_groups) = (
                    self.group_numbers(left_groups)?,
                    self.group_numbers(right_groups)?,
                );
                // Each side's rows in the order of their groups, stably,
                // checked sorted within each.
                let left_checked = column_at(&left_keys.checked, 0)?;
                self.in_groups_checked(&left_groups, left_checked, "left", left_written)?;
                let (right_in_order, right_order) = self.in_groups_checked(
                    &right_groups,
                    column_at(&right_keys.checked, 0)?,
                    "right",
                    right_written,
                )?;
                let groups = AsofGroups {
                    left: i64_values(column_at(&left_groups, 0)?)?,
                    right: i64_values(column_at(&right_in_order, 0)?)?,
                    right_rows: &right_order,
                };
                let right_key = match &right_keys.floats {
                    Some(_) => &self.gather_column(right_keys.searched()?, &right_order)?,
                    None => column_at(&right_in_order, 1)?,
                };
                self.asof_search(left_key, right_key, Some(groups), how)?
            }
        };
        let mut out = left_frame;
        for (i, column) in right_frame.columns.iter().enumerate() {
            if !drop_right.contains(&i) {
                out.columns.push(self.gather_column(column, &rows)?);
            }
        }
        for (column, output) in out.columns.iter_mut().zip(schema) {
            column.name = output.name.as_str().into();
        }
        match slice {
            Some(slice) => self.slice_frame(&out, *slice),
            None => Ok(out),
        }
    }

    /// [`gpu_runtime::ops::Ops::asof_search`] of two key columns of one
    /// 64-bit integer or float type.
    fn asof_search(
        &self,
        left: &DeviceColumn,
        right: &DeviceColumn,
        groups: Option<AsofGroups<'_>>,
        how: AsofMatch,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let (lv, rv) = (left.validity(), right.validity());
        Ok(match (left.values(), right.values()) {
            (Values::I64(l), Values::I64(r)) => ops.asof_search((l, lv), (r, rv), groups, how)?,
            (Values::U64(l), Values::U64(r)) => ops.asof_search((l, lv), (r, rv), groups, how)?,
            (Values::F32(l), Values::F32(r)) => ops.asof_search((l, lv), (r, rv), groups, how)?,
            (Values::F64(l), Values::F64(r)) => ops.asof_search((l, lv), (r, rv), groups, how)?,
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "join_asof on keys of {}",
                    left.dtype
                )));
            }
        })
    }

    /// Group codes (see [`Executor::key_codes`]) as the search takes them,
    /// a frame of them: -1 for a null group.
    fn group_numbers(&self, codes: DeviceColumn) -> Result<DeviceFrame, ExecError> {
        let height = codes.len();
        let frame = DeviceFrame {
            columns: vec![codes],
            height,
        };
        let none = GpuExpr::literal(Scalar::Int(-1), GpuDtype::Int64);
        let filled = column_ref(0, GpuDtype::Int64).fill_null(none);
        self.computed_frame(&frame, [&filled])
    }

    /// One side's rows in the order of their groups (`groups`, a frame of
    /// them), stably, and a frame of its groups and `keys` in that order,
    /// checked (once the result is on the host) that each group's keys (of
    /// a group that is not null) are ascending apart from their nulls, and
    /// on the right side with those in one run at one end, as Polars' scans
    /// of each group read them (where not, the query goes to Polars, which
    /// reads them as they come; it checks no order by groups).
    fn in_groups_checked(
        &self,
        groups: &DeviceFrame,
        keys: &DeviceColumn,
        side: &str,
        key: &str,
    ) -> Result<(DeviceFrame, DeviceBuffer<i64>), ExecError> {
        let group = column_ref(0, GpuDtype::Int64);
        let order = self.groups(groups, &[&group])?.sorted_rows;
        let frame = DeviceFrame {
            columns: vec![
                self.gather_column(column_at(groups, 0)?, &order)?,
                self.gather_column(keys, &order)?,
            ],
            height: order.len(),
        };
        let boolean = GpuDtype::Boolean;
        let value = column_ref(1, keys.dtype);
        let zero = GpuExpr::literal(Scalar::Int(0), GpuDtype::Int64);
        let mut unsorted = valid_out_of_order(&value, Some(&group));
        if side == "right" {
            let inside = null_inside_group(&value, &group);
            unsorted = unsorted.binary(BinaryOp::Or, inside, boolean);
        }
        let broken =
            (group.binary(BinaryOp::GtEq, zero, boolean)).binary(BinaryOp::And, unsorted, boolean);
        let what = format!("join_asof: the {side} key `{key}` is not sorted within its groups");
        self.check_any_later(&frame, broken, what, ExecError::DependsOnPolars)?;
        Ok((frame, order))
    }
}

/// One side's keys of an as-of join: as checked sorted (64-bit integers:
/// integers and temporal values widened, floats' total-order keys), and
/// float keys as they are.
struct SideKeys {
    checked: DeviceFrame,
    floats: Option<DeviceFrame>,
}

impl SideKeys {
    /// The column the search reads: the floats, else the checked keys.
    fn searched(&self) -> Result<&DeviceColumn, ExecError> {
        column_at(self.floats.as_ref().unwrap_or(&self.checked), 0)
    }
}

/// The values of a column of i64.
fn i64_values(column: &DeviceColumn) -> Result<&DeviceBuffer<i64>, ExecError> {
    match column.values() {
        Values::I64(values) => Ok(values),
        _ => Err(ExecError::Unsupported(format!(
            "groups of {} as i64",
            column.dtype
        ))),
    }
}
