//! Text parsed as numbers and temporals, and temporals formatted as text.

use super::*;

impl Executor<'_> {
    /// `input`, dates or timestamps, as text in the chrono `format` (see
    /// [`Ops::string_format_temporal`]).
    pub(crate) fn formatted(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        format: &[FormatPart],
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let per_day = match input.dtype {
            GpuDtype::Date => 1,
            GpuDtype::Datetime(unit) => unit.per_day(),
            // (Day 0's time of day: the format holds no date. Times lie
            // within the day: Polars' casts to time null the others.)
            GpuDtype::Time => ir_lower::TimeUnit::Nanoseconds.per_day(),
            other => {
                return Err(ExecError::Unsupported(format!(
                    "`{input}` of {other} as text"
                )));
            }
        };
        let program: Vec<u32> = format
            .iter()
            .map(|part| {
                let (code, argument) = match *part {
                    FormatPart::Byte(byte) => (0, byte),
                    // (A parse's part only.)
                    FormatPart::SpaceOrT => {
                        return Err(ExecError::Unsupported(format!("`{part:?}` written")));
                    }
                    FormatPart::Year => (1, 0),
                    FormatPart::Month => (2, 0),
                    FormatPart::Day => (3, 0),
                    FormatPart::Hour => (4, 0),
                    FormatPart::Minute => (5, 0),
                    FormatPart::Second => (6, 0),
                    FormatPart::Fraction(digits) => (7, digits),
                    FormatPart::YearMod100 => (8, 0),
                    FormatPart::Ordinal => (9, 0),
                    FormatPart::DaySpaced => (10, 0),
                    FormatPart::MonthShort => (11, 0),
                    FormatPart::MonthLong => (12, 0),
                    FormatPart::WeekdayShort => (13, 0),
                    FormatPart::WeekdayLong => (14, 0),
                    FormatPart::WeekdayFromMonday => (15, 0),
                    FormatPart::WeekdayFromSunday => (16, 0),
                    FormatPart::Hour12 => (17, 0),
                    FormatPart::AmPm => (18, 0),
                    FormatPart::FractionAuto => (19, 0),
                };
                Ok((code << 8) | u32::from(argument))
            })
            .collect::<Result<_, _>>()?;
        // Day counts or ticks, as i64.
        let column =
            self.evaluate_in_groups(frame, &cast_to(input, GpuDtype::Int64), name, groups)?;
        let Values::I64(values) = column.values() else {
            return Err(ExecError::Unsupported(format!("`{input}` as i64")));
        };
        let strings =
            self.ops()
                .string_format_temporal(values, column.validity(), per_day, &program)?;
        Ok(strings_column(name, strings))
    }

    /// A cast of text (made over `frame`) to an integer, a float or a
    /// decimal type, parsed as Polars parses it: null where it does not parse or fit; a
    /// strict cast keeps a failure flag the executor reads once the result
    /// is on the host. A float that only exact big-number arithmetic rounds
    /// (fast_float2's slow path: numbers of more than 19 digits, rarely)
    /// raises another flag, and the query goes to Polars.
    pub(crate) fn parsed_numbers(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Cast { input, mode } = &expr.kind else {
            return Err(ExecError::Unsupported(format!(
                "`{expr}` is not a cast of text to numbers"
            )));
        };
        let mut owned = None;
        let strings = self.strings_of(frame, input, &mut owned, groups)?;
        let flag = || DeviceBuffer::<u32>::zeroed(1, self.ctx.memory.clone(), &self.ctx.stream);
        let failed = match mode {
            CastMode::Strict => Some(flag()?),
            CastMode::NonStrict | CastMode::Wrapping | CastMode::Physical => None,
        };
        let ops = self.ops();
        let (values, validity) = match (expr.dtype, integer_bounds(expr.dtype)) {
            (GpuDtype::Float64 | GpuDtype::Float32, _) => {
                let undecided = flag()?;
                let parsed = if expr.dtype == GpuDtype::Float64 {
                    let (values, validity) =
                        ops.string_parse_floats::<f64>(strings, failed.as_ref(), &undecided)?;
                    (Values::F64(values), validity)
                } else {
                    let (values, validity) =
                        ops.string_parse_floats::<f32>(strings, failed.as_ref(), &undecided)?;
                    (Values::F32(values), validity)
                };
                let what = format!(
                    "texts of numbers that only exact big-number arithmetic rounds (more \
                     than 19 digits) in `{expr}`"
                );
                self.check_later(undecided, what, ExecError::DependsOnPolars);
                parsed
            }
            (GpuDtype::Decimal(precision, scale), _) => {
                let undecided = flag()?;
                let shape = (u32::from(precision), u32::from(scale));
                let (values, validity) =
                    ops.string_parse_decimals(strings, shape, failed.as_ref(), &undecided)?;
                let what = format!(
                    "texts of decimals of more than 18 digits (the GPU holds decimals as 64-bit \
                     integers) in `{expr}`"
                );
                self.check_later(undecided, what, ExecError::DependsOnPolars);
                (Values::I64(values), validity)
            }
            (_, Some(bounds)) => {
                let (words, validity) =
                    ops.string_parse_integers(strings, bounds, failed.as_ref())?;
                (Values::U64(words), validity)
            }
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "`{expr}` is not a cast of text to numbers"
                )));
            }
        };
        if let Some(flag) = failed {
            let what =
                format!("a strict cast met texts that are not numbers of the type in `{expr}`");
            self.check_later(flag, what, ExecError::InvalidData);
        }
        let Values::U64(words) = values else {
            return Ok(DeviceColumn::from_parts(
                "".into(),
                expr.dtype,
                frame.height,
                values,
                Some(validity),
            ));
        };
        // The words hold values of the integer type in two's complement:
        // their wrapping cast (Rust's `as`) is exact.
        let parsed = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::UInt64,
                frame.height,
                Values::U64(words),
                Some(validity),
            )],
            height: frame.height,
        };
        let cast = column_ref(0, GpuDtype::UInt64).cast(expr.dtype, CastMode::Wrapping);
        self.evaluate(&parsed, &cast, "")
    }

    /// `str.to_date` or `str.to_datetime` in `format` of `input` over
    /// `frame` (`expr`, whose type says which): texts of exactly that form
    /// (`YYYY-MM-DD` for `%Y-%m-%d`) parsed on the device; where `lenient`
    /// (Polars gives null for a text it reads no value from), the texts
    /// from which neither of Polars' parsers reads a value are null; any
    /// other text raises the launch's failure flag, so the query goes to
    /// Polars, whose parser decides what it is (a value of another form,
    /// null, an error).
    pub(crate) fn parsed_temporals(
        &self,
        frame: &DeviceFrame,
        (input, format, lenient): (&GpuExpr, &[FormatPart], bool),
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let mut owned = None;
        let strings = self.strings_of(frame, input, &mut owned, groups)?;
        let failed = DeviceBuffer::<u32>::zeroed(1, self.ctx.memory.clone(), &self.ctx.stream)?;
        let ops = self.ops();
        let (program, form): (Vec<u32>, String) = format
            .iter()
            .map(|part| match part {
                FormatPart::Byte(byte) => Ok((u32::from(*byte), char::from(*byte).to_string())),
                FormatPart::Year => Ok((PARSE_YEAR, "YYYY".into())),
                FormatPart::Month => Ok((PARSE_YEAR + 1, "MM".into())),
                FormatPart::Day => Ok((PARSE_YEAR + 2, "DD".into())),
                FormatPart::Hour => Ok((PARSE_YEAR + 3, "HH".into())),
                FormatPart::Minute => Ok((PARSE_YEAR + 4, "MM".into())),
                FormatPart::Second => Ok((PARSE_YEAR + 5, "SS".into())),
                FormatPart::SpaceOrT => Ok((PARSE_YEAR + 6, "[ T]".into())),
                FormatPart::FractionAuto => Ok((PARSE_YEAR + 7, "[.f]".into())),
                other => Err(ExecError::Unsupported(format!(
                    "parsing {other:?} in `{expr}`"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        let (values, validity) = match expr.dtype {
            GpuDtype::Date => {
                let (days, validity) =
                    ops.string_parse_dates(strings, (&program, lenient), &failed)?;
                (Values::I32(days), validity)
            }
            // (A time of day: a timestamp in nanoseconds on 1970-01-01, the
            // format naming no date.)
            GpuDtype::Datetime(_) | GpuDtype::Time => {
                let unit = match expr.dtype {
                    GpuDtype::Datetime(unit) => unit,
                    _ => ir_lower::TimeUnit::Nanoseconds,
                };
                let per_second = (unit.per_day() / 86_400) as u64;
                let (ticks, validity) =
                    ops.string_parse_timestamps(strings, (&program, lenient), per_second, &failed)?;
                (Values::I64(ticks), validity)
            }
            other => {
                return Err(ExecError::Unsupported(format!("`{expr}` as {other}")));
            }
        };
        // (Of a strict parse, Polars raises on the texts it reads no value
        // from; of an inferred format, it may infer another.)
        let what = if lenient {
            format!(
                "texts not of the form {form} in `{expr}`, which Polars' parser may read in \
                 another form"
            )
        } else {
            format!(
                "texts not of the form {form}, or no date or time, in `{expr}`, which Polars' \
                 parser may read in another form or raise on"
            )
        };
        self.check_later(failed, what, ExecError::DependsOnPolars);
        Ok(DeviceColumn::from_parts(
            "".into(),
            expr.dtype,
            frame.height,
            values,
            Some(validity),
        ))
    }
}
