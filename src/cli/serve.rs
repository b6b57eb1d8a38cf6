//! `memcity serve`: the WebSocket server without a window, for scripts and CI. It collects what
//! clients push and writes it on a `save` message or when stopped (Ctrl-C, SIGTERM).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use memcity_wire::{
    Access, DEFAULT_ADDR, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CLIENTS, DEFAULT_MAX_MEMORY_BYTES,
    DEFAULT_MAX_MESSAGE_BYTES, Server, ServerConfig, TOKEN_VARIABLE,
};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on; anything but loopback must be given explicitly. Port 0 picks a
    /// free port (the first line printed is the URL actually bound).
    #[arg(default_value = DEFAULT_ADDR)]
    pub addr: String,
    /// Write the history here on a `save` message without a path, and on exit.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Let clients save into this folder by giving a plain file name (`{"type":"save","path":
    /// "run.json"}`); never over a file that is not a memcity history.
    #[arg(long, value_name = "DIR")]
    pub save_dir: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub access: AccessArgs,
    /// Also follow a probe's snapshot folder (e.g. memcity_probe.py --out DIR): its snapshots
    /// become the history as they appear.
    #[arg(long, value_name = "DIR")]
    pub follow: Option<PathBuf>,
}

/// The server's limits, shared by `serve` and `memcity --listen`.
#[derive(clap::Args, Debug, Clone)]
pub struct LimitArgs {
    /// Refuse connections beyond this many clients.
    #[arg(long, default_value_t = DEFAULT_MAX_CLIENTS as u64, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_clients: u64,
    /// Reject messages larger than this many MiB.
    #[arg(long, default_value_t = (DEFAULT_MAX_MESSAGE_BYTES >> 20) as u64, value_name = "M",
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_message_mib: u64,
    /// Memory for the history plus every message in transit, all clients together, in MiB.
    #[arg(long, default_value_t = DEFAULT_MAX_MEMORY_BYTES >> 20, value_name = "M",
          value_parser = clap::value_parser!(u64).range(16..=1 << 20))]
    pub max_memory_mib: u64,
    /// Disconnect clients that send nothing for this many seconds.
    #[arg(long, default_value_t = DEFAULT_IDLE_TIMEOUT.as_secs(), value_name = "S",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub idle_timeout_s: u64,
}

/// Who may connect (docs/websocket.md, "Security"), shared by `serve` and `memcity --listen`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct AccessArgs {
    /// Require this token of every client (`ws://HOST:PORT/?token=T`); default: the
    /// MEMCITY_TOKEN environment variable. Beyond loopback one is generated if none is given.
    #[arg(long, value_name = "T")]
    pub token: Option<String>,
    /// Let web pages of this origin connect (e.g. `http://localhost:5173`); repeatable. `*`
    /// allows every origin and needs a token.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Accept this host name in requests besides IP addresses and localhost; repeatable.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
}

impl AccessArgs {
    /// The access rules for a server on `addr`: the given token (or the environment's), and
    /// beyond loopback a fresh one when none is given, so no such server is open to anyone.
    pub fn access(&self, addr: &str) -> anyhow::Result<Access> {
        let from_env = std::env::var(TOKEN_VARIABLE).ok().filter(|t| !t.is_empty());
        let mut token = self.token.clone().or(from_env);
        if token.as_deref() == Some("") {
            anyhow::bail!("--token: empty");
        }
        if token.is_none() && !is_loopback(addr) {
            token = Some(memcity_wire::access::new_token());
        }
        Ok(Access {
            token,
            allowed_origins: self.allow_origin.clone(),
            allowed_hosts: self.allow_host.clone(),
        })
    }
}

/// Whether every address `addr` resolves to is a loopback one (an unresolvable one is not).
fn is_loopback(addr: &str) -> bool {
    use std::net::ToSocketAddrs;
    addr.to_socket_addrs().is_ok_and(|mut addrs| addrs.all(|a| a.ip().is_loopback()))
}

impl LimitArgs {
    /// The server configuration for `addr` with these limits.
    pub fn config(&self, addr: String, save_path: Option<PathBuf>, access: Access) -> ServerConfig {
        ServerConfig {
            access,
            addr,
            max_clients: self.max_clients as usize,
            // Both at most 2^32 by their ranges, so the shifts cannot overflow.
            max_message_bytes: (self.max_message_mib << 20) as usize,
            max_memory_bytes: self.max_memory_mib << 20,
            idle_timeout: Duration::from_secs(self.idle_timeout_s),
            save_path,
            ..ServerConfig::default()
        }
    }
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    if let Some(save) = &args.save {
        crate::cli::paths::check_output_file(save, "--save")?;
    }
    if let Some(dir) = &args.save_dir
        && !dir.is_dir()
    {
        anyhow::bail!("--save-dir {}: not a folder", dir.display());
    }
    let access = args.access.access(&args.addr)?;
    let config = ServerConfig { save_dir: args.save_dir, ..args.limits.config(args.addr, args.save, access) };
    let server = Server::start(config)?;
    let addr = server.local_addr();
    say!("{}", server.url());
    if !addr.ip().is_loopback() {
        shout!("memcity: listening on {addr}, beyond loopback: clients need the token in the URL above");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let on_signal = stop.clone();
    ctrlc::set_handler(move || on_signal.store(true, Ordering::SeqCst)).context("cannot handle Ctrl-C")?;
    let following = match &args.follow {
        Some(dir) => Some(crate::follow::spawn(dir, server.url(), stop.clone())?),
        None => None,
    };
    let updates = server.subscribe();
    while !stop.load(Ordering::SeqCst) {
        if let Ok(update) = updates.recv_timeout(Duration::from_millis(100)) {
            say!("version {}: {} ({} snapshots)", update.version, update.kind, update.snapshots);
        }
    }
    if let Some(thread) = following {
        let _ = thread.join();
    }
    if let Some(path) = server.shutdown().map_err(anyhow::Error::msg)? {
        say!("saved {}", path.display());
    }
    Ok(())
}
