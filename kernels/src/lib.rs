//! The CUDA kernel library: the PTX of `kernels/cuda`, typed kernel identifiers, and the host build.
//!
//! `cargo xtask kernels` compiles `cuda/*.cu` to `ptx/*.ptx` and assembles
//! that to `cubin/*.sm_80.cubin` and `cubin/*.sm_90.cubin` (all committed), so
//! building this crate needs no CUDA toolkit. Each [`Kernel`] names a kernel
//! (`{op}_{dtype}`, the same name in the CUDA source) and its [`Module`]. With
//! the `host` feature the same sources are also compiled as C++ against the
//! emulation header (`cuda/include/emu/cuda_emu.h`), and
//! [`Kernel::host_entry`] gives the entry point the emulated device launches,
//! with the same argument packing as `cuLaunchKernel`: an array of pointers,
//! one per kernel parameter.
//!
//! To add a kernel: write it in a `.cu` file with `extern "C" __global__` and
//! `EMU_KERNEL(name)` after it, list it below, run `cargo xtask kernels`, and
//! test it against a Rust reference on the emulated device.

use std::ffi::{c_char, c_int, c_void};

/// A compiled CUDA source file.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Module {
    /// The source's file stem, e.g. "reduce".
    pub name: &'static str,
    /// Its PTX (ISA 9.0, for compute capability 8.0 and newer).
    pub ptx: &'static str,
    /// The same PTX assembled by `ptxas` for the architectures most in use,
    /// so that those GPUs load machine code instead of compiling the PTX on
    /// the first launch.
    pub cubins: &'static [Cubin],
}

/// Machine code of a module for one GPU architecture.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Cubin {
    /// The compute capability it was assembled for, e.g. (9, 0). It runs on
    /// devices of the same major version and an equal or higher minor one.
    pub arch: (u32, u32),
    /// The ELF image `cuModuleLoadData` takes.
    pub image: &'static [u8],
}

