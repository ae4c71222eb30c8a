//! Choices between lists or structs row by row (`when/then/otherwise`, `fill_null`), and null lists or structs: the rows of both candidates stacked, each row gathered from the one it takes.

use super::*;

impl Executor<'_> {
    /// `expr`, a `when/then/otherwise` or a `fill_null` of lists or
    /// structs, over `frame` (its parts computed within each group of
    /// `groups`, when given): each row the truthy value where the
    /// predicate holds, else the falsy one (a null predicate taking the
    /// falsy one, as Polars does); the input where it is not null, else
    /// the fill value.
    pub(crate) fn nested_choice(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let (first, second) = match &expr.kind {
            ExprKind::Ternary { truthy, falsy, .. } => (truthy, falsy),
            ExprKind::FillNull { input, value } => (input, value),
            _ => {
                return Err(ExecError::Unsupported(format!("`{expr}` is not a choice")));
            }
        };
        let first = self.nested_valued(frame, first, "", groups)?;
        let second = self.nested_valued(frame, second, "", groups)?;
        let n = frame.height;
        let take_first = match &expr.kind {
            ExprKind::Ternary { predicate, .. } => {
                let no = GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean);
                let when = (**predicate).clone().fill_null(no);
                self.evaluate_in_groups(frame, &when, "", groups)?
            }
            // Where the input is valid: its validity as booleans.
            _ => match first.validity() {
                None => return Ok(first),
                Some(validity) => self.validity_as_booleans(validity, n)?,
            },
        };
        // Row i from row i of the first, or from row n + i: of the second
        // stacked after it.
        let int64 = GpuDtype::Int64;
        let rows = self.ops().iota(n, 0)?;
        let places = DeviceFrame {
            columns: vec![take_first, DeviceColumn::of_i64(rows)],
            height: n,
        };
        let row = column_ref(1, int64);
        let later = GpuExpr::literal(Scalar::Int(n as i64), int64);
        let source = GpuExpr {
            kind: ExprKind::Ternary {
                predicate: Box::new(column_ref(0, GpuDtype::Boolean)),
                truthy: Box::new(row.clone()),
                falsy: Box::new(row.binary(BinaryOp::Plus, later, int64)),
            },
            dtype: int64,
        };
        let sources = self.evaluate_i64(&places, &source)?;
        let both = self.concat_column(&[&first, &second], "", expr.dtype, 2 * n)?;
        self.gather_column(&both, &sources)
    }

    /// A column of `n` nulls of `dtype` (any type the device holds): null
    /// values of a fixed width, null texts; null lists spanning no values
    /// of their type; null structs of null fields.
    pub(crate) fn null_column(&self, dtype: GpuDtype, n: usize) -> Result<DeviceColumn, ExecError> {
        let nothing = || -> Result<DeviceBuffer<u32>, ExecError> {
            let memory = self.ctx.memory.clone();
            Ok(DeviceBuffer::zeroed(
                n.div_ceil(32),
                memory,
                &self.ctx.stream,
            )?)
        };
        let column = match dtype {
            GpuDtype::List(of) => {
                let memory = self.ctx.memory.clone();
                let offsets = DeviceBuffer::zeroed(n + 1, memory, &self.ctx.stream)?;
                let values = self.null_column(of.values(), 0)?.into_child();
                DeviceColumn::listed(dtype, offsets, values, Some(nothing()?))
            }
            GpuDtype::Struct(of) => {
                let fields = of
                    .fields()
                    .into_iter()
                    .map(|(_, field)| Ok(self.null_column(field, n)?.into_child()))
                    .collect::<Result<Vec<_>, ExecError>>()?;
                let values = Values::Struct { fields };
                DeviceColumn::from_parts("".into(), dtype, n, values, Some(nothing()?))
            }
            _ => {
                let nowhere = DeviceFrame {
                    columns: Vec::new(),
                    height: n,
                };
                let null = GpuExpr::literal(Scalar::Null, dtype);
                self.evaluate(&nowhere, &null, "")?
            }
        };
        Ok(column)
    }
}
