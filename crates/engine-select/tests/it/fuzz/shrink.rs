//! Shrinking a failing case: fewer operations, smaller expressions, fewer rows and columns, plainer values, while it still fails the same way.

use super::Files;
use super::expr::{E, Op};
use super::plan::{Case, Plan};
use super::table::Table;

/// The smallest case found, within `budget` runs of `fails`, that still fails.
pub fn shrink(case: Case, fails: impl Fn(&Case) -> bool, budget: usize) -> Case {
    let mut best = case;
    let mut runs = 0;
    'outer: loop {
        for candidate in candidates(&best) {
            if candidate == best {
                continue;
            }
            runs += 1;
            if runs > budget {
                break 'outer;
            }
            if fails(&candidate) {
                best = candidate;
                continue 'outer;
            }
        }
        break;
    }
    best
}

/// Smaller cases, the largest reductions first.
fn candidates(case: &Case) -> Vec<Case> {
    let mut out: Vec<Case> = plan_variants(&case.plan)
        .into_iter()
        .map(|plan| Case {
            tables: case.tables.clone(),
            plan,
            ..case.clone()
        })
        .collect();
    // In memory, where it fails partitioned; from memory, where it fails from files.
    if case.partition_rows.is_some() {
        out.push(Case {
            partition_rows: None,
            ..case.clone()
        });
    }
    if case.spill_kept {
        out.push(Case {
            spill_kept: false,
            ..case.clone()
        });
    }
    if case.files != Files::Memory {
        out.push(Case {
            files: Files::Memory,
            ..case.clone()
        });
    }
    let used = case.plan.tables();
    for (n, table) in case.tables.iter().enumerate() {
        if !used.contains(&n) {
            continue;
        }
        for smaller in table_variants(table) {
            let mut tables = case.tables.clone();
            tables[n] = smaller;
            out.push(Case {
                tables,
                ..case.clone()
            });
        }
    }
    out
}

fn table_variants(table: &Table) -> Vec<Table> {
    let mut out = Vec::new();
    let h = table.height();
    // Halves, quarters, ... then single rows.
    let mut chunk = h / 2;
    while chunk >= 1 {
        let mut start = 0;
        while start < h {
            let keep: Vec<usize> = (0..h)
                .filter(|r| *r < start || *r >= start + chunk)
                .collect();
            out.push(table.take(&keep));
            start += chunk;
        }
        if chunk == 1 {
            break;
        }
        chunk /= 2;
    }
    for c in 0..table.columns.len() {
        let mut smaller = table.clone();
        smaller.columns.remove(c);
        if !smaller.columns.is_empty() {
            out.push(smaller);
        }
    }
    if table.split.is_some() {
        out.push(Table {
            split: None,
            ..table.clone()
        });
    }
    for c in 0..table.columns.len() {
        if let Some(values) = table.columns[c].1.simplified() {
            let mut plainer = table.clone();
            plainer.columns[c].1 = values;
            out.push(plainer);
        }
    }
    out
}

/// Each way of making an expression list smaller or simpler (one change each).
fn list_variants(es: &[E], min: usize) -> Vec<Vec<E>> {
    let mut out = Vec::new();
    if es.len() > min {
        for i in 0..es.len() {
            let mut fewer = es.to_vec();
            fewer.remove(i);
            out.push(fewer);
        }
    }
    for (i, e) in es.iter().enumerate() {
        for v in expr_variants(e) {
            let mut simpler = es.to_vec();
            simpler[i] = v;
            out.push(simpler);
        }
    }
    out
}

