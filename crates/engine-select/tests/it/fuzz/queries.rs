//! Random cases: three tables (a main one, another for joins, one of the main one's schema for unions) and a chain of lazy operations over them.

use polars::prelude::*;
use rand::RngExt;
use rand::seq::{IndexedRandom, SliceRandom};

use super::code::List;
use super::expr::{Agg, E, Lit, Op};
use super::grammar::{Context, Grammar, Ty, nested_moved_or_chosen};
use super::list_functions::list_function;
use super::plan::{Case, Plan};
use super::table::{random_height, random_schema, random_table};
use super::{Files, Rng};

/// The schema of `plan`, as Polars resolves it, or `None` where Polars rejects the plan.
pub fn schema_of(plan: &Plan, frames: &[DataFrame]) -> Option<Vec<(String, DataType)>> {
    // (Polars' type coercion panics on a few plans: those are rejected too.)
    let tables: Vec<LazyFrame> = frames.iter().cloned().map(DataFrame::lazy).collect();
    let schema = super::oracle::quietly(|| plan.build(&tables).collect_schema())
        .ok()?
        .ok()?;
    Some(
        schema
            .iter()
            .map(|(name, dtype)| (name.to_string(), dtype.clone()))
            .collect(),
    )
}

/// A random case.
pub fn random_case(rng: &mut Rng) -> Case {
    let s0 = random_schema(rng, 'a');
    let mut s1 = random_schema(rng, 'p');
    // A column the right side shares by name (its own type, or the same).
    if rng.random_bool(0.3) {
        let (name, dtype) = s0.choose(rng).unwrap().clone();
        let dtype = if rng.random_bool(0.6) {
            dtype
        } else {
            s1[0].1.clone()
        };
        s1[0] = (name, dtype);
    }
    let mut tables = Vec::new();
    for schema in [&s0, &s1, &s0] {
        let height = random_height(rng);
        tables.push(random_table(rng, schema, height));
    }
    let frames: Vec<DataFrame> = tables.iter().map(|t| t.frame()).collect();
    let mut plan = if rng.random_bool(0.08) {
        Plan::Union(vec![Plan::Scan(0), Plan::Scan(2)])
    } else {
        Plan::Scan(0)
    };
    let ops = rng.random_range(1..=4);
    let mut fresh = 0;
    for _ in 0..ops {
        for _ in 0..8 {
            let Some(schema) = schema_of(&plan, &frames) else {
                break;
            };
            let Some(next) = random_op(rng, &plan, schema, &frames, &mut fresh) else {
                continue;
            };
            if schema_of(&next, &frames).is_some() {
                plan = next;
                break;
            }
        }
    }
    // One case in four runs partitioned, in partitions of a few rows (drawn
    // last, so that a seed's tables and plan stay what they were).
    let partition_rows = rng
        .random_bool(0.25)
        .then(|| *[1, 2, 3, 5, 8].choose(rng).unwrap());
    // Half of those read their tables from files, in partitions: a Parquet
    // file each, or (a quarter each) three Parquet files or a CSV file.
    let files = match partition_rows.is_some() && rng.random_bool(0.5) {
        false => Files::Memory,
        true => *[
            Files::Parquet,
            Files::Parquet,
            Files::SeveralParquet,
            Files::Csv,
        ]
        .choose(rng)
        .unwrap(),
    };
    // One case in four moves every result the executor keeps for later
    // (a join's left side, a union's earlier inputs, a shared subplan's
    // result) to host memory and back.
    let spill_kept = rng.random_bool(0.25);
    Case {
        tables,
        plan,
        partition_rows,
        files,
        spill_kept,
    }
}

/// A fresh output name that the schema does not hold.
fn fresh_name(fresh: &mut usize, schema: &[(String, DataType)], prefix: &str) -> String {
    loop {
        let name = format!("{prefix}{fresh}");
        *fresh += 1;
        if !schema.iter().any(|(n, _)| *n == name) {
            return name;
        }
    }
}

/// Names each expression: plain columns keep theirs (once), others get fresh ones.
fn named(es: Vec<E>, fresh: &mut usize, schema: &[(String, DataType)], prefix: &str) -> Vec<E> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for e in es {
        if let Op::Col(name) = &e.op {
            if !seen.contains(name) {
                seen.push(name.clone());
                out.push(e);
            }
            continue;
        }
        let name = fresh_name(fresh, schema, prefix);
        seen.push(name.clone());
        out.push(e.alias(&name));
    }
    out
}

