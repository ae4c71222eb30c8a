//! The 22 PDS-H queries lower to the GPU with no refused piece.

use pdsh::{QUERY_COUNT, Tables, query};

use crate::explain;

#[test]
fn every_pdsh_query_lowers_completely() {
    let tables = Tables::empty().unwrap();
    let mut refused = Vec::new();
    for number in 1..=QUERY_COUNT {
        let text = explain(query(number, &tables).unwrap());
        for line in text.lines().filter(|l| l.starts_with("refused:")) {
            refused.push(format!("q{number} {line}"));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}
