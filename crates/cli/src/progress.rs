//! A progress line on a terminal for long work (what is under way, for how long), silent elsewhere.

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// While it lives, a line on standard error saying what is under way and
/// for how long, redrawn every tenth of a second; cleared when dropped.
/// Nothing at all when standard error is not a terminal (or `quiet`).
pub struct Progress {
    stage: Option<mpsc::Sender<&'static str>>,
    drawer: Option<JoinHandle<()>>,
}

impl Progress {
    pub fn start(stage: &'static str, quiet: bool) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress {
                stage: None,
                drawer: None,
            };
        }
        let (send, receive) = mpsc::channel();
        let drawer = std::thread::spawn(move || {
            let started = Instant::now();
            let mut stage = stage;
            loop {
                let line = format!("\r\x1b[2K{stage}… {:.1?}", started.elapsed());
                let _ = std::io::stderr().write_all(line.as_bytes());
                match receive.recv_timeout(Duration::from_millis(100)) {
                    Ok(next) => stage = next,
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            let _ = std::io::stderr().write_all(b"\r\x1b[2K");
        });
        Progress {
            stage: Some(send),
            drawer: Some(drawer),
        }
    }

    /// Says that `stage` is now under way.
    pub fn stage(&self, stage: &'static str) {
        if let Some(send) = &self.stage {
            let _ = send.send(stage);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stage = None;
        if let Some(drawer) = self.drawer.take() {
            let _ = drawer.join();
        }
    }
}
