//! Structs in expressions: `pl.struct` of expressions, `struct.field` of a struct, and structs tested for nulls.

use super::*;

impl Executor<'_> {
    /// Field `field` of each struct of `input` (a struct-valued expression
    /// over `frame`, within each group of `groups`): a copy of the field,
    /// null where the struct is.
    pub(crate) fn struct_field(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        field: usize,
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let mut owned = None;
        let structs = self.column_in_groups(frame, input, "", &mut owned, groups)?;
        let Values::Struct { fields } = structs.values() else {
            return Err(ExecError::Unsupported(format!("the fields of `{input}`")));
        };
        let Some(child) = fields.get(field) else {
            return Err(ExecError::Unsupported(format!(
                "field {field} of `{input}`"
            )));
        };
        let rows = self.ops().iota(child.len, 0)?;
        let (values, validity) =
            self.gather_values(&child.values, child.validity.as_ref(), child.len, &rows)?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            dtype,
            child.len,
            values,
            Some(validity),
        ))
    }

    /// A struct of one field per expression of `fields`, over `frame`
    /// (within each group of `groups`), never null.
    pub(crate) fn made_struct(
        &self,
        frame: &DeviceFrame,
        fields: &[GpuExpr],
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let fields = fields
            .iter()
            .map(|field| {
                Ok(self
                    .evaluate_in_groups(frame, field, "", groups)?
                    .into_child())
            })
            .collect::<Result<_, ExecError>>()?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            dtype,
            frame.height,
            Values::Struct { fields },
            None,
        ))
    }

    /// Polars' `struct.with_fields` (and `struct.drop`): the struct of
    /// `fields` (over `frame`, within each group of `groups`), null where
    /// the struct column `input` is (a copy of its validity).
    pub(crate) fn with_fields(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        fields: &[GpuExpr],
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let validity = match column_at(frame, column_index(input)?)?.validity() {
            Some(valid) => Some(self.copied_bits(valid, frame.height)?),
            None => None,
        };
        let made = self.made_struct(frame, fields, dtype, groups)?;
        let n = made.len();
        let (values, _) = made.into_parts();
        Ok(DeviceColumn::from_parts(
            "".into(),
            dtype,
            n,
            values,
            validity,
        ))
    }

    /// Whether each struct of `input` (over `frame`, within each group of
    /// `groups`) is null (`is_null`) or not: its own validity, never null.
    pub(crate) fn struct_nulls(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        is_null: bool,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let boolean = GpuDtype::Boolean;
        let structs = self.evaluate_in_groups(frame, input, "", groups)?;
        let n = structs.len();
        let (_, validity) = structs.into_parts();
        let Some(validity) = validity else {
            // No null struct.
            let answer = GpuExpr::literal(Scalar::Boolean(!is_null), boolean);
            return self.evaluate(frame, &answer, "");
        };
        let valid = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                boolean,
                n,
                Values::Bits(validity),
                None,
            )],
            height: n,
        };
        let valid_test = column_ref(0, boolean);
        let test = match is_null {
            true => GpuExpr {
                kind: ExprKind::Not(Box::new(valid_test)),
                dtype: boolean,
            },
            false => valid_test,
        };
        self.evaluate(&valid, &test, "")
    }
}
