//! Struct columns on the device, from and to Polars' struct columns: a child column per field, null where the struct is.

use polars::prelude::*;
use polars_arrow::bitmap::Bitmap;

use super::{DeviceColumn, ExecContext, Values};
use crate::error::ExecError;

/// The values of a struct column (one chunk) on the device: each field a
/// column of its own (Polars keeps a field null where the struct is).
pub(super) fn upload(structs: &StructChunked, ctx: &ExecContext) -> Result<Values, ExecError> {
    let fields = structs
        .fields_as_series()
        .iter()
        .map(|field| Ok(DeviceColumn::from_series(field, ctx)?.into_child()))
        .collect::<Result<_, ExecError>>()?;
    Ok(Values::Struct { fields })
}

/// A Polars struct column named `name` of `len` rows, of `fields` (the
/// child columns, downloaded), null where `validity` says.
pub(super) fn series(
    name: PlSmallStr,
    len: usize,
    fields: &[Series],
    validity: Option<Bitmap>,
) -> Result<Series, ExecError> {
    let structs = StructChunked::from_series(name, len, fields.iter())?;
    Ok(structs.with_outer_validity(validity).into_series())
}
