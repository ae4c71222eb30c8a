//! Partition hashes and buckets: rows of equal keys to one bucket, whatever frame they are in.

use kernels::ids;

use super::strings::string_args;
use super::{Ops, StringsRef, check, check_bitmap, ptr};
use crate::error::RuntimeError;
use crate::launch::KernelArgs;
use crate::memory::DeviceBuffer;

impl Ops<'_> {
    /// Zeroed hashes for `n` rows, for [`Ops::partition_mix_words`] and
    /// [`Ops::partition_mix_strings`] to take the keys into, one after the other.
    pub fn partition_hashes(&self, n: usize) -> Result<DeviceBuffer<u64>, RuntimeError> {
        self.zeroed(n)
    }

    /// Mixes each row's word of a key into its hash (a null key, where
    /// `validity` says so, as a word of its own). Keys that group together
    /// must come as equal words.
    pub fn partition_mix_words(
        &self,
        hashes: &DeviceBuffer<u64>,
        words: &DeviceBuffer<u64>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<(), RuntimeError> {
        let n = hashes.len();
        check(words.len() == n, || {
            format!("{} key words for {n} hashes", words.len())
        })?;
        check_bitmap(validity, n, "validity")?;
        let args = KernelArgs::new()
            .buffer(words)
            .arg(ptr(validity))
            .arg(n as u64)
            .buffer(hashes);
        self.launch(ids::partition_mix_words, Self::linear(n), args)
    }

    /// Mixes each row's text of a key into its hash, by its bytes.
    pub fn partition_mix_strings(
        &self,
        hashes: &DeviceBuffer<u64>,
        strings: StringsRef<'_>,
    ) -> Result<(), RuntimeError> {
        let n = hashes.len();
        let (offsets, _, validity) = strings;
        check(offsets.len() == n + 1, || {
            format!("{} string offsets for {n} hashes", offsets.len())
        })?;
        check_bitmap(validity, n, "validity")?;
        let args = string_args(strings, n).buffer(hashes);
        self.launch(ids::partition_mix_strings, Self::linear(n), args)
    }

    /// Each row's bucket of `buckets` (at least one): its hash modulo `buckets`.
    pub fn partition_buckets(
        &self,
        hashes: &DeviceBuffer<u64>,
        buckets: u32,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        check(buckets > 0, || "no buckets to put rows in".into())?;
        let n = hashes.len();
        let out = self.output::<u32>(n)?;
        let args = KernelArgs::new()
            .buffer(hashes)
            .arg(n as u64)
            .arg(buckets)
            .buffer(&out);
        self.launch(ids::partition_buckets, Self::linear(n), args)?;
        Ok(out)
    }
}