/// Simpler expressions: a node replaced by one of its inputs, a variadic
/// node with fewer inputs, or the same with a simpler input.
pub fn expr_variants(e: &E) -> Vec<E> {
    let mut out = Vec::new();
    if let Op::Alias(name) = &e.op {
        for v in expr_variants(&e.args[0]) {
            out.push(v.alias(name));
        }
        return out;
    }
    out.extend(e.args.iter().cloned());
    // Inputs that may go: any of a coalesce or concatenation, a window's partitions.
    let (first_removable, min_len) = match e.op {
        Op::Coalesce
        | Op::ConcatStr(..)
        | Op::SumHorizontal(_)
        | Op::MeanHorizontal(_)
        | Op::MinHorizontal
        | Op::MaxHorizontal
        | Op::AllHorizontal
        | Op::AnyHorizontal
        | Op::ConcatList => (0, 1),
        Op::Over | Op::OverJoined | Op::OverExploded => (1, 2),
        Op::OverOrdered(..) => (2, 3),
        _ => (usize::MAX, usize::MAX),
    };
    if e.args.len() > min_len {
        for i in first_removable..e.args.len() {
            let mut fewer = e.args.clone();
            fewer.remove(i);
            out.push(E::new(e.op.clone(), fewer));
        }
    }
    for (i, arg) in e.args.iter().enumerate() {
        for v in expr_variants(arg) {
            let mut args = e.args.clone();
            args[i] = v;
            out.push(E::new(e.op.clone(), args));
        }
    }
    out
}

fn boxed(plan: Plan) -> Box<Plan> {
    Box::new(plan)
}

