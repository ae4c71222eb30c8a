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
        let parts: Vec<Part<'_>> = parts
            .iter()
            .map(|part| Part {
                values: part.values(),
                validity: part.validity(),
                len: part.len(),
            })
            .collect();
        let (values, validity) = self.concat_values(&parts, height).map_err(|e| match e {
            Mismatch => ExecError::Unsupported(format!(
                "a union of columns {name:?} of different physical types"
            )),
            Failed(e) => e,
        })?;
        Ok(DeviceColumn::from_parts(
            name.into(),
            dtype,
            height,
            values,
            validity,
        ))
    }

    /// The values and validity of `parts` (`height` rows in all) one after
    /// another, a list's values with them.
    fn concat_values(
        &self,
        parts: &[Part<'_>],
        height: usize,
    ) -> Result<(Values, Option<DeviceBuffer<u32>>), ConcatError> {
        let ops = self.ops();
        let bitmap = || {
            DeviceBuffer::<u32>::zeroed(
                height.div_ceil(32),
                self.ctx.memory.clone(),
                &self.ctx.stream,
            )
        };
        macro_rules! concat {
            ($variant:ident) => {{
                let out = DeviceBuffer::zeroed(height, self.ctx.memory.clone(), &self.ctx.stream)?;
                let mut at = 0;
                for part in parts {
                    let Values::$variant(values) = part.values else {
                        return Err(Mismatch);
                    };
                    out.copy_from_device(at, values)?;
                    at += part.len;
                }
                Values::$variant(out)
            }};
        }
        let Some(first) = parts.first() else {
            return Err(Mismatch);
        };
        let values = match first.values {
            Values::Bits(_) => {
                let out = bitmap()?;
                let mut at = 0;
                for part in parts {
                    let Values::Bits(bits) = part.values else {
                        return Err(Mismatch);
                    };
                    ops.bitmap_append(Some(bits), part.len, &out, at)?;
                    at += part.len;
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
                    .map(|part| match part.values {
                        Values::Str { offsets, bytes } => Ok((offsets, bytes)),
                        _ => Err(Mismatch),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let (offsets, bytes) = ops.concat_strings(&strings)?;
                Values::Str { offsets, bytes }
            }
            Values::List { .. } => self.concat_lists(parts, height)?,
            Values::Struct { fields } => {
                // Field by field.
                let fields = (0..fields.len())
                    .map(|f| {
                        let field_parts = parts
                            .iter()
                            .map(|part| match part.values {
                                Values::Struct { fields } if fields.len() > f => Ok(Part {
                                    values: &fields[f].values,
                                    validity: fields[f].validity.as_ref(),
                                    len: fields[f].len,
                                }),
                                _ => Err(Mismatch),
                            })
                            .collect::<Result<Vec<_>, _>>()?;
                        let (values, validity) = self.concat_values(&field_parts, height)?;
                        Ok(Child {
                            len: height,
                            values,
                            validity,
                        })
                    })
                    .collect::<Result<_, ConcatError>>()?;
                Values::Struct { fields }
            }
        };
        let validity = if parts.iter().any(|part| part.validity.is_some()) {
            let out = bitmap()?;
            let mut at = 0;
            for part in parts {
                ops.bitmap_append(part.validity, part.len, &out, at)?;
                at += part.len;
            }
            Some(out)
        } else {
            None
        };
        Ok((values, validity))
    }

    /// Lists of `parts` one after another: their values concatenated, each
    /// part's offsets moved past the values before it.
    fn concat_lists(&self, parts: &[Part<'_>], height: usize) -> Result<Values, ConcatError> {
        let ops = self.ops();
        let mut children = Vec::with_capacity(parts.len());
        let offsets =
            DeviceBuffer::<i64>::zeroed(height + 1, self.ctx.memory.clone(), &self.ctx.stream)?;
        let (mut at, mut base) = (0, 0);
        for part in parts {
            let Values::List {
                offsets: part_offsets,
                child,
            } = part.values
            else {
                return Err(Mismatch);
            };
            // This part's offsets plus the values before it; its last
            // offset is the next part's first.
            let moved = column_ref(0, GpuDtype::Int64).binary(
                BinaryOp::Plus,
                GpuExpr::literal(Scalar::Int(base as i64), GpuDtype::Int64),
                GpuDtype::Int64,
            );
            let program = compile(&moved, None)
                .map_err(|why| ExecError::Unsupported(format!("moving list offsets ({why})")))?;
            let input = ExprInput::values(part_offsets, None);
            let (Values::I64(moved), _) =
                ops.eval(&program.program, &[input], part.len + 1, None)?
            else {
                return Err(Mismatch);
            };
            offsets.copy_from_device(at, &moved)?;
            at += part.len;
            base += child.len;
            children.push(Part {
                values: &child.values,
                validity: child.validity.as_ref(),
                len: child.len,
            });
        }
        let (values, validity) = self.concat_values(&children, base)?;
        let child = Child {
            len: base,
            values,
            validity,
        };
        Ok(Values::List {
            offsets,
            child: Box::new(child),
        })
    }
}

/// A column's values, validity and length, one of the parts a union
/// concatenates.
struct Part<'a> {
    values: &'a Values,
    validity: Option<&'a DeviceBuffer<u32>>,
    len: usize,
}

/// Why a concatenation failed: parts of different physical types, or the
/// device.
enum ConcatError {
    Mismatch,
    Failed(ExecError),
}
use ConcatError::{Failed, Mismatch};

impl<E: Into<ExecError>> From<E> for ConcatError {
    fn from(e: E) -> Self {
        Failed(e.into())
    }
}
