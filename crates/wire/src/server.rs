//! The WebSocket server: one thread accepts, one thread per client reads messages and applies
//! them to the shared [`LiveHistory`]. The app (or `memcity serve`) polls [`Server::latest`] or
//! listens on [`Server::subscribe`]. A bad message is answered with an error and changes
//! nothing; the connection stays up (except after an oversize message, see `connection`).

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use memcity_model::{History, Snapshot};

use crate::access::Access;
use crate::budget::Budget;
use crate::connection;
use crate::live::LiveHistory;
use crate::protocol::{Change, Message, Reply, kind_of, parse_message, type_of};

/// Where the server listens unless told otherwise: loopback only, port 7878.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7878";
/// Enough for a class pushing to one teacher's city.
pub const DEFAULT_MAX_CLIENTS: usize = 64;
/// The largest message accepted (128 MiB): a large history in one `history` message. Its
/// parsed form takes 2 to 4 times as much, which must fit in the memory budget.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 128 << 20;
/// Memory for the history and every message being received or sent, all clients together.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 1 << 30;
/// A client that neither sends nor receives for this long is disconnected, freeing its slot.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a new connection has, in total, to complete the WebSocket handshake.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `host:port` to listen on. Any address given explicitly is used as given; the default is
    /// loopback ([`DEFAULT_ADDR`]). Port 0 picks a free port ([`Server::local_addr`] tells it).
    pub addr: String,
    /// Connections beyond this many are refused with HTTP 503.
    pub max_clients: usize,
    /// Messages larger than this are rejected (and the connection closed with 1009).
    pub max_message_bytes: usize,
    /// Where `save` messages without a path, and [`Server::shutdown`], write the history.
    pub save_path: Option<PathBuf>,
    /// The one folder a `save` message with a `path` may write into, and then only a plain file
    /// name there (`--save-dir`). Without it clients cannot choose where the server writes.
    pub save_dir: Option<PathBuf>,
    /// Who may connect: Origin, Host and token, checked at the handshake.
    pub access: Access,
    /// The memory budget: the history (estimated) plus messages being received (charged as
    /// they arrive) and `get` replies being sent. Beyond it a message is refused and its
    /// connection closed with 1013 (Try Again Later); a change that would make the history
    /// larger is refused.
    pub max_memory_bytes: u64,
    /// Clients silent for this long (no byte received) are disconnected with 1001.
    pub idle_timeout: Duration,
    /// The whole WebSocket handshake must be done within this time.
    pub handshake_timeout: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            addr: DEFAULT_ADDR.into(),
            max_clients: DEFAULT_MAX_CLIENTS,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            save_path: None,
            save_dir: None,
            access: Access::default(),
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
        }
    }
}

/// One applied change, sent to subscribers. Small on purpose: take the history from
/// [`Server::latest`].
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    pub version: u64,
    /// The message type that made the change (`history`, `snapshot`, `pointers`, `clear`).
    pub kind: &'static str,
    /// Snapshots in the history after the change.
    pub snapshots: usize,
    /// For `snapshot`: the appended snapshot, so a live view can extend its own copy instead
    /// of taking the whole history from [`Server::latest`] (whose `Arc` it would then share,
    /// making the next append copy the history).
    pub appended: Option<Arc<Snapshot>>,
    /// When the server had read the whole message (for measuring push-to-frame latency).
    pub received: Instant,
}

/// A running server. Dropping it stops it without saving; [`Server::shutdown`] also saves.
pub struct Server {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
}

/// What the threads share.
pub(crate) struct Shared {
    pub(crate) config: ServerConfig,
    pub(crate) live: Mutex<LiveHistory>,
    pub(crate) budget: Budget,
    pub(crate) stop: AtomicBool,
    pub(crate) next_client: AtomicU64,
    /// A handle on each connected client's socket, to count them and to hang up on shutdown.
    pub(crate) clients: Mutex<HashMap<u64, TcpStream>>,
    pub(crate) threads: Mutex<Vec<JoinHandle<()>>>,
    /// Connections over the cap being answered with 503 right now.
    pub(crate) refusing: AtomicUsize,
    pub(crate) subscribers: Mutex<Vec<Sender<Update>>>,
    /// Serialises saves so two never write the same file at once.
    pub(crate) saving: Mutex<()>,
    /// Handshakes refused by [`Access`] so far.
    pub(crate) refused: AtomicU64,
}

