//! Functions of floats whose last bit is libm's (`exp`, `log`, `log1p`, `cbrt`, `powf`, trigonometry): the inputs computed on the device, the function applied on the host as Polars applies it, the values uploaded back.

use ir_lower::HostFunction;
use rayon::prelude::*;

use super::*;

/// Whether the executor computes `expr`, an [`ExprKind::OnHost`] part of
/// an expression, of floats, of inputs it evaluates.
pub(crate) fn host_part_supported(expr: &GpuExpr) -> bool {
    let ExprKind::OnHost {
        function,
        input,
        other,
    } = &expr.kind
    else {
        return false;
    };
    HostFunction::takes(expr.dtype)
        && function.binary() == other.is_some()
        && std::iter::once(input)
            .chain(other)
            .all(|input| input.dtype == expr.dtype && evaluable(input).is_ok())
}

impl Executor<'_> {
    /// `function` of `input` (and `other`, for a binary one) over `frame`
    /// (their aggregations and the parts that read other rows taken within
    /// each group of `groups`): the inputs' values downloaded, the function
    /// applied on host threads, the results uploaded; null where an input
    /// is (the values under a null are the function of whatever the inputs
    /// held there, unread).
    pub(crate) fn on_host(
        &self,
        frame: &DeviceFrame,
        (function, input, other): (HostFunction, &GpuExpr, Option<&GpuExpr>),
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let (values, validity) = self
            .evaluate_in_groups(frame, input, "", groups)?
            .into_parts();
        let (others, other_validity) = match other {
            Some(other) => {
                let (values, validity) = self
                    .evaluate_in_groups(frame, other, "", groups)?
                    .into_parts();
                (Some(values), validity)
            }
            None => (None, None),
        };
        let (memory, stream) = (self.ctx.memory.clone(), &self.ctx.stream);
        let unsupported = || {
            ExecError::Unsupported(format!(
                "{} of `{input}` ({})",
                function.name(),
                input.dtype
            ))
        };
        let values = match (values, others) {
            (Values::F64(values), others) => {
                let mut host = values.to_host()?;
                let others = match others {
                    Some(Values::F64(others)) => others.to_host()?,
                    Some(_) => return Err(unsupported()),
                    None => Vec::new(),
                };
                applied(&mut host, &others, |x, y| function.apply_f64(x, y));
                Values::F64(DeviceBuffer::from_host(&host, memory, stream)?)
            }
            (Values::F32(values), others) => {
                let mut host = values.to_host()?;
                let others = match others {
                    Some(Values::F32(others)) => others.to_host()?,
                    Some(_) => return Err(unsupported()),
                    None => Vec::new(),
                };
                applied(&mut host, &others, |x, y| function.apply_f32(x, y));
                Values::F32(DeviceBuffer::from_host(&host, memory, stream)?)
            }
            _ => return Err(unsupported()),
        };
        let validity = match (validity, other_validity) {
            (Some(left), Some(right)) => {
                let (left, right) = (left.to_host()?, right.to_host()?);
                let both: Vec<u32> = left.iter().zip(&right).map(|(l, r)| l & r).collect();
                Some(DeviceBuffer::from_host(
                    &both,
                    self.ctx.memory.clone(),
                    stream,
                )?)
            }
            (left, right) => left.or(right),
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

/// `values` replaced by `f` of each and of the value of `others` at its
/// place (of none, where `others` is empty: a function of one input), on
/// host threads.
fn applied<T: Copy + Default + Send + Sync>(
    values: &mut [T],
    others: &[T],
    f: impl Fn(T, T) -> T + Sync,
) {
    match others.is_empty() {
        true => values.par_iter_mut().for_each(|x| *x = f(*x, T::default())),
        false => values
            .par_iter_mut()
            .zip(others)
            .for_each(|(x, y)| *x = f(*x, *y)),
    }
}
