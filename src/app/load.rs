//! Opening inputs while the app runs: a heap dump series given on the command line, or any
//! input typed into the Open box. The load runs on its own thread with a progress bar in the UI;
//! the city is replaced only when the whole input loaded, and a failure leaves it as it was.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bevy::prelude::*;
use memcity_heapgraph::{Phase, Progress};

use crate::app::model::LoadHistory;

/// Load these inputs (what `memcity [INPUT]…` takes: one input, or several heap dumps) in the
/// background.
#[derive(Message, Clone, Debug)]
pub struct OpenInput(pub Vec<String>);

/// Load two runs (`memcity --compare`'s BEFORE and AFTER) in the background and show them as
/// one city.
#[derive(Message, Clone, Debug)]
pub struct CompareInputs(pub [String; 2]);

/// The running load, if any, and how the last one ended.
#[derive(Resource, Default)]
pub struct Loading {
    job: Option<Job>,
    /// The last failure, shown until the next load starts.
    pub error: Option<String>,
}

/// How a load tells its progress: bytes done and total, then the phases.
type Report = dyn Progress;

/// What the load's thread reported last, for the UI to read.
#[derive(Default)]
struct Reported {
    /// Bytes done and total (0/0: no bytes to tell).
    done: AtomicU64,
    total: AtomicU64,
    /// The phase under way once the bytes are read, where the importer names it.
    phase: Mutex<Option<Phase>>,
}

impl Progress for Reported {
    fn read(&self, done: u64, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
    }

    fn phase(&self, phase: Phase) {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = Some(phase);
    }
}

struct Job {
    spec: String,
    /// The inputs, for the city's source once loaded.
    specs: Vec<String>,
    started: Instant,
    progress: Arc<Reported>,
    result: Mutex<Receiver<Result<memcity_model::History, String>>>,
}

impl Loading {
    /// What is loading: its spec, the fraction read when known (None once the phases after the
    /// reading began: their length is not known), seconds since it started.
    pub fn status(&self) -> Option<(&str, Option<f32>, f32)> {
        let job = self.job.as_ref()?;
        let (done, total) = self.bytes();
        let reading = total > 0 && (done < total || self.phase().is_none());
        let fraction = reading.then(|| (done as f64 / total as f64) as f32);
        Some((&job.spec, fraction, job.started.elapsed().as_secs_f32()))
    }

    /// Bytes done and total of the load under way (0/0: none, or none to tell).
    pub fn bytes(&self) -> (u64, u64) {
        self.job.as_ref().map_or((0, 0), |job| {
            (job.progress.done.load(Ordering::Relaxed), job.progress.total.load(Ordering::Relaxed))
        })
    }

    /// The phase of the load under way, where its importer named one.
    pub fn phase(&self) -> Option<Phase> {
        self.job.as_ref().and_then(|job| *job.progress.phase.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    fn start(&mut self, specs: Vec<String>) {
        let inputs = specs.clone();
        self.start_with(specs.join(" "), inputs, move |report| crate::input::load_all(&specs, report));
    }

    /// Runs `load` on its own thread, `spec` naming it in the UI and `specs` becoming the city's
    /// source once loaded.
    pub(crate) fn start_with(
        &mut self,
        spec: String,
        specs: Vec<String>,
        load: impl FnOnce(&Report) -> anyhow::Result<memcity_model::History> + Send + 'static,
    ) {
        info!("opening {spec}");
        let progress = Arc::new(Reported::default());
        let (send, result) = channel();
        let for_thread = progress.clone();
        let spec_for_thread = spec.clone();
        let inputs = specs;
        let spawned = std::thread::Builder::new().name("memcity-load".into()).spawn(move || {
            // An importer's bug on an unusual file fails this load only.
            let loaded = crate::app::crash::guarded(&format!("loading {spec_for_thread}"), || {
                load(for_thread.as_ref())
            });
            let _ = send.send(loaded);
        });
        self.error = None;
        match spawned {
            Ok(_) => {
                self.job = Some(Job {
                    spec,
                    specs: inputs,
                    started: Instant::now(),
                    progress,
                    result: Mutex::new(result),
                })
            }
            Err(e) => self.error = Some(format!("{spec}: cannot start loading: {e}")),
        }
    }
}

pub struct LoadPlugin;

impl Plugin for LoadPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Loading>()
            .init_resource::<crate::app::why::CitySource>()
            .add_message::<OpenInput>()
            .add_message::<CompareInputs>()
            .add_systems(PreUpdate, (start_loads, start_compares, finish_load).chain());
    }
}

fn start_loads(mut opens: MessageReader<OpenInput>, mut loading: ResMut<Loading>) {
    // One load at a time: a request while one runs waits for the user to ask again.
    if let Some(OpenInput(specs)) = opens.read().last()
        && !loading.is_busy()
    {
        let specs: Vec<String> = specs.iter().map(|s| s.trim().to_string()).collect();
        match crate::input::check_all(&specs) {
            Ok(()) => loading.start(specs),
            Err(e) => {
                warn!("not opened: {e:#}");
                loading.error = Some(format!("{e:#}"));
            }
        }
    }
}

fn start_compares(mut compares: MessageReader<CompareInputs>, mut loading: ResMut<Loading>) {
    if let Some(CompareInputs(runs)) = compares.read().last()
        && !loading.is_busy()
    {
        let runs = runs.clone().map(|s| s.trim().to_string());
        match crate::input::check_all(&runs[..1]).and_then(|_| crate::input::check_all(&runs[1..])) {
            // The city gets no source: its keys are the pair's, no single input's.
            Ok(()) => loading.start_with(format!("{} against {}", runs[1], runs[0]), Vec::new(), move |_| {
                crate::input::compare::pair(&runs[0], &runs[1])
            }),
            Err(e) => loading.error = Some(format!("{e:#}")),
        }
    }
}

fn finish_load(
    mut loading: ResMut<Loading>,
    mut load: MessageWriter<LoadHistory>,
    mut source: ResMut<crate::app::why::CitySource>,
) {
    let Some(job) = &loading.job else { return };
    let received = job.result.lock().map(|r| r.try_recv()).unwrap_or(Err(TryRecvError::Disconnected));
    let (spec, specs) = (job.spec.clone(), job.specs.clone());
    match received {
        Err(TryRecvError::Empty) => {}
        Ok(Ok(history)) if history.snapshots.is_empty() => {
            loading.job = None;
            loading.error = Some(format!("{spec}: the history has no snapshots"));
        }
        Ok(Ok(history)) => {
            info!("loaded {spec}: {} snapshots", history.snapshots.len());
            loading.job = None;
            source.0 = specs;
            load.write(LoadHistory(Arc::new(history)));
        }
        Ok(Err(e)) => {
            loading.job = None;
            error!("{e}");
            loading.error = Some(e);
        }
        Err(TryRecvError::Disconnected) => {
            loading.job = None;
            loading.error = Some(format!("{spec}: the loader stopped without a result"));
        }
    }
}
