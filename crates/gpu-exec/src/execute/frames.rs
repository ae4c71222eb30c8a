//! Gathers of frames and columns, and finding a frame's columns.

use super::*;

pub(crate) fn column_index(expr: &GpuExpr) -> Result<usize, ExecError> {
    match expr.kind {
        ExprKind::Column { index, .. } => Ok(index),
        _ => Err(ExecError::Unsupported(format!(
            "`{expr}` where a column was expected"
        ))),
    }
}

pub(crate) fn column_at(frame: &DeviceFrame, index: usize) -> Result<&DeviceColumn, ExecError> {
    frame.columns.get(index).ok_or_else(|| {
        ExecError::Unsupported(format!(
            "column #{index} of a frame of {}",
            frame.columns.len()
        ))
    })
}

/// The columns at `picks` (each at most once), renamed where given.
pub(crate) fn take_columns<'a>(
    frame: DeviceFrame,
    picks: impl Iterator<Item = (usize, Option<&'a str>)>,
) -> Result<DeviceFrame, ExecError> {
    let height = frame.height;
    let mut slots: Vec<Option<DeviceColumn>> = frame.columns.into_iter().map(Some).collect();
    let mut columns = Vec::new();
    for (index, name) in picks {
        let mut column = slots.get_mut(index).and_then(Option::take).ok_or_else(|| {
            ExecError::Unsupported(format!("column #{index} taken twice or missing"))
        })?;
        if let Some(name) = name {
            column.name = name.into();
        }
        columns.push(column);
    }
    Ok(DeviceFrame { columns, height })
}

impl Executor<'_> {
    /// A copy of the first `n` bits of `bits` (a validity), that can be
    /// handed on while the column it came from is kept.
    pub(crate) fn copied_bits(
        &self,
        bits: &DeviceBuffer<u32>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, ExecError> {
        let copy =
            DeviceBuffer::<u32>::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        self.ops().bitmap_append(Some(bits), n, &copy, 0)?;
        Ok(copy)
    }

    pub(crate) fn gather_frame(
        &self,
        frame: &DeviceFrame,
        indices: &DeviceBuffer<i64>,
    ) -> Result<DeviceFrame, ExecError> {
        let columns = frame
            .columns
            .iter()
            .map(|column| self.gather_column(column, indices))
            .collect::<Result<_, _>>()?;
        Ok(DeviceFrame {
            columns,
            height: indices.len(),
        })
    }

    /// A boolean column of `n` rows, true where `validity` says a value is
    /// (a copy of the bitmap, never null).
    pub(crate) fn validity_as_booleans(
        &self,
        validity: &DeviceBuffer<u32>,
        n: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let memory = self.ctx.memory.clone();
        let bits = DeviceBuffer::zeroed(validity.len(), memory, &self.ctx.stream)?;
        bits.copy_from_device(0, validity)?;
        let values = Values::Bits(bits);
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Boolean,
            n,
            values,
            None,
        ))
    }

    pub(crate) fn gather_column(
        &self,
        column: &DeviceColumn,
        indices: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let (values, valid) =
            self.gather_values(column.values(), column.validity(), column.len(), indices)?;
        Ok(DeviceColumn::from_parts(
            column.name.clone(),
            column.dtype,
            indices.len(),
            values,
            Some(valid),
        ))
    }

    /// The `len` values and their validity gathered by `indices` (an
    /// index out of bounds gives null), a list's values with them.
    pub(crate) fn gather_values(
        &self,
        values: &Values,
        validity: Option<&DeviceBuffer<u32>>,
        len: usize,
        indices: &DeviceBuffer<i64>,
    ) -> Result<(Values, DeviceBuffer<u32>), ExecError> {
        let ops = self.ops();
        macro_rules! gather {
            ($variant:ident, $buffer:expr) => {{
                let (values, valid) = ops.gather($buffer, validity, indices)?;
                (Values::$variant(values), valid)
            }};
        }
        Ok(match values {
            Values::Bits(bits) => ops
                .gather_bits(bits, len, validity, indices)
                .map(|(bits, valid)| (Values::Bits(bits), valid))?,
            Values::I8(b) => gather!(I8, b),
            Values::I16(b) => gather!(I16, b),
            Values::I32(b) => gather!(I32, b),
            Values::I64(b) => gather!(I64, b),
            Values::U8(b) => gather!(U8, b),
            Values::U16(b) => gather!(U16, b),
            Values::U32(b) => gather!(U32, b),
            Values::U64(b) => gather!(U64, b),
            Values::F32(b) => gather!(F32, b),
            Values::F64(b) => gather!(F64, b),
            Values::Str { offsets, bytes } => {
                let DeviceStrings {
                    offsets,
                    bytes,
                    validity,
                } = ops.gather_strings(offsets, bytes, validity, indices)?;
                (Values::Str { offsets, bytes }, validity)
            }
            Values::List { offsets, child } => {
                let GatheredLists {
                    offsets,
                    validity,
                    rows,
                } = ops.gather_lists(offsets, validity, indices)?;
                let (values, valid) =
                    self.gather_values(&child.values, child.validity.as_ref(), child.len, &rows)?;
                let child = Child {
                    len: rows.len(),
                    values,
                    validity: Some(valid),
                };
                let values = Values::List {
                    offsets,
                    child: Box::new(child),
                };
                (values, validity)
            }
            Values::Struct { fields } => {
                let fields = fields
                    .iter()
                    .map(|field| {
                        let (values, validity) = (&field.values, field.validity.as_ref());
                        let (values, valid) =
                            self.gather_values(values, validity, field.len, indices)?;
                        Ok(Child {
                            len: indices.len(),
                            values,
                            validity: Some(valid),
                        })
                    })
                    .collect::<Result<_, ExecError>>()?;
                // The structs' validity, gathered (null outside): the
                // validity of a gather of any bits under it.
                let memory = self.ctx.memory.clone();
                let bits = DeviceBuffer::zeroed(len.div_ceil(32), memory, &self.ctx.stream)?;
                let (_, valid) = ops.gather_bits(&bits, len, validity, indices)?;
                (Values::Struct { fields }, valid)
            }
        })
    }
}
