//! A device context's health: the sticky error that leaves it unusable, so that every later call on it fails at once, until it is rebuilt.
//!
//! A CUDA context keeps such an error itself (the driver answers every later
//! call with it); the emulated device keeps it here, and so does a CUDA
//! device for a sticky fault injected at [`crate::faults::Seam::Sticky`].
//! Streams and the device share one [`Health`], checked before each call
//! to the device and told of each error.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::RuntimeError;

/// The sticky error of a device's context, if it has one.
#[derive(Debug, Default)]
pub(crate) struct Health {
    /// Whether `fault` holds an error (read without the lock on every call).
    failed: AtomicBool,
    fault: Mutex<Option<RuntimeError>>,
}

impl Health {
    /// The context's sticky error, if it has one.
    pub fn fault(&self) -> Option<RuntimeError> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.fault.lock().map_or_else(
            |_| {
                Some(RuntimeError::Internal(
                    "a device's health is poisoned".into(),
                ))
            },
            |fault| fault.clone(),
        )
    }

    /// `Err` with the sticky error where the context has one: the call
    /// about to be made would fail with it.
    pub fn check(&self) -> Result<(), RuntimeError> {
        self.fault().map_or(Ok(()), Err)
    }

    /// Keeps `error` as the context's sticky error when it is one (the
    /// first is kept); gives it back.
    pub fn observe(&self, error: RuntimeError) -> RuntimeError {
        if error.is_sticky()
            && let Ok(mut fault) = self.fault.lock()
            && fault.is_none()
        {
            tracing::error!("the device's context is unusable until it is rebuilt: {error}");
            *fault = Some(error.clone());
            self.failed.store(true, Ordering::Release);
        }
        error
    }

    /// `result`, its error kept as the context's when it is sticky.
    pub fn watch<T>(&self, result: Result<T, RuntimeError>) -> Result<T, RuntimeError> {
        result.map_err(|e| self.observe(e))
    }

    /// Forgets the sticky error (the context was rebuilt).
    pub fn clear(&self) {
        if let Ok(mut fault) = self.fault.lock() {
            *fault = None;
            self.failed.store(false, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver_error(code: u32) -> RuntimeError {
        RuntimeError::Driver {
            call: "cuStreamSynchronize",
            name: "CUDA_ERROR".into(),
            code,
        }
    }

    #[test]
    fn only_sticky_errors_are_kept_and_the_first_stays_until_cleared() {
        let health = Health::default();
        assert_eq!(health.check(), Ok(()));
        health.observe(driver_error(999));
        health.observe(RuntimeError::OutOfMemory {
            requested: 1,
            available: 0,
        });
        assert_eq!(health.fault(), None, "transient errors are not kept");
        health.observe(driver_error(700));
        health.observe(driver_error(719));
        assert_eq!(health.check(), Err(driver_error(700)));
        assert_eq!(
            health.watch::<()>(Err(driver_error(716))),
            Err(driver_error(716))
        );
        assert_eq!(health.fault(), Some(driver_error(700)));
        health.clear();
        assert_eq!(health.check(), Ok(()));
    }
}
