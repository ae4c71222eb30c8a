//! Operations of the as-of join kernels (`kernels/cuda/asof.cu`): the right row each left key matches.

use super::*;

/// Which right row an as-of join matches to a left key (Polars'
/// `AsofStrategy`), numbered as `asof.cu` numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AsofStrategy {
    /// The last right key at most the left key.
    Backward = 0,
    /// The first right key at least the left key.
    Forward = 1,
    /// The nearer of the two (see [`Ops::asof_search`]).
    Nearest = 2,
}

/// How an as-of join matches: its strategy, whether a right key equal to
/// the left one matches (`allow_eq`), and the largest distance between the
/// two keys a match may have (Polars' `tolerance`, as an absolute value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AsofMatch {
    pub strategy: AsofStrategy,
    pub allow_eq: bool,
    pub tolerance: Option<u64>,
}

/// Key types the as-of search takes (narrower integers and temporal
/// values widened to these first).
pub trait AsofKey: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(AsofKey: i64 => asof_search_i64, u64 => asof_search_u64);

/// The groups of an as-of join by groups (Polars' `by`): each left row's
/// group number (-1 for a null group, which matches nothing), and the
/// right side in the order of its groups: each position's group
/// (ascending) and right row. The right keys passed with them are in that
/// order too.
#[derive(Debug, Clone, Copy)]
pub struct AsofGroups<'a> {
    pub left: &'a DeviceBuffer<i64>,
    pub right: &'a DeviceBuffer<i64>,
    pub right_rows: &'a DeviceBuffer<i64>,
}

impl Ops<'_> {
    /// For every left key, the right row Polars' `join_asof` matches, -1
    /// where none does (a null left key, none found, or one farther than the
    /// tolerance), within the left row's group of right rows where `groups`
    /// are given. The right keys (of a group) must be ascending with their
    /// nulls in one run at the start or at the end, the left keys (of a
    /// group) ascending apart from their nulls (as Polars' scans read them;
    /// the caller checks that): the kernel finds each match by binary
    /// searches. Backward: the last right row whose key is at most the left
    /// key (below it without `allow_eq`); forward: the first whose key is at
    /// least it (above it); nearest: with `allow_eq` the last right row of
    /// the left key where there is one (but not where no key is above it and
    /// nulls end the right keys: so Polars' scan misses it), else the nearer
    /// of the last row below the left key and the last row of the first key
    /// above it, the latter where both are as near.
    pub fn asof_search<K: AsofKey>(
        &self,
        (left, left_validity): (&DeviceBuffer<K>, Option<&DeviceBuffer<u32>>),
        (right, right_validity): (&DeviceBuffer<K>, Option<&DeviceBuffer<u32>>),
        groups: Option<AsofGroups<'_>>,
        how: AsofMatch,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        let (n_left, n_right) = (left.len(), right.len());
        check_bitmap(left_validity, n_left, "left validity")?;
        check_bitmap(right_validity, n_right, "right validity")?;
        if let Some(groups) = groups {
            check(groups.left.len() == n_left, || {
                format!("{} left groups for {n_left} rows", groups.left.len())
            })?;
            let right = (groups.right.len(), groups.right_rows.len());
            check(right == (n_right, n_right), || {
                format!("{right:?} right groups and rows for {n_right} rows")
            })?;
        }
        let out = self.output::<i64>(n_left)?;
        let args = KernelArgs::new()
            .buffer(left)
            .arg(ptr(left_validity))
            .arg(n_left as u64)
            .arg(ptr(groups.map(|g| g.left)))
            .buffer(right)
            .arg(ptr(right_validity))
            .arg(ptr(groups.map(|g| g.right)))
            .arg(ptr(groups.map(|g| g.right_rows)))
            .arg(n_right as u64)
            .arg(how.strategy as u32)
            .arg(u32::from(how.allow_eq))
            .arg(u32::from(how.tolerance.is_some()))
            .arg(how.tolerance.unwrap_or(0))
            .buffer(&out);
        self.launch(K::KERNEL, Self::linear(n_left), args)?;
        Ok(out)
    }
}
