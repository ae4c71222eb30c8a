//! The union operator (vertical concat): columns put one after another.

use super::*;

impl Executor<'_> {
    /// A vertical concatenation of `inputs` (Polars' `concat`).
    pub(crate) fn union(
        &self,
        inputs: &[PlanNode],
        slice: &Option<(i64, usize)>,
        schema: &OutputSchema,
    ) -> Result<DeviceFrame, ExecError> {
        let frames = self.run_each(inputs)?;
        let height = frames.iter().map(|frame| frame.height).sum();
        let columns = schema
            .iter()
            .enumerate()
            .map(|(i, output)| {
                let parts = frames
                    .iter()
                    .map(|frame| column_at(frame, i))
                    .collect::<Result<Vec<_>, _>>()?;
                self.concat_column(&parts, output.name.as_str(), output.dtype, height)
            })
            .collect::<Result<_, ExecError>>()?;
        let out = DeviceFrame { columns, height };
        match slice {
            Some(slice) => self.slice_frame(&out, *slice),
            None => Ok(out),
        }
    }

    /// The rows of `parts` (columns of one physical type, `height` rows in
    /// all) one after another, as a column named `name`.
    pub(crate) fn concat_column(
        &self,
        parts: &[&DeviceColumn],
        name: &str,
        dtype: GpuDtype,
        height: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let bitmap = || {
            DeviceBuffer::<u32>::zeroed(
                height.div_ceil(32),
                self.ctx.memory.clone(),
                &self.ctx.stream,
            )
        };
        let mismatch = || {
            ExecError::Unsupported(format!(
                "a union of columns {name:?} of different physical types"
            ))
        };
        macro_rules! concat {
            ($variant:ident) => {{
                let out = DeviceBuffer::zeroed(height, self.ctx.memory.clone(), &self.ctx.stream)?;
                let mut at = 0;
                for part in parts {
                    let Values::$variant(values) = part.values() else {
                        return Err(mismatch());
                    };
                    out.copy_from_device(at, values)?;
                    at += part.len();
                }
                Values::$variant(out)
            }};
        }
        let first = parts.first().ok_or_else(|| {
            ExecError::Unsupported(format!("a union without inputs for {name:?}"))
        })?;
        let values = match first.values() {
            Values::Bits(_) => {
                let out = bitmap()?;
                let mut at = 0;
                for part in parts {
                    let Values::Bits(bits) = part.values() else {
                        return Err(mismatch());
                    };
                    ops.bitmap_append(Some(bits), part.len(), &out, at)?;
                    at += part.len();
                }
                Values::Bits(out)
            }
            Values::I8(_) => concat!(I8),
            Values::I16(_) => concat!(I16),
            Values::I32(_) => concat!(I32),
            Values::I64(_) => concat!(I64),
            Values::U8(_) => concat!(U8),
            Values::U16(_) => concat!(U16),
            Values::U32(_) => concat!(U32),
            Values::U64(_) => concat!(U64),
            Values::F32(_) => concat!(F32),
            Values::F64(_) => concat!(F64),
            Values::Str { .. } => {
                let strings = parts
                    .iter()
                    .map(|part| match part.values() {
                        Values::Str { offsets, bytes } => Ok((offsets, bytes)),
                        _ => Err(mismatch()),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let (offsets, bytes) = ops.concat_strings(&strings)?;
                Values::Str { offsets, bytes }
            }
        };
        let validity = if parts.iter().any(|part| part.validity().is_some()) {
            let out = bitmap()?;
            let mut at = 0;
            for part in parts {
                ops.bitmap_append(part.validity(), part.len(), &out, at)?;
                at += part.len();
            }
            Some(out)
        } else {
            None
        };
        Ok(DeviceColumn::from_parts(
            name.into(),
            dtype,
            height,
            values,
            validity,
        ))
    }
}
