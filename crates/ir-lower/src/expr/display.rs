//! Expressions written in Polars' notation (`col("a").sum()`), as reasons and plans show them.

use super::*;

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Null => f.write_str("null"),
            Scalar::Boolean(v) => write!(f, "{v}"),
            Scalar::Int(v) => write!(f, "{v}"),
            Scalar::UInt(v) => write!(f, "{v}"),
            Scalar::Float(v) => write!(f, "{v:?}"),
            Scalar::String(v) => write!(f, "{v:?}"),
            Scalar::Date(v) => write!(f, "{v}d"),
            Scalar::Datetime(v) | Scalar::Duration(v) | Scalar::Time(v) => write!(f, "{v}"),
        }
    }
}

/// The scaled integer `v` of a decimal of `scale`, as Polars writes the
/// decimal (every place: `0.05`, `-10.50`).
fn decimal_text(v: i64, scale: usize) -> String {
    let digits = v.unsigned_abs().to_string();
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (whole, places) = digits.split_at(digits.len() - scale);
    let sign = if v < 0 { "-" } else { "" };
    match scale {
        0 => format!("{sign}{whole}"),
        _ => format!("{sign}{whole}.{places}"),
    }
}

impl fmt::Display for AggOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AggOp::Sum => f.write_str("sum"),
            AggOp::Product => f.write_str("product"),
            AggOp::Mean => f.write_str("mean"),
            AggOp::Min { propagate_nans } => {
                f.write_str(if *propagate_nans { "nan_min" } else { "min" })
            }
            AggOp::Max { propagate_nans } => {
                f.write_str(if *propagate_nans { "nan_max" } else { "max" })
            }
            AggOp::Median => f.write_str("median"),
            AggOp::NUnique => f.write_str("n_unique"),
            AggOp::ArgMin => f.write_str("arg_min"),
            AggOp::ArgMax => f.write_str("arg_max"),
            AggOp::Join { separator, .. } => write!(f, "str.join({separator:?})"),
            AggOp::First => f.write_str("first"),
            AggOp::Item { .. } => f.write_str("item"),
            AggOp::Get { index, .. } => write!(f, "get[{index}]"),
            AggOp::Last => f.write_str("last"),
            AggOp::Count {
                include_nulls: false,
            } => f.write_str("count"),
            AggOp::Count {
                include_nulls: true,
            } => f.write_str("count_with_nulls"),
            AggOp::Std { ddof, .. } => write!(f, "std[ddof={ddof}]"),
            AggOp::Var { ddof, .. } => write!(f, "var[ddof={ddof}]"),
            AggOp::Quantile { quantile, method } => write!(f, "quantile[{quantile}, {method}]"),
            AggOp::Implode => f.write_str("implode"),
            AggOp::Mode {
                maintain_order: true,
            } => f.write_str("mode_stable"),
            AggOp::Mode {
                maintain_order: false,
            } => f.write_str("mode"),
        }
    }
}

impl fmt::Display for TextPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextPattern::Literal(text) => write!(f, "{text:?}"),
            TextPattern::Regex(dfa) => write!(f, "regex({:?})", dfa.pattern()),
        }
    }
}