fn random_op(
    rng: &mut Rng,
    plan: &Plan,
    schema: Vec<(String, DataType)>,
    frames: &[DataFrame],
    fresh: &mut usize,
) -> Option<Plan> {
    let ordered = plan.ordered();
    let input = Box::new(plan.clone());
    let depth = rng.random_range(1..=3);
    // Lists (of a group-by's values) exploded, or functions of them.
    let lists: Vec<(String, DataType)> = schema
        .iter()
        .filter_map(|(name, dtype)| match dtype {
            DataType::List(values) => Some((name.clone(), (**values).clone())),
            _ => None,
        })
        .collect();
    if let Some((list, values)) = lists.choose(rng).cloned()
        && rng.random_bool(0.4)
    {
        return Some(if rng.random_bool(0.5) {
            let options = (rng.random_bool(0.7), rng.random_bool(0.7));
            // Sometimes with another list column (often of the same
            // lengths: a group-by's lists).
            let mut names = vec![list];
            if let Some((other, _)) = lists.choose(rng)
                && rng.random_bool(0.3)
                && !names.contains(other)
            {
                names.push(other.clone());
            }
            // (Or a select of the lists exploded, each on its own.)
            if rng.random_bool(0.25) {
                let exploded = names.iter().map(|n| E::new(Op::Explode, vec![E::col(n)]));
                return Some(Plan::Select(
                    input,
                    named(exploded.collect(), fresh, &schema, "x"),
                ));
            }
            Plan::Explode(input, names, options)
        } else {
            let n = rng.random_range(1..=3);
            let functions = (0..n)
                .map(|_| {
                    let name = fresh_name(fresh, &schema, "x");
                    list_function(rng, &values, E::col(&list), ordered).alias(&name)
                })
                .collect();
            Plan::WithColumns(input, functions)
        });
    }
    // Structs unnested, their fields read, renamed, replaced, added or
    // dropped, tested for nulls; or built of columns.
    let structs: Vec<(String, Vec<String>)> = schema
        .iter()
        .filter_map(|(name, dtype)| match dtype {
            // (A struct of no fields has none to read.)
            DataType::Struct(fields) if !fields.is_empty() => Some((
                name.clone(),
                fields.iter().map(|f| f.name().to_string()).collect(),
            )),
            _ => None,
        })
        .collect();
    if let Some((name, fields)) = structs.choose(rng).cloned()
        && rng.random_bool(0.4)
    {
        return Some(if rng.random_bool(0.4) {
            Plan::Unnest(input, name)
        } else {
            let field = fields.choose(rng).unwrap().clone();
            let read = match rng.random_range(0..10) {
                // Or tested for nulls, or its fields renamed.
                0 | 1 => E::new(Op::IsNull, vec![E::col(&name)]),
                2 => {
                    let names = (0..fields.len()).map(|i| format!("r{i}")).collect();
                    E::new(Op::RenameFields(names), vec![E::col(&name)])
                }
                // Or a field added (a test of a field) and one replaced
                // (by another's values), the struct kept or read.
                3 | 4 => {
                    let other = fields.choose(rng).unwrap().clone();
                    let tested = E::new(Op::IsNull, vec![E::leaf(Op::Field(other.clone()))]);
                    let mut args = vec![E::col(&name), tested.alias("w0")];
                    if rng.random_bool(0.5) {
                        args.push(E::leaf(Op::Field(other)).alias(&field));
                    }
                    let with = E::new(Op::WithFields, args);
                    match rng.random_bool(0.5) {
                        true => with,
                        false => E::new(Op::StructField(field), vec![with]),
                    }
                }
                // Or a field dropped.
                5 => E::new(Op::DropFields(vec![field]), vec![E::col(&name)]),
                _ => E::new(Op::StructField(field), vec![E::col(&name)]),
            };
            let fresh = fresh_name(fresh, &schema, "x");
            Plan::WithColumns(input, vec![read.alias(&fresh)])
        });
    }
    // Lists and structs moved whole to other rows or chosen row by row
    // (in ordered plans).
    let nested: Vec<&(String, DataType)> = schema.iter().filter(|(_, d)| d.is_nested()).collect();
    if let Some((name, dtype)) = nested.choose(rng).copied()
        && ordered
        && rng.random_bool(0.15)
    {
        let plain: Vec<(String, DataType)> = schema
            .iter()
            .filter(|(_, dtype)| Ty::of(dtype).is_some())
            .cloned()
            .collect();
        // Now and then a plain column's value in windows partitioned by a
        // list column, or sorted by it.
        if let (DataType::List(_), Some((value, _))) = (dtype, plain.choose(rng))
            && rng.random_bool(0.15)
        {
            let (value, by) = (E::col(value), E::col(name));
            let e = match rng.random_range(0..3) {
                0 => E::new(
                    Op::Over,
                    vec![E::new(Op::Agg(super::expr::Agg::First), vec![value]), by],
                ),
                1 => E::new(Op::Over, vec![E::new(Op::Shift(1), vec![value]), by]),
                _ => E::new(
                    Op::SortBy(rng.random_bool(0.3), rng.random_bool(0.3)),
                    vec![value, by],
                ),
            };
            let fresh = fresh_name(fresh, &schema, "x");
            return Some(Plan::WithColumns(input, vec![e.alias(&fresh)]));
        }
        // Now and then the column's distinct values alone (in order).
        if rng.random_bool(0.1) {
            let distinct = E::new(Op::Unique(true), vec![E::col(name)]);
            return Some(Plan::Select(
                input,
                named(vec![distinct], fresh, &schema, "x"),
            ));
        }
        let value = nested_moved_or_chosen(rng, name, dtype, &plain);
        let fresh = fresh_name(fresh, &schema, "x");
        return Some(Plan::WithColumns(input, vec![value.alias(&fresh)]));
    }
    let texts: Vec<String> = schema
        .iter()
        .filter(|(_, dtype)| matches!(dtype, DataType::String))
        .map(|(name, _)| name.clone())
        .collect();
    if let Some(texts) = texts.choose(rng).cloned()
        && rng.random_bool(0.03)
    {
        // Texts split into a struct of their pieces.
        let p: String = (*[" ", "a", "", "-"].choose(rng).unwrap()).into();
        let n = rng.random_range(1..4);
        let op = if rng.random_bool(0.5) {
            Op::SplitN(p, n)
        } else {
            Op::SplitExact(p, n, rng.random_bool(0.3))
        };
        let made = E::new(op, vec![E::col(&texts)]);
        let name = fresh_name(fresh, &schema, "x");
        return Some(Plan::WithColumns(input, vec![made.alias(&name)]));
    }
    // Wide to long: a few columns as values (all the others, sometimes)
    // beside a few index columns.
    if rng.random_bool(0.03) {
        let index = rng.random_range(0..=2.min(schema.len()));
        let index: Vec<String> = schema
            .sample(rng, index)
            .map(|(name, _)| name.clone())
            .collect();
        let on = rng.random_bool(0.7).then(|| {
            let n = rng.random_range(1..=3.min(schema.len()));
            schema
                .sample(rng, n)
                .map(|(name, _)| name.clone())
                .collect()
        });
        let variable = fresh_name(fresh, &schema, "x");
        let value = fresh_name(fresh, &schema, "x");
        return Some(Plan::Unpivot {
            input,
            on,
            index,
            names: (variable, value),
        });
    }
    if rng.random_bool(0.03) {
        let n = rng.random_range(1..=3.min(schema.len()));
        let fields = schema
            .sample(rng, n)
            .map(|(name, _)| E::col(name))
            .collect();
        let made = E::new(Op::AsStruct, fields);
        let name = fresh_name(fresh, &schema, "x");
        // The struct, or its rows tested for repeats (by their place too,
        // in a defined order), or its distinct rows counted.
        let tests: &[Op] = match ordered {
            true => &[
                Op::IsDuplicated,
                Op::IsUnique,
                Op::IsFirstDistinct,
                Op::IsLastDistinct,
            ],
            false => &[Op::IsDuplicated, Op::IsUnique],
        };
        let made = match rng.random_range(0..4) {
            0 => E::new(tests.choose(rng).unwrap().clone(), vec![made]),
            1 => E::new(Op::Agg(super::expr::Agg::NUnique), vec![made]),
            _ => made,
        };
        return Some(Plan::WithColumns(input, vec![made.alias(&name)]));
    }
    if ordered && rng.random_bool(0.03) {
        // A Series or a range as long as the frame (now and then a row
        // off, which Polars raises on), as a new column or in place of
        // one, or alone in a select.
        let tables: Vec<LazyFrame> = frames.iter().cloned().map(DataFrame::lazy).collect();
        let collected = super::oracle::quietly(|| plan.build(&tables).collect());
        if let Ok(Ok(df)) = collected {
            let n = match rng.random_range(0..8) {
                0 => df.height() + 1,
                1 => df.height().saturating_sub(1),
                _ => df.height(),
            };
            let values = match rng.random_bool(0.3) {
                // (A constant of as many values: a range.)
                true => {
                    let start = rng.random_range(-3..3);
                    Op::RangeLit(start, start + n as i64)
                }
                false => Op::SeriesLit(series_values(rng, n)),
            };
            let name = match rng.random_bool(0.3) {
                true => schema.choose(rng).unwrap().0.clone(),
                false => fresh_name(fresh, &schema, "x"),
            };
            let made = E::leaf(values).alias(&name);
            return Some(match rng.random_bool(0.7) {
                true => Plan::WithColumns(input, vec![made]),
                false => {
                    let kept = schema.choose(rng).unwrap().0.clone();
                    let kept = (kept != name && rng.random_bool(0.7)).then(|| E::col(&kept));
                    Plan::Select(input, kept.into_iter().chain([made]).collect())
                }
            });
        }
    }
    let mut g = Grammar {
        rng,
        schema: schema.clone(),
        ordered,
        context: Context::Rows,
    };
    Some(match g.rng.random_range(0..100) {
        // Windows by keys of their own (which the partitioned executor
        // runs in steps where they share none).
        0..=17 if g.rng.random_bool(0.12) => Plan::Filter(input, g.predicate_of_own_windows(depth)),
        // Functions of a few rows around each row alone, and running
        // functions (which the partitioned executor runs between the rows
        // around each partition), in plans of a defined order.
        0..=17 if ordered && g.rng.random_bool(0.08) => Plan::Filter(input, g.predicate_around()),
        18..=31 if ordered && g.rng.random_bool(0.08) => {
            let es = g.rows_around();
            Plan::Select(input, named(es, fresh, &schema, "x"))
        }
        32..=49 if ordered && g.rng.random_bool(0.1) => {
            let es = g.rows_around();
            Plan::WithColumns(input, named(es, fresh, &schema, "x"))
        }
        18..=31 if g.rng.random_bool(0.1) => {
            let es = g.windows_by_own_keys(depth);
            Plan::Select(input, named(es, fresh, &schema, "x"))
        }
        32..=49 if g.rng.random_bool(0.12) => {
            let es = g.windows_by_own_keys(depth);
            Plan::WithColumns(input, named(es, fresh, &schema, "x"))
        }
        0..=17 => Plan::Filter(input, g.value(Ty::Bool, depth)),
        // The distinct values of one expression (sorted now and then) and
        // their counts.
        18..=31 if g.rng.random_bool(0.05) => {
            let ty = g.any_ty();
            let values = g
                .column_named(ty)
                .filter(|_| g.rng.random_bool(0.7))
                .map_or_else(|| g.value(ty, 1), |c| E::col(&c));
            let op = match g.rng.random_range(0..10) {
                // Runs of equal values in the rows' order.
                0 if g.ordered => Op::Rle,
                0..=2 => Op::UniqueCounts,
                3 | 4 => Op::Mode(g.rng.random_bool(0.6)),
                5 => Op::Unique(g.rng.random_bool(0.5)),
                _ => Op::ValueCounts(g.rng.random_bool(0.7), g.rng.random_bool(0.3)),
            };
            // (Of unique, now and then the values not null.)
            let values = match op {
                Op::Unique(_) if g.rng.random_bool(0.3) => E::new(Op::DropNulls, vec![values]),
                _ => values,
            };
            let mut counted = E::new(op, vec![values]);
            // (Or the valid ones of the distinct values.)
            if matches!(counted.op, Op::Unique(_)) && g.rng.random_bool(0.2) {
                counted = E::new(Op::DropNulls, vec![counted]);
            }
            if matches!(counted.op, Op::Unique(true)) && g.rng.random_bool(0.2) {
                // The first ones (in the order they come).
                counted = E::new(Op::Head(g.rng.random_range(0..4)), vec![counted]);
            } else if matches!(&counted.op, Op::Unique(_) | Op::DropNulls) && g.rng.random_bool(0.5)
            {
                // Sorted.
                let sort = Op::Sort(g.rng.random_bool(0.5), g.rng.random_bool(0.5));
                counted = E::new(sort, vec![counted]);
            }
            if matches!(counted.op, Op::UniqueCounts) && g.rng.random_bool(0.2) {
                // The first or last rows of the values not null instead.
                let n = g.rng.random_range(0..4);
                let op = match g.rng.random_range(0..3) {
                    0 => Op::Head(n),
                    1 => Op::Tail(n),
                    _ => Op::Slice(-3, n),
                };
                let values = counted.args.swap_remove(0);
                counted = E::new(op, vec![E::new(Op::DropNulls, vec![values])]);
            }
            if matches!(counted.op, Op::Mode(_)) && g.rng.random_bool(0.4) {
                // The most frequent value (the first or last mode).
                let pick = *[Agg::First, Agg::Last].choose(g.rng).unwrap();
                counted = E::new(Op::Agg(pick), vec![counted]);
            }
            Plan::Select(input, named(vec![counted], fresh, &schema, "x"))
        }
        // One exploded expression: a list column's, or texts split.
        18..=31 if g.rng.random_bool(0.1) => {
            let list_columns: Vec<&String> = schema
                .iter()
                .filter(|(_, dtype)| matches!(dtype, DataType::List(_)))
                .map(|(name, _)| name)
                .collect();
            let lists = match list_columns.choose(g.rng) {
                Some(name) if g.rng.random_bool(0.5) => E::col(name),
                _ => {
                    let texts = g.value(Ty::Str, depth);
                    g.texts_listed(texts)
                }
            };
            let exploded = || E::new(Op::Explode, vec![lists.clone()]);
            // Now and then several expressions of the one explode (and
            // literals), or the counts of its values: the lists exploded
            // first.
            use super::expr::{Agg, Lit};
            let es = match g.rng.random_range(0..10) {
                0 => {
                    let op = Op::ValueCounts(g.rng.random_bool(0.7), g.rng.random_bool(0.3));
                    vec![E::new(op, vec![exploded()])]
                }
                1..=4 => (0..g.rng.random_range(1..4))
                    .map(|_| match g.rng.random_range(0..8) {
                        0 => E::new(Op::Agg(Agg::Count), vec![exploded()]),
                        1 => E::new(Op::Agg(Agg::NUnique), vec![exploded()]),
                        // (The first value and a shift read the rows'
                        // order: of inputs in one the query defines.)
                        2 if g.ordered => E::new(Op::Agg(Agg::First), vec![exploded()]),
                        3 => E::new(Op::Agg(Agg::NullCount), vec![exploded()]),
                        4 => E::new(Op::IsNull, vec![exploded()]),
                        5 if g.ordered => E::new(Op::Shift(1), vec![exploded()]),
                        6 => E::lit(Lit::Int(g.rng.random_range(-2..3))),
                        _ => exploded(),
                    })
                    .collect(),
                // Aggregations of the explode beside the input's length
                // and an aggregation of one of its columns (over the
                // input's rows, side by side).
                5 => {
                    let mut es = vec![
                        E::new(Op::Agg(Agg::NUnique), vec![exploded()]),
                        E::leaf(Op::Len),
                    ];
                    if let Some((name, _)) = schema.choose(g.rng) {
                        es.push(E::new(Op::Agg(Agg::Count), vec![E::col(name)]));
                    }
                    if g.rng.random_bool(0.5) {
                        es.swap(0, 1);
                    }
                    es
                }
                _ => vec![exploded()],
            };
            Plan::Select(input, named(es, fresh, &schema, "x"))
        }
        // Expressions that keep the same rows (a filter or a slice inside
        // them), and aggregations repeated on every row kept.
        18..=31 if g.rng.random_bool(0.06) => {
            let es = g.filtered_alike(depth);
            Plan::Select(input, named(es, fresh, &schema, "x"))
        }
        // Windows mapped by explode.
        18..=31 if g.ordered && g.rng.random_bool(0.04) => {
            let windows = g.exploded_windows(depth);
            Plan::Select(input, named(windows, fresh, &schema, "x"))
        }
        18..=31 => {
            let n = g.rng.random_range(1..5);
            let es = (0..n).map(|_| g.projection(depth)).collect();
            Plan::Select(input, named(es, fresh, &schema, "x"))
        }
        32..=49 => {
            let n = g.rng.random_range(1..4);
            let mut es: Vec<E> = (0..n).map(|_| g.projection(depth)).collect();
            // Some replace a column of the input.
            let mut out = Vec::new();
            for e in es.drain(..) {
                if g.rng.random_bool(0.2) {
                    let (name, _) = schema.choose(g.rng).unwrap().clone();
                    out.push(e.alias(&name));
                } else {
                    out.push(e.alias(&fresh_name(fresh, &schema, "x")));
                }
            }
            // Now and then a column of the Null type (`lit(None)`), which
            // the operators above carry.
            if g.rng.random_bool(0.1) {
                out.push(E::lit(Lit::Null).alias(&fresh_name(fresh, &schema, "x")));
            }
            Plan::WithColumns(input, out)
        }
        50..=57 => {
            let n = g.rng.random_range(1..4);
            let by: Vec<E> = (0..n)
                .map(|_| {
                    let ty = g.any_ty();
                    if g.rng.random_bool(0.8) {
                        g.column_named(ty)
                            .map_or_else(|| g.value(ty, 1), |c| E::col(&c))
                    } else {
                        g.value(ty, 1)
                    }
                })
                .collect();
            // A struct or list column among the keys now and then.
            let mut by = by;
            let nested: Vec<&String> = schema
                .iter()
                .filter(|(_, dtype)| matches!(dtype, DataType::Struct(_) | DataType::List(_)))
                .map(|(name, _)| name)
                .collect();
            if let Some(name) = nested.choose(g.rng)
                && g.rng.random_bool(0.4)
            {
                by.insert(g.rng.random_range(0..=by.len()), E::col(name));
            }
            // A window by keys of its own now and then (the partitioned
            // executor computes such keys first).
            if g.rng.random_bool(0.1) {
                let window = g.windows_by_own_keys(1).swap_remove(0);
                by.insert(g.rng.random_range(0..=by.len()), window);
            }
            let n = by.len();
            let descending = (0..n).map(|_| g.rng.random_bool(0.4)).collect();
            let nulls_last = (0..n).map(|_| g.rng.random_bool(0.5)).collect();
            Plan::Sort {
                input,
                by,
                descending,
                nulls_last,
                maintain_order: g.rng.random_bool(0.6),
            }
        }
        // Time windows of a date, timestamp or integer column (sorted by it
        // first).
        58..=72
            if g.rng.random_bool(0.3)
                && let Some(index) = schema
                    .iter()
                    .filter(|(_, dtype)| {
                        matches!(
                            dtype,
                            DataType::Date
                                | DataType::Datetime(_, None)
                                | DataType::Int32
                                | DataType::Int64
                        )
                    })
                    .map(|(name, _)| name.clone())
                    .collect::<Vec<_>>()
                    .choose(g.rng)
                    .cloned() =>
        {
            g.context = Context::Groups;
            let n = g.rng.random_range(1..4);
            let aggs: Vec<E> = (0..n).map(|_| g.aggregation(depth)).collect();
            let mut taken = schema.clone();
            taken.push((index.clone(), DataType::Null));
            let aggs = aggs
                .into_iter()
                .map(|a| a.alias(&fresh_name(fresh, &taken, "x")))
                .collect();
            // Windows of integers ("3i") of an integer index.
            let integer = matches!(
                schema.iter().find(|(name, _)| *name == index),
                Some((_, DataType::Int32 | DataType::Int64))
            );
            let (everies, offsets, periods): (&[&str], &[&str], &[&str]) = match integer {
                true => (
                    &["2i", "3i", "7i", "50i"],
                    &["0i", "0i", "1i", "-2i"],
                    &["1i", "5i", "20i"],
                ),
                false => (
                    &["1d", "3d", "12h", "1w", "1mo", "1y"],
                    &["0ns", "0ns", "1d", "-6h", "2d", "1mo"],
                    &["6h", "2d", "36h", "10d", "2mo"],
                ),
            };
            let every = *everies.choose(g.rng).unwrap();
            // Windows of another period now and then (overlapping or with
            // gaps), started by the first time or a weekday too.
            let period = match g.rng.random_bool(0.35) {
                true => *periods.choose(g.rng).unwrap(),
                false => every,
            };
            let start_by = match g.rng.random_range(0..10) {
                0 | 1 => StartBy::DataPoint,
                2 => StartBy::Monday,
                _ => StartBy::WindowBound,
            };
            let offset = *offsets.choose(g.rng).unwrap();
            // A rolling group-by now and then (windows closed on either
            // side, or neither, too).
            let rolling = g.rng.random_bool(0.4);
            let closings: &[ClosedWindow] = match rolling {
                true => &[
                    ClosedWindow::Left,
                    ClosedWindow::Right,
                    ClosedWindow::Both,
                    ClosedWindow::None,
                ],
                false => &[
                    ClosedWindow::Left,
                    ClosedWindow::Right,
                    ClosedWindow::Both,
                    ClosedWindow::None,
                ],
            };
            let closed = *closings.choose(g.rng).unwrap();
            let label = *[Label::Left, Label::Right, Label::DataPoint]
                .choose(g.rng)
                .unwrap();
            // Within the rows of a key or two now and then.
            let keys = match g.rng.random_bool(0.5) {
                true => {
                    let n = g.rng.random_range(1..3);
                    let others: Vec<&String> = schema
                        .iter()
                        .map(|(name, _)| name)
                        .filter(|name| **name != index)
                        .collect();
                    others
                        .sample(g.rng, n)
                        .map(|name| (*name).clone())
                        .collect()
                }
                false => Vec::new(),
            };
            // Each window's boundaries as columns now and then.
            let boundaries = !rolling && g.rng.random_bool(0.25);
            Plan::GroupByDynamic {
                input,
                index,
                keys,
                rolling,
                every,
                period,
                start_by,
                offset,
                closed,
                label,
                boundaries,
                aggs,
            }
        }
        58..=72 => {
            let mut keys = g.keys(2);
            if g.rng.random_bool(0.1) {
                let window = g.windows_by_own_keys(1).swap_remove(0);
                keys.push(window.alias(&fresh_name(fresh, &schema, "k")));
            }
            // Keys as one struct now and then, or beside a struct or list
            // column.
            let structs: Vec<&String> = schema
                .iter()
                .filter(|(_, dtype)| matches!(dtype, DataType::Struct(_) | DataType::List(_)))
                .map(|(name, _)| name)
                .collect();
            if g.rng.random_bool(0.08) {
                keys = vec![E::new(Op::AsStruct, keys)];
            } else if let Some(name) = structs.choose(g.rng)
                && g.rng.random_bool(0.5)
            {
                keys.push(E::col(name));
            }
            let keys = named(keys, fresh, &schema, "k");
            g.context = Context::Groups;
            let n = g.rng.random_range(1..5);
            let mut aggs: Vec<E> = (0..n).map(|_| g.aggregation(depth)).collect();
            // Now and then every aggregation of one exploded list (a list
            // column's, or texts split): the values listed, counted,
            // distinct, first.
            let lists: Vec<E> = schema
                .iter()
                .filter_map(|(name, dtype)| match dtype {
                    DataType::List(_) => Some(E::col(name)),
                    DataType::String => {
                        let p: String = (*[" ", "a", ""].choose(g.rng).unwrap()).into();
                        Some(E::new(Op::Split(p, false), vec![E::col(name)]))
                    }
                    _ => None,
                })
                .collect();
            if let Some(lists) = lists.choose(g.rng)
                && g.rng.random_bool(0.08)
            {
                use super::expr::Agg;
                let exploded = || E::new(Op::Explode, vec![lists.clone()]);
                let n = g.rng.random_range(1..4);
                aggs = (0..n)
                    .map(|_| match g.rng.random_range(0..5) {
                        0 => exploded(),
                        1 => E::new(Op::Agg(Agg::Count), vec![exploded()]),
                        2 => E::new(Op::Agg(Agg::NUnique), vec![exploded()]),
                        3 => E::new(Op::Agg(Agg::First), vec![exploded()]),
                        _ => E::new(Op::Agg(Agg::NullCount), vec![exploded()]),
                    })
                    .collect();
            }
            // Now and then the counts of distinct values of one column, alone
            // or beside a length and one other aggregation (which the
            // partitioned executor runs as the distinct pairs of keys and
            // value, counted per key, where the others add up).
            if let Some((name, _)) = schema.choose(g.rng)
                && g.rng.random_bool(0.06)
            {
                use super::expr::Agg;
                let n = g.rng.random_range(1..3);
                let others = match g.rng.random_bool(0.5) {
                    true => vec![E::leaf(Op::Len), aggs[0].clone()],
                    false => Vec::new(),
                };
                aggs = (0..n)
                    .map(|_| E::new(Op::Agg(Agg::NUnique), vec![E::col(name)]))
                    .chain(others)
                    .collect();
            }
            // Now and then structs or lists listed per group in the rows'
            // order: a struct or list column's, or structs built of plain
            // columns (`agg(pl.struct(..))`, or its first or last).
            if g.ordered && g.rng.random_bool(0.1) {
                let plain: Vec<&String> = schema
                    .iter()
                    .filter(|(_, dtype)| Ty::of(dtype).is_some_and(|ty| ty != Ty::Cat))
                    .map(|(name, _)| name)
                    .collect();
                let n = g.rng.random_range(1..=plain.len().clamp(1, 3));
                let fields: Vec<E> = plain.sample(g.rng, n).map(|name| E::col(name)).collect();
                let nested: Vec<&String> = schema
                    .iter()
                    .filter(|(_, dtype)| dtype.is_nested())
                    .map(|(name, _)| name)
                    .collect();
                let listed = match nested.choose(g.rng) {
                    // Now and then moved within each group first, or
                    // chosen against a null by a test of a field.
                    Some(name) if g.rng.random_bool(0.3) => {
                        let shift = Op::Shift(g.rng.random_range(-2..=2));
                        match g.rng.random_range(0..3) {
                            0 => E::new(shift, vec![E::col(name)]),
                            1 => E::new(Op::Reverse, vec![E::col(name)]),
                            _ => match fields.first() {
                                Some(field) => {
                                    let test = E::new(Op::IsNotNull, vec![field.clone()]);
                                    let null = E::leaf(Op::Lit(Lit::Null));
                                    E::new(Op::When, vec![test, E::col(name), null])
                                }
                                None => E::col(name),
                            },
                        }
                    }
                    Some(name) if fields.is_empty() || g.rng.random_bool(0.5) => E::col(name),
                    // (Or such a struct's first or last per group.)
                    _ if !fields.is_empty() => {
                        let made = E::new(Op::AsStruct, fields);
                        match g.rng.random_range(0..4) {
                            0 => E::new(Op::Agg(Agg::First), vec![made]),
                            1 => E::new(Op::Agg(Agg::Last), vec![made]),
                            _ => made,
                        }
                    }
                    _ => E::leaf(Op::Len),
                };
                aggs.push(listed);
            }
            let key_names: Vec<(String, DataType)> = keys
                .iter()
                .filter_map(|k| match &k.op {
                    Op::Col(name) | Op::Alias(name) => Some((name.clone(), DataType::Null)),
                    _ => None,
                })
                .collect();
            let mut taken = schema.clone();
            taken.extend(key_names);
            let aggs = aggs
                .into_iter()
                .map(|a| a.alias(&fresh_name(fresh, &taken, "x")))
                .collect();
            Plan::GroupBy {
                input,
                keys,
                aggs,
                stable: g.rng.random_bool(0.5),
            }
        }
        73..=83 => return join(g.rng, input, &schema, frames),
        84..=86 => {
            let subset = g.rng.random_bool(0.6).then(|| {
                let n = g.rng.random_range(1..=2.min(schema.len()));
                schema
                    .sample(g.rng, n)
                    .map(|(name, _)| name.clone())
                    .collect::<Vec<_>>()
            });
            // Which row of a duplicate "first" and "last" keep depends on
            // the input's order; "any" is any row, so only of whole rows.
            let keep = if subset.is_none() && g.rng.random_bool(0.2) {
                UniqueKeepStrategy::Any
            } else if ordered {
                *[
                    UniqueKeepStrategy::First,
                    UniqueKeepStrategy::Last,
                    UniqueKeepStrategy::None,
                ]
                .choose(g.rng)
                .unwrap()
            } else if subset.is_none() {
                *[UniqueKeepStrategy::First, UniqueKeepStrategy::None]
                    .choose(g.rng)
                    .unwrap()
            } else {
                UniqueKeepStrategy::None
            };
            Plan::Unique {
                input,
                subset,
                keep,
                stable: g.rng.random_bool(0.5),
            }
        }
        87..=90 if ordered => {
            Plan::Slice(input, g.rng.random_range(-6..6), g.rng.random_range(0..12))
        }
        91..=92 if ordered => {
            let name = fresh_name(fresh, &schema, "idx");
            Plan::WithRowIndex(input, name, g.rng.random_range(0..3))
        }
        93 => Plan::Union(vec![(*input).clone(), *input]),
        // Stacked over a part of the other table (of other names, mostly,
        // and types to unite), each side's missing columns null.
        94 if g.rng.random_bool(0.4) => {
            let part = Plan::Slice(Box::new(Plan::Scan(1)), 0, g.rng.random_range(0..4));
            Plan::Diagonal(vec![*input, part])
        }
        // Rows paired by place: in a defined order only. The join table's
        // columns (of other names, mostly) beside the input's.
        94 if ordered => Plan::HConcat(vec![*input, Plan::Scan(1)]),
        94 => Plan::Union(vec![(*input).clone(), *input]),
        95..=97 => {
            let subset = g
                .rng
                .random_bool(0.5)
                .then(|| vec![schema.choose(g.rng).unwrap().0.clone()]);
            Plan::DropNulls(input, subset)
        }
        98..=99 if ordered => Plan::Reverse(input),
        _ => return None,
    })
}

