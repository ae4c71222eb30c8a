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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AsofMatch {
    pub strategy: AsofStrategy,
    pub allow_eq: bool,
    pub tolerance: Option<AsofTolerance>,
}

/// The largest distance an as-of match may have, in the keys' terms:
/// integer keys' as an integer, float keys' as a float of their type (an
/// f32's held exactly in the f64), as Polars' `abs_diff` of two keys of
/// that type measures it (a NaN distance is within no tolerance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AsofTolerance {
    Integer(u64),
    Float(f64),
}

/// Key types the as-of search takes (narrower integers and temporal
/// values widened to these first), and whether they are floats.
pub trait AsofKey: DeviceCopy {
    const KERNEL: Kernel;
    const FLOAT: bool;
}

macro_rules! asof_key {
    ($($t:ty => $kernel:ident, $float:expr);*) => {
        $(impl AsofKey for $t {
            const KERNEL: Kernel = ids::$kernel;
            const FLOAT: bool = $float;
        })*
    };
}

asof_key!(i64 => asof_search_i64, false; u64 => asof_search_u64, false;
    f32 => asof_search_f32, true; f64 => asof_search_f64, true);

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
    /// above it, the latter where both are as near. Float keys are ordered
    /// by their total order (NaN above every number, -0.0 equal to 0.0);
    /// nearest reads them as Polars' scan does, which no comparison with a
    /// NaN satisfies (see `asof.cu`).
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
        let tolerance = match how.tolerance {
            None => 0,
            Some(AsofTolerance::Integer(t)) if !K::FLOAT => t,
            Some(AsofTolerance::Float(t)) if K::FLOAT => t.to_bits(),
            Some(other) => {
                return Err(RuntimeError::InvalidArgument(format!(
                    "a tolerance {other:?} for keys of {}",
                    std::any::type_name::<K>()
                )));
            }
        };
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
            .arg(tolerance)
            .buffer(&out);
        self.launch(K::KERNEL, Self::linear(n_left), args)?;
        Ok(out)
    }
}
