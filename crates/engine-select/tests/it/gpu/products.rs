//! Products over the frame, per group and in windows: of integers and booleans (as i64 or u64, wrapping), of floats in the rows' order.

use super::*;

#[test]
fn products_of_integers_match_the_cpu() {
    // Wrapping products of the valid values (1 for none): small integers
    // and booleans as i64, u64 as u64; per group, of a whole frame (empty
    // too, and in chunks past 512 rows), over windows and of a filter in
    // groups.
    // Factors of mostly one in size, so that Polars' debug build, whose
    // products check for overflow, does not panic.
    let mut next = xorshift(29);
    for n in [0usize, 1, 40, 1_500] {
        let mut factor = || -> Option<i64> {
            let x = next();
            (!x.is_multiple_of(6)).then_some(match x % 97 {
                0 => 2,
                1 => -3,
                2 => 0,
                k if k % 2 == 0 => 1,
                _ => -1,
            })
        };
        let (a, b): (Vec<_>, Vec<_>) = (0..n).map(|_| (factor(), factor())).unzip();
        let g: Vec<u32> = (0..n as u32).map(|i| i % 7 / 2).collect();
        let df = df!(
            "g" => g,
            "i8" => a.iter().map(|x| x.map(|x| x as i8)).collect::<Vec<_>>(),
            "u16" => a.iter().map(|x| x.map(|x| x.unsigned_abs() as u16)).collect::<Vec<_>>(),
            "i32" => b.iter().map(|x| x.map(|x| x as i32)).collect::<Vec<_>>(),
            "i64" => a.clone(),
            "u64" => b.iter().map(|x| x.map(|x| x.unsigned_abs())).collect::<Vec<_>>(),
            "b" => b.iter().map(|x| x.map(|x| x != 0)).collect::<Vec<_>>(),
            "none" => vec![None::<i64>; n],
        )
        .unwrap()
        .lazy();
        let products = || {
            ["i8", "u16", "i32", "i64", "u64", "b", "none"]
                .into_iter()
                .map(|name| col(name).product().alias(format!("{name} product")))
                .collect::<Vec<_>>()
        };
        assert_gpu_eq(
            &format!("whole frame, n = {n}"),
            df.clone().select(products()),
        );
        let filtered = col("i64").filter(col("b")).product().alias("filtered");
        assert_gpu_eq(
            &format!("per group, n = {n}"),
            df.clone()
                .group_by_stable([col("g")])
                .agg([products(), vec![filtered]].concat()),
        );
        assert_gpu_eq(
            &format!("windows, n = {n}"),
            df.clone().select([
                col("g"),
                col("i32")
                    .product()
                    .over([col("g")])
                    .unwrap()
                    .alias("window"),
            ]),
        );
    }
}

/// Products of floats: multiplied in the rows' order, as Polars' loop
/// rounds (factors whose product rounds differently in another order),
/// over the frame, per group, in windows and of a filter; NaN, infinities,
/// -0.0 and nulls among them; 1 where no value is valid; f32 in f32.
#[test]
fn products_of_floats_are_multiplied_in_row_order() {
    let mut next = xorshift(41);
    let n = 3_000;
    let f: Vec<Option<f64>> = (0..n)
        .map(|i| match next() % 97 {
            0 => None,
            1 if i > 2_000 => Some(f64::NAN),
            2 if i > 2_500 => Some(f64::INFINITY),
            3 => Some(-0.0),
            r => Some(1.0 + (r as f64 - 48.0) * 1e-3 + (next() % 1000) as f64 * 1e-9),
        })
        .collect();
    let g: Vec<u32> = (0..n as u32).map(|i| i % 11 / 3).collect();
    let df = df!("g" => g, "f" => f).unwrap().lazy().with_columns([
        col("f").cast(DataType::Float32).alias("f32"),
        (col("f").cast(DataType::Int64) % lit(2))
            .eq(lit(0))
            .alias("p"),
    ]);
    let products = || {
        vec![
            col("f").product().alias("f64"),
            col("f32").product().alias("f32"),
            col("f").filter(col("p")).product().alias("filtered"),
            col("f").head(Some(40)).product().alias("head"),
        ]
    };
    assert_gpu_eq("whole frame", df.clone().select(products()));
    assert_gpu_eq(
        "per group",
        df.clone().group_by_stable([col("g")]).agg(products()),
    );
    assert_gpu_eq(
        "windows",
        df.clone()
            .select([col("f").product().over([col("g")]).unwrap().alias("w")]),
    );
    let none = df!("f" => [None::<f64>, None]).unwrap().lazy();
    assert_gpu_eq("no valid value", none.clone().select([col("f").product()]));
    assert_gpu_eq(
        "no rows",
        none.filter(lit(false)).select([col("f").product()]),
    );
}
