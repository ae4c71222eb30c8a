//! Texts cast to a categorical or an enum: the distinct texts found on the device, their codes taken from (or, for a categorical, added to) Polars' dictionary on the host, and gathered back by row.

use polars::prelude::DataType;

use super::*;

impl Executor<'_> {
    /// `expr`, a cast of texts to a categorical or enum type, as codes into
    /// its dictionary, as Polars casts them: a categorical's dictionary
    /// takes each text it lacks, in the order the texts first come (so that
    /// new texts get the codes Polars' cast gives them); an enum's texts
    /// are looked up, one it lacks null (a strict cast of one goes to
    /// Polars, which raises its error). A null text stays null.
    pub(crate) fn cast_as_categories(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let (ExprKind::Cast { input, mode }, GpuDtype::Categorical(dictionary)) =
            (&expr.kind, expr.dtype)
        else {
            return Err(ExecError::Unsupported(format!(
                "`{expr}` is not a cast of text to categories"
            )));
        };
        let texts = self.computed_in_groups(frame, [input.as_ref()], groups)?;
        let key = GpuExpr::column(0, String::new(), GpuDtype::String);
        let Groups {
            sorted_rows,
            starts,
            first_rows,
        } = self.groups(&texts, &[&key])?;
        // Each distinct text (null included) once, by group, to the host.
        let distinct = self.gather_column(column_at(&texts, 0)?, &first_rows)?;
        let distinct = distinct.to_series()?;
        let distinct = distinct.str()?;
        let first_rows = first_rows.to_host()?;
        let mut order: Vec<usize> = (0..first_rows.len()).collect();
        order.sort_by_key(|&group| first_rows[group]);
        let mut codes = vec![0u32; first_rows.len()];
        let mut valid = vec![0u32; first_rows.len().div_ceil(32)];
        let mapping = match dictionary.dtype() {
            DataType::Categorical(_, mapping) | DataType::Enum(_, mapping) => mapping,
            other => {
                return Err(ExecError::Unsupported(format!(
                    "`{expr}` casts to {other}, not to categories"
                )));
            }
        };
        let enumeration = dictionary.is_enum();
        for group in order {
            let Some(text) = distinct.get(group) else {
                continue;
            };
            let code = match enumeration {
                true => mapping.get_cat(text),
                false => Some(
                    mapping
                        .insert_cat(text)
                        .map_err(|error| ExecError::InvalidData(format!("`{expr}`: {error}")))?,
                ),
            };
            match code {
                Some(code) => {
                    codes[group] = code;
                    valid[group / 32] |= 1 << (group % 32);
                }
                None if *mode == CastMode::Strict => {
                    return Err(ExecError::InvalidData(format!(
                        "`{expr}`: {text:?} is not a category of the enum"
                    )));
                }
                None => {}
            }
        }
        let upload = |values: &[u32]| {
            DeviceBuffer::from_host(values, self.ctx.memory.clone(), &self.ctx.stream)
        };
        let (codes, valid) = (upload(&codes)?, upload(&valid)?);
        let group_of_row = self.group_of_rows(&sorted_rows, &starts)?;
        let (values, validity) = self.ops().gather(&codes, Some(&valid), &group_of_row)?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            expr.dtype,
            frame.height,
            Values::U32(values),
            Some(validity),
        ))
    }
}
