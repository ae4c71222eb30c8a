//! Functions of floats whose last bit is libm's (`exp`, `log`, `log1p`, `cbrt`, `powf`, trigonometry), and powers of integers: the inputs computed on the device, the function applied on the host as Polars applies it, the values uploaded back.

use gpu_runtime::memory::DeviceCopy;
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
    function.computes(expr.dtype)
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
        let unsupported = || {
            ExecError::Unsupported(format!(
                "{} of `{input}` ({})",
                function.name(),
                input.dtype
            ))
        };
        // (Over a frame of one row Polars takes a second input as one
        // value: `pow` by it computes as by a literal.)
        let alone = frame.height == 1;
        let (f64s, f32s) = (
            |x, y| match alone {
                true => function.apply_alone_f64(x, y),
                false => function.apply_f64(x, y),
            },
            |x, y| match alone {
                true => function.apply_alone_f32(x, y),
                false => function.apply_f32(x, y),
            },
        );
        let values = match (values, others) {
            (Values::F64(values), None) => Values::F64(self.applied(&values, None, f64s)?),
            (Values::F64(values), Some(Values::F64(others))) => {
                Values::F64(self.applied(&values, Some(&others), f64s)?)
            }
            (Values::F32(values), None) => Values::F32(self.applied(&values, None, f32s)?),
            (Values::F32(values), Some(Values::F32(others))) => {
                Values::F32(self.applied(&values, Some(&others), f32s)?)
            }
            // Powers of integers, of one exponent or of each row's.
            (Values::I64(values), others) => {
                let others = match others {
                    Some(Values::I64(others)) => Some(others),
                    None => None,
                    Some(_) => return Err(unsupported()),
                };
                let f = |x: i64, e: i64| function.apply_u64(x as u64, e as u64) as i64;
                Values::I64(self.applied(&values, others.as_ref(), f)?)
            }
            (Values::U64(values), others) => {
                let others = match others {
                    Some(Values::U64(others)) => Some(others),
                    None => None,
                    Some(_) => return Err(unsupported()),
                };
                let f = |x: u64, e: u64| function.apply_u64(x, e);
                Values::U64(self.applied(&values, others.as_ref(), f)?)
            }
            _ => return Err(unsupported()),
        };
        // Valid where both inputs are: their bitmaps' words and-ed.
        let validity = match (validity, other_validity) {
            (Some(left), Some(right)) => Some(self.applied(&left, Some(&right), |l, r| l & r)?),
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

    /// `f` of each of `values` (and of `others` at its place), downloaded,
    /// computed on host threads and uploaded.
    fn applied<T: DeviceCopy + Default>(
        &self,
        values: &DeviceBuffer<T>,
        others: Option<&DeviceBuffer<T>>,
        f: impl Fn(T, T) -> T + Sync,
    ) -> Result<DeviceBuffer<T>, ExecError> {
        let mut host = values.to_host()?;
        let others = match others {
            Some(others) => others.to_host()?,
            None => Vec::new(),
        };
        applied_on_host(&mut host, &others, f);
        let memory = self.ctx.memory.clone();
        Ok(DeviceBuffer::from_host(&host, memory, &self.ctx.stream)?)
    }
}

/// `f` of each of `values` and of the value of `others` at its place (of
/// the type's default where there are none: a function of one input), on
/// host threads.
fn applied_on_host<T: Copy + Default + Send + Sync>(
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