impl fmt::Display for StringOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StringOp::Contains(text) => write!(f, "str.contains({text:?})"),
            StringOp::ContainsPattern(alternatives) => {
                let alternatives: Vec<String> =
                    alternatives.iter().map(|a| format!("{a:?}")).collect();
                write!(f, "str.contains_pattern({})", alternatives.join(" | "))
            }
            StringOp::ContainsRegex(dfa) => write!(f, "str.contains_regex({:?})", dfa.pattern()),
            StringOp::StartsWith(text) => write!(f, "str.starts_with({text:?})"),
            StringOp::EndsWith(text) => write!(f, "str.ends_with({text:?})"),
            StringOp::LenBytes => f.write_str("str.len_bytes"),
            StringOp::LenChars => f.write_str("str.len_chars"),
            StringOp::CountMatches(pattern) => write!(f, "str.count_matches({pattern})"),
            StringOp::Find(pattern) => write!(f, "str.find({pattern})"),
            StringOp::Extract(pattern) => write!(f, "str.extract({pattern})"),
            StringOp::ExtractAll(pattern) => write!(f, "str.extract_all({pattern})"),
            StringOp::ExtractGroup { group, dfas } => {
                write!(f, "str.extract(regex({:?}), {group})", dfas.whole.pattern())
            }
            StringOp::Slice { offset, length } => match length {
                Some(length) => write!(f, "str.slice({offset}, {length})"),
                None => write!(f, "str.slice({offset})"),
            },
            StringOp::DropLast(count) => write!(f, "str.head(-{count})"),
            StringOp::ToUppercase => f.write_str("str.to_uppercase"),
            StringOp::ToLowercase => f.write_str("str.to_lowercase"),
            StringOp::Replace {
                pattern,
                value,
                limit,
            } => match limit {
                Some(limit) => write!(f, "str.replace({pattern}, {value:?}, n={limit})"),
                None => write!(f, "str.replace_all({pattern}, {value:?})"),
            },
            StringOp::ReplaceMany {
                patterns,
                values,
                leftmost,
                ascii_case_insensitive,
            } => {
                write!(f, "str.replace_many({patterns:?}, {values:?}")?;
                if *ascii_case_insensitive {
                    f.write_str(", ascii_case_insensitive=true")?;
                }
                if *leftmost {
                    f.write_str(", leftmost=true")?;
                }
                f.write_str(")")
            }
            StringOp::ReplaceGroups {
                dfas,
                template,
                limit,
                ..
            } => {
                let pattern = dfas.whole.pattern();
                let value: String = template
                    .iter()
                    .map(|piece| match piece {
                        TemplatePiece::Text(text) => text.replace('$', "$$"),
                        TemplatePiece::Match => "${0}".into(),
                        TemplatePiece::Group(n) => format!("${{{n}}}"),
                    })
                    .collect();
                match limit {
                    Some(limit) => {
                        write!(f, "str.replace(regex({pattern:?}), {value:?}, n={limit})")
                    }
                    None => write!(f, "str.replace_all(regex({pattern:?}), {value:?})"),
                }
            }
            StringOp::Split {
                separator,
                inclusive,
            } => write!(f, "str.split({separator:?}, inclusive={inclusive})"),
            StringOp::Pad { length, fill, side } => match side {
                PadSide::Start => write!(f, "str.pad_start({length}, {fill:?})"),
                PadSide::End => write!(f, "str.pad_end({length}, {fill:?})"),
                PadSide::Zeros => write!(f, "str.zfill({length})"),
            },
            StringOp::Strip { set, start, end } => {
                let which = match (start, end) {
                    (true, false) => "_start",
                    (false, true) => "_end",
                    _ => "",
                };
                match set {
                    Some(set) => write!(f, "str.strip_chars{which}({:?})", String::from_iter(set)),
                    None => write!(f, "str.strip_chars{which}"),
                }
            }
        }
    }
}

impl fmt::Display for DistinctTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DistinctTest::Unique => "is_unique",
            DistinctTest::Duplicated => "is_duplicated",
            DistinctTest::FirstDistinct => "is_first_distinct",
            DistinctTest::LastDistinct => "is_last_distinct",
        })
    }
}

impl fmt::Display for FloatCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FloatCheck::IsNan => "is_nan",
            FloatCheck::IsNotNan => "is_not_nan",
            FloatCheck::IsFinite => "is_finite",
            FloatCheck::IsInfinite => "is_infinite",
        })
    }
}