/// A join of the plan with table 1 (or with itself), on keys of one class.
fn join(
    rng: &mut Rng,
    left: Box<Plan>,
    left_schema: &[(String, DataType)],
    frames: &[DataFrame],
) -> Option<Plan> {
    let how = match rng.random_range(0..100) {
        0..=29 => JoinType::Inner,
        30..=54 => JoinType::Left,
        55..=62 => JoinType::Right,
        63..=72 => JoinType::Full,
        73..=84 => JoinType::Semi,
        85..=95 => JoinType::Anti,
        _ => JoinType::Cross,
    };
    let right = if rng.random_bool(0.1) {
        (*left).clone()
    } else {
        Plan::Scan(1)
    };
    let right_schema = schema_of(&right, frames)?;
    if rng.random_bool(0.15)
        && left.ordered()
        && let Some(asof) = asof_join(rng, &left, left_schema, &right, &right_schema)
    {
        return Some(asof);
    }
    let maintain_order = *[
        MaintainOrderJoin::None,
        MaintainOrderJoin::None,
        MaintainOrderJoin::Left,
        MaintainOrderJoin::LeftRight,
        MaintainOrderJoin::Right,
        MaintainOrderJoin::RightLeft,
    ]
    .choose(rng)
    .unwrap();
    let nulls_equal = rng.random_bool(0.2);
    if how == JoinType::Cross {
        return Some(Plan::Join {
            left,
            right: Box::new(right),
            left_on: vec![],
            right_on: vec![],
            how,
            nulls_equal,
            maintain_order,
        });
    }
    let n = rng.random_range(1..=2);
    let (mut left_on, mut right_on) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let pairs: Vec<(String, String)> = left_schema
            .iter()
            .flat_map(|(l, lt)| {
                right_schema.iter().filter_map(move |(r, rt)| {
                    let (lc, rc) = (Ty::of(lt)?, Ty::of(rt)?);
                    let compatible =
                        lc == rc || matches!((lc, rc), (Ty::Int | Ty::UInt, Ty::Int | Ty::UInt));
                    compatible.then(|| (l.clone(), r.clone()))
                })
            })
            .collect();
        let (l, r) = pairs.choose(rng)?.clone();
        let (mut le, mut re) = (E::col(&l), E::col(&r));
        let lt = left_schema.iter().find(|(n, _)| *n == l).unwrap().1.clone();
        if rng.random_bool(0.1) && lt.is_integer() {
            let m = super::expr::Lit::Int(rng.random_range(2..4));
            le = E::new(Op::Rem, vec![le, E::lit(m.clone())]);
            re = E::new(Op::Rem, vec![re, E::lit(m)]);
        }
        left_on.push(le);
        right_on.push(re);
    }
    // Now and then a pair of list columns of one type besides (or, of a
    // join with itself, instead of) the pairs drawn.
    let list_pairs: Vec<(String, String)> = left_schema
        .iter()
        .filter(|(_, lt)| matches!(lt, DataType::List(_)))
        .flat_map(|(l, lt)| {
            (right_schema.iter())
                .filter(move |(_, rt)| rt == lt)
                .map(move |(r, _)| (l.clone(), r.clone()))
        })
        .collect();
    if let Some((l, r)) = list_pairs.choose(rng)
        && rng.random_bool(0.2)
    {
        if rng.random_bool(0.5) {
            (left_on, right_on) = (Vec::new(), Vec::new());
        }
        left_on.push(E::col(l));
        right_on.push(E::col(r));
    }
    if left_on.len() == 2 && rng.random_bool(0.15) {
        // Both pairs as one struct of keys on each side (fields named
        // alike).
        let pack = |keys: Vec<E>| {
            let fields = (keys.into_iter().enumerate())
                .map(|(i, key)| key.alias(&format!("f{i}")))
                .collect();
            vec![E::new(Op::AsStruct, fields)]
        };
        (left_on, right_on) = (pack(left_on), pack(right_on));
    }
    Some(Plan::Join {
        left,
        right: Box::new(right),
        left_on,
        right_on,
        how,
        nulls_equal,
        maintain_order,
    })
}

