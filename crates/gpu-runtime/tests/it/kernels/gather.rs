//! Gather (null on out-of-bounds) and scatter, with validity.

use gpu_runtime::{KernelArgs, LaunchConfig};
use kernels::ids;

use super::{BLOCK, SIZES, bitmap, device, flags};

#[test]
fn gather_follows_indices_and_gives_null_outside() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(5);
    for &n in SIZES {
        let n_values = n.max(1) * 2;
        let values: Vec<i64> = (0..n_values as i64).map(|i| i * 10 + 1).collect();
        let valid: Vec<bool> = (0..n_values).map(|_| rng.u8(..5) != 0).collect();
        let indices: Vec<i64> = (0..n).map(|_| rng.i64(-3..n_values as i64 + 3)).collect();
        let (dv, dvalid, di) = (
            device.upload(&values),
            device.upload(&bitmap(&valid)),
            device.upload(&indices),
        );
        let out = device.poisoned(n, -1i64);
        let out_validity = device.poisoned(n.div_ceil(32), 0xdead_beefu32);
        // SAFETY: gather_i64(const i64* values, const u32* validity, u64 n_values,
        // const i64* indices, u64 n, i64* out, u32* out_validity).
        unsafe {
            device.launch(
                ids::gather_i64,
                LaunchConfig::linear(n as u64, BLOCK, 8),
                KernelArgs::new()
                    .buffer(&dv)
                    .buffer(&dvalid)
                    .arg(n_values as u64)
                    .buffer(&di)
                    .arg(n as u64)
                    .buffer(&out)
                    .buffer(&out_validity),
            )
        };
        let expected_valid: Vec<bool> = indices
            .iter()
            .map(|&i| i >= 0 && (i as usize) < n_values && valid[i as usize])
            .collect();
        let expected: Vec<i64> = indices
            .iter()
            .zip(&expected_valid)
            .map(|(&i, &ok)| if ok { values[i as usize] } else { 0 })
            .collect();
        assert_eq!(out.to_host().unwrap(), expected, "n = {n}");
        assert_eq!(
            out_validity.to_host().unwrap(),
            bitmap(&expected_valid),
            "n = {n}"
        );
    }
}

#[test]
fn scatter_places_values_and_validity() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(6);
    for &n in SIZES {
        let n_out = n + 5;
        let mut targets: Vec<i64> = (0..n_out as i64).collect();
        rng.shuffle(&mut targets);
        targets.truncate(n);
        // Two indices out of range, skipped.
        if n >= 2 {
            targets[0] = -1;
            targets[1] = n_out as i64;
        }
        let values: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.bool()).collect();
        let out_start = vec![-9.0f64; n_out];
        let validity_start: Vec<bool> = (0..n_out).map(|i| i % 2 == 0).collect();
        let out = device.upload(&out_start);
        let out_validity = device.upload(&bitmap(&validity_start));
        let (dv, dvalid, dt) = (
            device.upload(&values),
            device.upload(&bitmap(&valid)),
            device.upload(&targets),
        );
        // SAFETY: scatter_f64(const double* values, const u32* validity,
        // const i64* indices, u64 n, double* out, u32* out_validity, u64 n_out).
        unsafe {
            device.launch(
                ids::scatter_f64,
                LaunchConfig::linear(n as u64, BLOCK, 8),
                KernelArgs::new()
                    .buffer(&dv)
                    .buffer(&dvalid)
                    .buffer(&dt)
                    .arg(n as u64)
                    .buffer(&out)
                    .buffer(&out_validity)
                    .arg(n_out as u64),
            )
        };
        let mut expected = out_start.clone();
        let mut expected_valid = validity_start.clone();
        for i in 0..n {
            let t = targets[i];
            if t >= 0 && (t as usize) < n_out {
                expected[t as usize] = values[i];
                expected_valid[t as usize] = valid[i];
            }
        }
        assert_eq!(out.to_host().unwrap(), expected, "n = {n}");
        assert_eq!(
            flags(&out_validity.to_host().unwrap(), n_out),
            expected_valid,
            "n = {n}"
        );
    }
}