/// Of `cubins`, the one for a device of compute capability `cc`, if one
/// runs there (same major version, minor at most the device's; the newest
/// such): sm_80 code runs on 8.6 and 8.9, sm_90 on 9.0, none on 10.0.
pub fn cubin_for(cubins: &'static [Cubin], cc: (u32, u32)) -> Option<&'static Cubin> {
    cubins
        .iter()
        .filter(|cubin| cubin.arch.0 == cc.0 && cubin.arch.1 <= cc.1)
        .max_by_key(|cubin| cubin.arch.1)
}

/// The host build's entry point of a kernel: runs a whole launch on the
/// calling thread's behalf (blocks on host threads, threads as fibers).
/// Returns 0, or non-zero with a message written to `error`.
///
/// `config` points to the emulator's launch configuration (grid and block
/// sizes, dynamic shared bytes, host threads: eight `u32`s, see
/// `emu::LaunchConfig`); `params` to one pointer per kernel parameter.
pub type HostEntry = unsafe extern "C" fn(
    config: *const c_void,
    params: *mut *mut c_void,
    error: *mut c_char,
    error_len: usize,
) -> c_int;

/// A kernel of the library.
#[derive(Debug, Clone, Copy)]
pub struct Kernel {
    /// The kernel's name, e.g. "reduce_sum_i64".
    pub name: &'static str,
    /// The module that holds it.
    pub module: &'static Module,
    host: Option<HostEntry>,
}

impl Kernel {
    /// The host build's entry point; `None` without the `host` feature.
    pub fn host_entry(&self) -> Option<HostEntry> {
        self.host
    }
}

macro_rules! library {
    ($($module:ident = $file:literal { $($name:ident),* $(,)? })*) => {
        /// The modules of the library.
        pub mod modules {
            use super::{Cubin, Module};
            $(
                #[doc = concat!("`cuda/", $file, ".cu`.")]
                pub static $module: Module = Module {
                    name: $file,
                    ptx: include_str!(concat!("../ptx/", $file, ".ptx")),
                    cubins: &[
                        Cubin {
                            arch: (8, 0),
                            image: include_bytes!(concat!("../cubin/", $file, ".sm_80.cubin")),
                        },
                        Cubin {
                            arch: (9, 0),
                            image: include_bytes!(concat!("../cubin/", $file, ".sm_90.cubin")),
                        },
                    ],
                };
            )*
            /// Every module.
            pub static ALL: &[&Module] = &[$(&$module),*];
        }

        #[cfg(feature = "host")]
        mod host {
            use std::ffi::{c_char, c_int, c_void};
            unsafe extern "C" {
                $($(
                    #[link_name = concat!("emu_kernel_", stringify!($name))]
                    pub fn $name(
                        config: *const c_void,
                        params: *mut *mut c_void,
                        error: *mut c_char,
                        error_len: usize,
                    ) -> c_int;
                )*)*
            }
        }

        /// Every kernel of the library, by name.
        #[allow(non_upper_case_globals)]
        pub mod ids {
            use super::{Kernel, modules};
            $($(
                #[doc = concat!("`", stringify!($name), "` in `cuda/", $file, ".cu`.")]
                pub const $name: Kernel = Kernel {
                    name: stringify!($name),
                    module: &modules::$module,
                    #[cfg(feature = "host")]
                    host: Some(super::host::$name as super::HostEntry),
                    #[cfg(not(feature = "host"))]
                    host: None,
                };
            )*)*
            /// Every kernel.
            pub const ALL: &[Kernel] = &[$($($name),*),*];
        }
    };
}

library! {
    ASOF = "asof" {
        asof_search_i64, asof_search_u64, asof_search_f32, asof_search_f64,
    }
    BITMAP = "bitmap" {
        bitmap_and, bitmap_or, bitmap_popcount, bitmap_to_bool, bool_to_bitmap, bitmap_append,
    }
    ELEMENTWISE = "elementwise" {
        iota_u32, fill_u32, iota_u64, fill_u64, iota_i32, fill_i32, iota_i64, fill_i64,
        iota_f64, fill_f64,
    }
    EXPR = "expr" {
        eval_expression,
    }
    FAULTS = "faults" {
        fault_write_unmapped,
    }
    GATHER = "gather" {
        gather_u8, scatter_u8, gather_i32, scatter_i32, gather_i64, scatter_i64, gather_u32,
        scatter_u32, gather_u64, scatter_u64, gather_f64, scatter_f64, gather_i8, scatter_i8,
        gather_i16, scatter_i16, gather_u16, scatter_u16, gather_f32, scatter_f32, gather_bits,
        string_gather_lengths, string_gather_bytes,
    }
    GROUPBY = "groupby" {
        group_flags_i32, group_flags_i64, group_flags_u32, group_flags_u64, segment_count,
        segment_product_i64, segment_product_u64, segment_product_f64, segment_product_f32, segment_sum_i32, segment_sum_i64, segment_sum_u32, segment_sum_u64, segment_sum_f64,
        segment_mean_i32, segment_min_i32, segment_max_i32, segment_first_i32, segment_last_i32,
        segment_mean_i64, segment_min_i64, segment_max_i64, segment_first_i64, segment_last_i64,
        segment_mean_u32, segment_min_u32, segment_max_u32, segment_first_u32, segment_last_u32,
        segment_mean_u64, segment_min_u64, segment_max_u64, segment_first_u64, segment_last_u64,
        segment_mean_f64, segment_min_f64, segment_max_f64, segment_first_f64, segment_last_f64,
        segment_ids, segment_variance_f64, segment_quantile_f64, segment_chunk_counts,
        segment_chunk_starts, mean_of_sums, segment_sum_i32_f64, segment_sum_i64_f64,
        segment_sum_u32_f64, segment_sum_u64_f64, segment_squared_deviations_f64,
        variance_of_squares, segment_chunk_moments_f64, fold_chunk_moments_f64, segment_sources,
        segment_rebase, rank_places_u32, rank_averages_f64,
    }
    HASH = "hash" {
        hash_build_multimap_u64, hash_place_multimap, hash_probe_count_u64, hash_probe_pairs_u64, hash_keys_i32,
        hash_keys_u32, nonzero_bits, hash_insert_unique_u64,
    }
    LISTS = "lists" {
        list_gather_rows, list_explode_counts, list_explode_rows, list_get_rows,
        list_float_sums_f64, list_float_sums_f32, list_float_means_f32, list_float_means_i64,
        list_float_means_u64,
    }
    PARTITION = "partition" {
        partition_mix_words, partition_mix_strings, partition_buckets,
    }
    PREDICATE = "predicate" {
        compare_i32, compare_i64, compare_u32, compare_u64, compare_f64, kleene, bits_not,
        filter_flags, string_match, string_match_rows, string_find_rows, string_match_sequence,
        string_match_dfa, string_compare,
    }
    REDUCE = "reduce" {
        reduce_sum_i32, reduce_sum_i64, reduce_sum_u32, reduce_sum_u64, reduce_sum_f64,
        reduce_min_i32, reduce_min_i64, reduce_min_u32, reduce_min_u64, reduce_min_f64,
        reduce_max_i32, reduce_max_i64, reduce_max_u32, reduce_max_u64, reduce_max_f64,
        pairwise_sum_blocks_f64, pairwise_sum_level_f64, pairwise_sum_total_f64,
        pairwise_sum_blocks_f32, pairwise_sum_level_f32, pairwise_sum_total_f32,
    }
    ROLLING = "rolling" {
        window_sums_f64, window_sums_f32, window_sums_f32_in_f64, window_sums_u64, window_extremes,
        window_quantiles_f64, window_quantiles_f32,
        window_variances_f64, window_variances_f32, ewm_means_f64, ewm_means_f32, ewm_spreads_f64,
        ewm_spreads_f32, time_windows, window_ends,
    }
    SCAN = "scan" {
        scan_u8, scan_i32, scan_i64, scan_u32, scan_u64, scan_f64, compact_indices, compact_tile_counts, compact_bits, fill_sources,
        sequential_sums_f64, sequential_sums_f32, sequential_products_i64, sequential_products_u64,
        sequential_products_f64, sequential_products_f32,
        running_best_tiles, running_best_carries, running_best_finish,
    }
    SORT = "sort" {
        sortable_keys_i32, sortable_keys_i64, sortable_keys_u32, sortable_keys_u64,
        sortable_keys_f32, sortable_keys_f64, radix_onesweep_u32, radix_onesweep_u64,
        radix_digit_counts_u32, radix_digit_counts_u64, radix_block_sort_u32, radix_block_sort_u64,
        null_sort_keys, widen_u32_i64,
        string_key_chunk, string_key_length,
    }
    MATCHES = "matches" {
        string_matches, string_match_pieces, string_match_ranges, string_group_ranges,
        string_replace_groups,
    }
    STRINGS = "strings" {
        string_slice_ranges, string_slice_rows, string_copy_ranges, string_offsets_append,
        string_lengths,
        string_split_counts, string_split_ranges,
        string_map_chars,
        string_concat_lengths, string_concat_write, string_strip_ranges, string_replace,
        string_replace_many,
        string_from_integers, string_from_floats, string_parse_dates, string_parse_integers,
        string_parse_decimals, string_parse_f64,
        string_parse_f32, string_pad, string_format_temporal,
    }
    ZONES = "zones" {
        zone_local_times, zone_instants,
    }
}

/// The entries of the C enum of `source` (a CUDA file's text) that opens
/// with `head` (`enum Op : u32 {`), in order, with their values (explicit,
/// or one more than the last): for tests that check the numbers the Rust
/// side shares with the kernels.
///
/// # Panics
///
/// If `source` holds no such enum, or an entry's value is not a number.
pub fn c_enum(source: &str, head: &str) -> Vec<(String, u32)> {
    let start = source.find(head).unwrap_or_else(|| panic!("no `{head}`")) + head.len();
    let body = &source[start..start + source[start..].find("};").expect("the enum ends")];
    let mut next = 0;
    let mut entries = Vec::new();
    for line in body.lines() {
        let code = line.split("//").next().unwrap_or_default();
        for entry in code.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, value) = match entry.split_once('=') {
                Some((name, value)) => (name.trim(), value.trim().parse().expect("a number")),
                None => (entry, next),
            };
            entries.push((name.to_string(), value));
            next = value + 1;
        }
    }
    entries
}

