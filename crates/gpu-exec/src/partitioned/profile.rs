//! The partitioned executor's profile (`POLARS_GPU_PROFILE`): each node it ran over partitions, with the partitions it gave and the device runs it took.

use ir_lower::PlanNode;

use super::Data;

/// Each node the partitioned executor ran, in plan order (a node before
/// its inputs).
#[derive(Debug, Default)]
pub(super) struct PartitionProfile {
    depth: usize,
    nodes: Vec<NodeParts>,
}

#[derive(Debug)]
struct NodeParts {
    depth: usize,
    line: String,
    /// Partitions of its result (1: whole).
    parts: usize,
    /// Device runs it took, its inputs' included.
    device_runs: usize,
    /// Bytes of its result, waiting on the host.
    bytes: usize,
}

/// A started node's place in the profile.
pub(super) struct Started {
    slot: usize,
    device_runs: usize,
}

impl PartitionProfile {
    /// `node` starts, the executor having made `device_runs` device runs so far.
    pub(super) fn start(&mut self, node: &PlanNode, device_runs: usize) -> Started {
        self.nodes.push(NodeParts {
            depth: self.depth,
            line: node.header(),
            parts: 0,
            device_runs,
            bytes: 0,
        });
        self.depth += 1;
        Started {
            slot: self.nodes.len() - 1,
            device_runs,
        }
    }

    /// The node started as `started` ended with `data` (`None`: it
    /// failed), the executor having made `device_runs` device runs by then.
    pub(super) fn end(&mut self, started: Started, data: Option<&Data>, device_runs: usize) {
        self.depth = self.depth.saturating_sub(1);
        let node = &mut self.nodes[started.slot];
        node.device_runs = device_runs - started.device_runs;
        if let Some(data) = data {
            let parts = match data {
                Data::Whole(df) => std::slice::from_ref(df),
                Data::Parts(parts) => parts.as_slice(),
            };
            node.parts = parts.len();
            node.bytes = parts.iter().map(|df| df.estimated_size()).sum();
        }
    }

    /// The table `POLARS_GPU_PROFILE` prints after a partitioned run.
    pub(super) fn render(&self) -> String {
        let mut out = String::from(
            "partitioned profile (partitions, device runs, bytes on the host, node; a chain of \
             row-wise nodes or a join streaming into the node above counts with it):\n",
        );
        for node in &self.nodes {
            let line: String = node.line.chars().take(110).collect();
            out += &format!(
                "{:>10} {:>6} {:>12}  {}{line}\n",
                node.parts,
                node.device_runs,
                node.bytes,
                "  ".repeat(node.depth)
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ir_lower::{GpuDtype, OutputColumn, PlanNode};
    use polars::prelude::{DataFrame, df};

    use super::{Data, PartitionProfile};

    #[test]
    fn each_node_shows_its_partitions_runs_and_bytes_under_its_parent() {
        let df = df!("k" => [1i64, 2, 3]).unwrap();
        let scan = PlanNode::DataFrameScan {
            df: Arc::new(df.clone()),
            projection: vec![0],
            schema: vec![OutputColumn {
                name: "k".into(),
                dtype: GpuDtype::Int64,
            }],
        };
        let mut profile = PartitionProfile::default();
        let outer = profile.start(&scan, 0);
        let inner = profile.start(&scan, 0);
        let parts = Data::Parts(vec![df.slice(0, 2), df.slice(2, 1)]);
        profile.end(inner, Some(&parts), 0);
        profile.end(outer, Some(&Data::Whole(DataFrame::empty())), 5);
        let text = profile.render();
        let lines: Vec<Vec<&str>> = text
            .lines()
            .skip(1)
            .map(|line| line.split_whitespace().collect())
            .collect();
        assert_eq!(lines[0][..3], ["1", "5", "0"], "{text}");
        assert_eq!(lines[1][..3], ["2", "0", "24"], "{text}");
        let raw: Vec<&str> = text.lines().collect();
        assert!(
            raw[2].contains("    ") && !raw[1].contains("   Scan"),
            "{text}"
        );
    }
}
