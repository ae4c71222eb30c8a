//! A kernel that faults on a GPU: the error is sticky (every later call on the device fails so), and a reset brings the device back; in a process of its own, as the fault leaves the context unusable to all in it.
//!
//! On the device under test (`GPU_TEST_DEVICE=cuda`); skipped on the
//! emulated device, where the faulting kernel is refused.

use std::sync::Arc;

use gpu_runtime::memory::{DeviceBuffer, MemoryResource, PoolOptions, PoolResource};
use gpu_runtime::ops::Ops;
use gpu_runtime::{Device, RuntimeError};

fn pool(device: &Device) -> Arc<dyn MemoryResource> {
    let options = PoolOptions {
        initial_bytes: 1 << 20,
        maximum_bytes: None,
    };
    Arc::new(PoolResource::new(Arc::new(device.clone()), options).unwrap())
}

#[test]
fn a_kernel_that_faults_leaves_the_device_unusable_until_it_is_reset() {
    let device = Device::under_test(1 << 30).unwrap();
    let memory = pool(&device);
    let stream = device.create_stream().unwrap();
    let ops = Ops {
        memory: &memory,
        stream: &stream,
    };
    if device.is_emulated() {
        let refused = ops.fault_on_purpose().unwrap_err();
        assert!(
            matches!(refused, RuntimeError::InvalidArgument(_)),
            "{refused}"
        );
        println!("skipped: a kernel that faults on purpose runs only on a GPU");
        return;
    }
    let before = DeviceBuffer::from_host(&[1i64, 2, 3], memory.clone(), &stream).unwrap();
    assert_eq!(before.to_host().unwrap(), vec![1, 2, 3]);

    ops.fault_on_purpose().unwrap();
    let fault = stream.synchronize().unwrap_err();
    assert!(fault.is_sticky(), "not sticky: {fault}");
    assert_eq!(device.fault(), Some(fault.clone()));
    // Every later call fails so, without reaching the driver.
    assert_eq!(before.to_host().unwrap_err(), fault);
    assert_eq!(device.create_stream().unwrap_err(), fault);
    // Nothing made on the device may outlive its context.
    let refused = device.reset().unwrap_err();
    assert!(refused.to_string().contains("cannot be reset"), "{refused}");
    drop((before, stream, memory));

    device.reset().unwrap();
    assert_eq!(device.fault(), None);
    let memory = pool(&device);
    let stream = device.create_stream().unwrap();
    let after = DeviceBuffer::from_host(&[4i64, 5], memory.clone(), &stream).unwrap();
    assert_eq!(after.to_host().unwrap(), vec![4, 5]);
    // Kernels load again into the rebuilt context.
    let ops = Ops {
        memory: &memory,
        stream: &stream,
    };
    let bits = ops
        .flags_bitmap(
            &DeviceBuffer::from_host(&[1u8, 0, 1], memory.clone(), &stream).unwrap(),
            3,
        )
        .unwrap();
    assert_eq!(bits.to_host().unwrap(), vec![0b101]);
}