/// Kernels that check the emulator itself (host build only; not in any PTX
/// module): a deadlock, an unsupported partial-mask vote, and exchanges
/// through shuffles, votes and shared memory.
#[cfg(feature = "host")]
pub mod emulator_selftest {
    use super::HostEntry;
    use std::ffi::{c_char, c_int, c_void};

    unsafe extern "C" {
        fn emu_kernel_selftest_deadlock(
            config: *const c_void,
            params: *mut *mut c_void,
            error: *mut c_char,
            error_len: usize,
        ) -> c_int;
        fn emu_kernel_selftest_partial_mask(
            config: *const c_void,
            params: *mut *mut c_void,
            error: *mut c_char,
            error_len: usize,
        ) -> c_int;
        fn emu_kernel_selftest_exchange(
            config: *const c_void,
            params: *mut *mut c_void,
            error: *mut c_char,
            error_len: usize,
        ) -> c_int;
    }

    /// `selftest_deadlock(u32* out)`: half of each block skips a barrier.
    pub const DEADLOCK: HostEntry = emu_kernel_selftest_deadlock;
    /// `selftest_partial_mask(u32* out)`: a ballot with a partial mask.
    pub const PARTIAL_MASK: HostEntry = emu_kernel_selftest_partial_mask;
    /// `selftest_exchange(u32* out)`: out\[i\] = 10 * (lane + 1 in the warp's
    /// numbering) + 100000 * (thread + 1 in the block) + 10^8 * votes.
    pub const EXCHANGE: HostEntry = emu_kernel_selftest_exchange;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_in_its_modules_ptx() {
        for kernel in ids::ALL {
            let entry = format!(".entry {}(", kernel.name);
            assert!(
                kernel.module.ptx.contains(&entry),
                "{} is not in {}.ptx",
                kernel.name,
                kernel.module.name
            );
        }
        let listed: usize = modules::ALL
            .iter()
            .map(|m| m.ptx.matches(".entry ").count())
            .sum();
        assert_eq!(listed, ids::ALL.len(), "every PTX entry is listed");
    }