/// A `join_asof` of `left` with `right` on a pair of their columns of one
/// integer, float, decimal, temporal, text or boolean type, each side sorted by its key first (nulls
/// first, or now and then last, among the values, or not sorted at all:
/// Polars then raises or reads the keys as they come, and the GPU runs
/// what its scans read alike, else leaves it to Polars): any
/// strategy, exact matches or not, a tolerance (in the keys' unit, a
/// fraction, mostly for float keys, or a duration) or none, Polars' check
/// of the keys' order or not, now and then by groups of one to three other
/// pairs of columns, now and then on keys computed (each plus one).
fn asof_join(
    rng: &mut Rng,
    left: &Plan,
    left_schema: &[(String, DataType)],
    right: &Plan,
    right_schema: &[(String, DataType)],
) -> Option<Plan> {
    // Now and then the left side with itself (which has such pairs).
    let (right, right_schema) = match rng.random_bool(0.3) {
        true => (left, left_schema),
        false => (right, right_schema),
    };
    let keyable = |dtype: &DataType| {
        dtype.is_primitive_numeric()
            || dtype.is_temporal()
            || dtype.is_decimal()
            || dtype.is_string()
            || dtype.is_bool()
    };
    let pairs: Vec<(String, String, DataType)> = left_schema
        .iter()
        .filter(|(_, dtype)| keyable(dtype))
        .flat_map(|(l, lt)| {
            (right_schema.iter())
                .filter(move |(_, rt)| rt == lt)
                .map(move |(r, _)| (l.clone(), r.clone(), lt.clone()))
        })
        .collect();
    let (l, r, dtype) = pairs.choose(rng)?.clone();
    let mut sorted = |input: &Plan, key: &str| match rng.random_range(0..12) {
        0 => input.clone(),
        n => Plan::Sort {
            input: Box::new(input.clone()),
            // Now and then the nulls among the values, as the first value
            // (a stable sort by the key, nulls as that value).
            by: vec![match n {
                2 => {
                    let first = E::new(Op::Agg(Agg::First), vec![E::col(key)]);
                    E::new(Op::FillNull, vec![E::col(key), first])
                }
                _ => E::col(key),
            }],
            descending: vec![false],
            nulls_last: vec![n == 1],
            maintain_order: true,
        },
    };
    let (left, right) = (sorted(left, &l), sorted(right, &r));
    let strategy = *[
        AsofStrategy::Backward,
        AsofStrategy::Forward,
        AsofStrategy::Nearest,
    ]
    .choose(rng)
    .unwrap();
    let (mut tolerance, mut tolerance_str) = (None, None);
    if rng.random_bool(0.4) {
        if dtype.is_temporal() && rng.random_bool(0.5) {
            tolerance_str = Some((*["1d", "3h", "1w"].choose(rng).unwrap()).into());
        } else if rng.random_bool(if dtype.is_float() { 0.6 } else { 0.15 }) {
            let fractions = [0.5f64, 1.25, -0.75, 0.0, -0.0, f64::NAN, f64::INFINITY];
            tolerance = Some(Scalar::from(*fractions.choose(rng).unwrap()));
        } else {
            tolerance = Some(Scalar::from(rng.random_range(-2..4i64)));
        }
    }
    // Now and then by groups: one to three pairs of other columns of one
    // integer, temporal, float, text, categorical, decimal or boolean type
    // (a boolean alone Polars refuses to join by), each column in one pair
    // at most.
    let groupable = |dtype: &DataType| {
        dtype.is_integer()
            || dtype.is_temporal()
            || dtype.is_float()
            || dtype.is_string()
            || dtype.is_bool()
            || dtype.is_categorical()
            || dtype.is_enum()
            || dtype.is_decimal()
    };
    let right_key = r.as_str();
    let mut by_pairs: Vec<(String, String)> = (left_schema.iter())
        .filter(|(name, dtype)| *name != l && groupable(dtype))
        .flat_map(|(lb, lt)| {
            (right_schema.iter())
                .filter(move |(name, rt)| name != right_key && rt == lt)
                .map(|(rb, _)| (lb.clone(), rb.clone()))
        })
        .collect();
    by_pairs.shuffle(rng);
    let wanted = match rng.random_bool(0.4) {
        true => *[1, 1, 2, 3].choose(rng).unwrap(),
        false => 0,
    };
    let (mut left_by, mut right_by): (Vec<PlSmallStr>, Vec<PlSmallStr>) = (vec![], vec![]);
    for (lb, rb) in by_pairs {
        let (lb, rb) = (PlSmallStr::from(lb), PlSmallStr::from(rb));
        if left_by.len() < wanted && !left_by.contains(&lb) && !right_by.contains(&rb) {
            left_by.push(lb);
            right_by.push(rb);
        }
    }
    let (left_by, right_by) = match left_by.is_empty() {
        true => (None, None),
        false => (Some(left_by), Some(right_by)),
    };
    // Now and then keys computed, each side's plus one (its order kept,
    // but where an integer wraps).
    let computed = dtype.is_primitive_numeric() && rng.random_bool(0.2);
    let key = |name: &str| match computed {
        true => E::new(Op::Add, vec![E::col(name), E::lit(Lit::Int(1))]),
        false => E::col(name),
    };
    let options = AsOfOptions {
        strategy,
        tolerance,
        tolerance_str,
        left_by,
        right_by,
        allow_eq: rng.random_bool(0.7),
        check_sortedness: rng.random_bool(0.6),
    };
    Some(Plan::Join {
        left: Box::new(left),
        right: Box::new(right),
        left_on: vec![key(&l)],
        right_on: vec![key(&r)],
        how: JoinType::AsOf(Box::new(options)),
        nulls_equal: false,
        maintain_order: MaintainOrderJoin::None,
    })
}

/// `n` values of a Series literal: integers, floats or texts, some null.
fn series_values(rng: &mut Rng, n: usize) -> List {
    let null = |rng: &mut Rng| rng.random_bool(0.15);
    match rng.random_range(0..3) {
        0 => List::Int(
            (0..n)
                .map(|_| (!null(rng)).then(|| rng.random_range(-5..5)))
                .collect(),
        ),
        1 => List::Float(
            (0..n)
                .map(|_| (!null(rng)).then(|| *[0.0, -0.0, 1.5, f64::NAN].choose(rng).unwrap()))
                .collect(),
        ),
        _ => List::Str(
            (0..n)
                .map(|_| (!null(rng)).then(|| (*["a", "", "É"].choose(rng).unwrap()).into()))
                .collect(),
        ),
    }
}