/// Simpler plans: a node replaced by one of its inputs, its expressions
/// fewer or simpler, or the same with a simpler input.
fn plan_variants(plan: &Plan) -> Vec<Plan> {
    let mut out: Vec<Plan> = plan.inputs().into_iter().cloned().collect();
    match plan {
        Plan::Scan(_) => {}
        Plan::Filter(input, p) => {
            for v in expr_variants(p) {
                out.push(Plan::Filter(input.clone(), v));
            }
        }
        Plan::Select(input, es) => {
            for v in list_variants(es, 1) {
                out.push(Plan::Select(input.clone(), v));
            }
        }
        Plan::WithColumns(input, es) => {
            for v in list_variants(es, 1) {
                out.push(Plan::WithColumns(input.clone(), v));
            }
        }
        Plan::Sort {
            input,
            by,
            descending,
            nulls_last,
            maintain_order,
        } => {
            for i in 0..by.len() {
                if by.len() > 1 {
                    let (mut b, mut d, mut n) =
                        (by.clone(), descending.clone(), nulls_last.clone());
                    b.remove(i);
                    d.remove(i);
                    n.remove(i);
                    out.push(Plan::Sort {
                        input: input.clone(),
                        by: b,
                        descending: d,
                        nulls_last: n,
                        maintain_order: *maintain_order,
                    });
                }
                for v in expr_variants(&by[i]) {
                    let mut b = by.clone();
                    b[i] = v;
                    out.push(Plan::Sort {
                        input: input.clone(),
                        by: b,
                        descending: descending.clone(),
                        nulls_last: nulls_last.clone(),
                        maintain_order: *maintain_order,
                    });
                }
            }
        }
        Plan::GroupBy {
            input,
            keys,
            aggs,
            stable,
        } => {
            for v in list_variants(keys, 1) {
                out.push(Plan::GroupBy {
                    input: input.clone(),
                    keys: v,
                    aggs: aggs.clone(),
                    stable: *stable,
                });
            }
            for v in list_variants(aggs, 0) {
                out.push(Plan::GroupBy {
                    input: input.clone(),
                    keys: keys.clone(),
                    aggs: v,
                    stable: *stable,
                });
            }
        }
        Plan::GroupByDynamic { aggs, keys, .. } => {
            if !keys.is_empty() {
                let mut keyless = plan.clone();
                if let Plan::GroupByDynamic { keys, .. } = &mut keyless {
                    keys.clear();
                }
                out.push(keyless);
            }
            for v in list_variants(aggs, 1) {
                let mut smaller = plan.clone();
                if let Plan::GroupByDynamic { aggs, .. } = &mut smaller {
                    *aggs = v;
                }
                out.push(smaller);
            }
        }
        Plan::Join {
            left,
            right,
            left_on,
            right_on,
            how,
            nulls_equal,
            maintain_order,
        } => {
            let join = |left_on: Vec<E>, right_on: Vec<E>| Plan::Join {
                left: left.clone(),
                right: right.clone(),
                left_on,
                right_on,
                how: how.clone(),
                nulls_equal: *nulls_equal,
                maintain_order: *maintain_order,
            };
            if left_on.len() > 1 {
                for i in 0..left_on.len() {
                    let (mut l, mut r) = (left_on.clone(), right_on.clone());
                    l.remove(i);
                    r.remove(i);
                    out.push(join(l, r));
                }
            }
            for i in 0..left_on.len() {
                for v in expr_variants(&left_on[i]) {
                    let mut l = left_on.clone();
                    l[i] = v;
                    out.push(join(l, right_on.clone()));
                }
                for v in expr_variants(&right_on[i]) {
                    let mut r = right_on.clone();
                    r[i] = v;
                    out.push(join(left_on.clone(), r));
                }
            }
        }
        Plan::Unique {
            input,
            subset: Some(subset),
            keep,
            stable,
        } if subset.len() > 1 => {
            for i in 0..subset.len() {
                let mut s = subset.clone();
                s.remove(i);
                out.push(Plan::Unique {
                    input: input.clone(),
                    subset: Some(s),
                    keep: *keep,
                    stable: *stable,
                });
            }
        }
        Plan::Unpivot {
            input,
            on,
            index,
            names,
        } => {
            // One index column fewer, or one value column fewer.
            for i in 0..index.len() {
                let mut index = index.clone();
                index.remove(i);
                out.push(Plan::Unpivot {
                    input: input.clone(),
                    on: on.clone(),
                    index,
                    names: names.clone(),
                });
            }
            for i in 0..on.as_ref().map_or(0, Vec::len) {
                let mut on = on.clone().unwrap();
                if on.len() > 1 {
                    on.remove(i);
                    out.push(Plan::Unpivot {
                        input: input.clone(),
                        on: Some(on),
                        index: index.clone(),
                        names: names.clone(),
                    });
                }
            }
        }
        Plan::Union(inputs) if inputs.len() > 2 => {
            for i in 0..inputs.len() {
                let mut fewer = inputs.clone();
                fewer.remove(i);
                out.push(Plan::Union(fewer));
            }
        }
        _ => {}
    }
    // The same node over a simpler input.
    let inputs = plan.inputs();
    for (i, input) in inputs.iter().enumerate() {
        for v in plan_variants(input) {
            out.push(with_input(plan, i, v));
        }
    }
    out
}

/// `plan` with its input `i` replaced by `input`.
fn with_input(plan: &Plan, i: usize, input: Plan) -> Plan {
    let mut plan = plan.clone();
    match &mut plan {
        Plan::Scan(_) => {}
        Plan::Filter(x, _)
        | Plan::Select(x, _)
        | Plan::WithColumns(x, _)
        | Plan::Slice(x, _, _)
        | Plan::WithRowIndex(x, _, _)
        | Plan::DropNulls(x, _)
        | Plan::Reverse(x)
        | Plan::Explode(x, ..)
        | Plan::Unnest(x, _)
        | Plan::Unpivot { input: x, .. }
        | Plan::Sort { input: x, .. }
        | Plan::GroupBy { input: x, .. }
        | Plan::GroupByDynamic { input: x, .. }
        | Plan::Unique { input: x, .. } => *x = boxed(input),
        Plan::Join { left, right, .. } => {
            if i == 0 {
                *left = boxed(input);
            } else {
                *right = boxed(input);
            }
        }
        Plan::Union(inputs) | Plan::HConcat(inputs) | Plan::Diagonal(inputs) => inputs[i] = input,
    }
    plan
}
