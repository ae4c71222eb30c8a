//! The CUDA backend itself: opening devices, and errors that must stay typed; skipped where no GPU is.

use std::sync::Arc;

use gpu_runtime::memory::{DeviceBuffer, MemoryResource};
use gpu_runtime::{
    CudaDevice, Device, DriverPoolResource, EmulatedDevice, KernelArgs, KernelRef, LaunchConfig,
    RuntimeError, Unavailable,
};

/// Device 0, or `None` after saying why the test is skipped (the error must
/// then be "unavailable", never a panic or an internal error).
fn gpu() -> Option<Arc<CudaDevice>> {
    match CudaDevice::open(0) {
        Ok(device) => Some(device),
        Err(RuntimeError::Unavailable(why)) => {
            println!("skipped: no CUDA device ({why})");
            None
        }
        Err(other) => panic!("opening CUDA device 0 failed with a non-fallback error: {other}"),
    }
}

#[test]
fn a_device_opens_once_and_reports_its_properties() {
    let Some(device) = gpu() else { return };
    let again = CudaDevice::open(0).unwrap();
    assert!(Arc::ptr_eq(&device, &again), "one context per ordinal");
    let summary = device.summary();
    assert!(!summary.name.is_empty());
    assert!(summary.compute_capability >= (8, 0), "{summary:?}");
    assert!(summary.sm_count > 0);
    let free = device.free_memory().unwrap();
    assert!(0 < free && free <= device.total_memory(), "{free}");
    let described = Device::Cuda(device).describe();
    assert!(described.starts_with("CUDA device 0 ("), "{described}");
}

#[test]
fn a_missing_ordinal_is_unavailable_and_names_the_count() {
    match CudaDevice::open(4096) {
        Err(RuntimeError::Unavailable(Unavailable::OrdinalOutOfRange { ordinal, .. })) => {
            assert_eq!(ordinal, 4096)
        }
        Err(RuntimeError::Unavailable(why)) => println!("skipped: no CUDA driver ({why})"),
        other => panic!("expected Unavailable, got {other:?}"),
    }
}

#[test]
fn devices_open_from_many_threads_at_once_give_one_context() {
    let opened: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| CudaDevice::open(0)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    match &opened[0] {
        Ok(first) => {
            for other in &opened {
                assert!(Arc::ptr_eq(first, other.as_ref().unwrap()));
            }
        }
        Err(e) => {
            assert!(opened.iter().all(|o| o.as_ref().err() == Some(e)));
            println!("skipped: no CUDA device ({e})");
        }
    }
}

#[test]
fn the_driver_pool_refuses_a_stream_of_another_device() {
    let Some(device) = gpu() else { return };
    let pool = DriverPoolResource::new(device, Some(0)).unwrap();
    let emulated = EmulatedDevice::new(0, 1 << 20).create_stream().unwrap();
    let err = pool.allocate(1024, &emulated).unwrap_err();
    assert!(matches!(err, RuntimeError::InvalidArgument(_)), "{err}");
    pool.trim_to(0).unwrap();
}

#[test]
fn work_on_one_gpu_stream_after_an_event_of_another_sees_its_results() {
    let Some(device) = gpu() else { return };
    let memory: Arc<dyn MemoryResource> =
        Arc::new(DriverPoolResource::new(device.clone(), None).unwrap());
    let (a, b) = (
        device.create_stream().unwrap(),
        device.create_stream().unwrap(),
    );
    for round in 0..10i64 {
        let ops = gpu_runtime::ops::Ops {
            memory: &memory,
            stream: &a,
        };
        let made = ops.iota(1 << 24, round).unwrap();
        let event = gpu_runtime::Event::new();
        event.record(&a).unwrap();
        event.wait_on(&b).unwrap();
        let copy = DeviceBuffer::<i64>::zeroed(made.len(), memory.clone(), &b).unwrap();
        copy.copy_from_device(0, &made).unwrap();
        let values = copy.to_host_range((1 << 24) - 3, 3).unwrap();
        let last = round + (1 << 24) - 1;
        assert_eq!(values, [last - 2, last - 1, last], "round {round}");
        event.synchronize().unwrap();
        assert!(event.is_complete());
    }
}

#[test]
fn launching_an_unknown_kernel_is_an_invalid_argument() {
    let device = Device::under_test(1 << 20).unwrap();
    let stream = device.create_stream().unwrap();
    let kernel = KernelRef {
        name: "no_such_kernel",
        ptx: kernels::modules::ALL[0].ptx,
        cubins: kernels::modules::ALL[0].cubins,
        host: None,
    };
    // SAFETY: the launch is refused before anything runs.
    let err = unsafe { stream.launch(&kernel, LaunchConfig::linear(1, 32, 1), KernelArgs::new()) }
        .unwrap_err();
    assert!(matches!(err, RuntimeError::InvalidArgument(_)), "{err}");
    assert!(err.to_string().contains("no_such_kernel"), "{err}");
    stream.synchronize().unwrap();
}