/// A lock whose holder panicked still holds consistent data here (all changes are applied
/// whole), so poisoning is ignored.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Server {
    /// Binds `config.addr` and starts serving on background threads. Refuses to listen beyond
    /// loopback without a token (see [`Access::check_config`]).
    pub fn start(config: ServerConfig) -> io::Result<Server> {
        let listener = TcpListener::bind(config.addr.as_str())
            .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", config.addr)))?;
        let local_addr = listener.local_addr()?;
        config
            .access
            .check_config(local_addr.ip().is_loopback())
            .map_err(|e| io::Error::new(io::ErrorKind::PermissionDenied, format!("{}: {e}", config.addr)))?;
        let shared = Arc::new(Shared::new(config));
        let accept = {
            let shared = shared.clone();
            thread::Builder::new()
                .name("memcity-wire-accept".into())
                .spawn(move || connection::accept_loop(&shared, listener))?
        };
        Ok(Server { shared, local_addr, accept: Some(accept) })
    }

    /// The address actually bound (with the real port when the config asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The current version and history, or `None` before anything was received. After `clear`
    /// the history has no snapshots.
    pub fn latest(&self) -> Option<(u64, Arc<History>)> {
        let live = lock(&self.shared.live);
        (live.version() > 0).then(|| (live.version(), live.history().clone()))
    }

    /// The version alone: a cheap check whether [`Server::latest`] has something new.
    pub fn version(&self) -> u64 {
        lock(&self.shared.live).version()
    }

    /// A channel that receives an [`Update`] for every applied change from now on.
    pub fn subscribe(&self) -> Receiver<Update> {
        let (sender, receiver) = channel();
        lock(&self.shared.subscribers).push(sender);
        receiver
    }

    /// How many handshakes were refused for their Origin, Host or token.
    pub fn refused(&self) -> u64 {
        self.shared.refused.load(Ordering::SeqCst)
    }

    /// The URL clients connect with, the token included.
    pub fn url(&self) -> String {
        crate::access::url_with_token(
            &format!("ws://{}", self.local_addr),
            self.shared.config.access.token.as_deref(),
        )
    }

    /// How many clients are connected now.
    pub fn clients(&self) -> usize {
        lock(&self.shared.clients).len()
    }

    /// Stops the server (hanging up on every client) and saves the history to the configured
    /// save path if there is one and the history is not empty. Returns where it saved.
    pub fn shutdown(mut self) -> Result<Option<PathBuf>, String> {
        self.stop();
        let Some(path) = self.shared.config.save_path.clone() else { return Ok(None) };
        let history = lock(&self.shared.live).history().clone();
        if history.snapshots.is_empty() {
            return Ok(None);
        }
        self.shared.save(&history, &path)?;
        Ok(Some(path))
    }

    fn stop(&mut self) {
        let Some(accept) = self.accept.take() else { return };
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop with a connection of our own.
        let _ = TcpStream::connect_timeout(&wake_addr(self.local_addr), Duration::from_secs(1));
        let _ = accept.join();
        for stream in lock(&self.shared.clients).values() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        let threads = std::mem::take(&mut *lock(&self.shared.threads));
        for thread in threads {
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The history may take 2/3 of the memory budget: the rest stays for messages in transit and
/// replies, so a full history can still be fetched with `get` (its JSON takes about half the
/// history's size) and `clear` or small messages get through.
fn history_budget(max_memory_bytes: u64) -> u64 {
    max_memory_bytes / 3 * 2
}

/// An address the server can be reached on from this machine.
fn wake_addr(addr: SocketAddr) -> SocketAddr {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, addr.port())
}

impl Shared {
    fn new(config: ServerConfig) -> Shared {
        Shared {
            live: Mutex::new(LiveHistory::with_budget(history_budget(config.max_memory_bytes))),
            budget: Budget::new(config.max_memory_bytes),
            config,
            stop: AtomicBool::new(false),
            next_client: AtomicU64::new(0),
            clients: Mutex::new(HashMap::new()),
            threads: Mutex::new(Vec::new()),
            refusing: AtomicUsize::new(0),
            subscribers: Mutex::new(Vec::new()),
            saving: Mutex::new(()),
            refused: AtomicU64::new(0),
        }
    }

    /// Parses and carries out one message; always produces a reply. The text is dropped once
    /// parsed, before the change is checked and applied, so the two are not held together.
    pub(crate) fn handle(&self, bytes: impl AsRef<[u8]>, received: Instant) -> Reply {
        let message = match parse_message(bytes.as_ref()) {
            Ok(message) => message,
            Err(error) => return Reply::error(type_of(bytes.as_ref()), error),
        };
        drop(bytes);
        let kind = kind_of(&message);
        match message {
            Message::Change(change) => {
                let appending = matches!(change, Change::Snapshot(_)) && !lock(&self.subscribers).is_empty();
                let (applied, update) = {
                    let mut live = lock(&self.live);
                    let applied = live.apply(change);
                    self.budget.set_held(live.memory_bytes());
                    let history = live.history();
                    let update = Update {
                        version: live.version(),
                        kind,
                        snapshots: history.snapshots.len(),
                        appended: (appending && applied.changed)
                            .then(|| history.snapshots.last().cloned().map(Arc::new))
                            .flatten(),
                        received,
                    };
                    (applied, update)
                };
                if applied.changed {
                    self.notify(update);
                }
                applied.reply
            }
            Message::Get => {
                let live = lock(&self.live);
                let mut reply = live.reply(kind);
                reply.history = Some(live.history().clone());
                reply
            }
            Message::Save { path } => self.save_request(path),
        }
    }

    fn notify(&self, update: Update) {
        lock(&self.subscribers).retain(|s| s.send(update.clone()).is_ok());
    }

    fn save_request(&self, name: Option<String>) -> Reply {
        let path = match (name, &self.config.save_path) {
            (Some(name), _) => match crate::save::path_in(self.config.save_dir.as_deref(), &name) {
                Ok(path) => path,
                Err(error) => return Reply::error(Some("save"), format!("message: at path: {error}")),
            },
            (None, Some(path)) => path.clone(),
            (None, None) => {
                return Reply::error(
                    Some("save"),
                    "message: no save path: start the server with one (memcity serve --save FILE), or with \
                     --save-dir DIR and give a file name as \"path\"",
                );
            }
        };
        let (history, mut reply) = {
            let live = lock(&self.live);
            (live.history().clone(), live.reply("save"))
        };
        if history.snapshots.is_empty() {
            return Reply::error(Some("save"), "message: nothing to save: the history has no snapshots");
        }
        match self.save(&history, &path) {
            Ok(()) => {
                reply.path = Some(path.display().to_string());
                reply
            }
            Err(error) => Reply::error(Some("save"), error),
        }
    }

    fn save(&self, history: &History, path: &Path) -> Result<(), String> {
        let _saving = lock(&self.saving);
        crate::save::replace(history, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(save_path: Option<PathBuf>, save_dir: Option<PathBuf>) -> Shared {
        let shared = Shared::new(ServerConfig { save_path, save_dir, ..ServerConfig::default() });
        let history = r#"{"type":"history","snapshots":[{"time_ms":1,"tree":{"key":"H","name":"H","objects":1,"bytes":8}}]}"#;
        assert!(shared.handle(history.as_bytes(), Instant::now()).ok);
        shared
    }

    fn save(shared: &Shared, path: &str) -> Reply {
        shared.handle(format!(r#"{{"type":"save","path":{path:?}}}"#).as_bytes(), Instant::now())
    }

    #[test]
    fn clients_may_not_choose_a_path_without_a_save_dir() {
        let path = std::env::temp_dir().join(format!("memcity-wire-own-{}.json", std::process::id()));
        let server = shared(Some(path.clone()), None);
        let elsewhere = std::env::temp_dir().join(format!("memcity-wire-elsewhere-{}", std::process::id()));
        let reply = save(&server, &elsewhere.display().to_string());
        assert!(reply.error.unwrap().contains("may not choose where the server writes"));
        assert!(!elsewhere.exists());
        // The server's own save path is still fine.
        let reply = server.handle(br#"{"type":"save"}"#, Instant::now());
        assert_eq!(reply.path, Some(path.display().to_string()));
        assert_eq!(memcity_model::load_path(&path).unwrap().snapshots.len(), 1);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn clients_name_plain_files_inside_the_save_dir() {
        let dir = std::env::temp_dir().join(format!("memcity-wire-dir-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let server = shared(None, Some(dir.clone()));
        for bad in ["../x.json", "/etc/x.json", "a/b.json"] {
            assert!(save(&server, bad).error.is_some(), "{bad} is refused");
        }
        let reply = save(&server, "run.json");
        assert!(reply.ok, "{reply:?}");
        assert_eq!(memcity_model::load_path(&dir.join("run.json")).unwrap().snapshots.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