impl fmt::Display for TemporalPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TemporalPart::Year => "dt.year",
            TemporalPart::Quarter => "dt.quarter",
            TemporalPart::Month => "dt.month",
            TemporalPart::Day => "dt.day",
            TemporalPart::Weekday => "dt.weekday",
            TemporalPart::OrdinalDay => "dt.ordinal_day",
            TemporalPart::Week => "dt.week",
            TemporalPart::Hour => "dt.hour",
            TemporalPart::Minute => "dt.minute",
            TemporalPart::Second => "dt.second",
            TemporalPart::Millisecond => "dt.millisecond",
            TemporalPart::Microsecond => "dt.microsecond",
            TemporalPart::Nanosecond => "dt.nanosecond",
        })
    }
}

impl fmt::Display for NamedExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.expr.kind {
            ExprKind::Column { name, .. } if *name == self.name => write!(f, "{}", self.expr),
            _ => write!(f, "{} as {:?}", self.expr, self.name),
        }
    }
}

impl fmt::Display for GpuExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            // As Polars names a column (its position is the plan's business).
            // (A list's values in `list.eval`, as Polars writes them.)
            ExprKind::Column { name, .. }
                if *name == polars_plan::constants::get_pl_element_name() =>
            {
                f.write_str("element()")
            }
            ExprKind::Column {
                name,
                held: Held::PerRow,
                ..
            } => write!(f, "col({:?})", name.as_str()),
            ExprKind::Column { name, held, .. } => {
                write!(f, "col({:?})({held:?})", name.as_str())
            }
            // A decimal by its value, not its scaled integer.
            ExprKind::Literal(Scalar::Int(v)) if let GpuDtype::Decimal(_, scale) = self.dtype => {
                write!(f, "{}:{}", decimal_text(*v, scale.into()), self.dtype)
            }
            ExprKind::Literal(value) => write!(f, "{value}:{}", self.dtype),
            ExprKind::Binary { op, left, right } => {
                write!(f, "({left} {} {right})", op.symbol())
            }
            ExprKind::Not(input) => write!(f, "not({input})"),
            ExprKind::Negate(input) => write!(f, "neg({input})"),
            ExprKind::Abs(input) => write!(f, "abs({input})"),
            ExprKind::Unary { function, input } => write!(f, "{}({input})", function.name()),
            ExprKind::OnHost {
                function: HostFunction::Log { base },
                input,
                ..
            } => write!(f, "log({input}, {base:?})"),
            ExprKind::OnHost {
                function: HostFunction::Pow { exponent },
                input,
                ..
            } => write!(f, "pow({input}, {exponent:?})"),
            ExprKind::OnHost {
                function:
                    HostFunction::IntPow {
                        exponent: Some(exponent),
                        ..
                    },
                input,
                ..
            } => write!(f, "pow({input}, {exponent})"),
            ExprKind::OnHost {
                function: HostFunction::RoundSigFigs { digits },
                input,
                ..
            } => write!(f, "round_sig_figs({input}, {digits})"),
            ExprKind::OnHost {
                function,
                input,
                other: Some(other),
            } => write!(f, "{}({input}, {other})", function.name()),
            ExprKind::OnHost {
                function, input, ..
            } => write!(f, "{}({input})", function.name()),
            ExprKind::CumSum(input) => write!(f, "cum_sum({input})"),
            ExprKind::CumProd(input) => write!(f, "cum_prod({input})"),
            ExprKind::Strftime { input, format } => {
                let text = FormatPart::text(format);
                write!(f, "{input}.dt.to_string({text:?})")
            }
            ExprKind::ParseTemporal { input, format, .. } => {
                let function = match self.dtype {
                    GpuDtype::Date => "to_date",
                    GpuDtype::Time => "to_time",
                    _ => "to_datetime",
                };
                let text = FormatPart::text(format);
                write!(f, "{input}.str.{function}({text:?})")
            }
            ExprKind::CumExtreme {
                input,
                minimum,
                reverse,
            } => {
                let name = if *minimum { "cum_min" } else { "cum_max" };
                let reversed = if *reverse { ", reverse" } else { "" };
                write!(f, "{name}({input}{reversed})")
            }
            ExprKind::Rolling {
                input,
                function,
                window,
            } => {
                let (name, parameters) = match function {
                    RollingFunction::Sum => ("rolling_sum", None),
                    RollingFunction::Mean => ("rolling_mean", None),
                    RollingFunction::Min => ("rolling_min", None),
                    RollingFunction::Max => ("rolling_max", None),
                    RollingFunction::First => ("rolling_first", None),
                    RollingFunction::Last => ("rolling_last", None),
                    RollingFunction::Var { ddof } => ("rolling_var", Some(format!("ddof={ddof}"))),
                    RollingFunction::Std { ddof } => ("rolling_std", Some(format!("ddof={ddof}"))),
                    RollingFunction::Quantile { quantile, method } => (
                        "rolling_quantile",
                        Some(format!("quantile={quantile}, method={method}")),
                    ),
                };
                match window {
                    RollingWindow::Rows {
                        size,
                        min_periods,
                        center,
                    } => {
                        write!(f, "{input}.{name}({size}, min_periods={min_periods}")?;
                        if *center {
                            write!(f, ", center=true")?;
                        }
                    }
                    RollingWindow::Times {
                        by,
                        period,
                        offset,
                        min_periods,
                        closed,
                    } => {
                        let closed = match closed {
                            Closed::Both => "both",
                            Closed::Left => "left",
                            Closed::Right => "right",
                            Closed::None => "none",
                        };
                        write!(
                            f,
                            "{input}.{name}_by({by}, {period} ticks, min_periods={min_periods}, \
                             closed={closed}"
                        )?;
                        if *offset != period.wrapping_neg() {
                            write!(f, ", offset={offset} ticks")?;
                        }
                    }
                    RollingWindow::Slices { place } => {
                        write!(f, "{input}.{name}_over_slices({place}")?;
                    }
                }
                if let Some(parameters) = parameters {
                    write!(f, ", {parameters}")?;
                }
                write!(f, ")")
            }
            ExprKind::Ewm {
                input,
                function,
                options,
            } => {
                let name = match function {
                    EwmFunction::Mean => "ewm_mean",
                    EwmFunction::Var => "ewm_var",
                    EwmFunction::Std => "ewm_std",
                };
                let EwmOptions {
                    alpha,
                    adjust,
                    bias,
                    min_periods,
                    ignore_nulls,
                } = options;
                write!(
                    f,
                    "{input}.{name}(alpha={alpha}, adjust={adjust}, min_periods={min_periods}, \
                     ignore_nulls={ignore_nulls}"
                )?;
                if *function != EwmFunction::Mean {
                    write!(f, ", bias={bias}")?;
                }
                write!(f, ")")
            }
            ExprKind::Shift { input, periods } => write!(f, "{input}.shift({periods})"),
            ExprKind::Reverse(input) => write!(f, "{input}.reverse()"),
            ExprKind::Gather { input, indices, .. } => write!(f, "{input}.gather({indices})"),
            ExprKind::SetSorted {
                input,
                descending,
                nulls_last,
                ..
            } => {
                write!(f, "{input}.set_sorted(descending={descending}")?;
                if let Some(nulls_last) = nulls_last {
                    write!(f, ", nulls_last={nulls_last}")?;
                }
                write!(f, ")")
            }
            ExprKind::Rank {
                input,
                method,
                descending,
            } => {
                let order = if *descending { ", descending" } else { "" };
                write!(f, "rank({input}, {method:?}{order})")
            }
            ExprKind::Distinct { input, test } => write!(f, "{test}({input})"),
            ExprKind::Where { input, by } => write!(f, "filter({input}, {by})"),
            ExprKind::SortedBy {
                input,
                order,
                unstable,
            } => {
                write!(f, "sort_by({input}")?;
                for order in order {
                    let descending = if order.descending { ", descending" } else { "" };
                    let nulls = if order.nulls_last { ", nulls last" } else { "" };
                    write!(f, ", {}{descending}{nulls}", order.key)?;
                }
                if unstable.is_some() {
                    f.write_str(", unstable")?;
                }
                f.write_str(")")
            }
            ExprKind::Truncate { input, every } => write!(f, "dt.truncate({input}, {every:?})"),
            ExprKind::OffsetMonths { input, months } => {
                write!(f, "dt.offset_by({input}, {months}mo)")
            }
            ExprKind::Localized {
                input,
                zone,
                ambiguous,
                non_existent_raises,
                ..
            } => {
                let non_existent = if *non_existent_raises {
                    "raise"
                } else {
                    "null"
                };
                write!(
                    f,
                    "{input}.dt.replace_time_zone(\"{zone}\", ambiguous=\"{}\", \
                     non_existent=\"{non_existent}\")",
                    ambiguous.name()
                )
            }
            ExprKind::LocalTime { input, zone } => {
                write!(
                    f,
                    "{input}.dt.convert_time_zone(\"{zone}\").dt.replace_time_zone(null)"
                )
            }
            ExprKind::Fill {
                input,
                forward,
                limit,
            } => {
                let how = if *forward {
                    "forward_fill"
                } else {
                    "backward_fill"
                };
                match limit {
                    Some(limit) => write!(f, "{how}({input}, limit={limit})"),
                    None => write!(f, "{how}({input})"),
                }
            }
            ExprKind::IsNull(input) => write!(f, "is_null({input})"),
            ExprKind::IsNotNull(input) => write!(f, "is_not_null({input})"),
            ExprKind::FloatCheck { check, input } => write!(f, "{check}({input})"),
            ExprKind::Cast { input, mode } => {
                let how = match mode {
                    CastMode::Strict => "strict_cast",
                    CastMode::NonStrict => "cast",
                    CastMode::Wrapping => "wrapping_cast",
                    CastMode::Physical => "physical_cast",
                };
                write!(f, "{how}({input} -> {})", self.dtype)
            }
            ExprKind::Ternary {
                predicate,
                truthy,
                falsy,
            } => write!(f, "when({predicate}, {truthy}, {falsy})"),
            ExprKind::FillNull { input, value } => write!(f, "fill_null({input}, {value})"),
            ExprKind::IsIn {
                input,
                values,
                nulls_equal,
            } => {
                let values: Vec<String> = values.iter().map(ToString::to_string).collect();
                let nulls = if *nulls_equal { ", nulls_equal" } else { "" };
                write!(f, "is_in({input}, [{}]{nulls})", values.join(", "))
            }
            ExprKind::IsInColumn {
                input,
                other,
                nulls_equal,
            } => {
                let nulls = if *nulls_equal { ", nulls_equal" } else { "" };
                write!(f, "is_in({input}, implode({other}){nulls})")
            }
            ExprKind::ListsEqual {
                left,
                right,
                missing,
            } => match missing {
                true => write!(f, "{left}.eq_missing({right})"),
                false => write!(f, "({left} == {right})"),
            },
            ExprKind::InLists {
                item,
                lists,
                nulls_equal,
            } => {
                let nulls = if *nulls_equal { ", nulls_equal" } else { "" };
                write!(f, "is_in({item}, {lists}{nulls})")
            }
            ExprKind::MatchesRow {
                how,
                input,
                pattern,
            } => {
                let how = match how {
                    RowMatch::StartsWith => "starts_with",
                    RowMatch::EndsWith => "ends_with",
                    RowMatch::Contains => "contains",
                    RowMatch::Find => "find",
                };
                write!(f, "{input}.str.{how}({pattern})")
            }
            ExprKind::IsBetween {
                input,
                lower,
                upper,
                closed,
            } => write!(f, "is_between({input}, {lower}, {upper}, {closed:?})"),
            ExprKind::Round {
                input,
                mode: Rounding::Floor,
                ..
            } => write!(f, "floor({input})"),
            ExprKind::Round {
                input,
                mode: Rounding::Ceil,
                ..
            } => write!(f, "ceil({input})"),
            ExprKind::Round {
                input,
                decimals,
                mode,
            } => write!(f, "round({input}, {decimals}, {mode:?})"),
            ExprKind::Clip {
                input,
                lower,
                upper,
            } => write!(f, "clip({input}, {lower}, {upper})"),
            ExprKind::Unique {
                input,
                maintain_order,
            } => {
                let order = if *maintain_order {
                    ", maintain_order"
                } else {
                    ""
                };
                write!(f, "unique({input}{order})")
            }
            ExprKind::String { op, input } => write!(f, "{op}({input})"),
            ExprKind::StringByRows {
                how,
                input,
                by,
                length,
            } => match length {
                Some(length) => write!(f, "{input}.{}({by}, {length})", how.name()),
                None => write!(f, "{input}.{}({by})", how.name()),
            },
            ExprKind::List { function, input } => write!(f, "{function}({input})"),
            ExprKind::StructField { name, input, .. } => {
                write!(f, "struct.field({input}, {name:?})")
            }
            ExprKind::MakeStruct(inputs) => {
                let inputs: Vec<String> = inputs.iter().map(ToString::to_string).collect();
                write!(f, "struct({})", inputs.join(", "))
            }
            ExprKind::WithFields { input, fields } => {
                let fields: Vec<String> = fields.iter().map(ToString::to_string).collect();
                write!(f, "struct.with_fields({input}, {})", fields.join(", "))
            }
            ExprKind::ConcatList(inputs) => {
                let inputs: Vec<String> = inputs.iter().map(ToString::to_string).collect();
                write!(f, "concat_list({})", inputs.join(", "))
            }
            ExprKind::IntRanges { start, end, step } => {
                write!(f, "int_ranges({start}, {end}, {step})")
            }
            ExprKind::PolarsOwnWhere { shown, .. } => f.write_str(shown),
            ExprKind::Temporal { part, input } => write!(f, "{part}({input})"),
            ExprKind::Agg { op, input } => write!(f, "{op}({input})"),
            ExprKind::Len => f.write_str("len()"),
            ExprKind::ConcatStr {
                inputs,
                separator,
                ignore_nulls,
            } => {
                let inputs: Vec<String> = inputs.iter().map(ToString::to_string).collect();
                let nulls = if *ignore_nulls { ", ignore_nulls" } else { "" };
                write!(
                    f,
                    "concat_str([{}], {separator:?}{nulls})",
                    inputs.join(", ")
                )
            }
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } => {
                let keys: Vec<String> = partition_by.iter().map(ToString::to_string).collect();
                write!(f, "{function}.over([{}]", keys.join(", "))?;
                if let Some(order) = order_by {
                    let descending = if order.descending { ", descending" } else { "" };
                    let nulls = if order.nulls_last { ", nulls last" } else { "" };
                    write!(f, ", order_by={}{descending}{nulls}", order.key)?;
                }
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_literals_show_their_values() {
        let shown = |v: i64, scale: u8| {
            GpuExpr::literal(Scalar::Int(v), GpuDtype::Decimal(18, scale)).to_string()
        };
        assert_eq!(shown(1050, 2), "10.50:decimal[18,2]");
        assert_eq!(shown(-5, 2), "-0.05:decimal[18,2]");
        assert_eq!(shown(0, 3), "0.000:decimal[18,3]");
        assert_eq!(shown(-7, 0), "-7:decimal[18,0]");
        assert_eq!(shown(i64::MIN, 4), "-922337203685477.5808:decimal[18,4]");
    }
}