    #[test]
    fn every_module_has_cubins_that_hold_its_kernels_and_pick_by_architecture() {
        for module in modules::ALL {
            for cubin in module.cubins {
                assert_eq!(&cubin.image[..4], b"\x7fELF", "{}", module.name);
            }
            let names = |cc| cubin_for(module.cubins, cc).map(|c| c.arch);
            assert_eq!(names((9, 0)), Some((9, 0)));
            assert_eq!(names((8, 0)), Some((8, 0)));
            assert_eq!(names((8, 9)), Some((8, 0)));
            assert_eq!(names((10, 0)), None);
            assert_eq!(names((7, 5)), None);
        }
        for kernel in ids::ALL {
            for cubin in kernel.module.cubins {
                let name = kernel.name.as_bytes();
                assert!(
                    cubin.image.windows(name.len()).any(|w| w == name),
                    "{} is not in {}'s sm_{}{} cubin",
                    kernel.name,
                    kernel.module.name,
                    cubin.arch.0,
                    cubin.arch.1
                );
            }
        }
    }

    #[test]
    fn host_entries_exist_exactly_with_the_host_feature() {
        for kernel in ids::ALL {
            assert_eq!(
                kernel.host_entry().is_some(),
                cfg!(feature = "host"),
                "{}",
                kernel.name
            );
        }
    }
}
