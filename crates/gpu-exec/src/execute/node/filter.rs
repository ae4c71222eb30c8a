//! The filter operator: the rows a predicate keeps.

use super::*;

impl Executor<'_> {
    /// The rows of `frame` where `predicate` is true.
    pub(crate) fn filter(
        &self,
        frame: &DeviceFrame,
        predicate: &GpuExpr,
    ) -> Result<DeviceFrame, ExecError> {
        let mask = if predicate_supported(predicate) {
            self.predicate(frame, predicate)?
        } else {
            let column = self.evaluate(frame, predicate, "predicate")?;
            match column.into_parts() {
                (Values::Bits(bits), validity) => Mask::Owned(bits, validity),
                _ => {
                    return Err(ExecError::Unsupported(format!(
                        "`{predicate}` is not boolean"
                    )));
                }
            }
        };
        let (bits, validity) = mask.parts();
        let indices = self.ops().filter_indices(bits, validity, frame.height)?;
        drop(mask);
        self.gather_frame(frame, &indices)
    }
}
