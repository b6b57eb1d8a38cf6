//! The live city (`memcity --listen`): the WebSocket server runs on its own threads
//! (memcity-wire); each frame this plugin takes what it applied. An appended snapshot extends the
//! city in place: the layout is recomputed keeping the buildings' arrangement, the change is
//! animated (see [`LayoutMorph`]), and a viewer at the last snapshot follows the new one.

use std::sync::Mutex;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use memcity_wire::{Server, Update};

use crate::app::model::{CityModel, LayoutMorph, LayoutSettings, LoadHistory, ModelSystems};
use crate::app::time::TimeCursor;

/// The server and what the UI shows about it.
#[derive(Resource)]
pub struct LiveServer {
    server: Server,
    updates: Mutex<Receiver<Update>>,
    pub url: String,
    /// The last applied change: its message type and version.
    pub last: Option<(&'static str, u64)>,
    /// From the server having read a message to the city showing it, for the last change.
    pub latency: Option<Duration>,
    /// How long the app took to rebuild the city (timeline, layout, frames) for the last change.
    pub rebuild: Option<Duration>,
    /// Changes waiting for the displayed frame to catch up (their receive times).
    pending: Vec<Instant>,
    /// Where the live snapshots lie when memcity itself wrote or reads them (`--inspect`'s
    /// folder, `--follow`'s): a live city's exact GC closures are computed from there. Empty for
    /// histories pushed by clients, which carry groups, not objects.
    pub source: Vec<String>,
}

impl LiveServer {
    pub fn new(server: Server) -> LiveServer {
        let updates = Mutex::new(server.subscribe());
        let url = server.url();
        LiveServer {
            server,
            updates,
            url,
            last: None,
            latency: None,
            rebuild: None,
            pending: Vec::new(),
            source: Vec::new(),
        }
    }

    /// A live city whose snapshots memcity can read again from `source`.
    pub fn with_source(mut self, source: Vec<String>) -> LiveServer {
        self.source = source;
        self
    }

    pub fn clients(&self) -> usize {
        self.server.clients()
    }

    /// Calls `wake` after every update the server applies, from the server's side: an app that
    /// sleeps while nothing changes (a window in reactive mode) wakes up for a push.
    pub fn wake_on_update(&mut self, wake: impl Fn() + Send + 'static) {
        let (send, receive) = std::sync::mpsc::channel();
        let Ok(mut updates) = self.updates.lock() else { return };
        let from_server = std::mem::replace(&mut *updates, receive);
        let spawned = std::thread::Builder::new().name("memcity-live-wake".into()).spawn(move || {
            for update in from_server {
                if send.send(update).is_err() {
                    break;
                }
                wake();
            }
        });
        if let Err(e) = spawned {
            error!("live updates cannot reach the window: cannot start the wake-up thread: {e}");
        }
    }
}

pub struct LivePlugin;

impl Plugin for LivePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<crate::app::why::CitySource>()
            .add_systems(PreUpdate, take_updates.before(ModelSystems::Load))
            .add_systems(Last, measure_latency);
    }
}

fn take_updates(
    mut live: ResMut<LiveServer>,
    mut model: ResMut<CityModel>,
    settings: Res<LayoutSettings>,
    mut cursor: ResMut<TimeCursor>,
    mut morph: ResMut<LayoutMorph>,
    mut load: MessageWriter<LoadHistory>,
    mut source: ResMut<crate::app::why::CitySource>,
) {
    let updates: Vec<Update> = match live.updates.lock() {
        Ok(receiver) => receiver.try_iter().collect(),
        Err(_) => return,
    };
    let Some(newest) = updates.last() else { return };
    live.last = Some((newest.kind, newest.version));
    live.pending.extend(updates.iter().map(|u| u.received));
    let following = cursor.current + 1 >= model.snapshot_count();
    let start = Instant::now();
    // Appends that continue the city's own copy extend it; anything else takes the server's
    // history whole (a new history, pointer maps, clear, or appends this copy missed).
    let mut count = model.snapshot_count();
    let appends: Option<Vec<_>> = updates
        .iter()
        .map(|u| {
            count += 1;
            u.appended.clone().filter(|_| u.kind == "snapshot" && u.snapshots == count)
        })
        .collect();
    match appends {
        Some(snapshots) if model.snapshot_count() > 0 => {
            let previous = model.layout.clone();
            model.extend(snapshots.iter().map(|s| (**s).clone()), &settings);
            if model.layout.buildings.iter().map(|b| b.cell).ne(previous.buildings.iter().map(|b| b.cell)) {
                *morph = LayoutMorph { from: Some(previous), generation: model.generation, t: 0.0 };
            }
        }
        _ => {
            let Some((_, history)) = live.server.latest() else { return };
            // Only snapshots and pointer maps keep it the same city.
            let same_city = updates.iter().all(|u| u.kind == "snapshot" || u.kind == "pointers");
            if same_city && model.snapshot_count() > 0 {
                // Same city, more data: keep the arrangement.
                let previous = model.layout.clone();
                model.replace_keeping_layout((*history).clone(), &settings);
                *morph = LayoutMorph { from: Some(previous), generation: model.generation, t: 0.0 };
            } else {
                source.0.clone_from(&live.source);
                load.write(LoadHistory(history));
            }
        }
    }
    live.rebuild = Some(start.elapsed());
    let count = model.snapshot_count();
    if following && count > 0 {
        cursor.go_to(count - 1, count);
    }
}

/// Latency ends when the update that applied the change ends: the city's frame and instances
/// are rebuilt then, and the renderer draws them next.
fn measure_latency(mut live: ResMut<LiveServer>) {
    if let Some(first) = live.pending.first().copied() {
        let latency = first.elapsed();
        if let Some((kind, version)) = live.last {
            let (ms, rebuild) =
                (latency.as_secs_f64() * 1e3, live.rebuild.unwrap_or_default().as_secs_f64() * 1e3);
            info!(
                "live: {kind} (version {version}) in the city {ms:.1} ms after it arrived (rebuild {rebuild:.1} ms)"
            );
        }
        live.latency = Some(latency);
        live.pending.clear();
    }
}
