//! List columns on the device, from and to Polars' list columns: the lists' offsets (from 0) over a child column of their values.

use polars::prelude::*;
use polars_arrow::array::{Array, LIST_VALUES_NAME, ListArray};
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::offset::OffsetsBuffer;

use super::{DeviceColumn, ExecContext, Values};
use crate::error::ExecError;
use gpu_runtime::memory::DeviceBuffer;

/// The values of a list column (one chunk) on the device: its offsets
/// rebased to start at 0, and the values its lists span, a column of their
/// own (a sliced column's values outside its lists are not copied).
pub(super) fn upload(lists: &ListChunked, ctx: &ExecContext) -> Result<Values, ExecError> {
    let (offsets, values) = match lists.downcast_iter().next() {
        Some(array) => {
            let offsets = array.offsets().as_slice();
            let first = offsets.first().copied().unwrap_or(0);
            let last = offsets.last().copied().unwrap_or(0);
            let rebased: Vec<i64> = offsets.iter().map(|offset| offset - first).collect();
            let count = usize::try_from(last - first).unwrap_or(0);
            (rebased, lists.get_inner().slice(first, count))
        }
        None => (vec![0], Series::new_empty("".into(), lists.inner_dtype())),
    };
    let child = DeviceColumn::from_series(&values, ctx)?.into_child();
    Ok(Values::List {
        offsets: DeviceBuffer::from_host(&offsets, ctx.memory.clone(), &ctx.stream)?,
        child: Box::new(child),
    })
}

/// A Polars list column named `name` of the lists `offsets` delimit in
/// `values` (the child column, downloaded), null where `validity` says.
pub(super) fn series(
    name: PlSmallStr,
    offsets: &[i64],
    values: &Series,
    validity: Option<Bitmap>,
) -> Result<Series, ExecError> {
    let inner = values.rechunk().to_arrow(0, CompatLevel::newest());
    let dtype = ArrowDataType::LargeList(Box::new(Field::new(
        LIST_VALUES_NAME,
        inner.dtype().clone(),
        true,
    )));
    let offsets = OffsetsBuffer::try_from(offsets.to_vec())?;
    let array = ListArray::<i64>::try_new(dtype, offsets, inner, validity)?;
    let series = Series::try_from((name, Box::new(array) as Box<dyn Array>))?;
    let expected = DataType::List(Box::new(values.dtype().clone()));
    Ok(if series.dtype() == &expected {
        series
    } else {
        series.cast(&expected)?
    })
}

/// Whether some chunks of `lists` hold a null in their child and others
/// none: Polars may sum each chunk's lists by its own nulls (a column read
/// from several files), where the device takes the column whole.
pub(crate) fn chunks_differ_in_nulls(lists: &ListChunked) -> bool {
    let (mut with, mut without) = (false, false);
    for array in lists.downcast_iter().filter(|array| !array.is_empty()) {
        match array.values().null_count() > 0 {
            true => with = true,
            false => without = true,
        }
    }
    with && without
}

/// Whether Polars finds a null in the child of `lists` (in any chunk, also
/// outside the rows a slice kept: polars-ops' `has_inner_nulls`) where the
/// values its lists span, which the device holds, have none.
pub(crate) fn hides_nulls(lists: &ListChunked) -> bool {
    let mut polars_sees = false;
    let mut spanned = false;
    for array in lists.downcast_iter() {
        polars_sees |= array.values().null_count() > 0;
        let offsets = array.offsets();
        let (first, last) = (*offsets.first() as usize, *offsets.last() as usize);
        spanned |= array.values().sliced(first, last - first).null_count() > 0;
    }
    polars_sees && !spanned
}
