//! What a panic says, and what it costs. Before the first frame is drawn a panic on the main
//! thread is most often the renderer failing to start (no adapter, no surface, no display),
//! and the message says how to get one. After it, a panic is a bug in memcity: the message
//! names its place and asks for a report, and never sends the user to their GPU. A panic on a
//! background job (a load, a closure, a measurement) ends that job only: the job reports it as
//! its failure and the city already shown stays.

use std::panic::{AssertUnwindSafe, PanicHookInfo};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy::prelude::*;

/// Set once the window's first frames were drawn: the renderer started.
static RENDERER_STARTED: AtomicBool = AtomicBool::new(false);

/// The last panic's message and place, for the one that catches it.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Where to report a bug.
pub const REPORT: &str = "please report it with the kind of input you opened (a heap dump, a V8 snapshot, a probe file, a trace, a live source)";

/// Frames drawn before the renderer counts as started.
const STARTED_AFTER_FRAMES: u32 = 3;

/// Installs the hook; a panic on the main thread ends the process with a one-line message.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let what = describe(info);
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(what.clone());
        }
        if std::thread::current().name() == Some("main") {
            shout!("{}", fatal_message(&what, RENDERER_STARTED.load(Ordering::Relaxed)));
            std::process::exit(2);
        }
        // Another thread: a Bevy system (resumed on the main thread, see `run_guarded`) or a
        // background job (caught by `guarded`); either says more.
        shout!("memcity: a bug on thread {}: {what}", std::thread::current().name().unwrap_or("unnamed"));
    }));
}

/// The message with its place, e.g. `index out of bounds … (src/app/x.rs:12)`.
fn describe(info: &PanicHookInfo) -> String {
    let message = payload_text(info.payload());
    let place = info.location().map(|l| format!(" ({}:{})", l.file(), l.line())).unwrap_or_default();
    format!("{message}{place}")
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown error".into())
}

/// What the user reads when the app stops on `what`: a renderer that never started is most
/// likely a missing driver or display; later it is memcity's bug.
pub fn fatal_message(what: &str, renderer_started: bool) -> String {
    if renderer_started {
        format!("memcity: stopped by a bug: {what}\nmemcity: {REPORT}")
    } else {
        format!(
            "memcity: the renderer stopped: {what}\n\
             memcity: no usable GPU adapter or display? Install a Vulkan driver (e.g. mesa-vulkan-drivers), \
             or render headless with --screenshot out.png"
        )
    }
}

/// Runs the app; a panic that reached the main thread from a system on another thread ends
/// the process as a panic on the main thread would.
pub fn run_guarded(app: &mut App) -> AppExit {
    match std::panic::catch_unwind(AssertUnwindSafe(|| app.run())) {
        Ok(exit) => exit,
        Err(payload) => {
            shout!("{}", fatal_message(&caught(payload.as_ref()), RENDERER_STARTED.load(Ordering::Relaxed)));
            std::process::exit(2);
        }
    }
}

/// Runs a background job; a panic in it becomes its error, naming the bug and its place.
pub fn guarded<T>(job: &str, f: impl FnOnce() -> anyhow::Result<T>) -> Result<T, String> {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(|e| format!("{e:#}")),
        Err(payload) => {
            Err(format!("{job} stopped on a bug in memcity: {}; {REPORT}", caught(payload.as_ref())))
        }
    }
}

/// What a caught panic was: its message with the place the hook saw it at, where the last
/// panic the hook saw is this one (another thread's may have come between).
fn caught(payload: &(dyn std::any::Any + Send)) -> String {
    let message = payload_text(payload);
    let last = LAST_PANIC.lock().ok().and_then(|mut p| p.take());
    last.filter(|l| l.starts_with(&message)).unwrap_or(message)
}

/// Marks the renderer started once the window drew its first frames.
pub fn mark_started(frames: Res<bevy::diagnostic::FrameCount>) {
    if frames.0 >= STARTED_AFTER_FRAMES && !RENDERER_STARTED.load(Ordering::Relaxed) {
        RENDERER_STARTED.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_after_the_first_frames_is_a_bug_not_a_gpu_problem() {
        let early = fatal_message("no adapter (wgpu.rs:1)", false);
        assert!(early.contains("Vulkan driver"), "{early}");
        let late = fatal_message("index out of bounds (src/app/x.rs:3)", true);
        assert!(late.contains("stopped by a bug: index out of bounds (src/app/x.rs:3)"), "{late}");
        assert!(late.contains("please report it"), "{late}");
        assert!(!late.contains("GPU") && !late.contains("Vulkan"), "{late}");
    }

    #[test]
    fn a_panicking_job_becomes_its_error_and_the_caller_goes_on() {
        let failed = guarded::<()>("loading dump.hprof", || panic!("importer bug on an odd record"));
        let error = failed.unwrap_err();
        assert!(error.starts_with("loading dump.hprof stopped on a bug in memcity: "), "{error}");
        assert!(error.contains("importer bug on an odd record"), "{error}");
        assert!(error.contains("please report it"), "{error}");
        assert_eq!(guarded("x", || Ok(7)), Ok(7));
        let refused = guarded::<()>("x", || Err(anyhow::anyhow!("dump.hprof: truncated")));
        assert_eq!(refused, Err("dump.hprof: truncated".into()));
    }
}
