//! Functions of floats whose last bit is libm's (`exp`, `log`, `log1p`, `cbrt`): the input computed on the device, the function applied on the host as Polars applies it, the values uploaded back.

use ir_lower::HostFunction;
use rayon::prelude::*;

use super::*;

/// Whether the executor computes `expr`, an [`ExprKind::OnHost`] part of
/// an expression, of floats, of an input it evaluates.
pub(crate) fn host_part_supported(expr: &GpuExpr) -> bool {
    matches!(&expr.kind,
        ExprKind::OnHost { input, .. }
        if HostFunction::takes(expr.dtype) && input.dtype == expr.dtype && evaluable(input).is_ok())
}

impl Executor<'_> {
    /// `function` of `input` over `frame` (its aggregations and the parts
    /// that read other rows taken within each group of `groups`): the
    /// input's values downloaded, the function applied on host threads, the
    /// results uploaded; the input's validity kept (the values under a null
    /// are the function of whatever the input held there, unread).
    pub(crate) fn on_host(
        &self,
        frame: &DeviceFrame,
        (function, input): (HostFunction, &GpuExpr),
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let (values, validity) = self
            .evaluate_in_groups(frame, input, "", groups)?
            .into_parts();
        let (memory, stream) = (self.ctx.memory.clone(), &self.ctx.stream);
        let values = match values {
            Values::F64(values) => {
                let mut host = values.to_host()?;
                host.par_iter_mut()
                    .for_each(|x| *x = function.apply_f64(*x));
                Values::F64(DeviceBuffer::from_host(&host, memory, stream)?)
            }
            Values::F32(values) => {
                let mut host = values.to_host()?;
                host.par_iter_mut()
                    .for_each(|x| *x = function.apply_f32(*x));
                Values::F32(DeviceBuffer::from_host(&host, memory, stream)?)
            }
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "{} of `{input}` ({})",
                    function.name(),
                    input.dtype
                )));
            }
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            input.dtype,
            frame.height,
            values,
            validity,
        ))
    }
}
