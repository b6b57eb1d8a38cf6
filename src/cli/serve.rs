//! `memcity serve`: the WebSocket server without a window, for scripts and CI. It collects what
//! clients push and writes it on a `save` message or when stopped (Ctrl-C, SIGTERM).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use memcity_wire::{
    DEFAULT_ADDR, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CLIENTS, DEFAULT_MAX_MEMORY_BYTES,
    DEFAULT_MAX_MESSAGE_BYTES, Server, ServerConfig,
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
    #[command(flatten)]
    pub limits: LimitArgs,
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

impl LimitArgs {
    /// The server configuration for `addr` with these limits.
    pub fn config(&self, addr: String, save_path: Option<PathBuf>) -> ServerConfig {
        ServerConfig {
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
    let config = args.limits.config(args.addr, args.save);
    let server = Server::start(config)?;
    let addr = server.local_addr();
    println!("ws://{addr}");
    if !addr.ip().is_loopback() {
        eprintln!(
            "memcity: listening on {addr}, beyond loopback: anyone who can reach it can replace the history"
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    let on_signal = stop.clone();
    ctrlc::set_handler(move || on_signal.store(true, Ordering::SeqCst)).context("cannot handle Ctrl-C")?;
    let following = match &args.follow {
        Some(dir) => Some(crate::follow::spawn(dir, format!("ws://{addr}"), stop.clone())?),
        None => None,
    };
    let updates = server.subscribe();
    while !stop.load(Ordering::SeqCst) {
        if let Ok(update) = updates.recv_timeout(Duration::from_millis(100)) {
            println!("version {}: {} ({} snapshots)", update.version, update.kind, update.snapshots);
        }
    }
    if let Some(thread) = following {
        let _ = thread.join();
    }
    if let Some(path) = server.shutdown().map_err(anyhow::Error::msg)? {
        println!("saved {}", path.display());
    }
    Ok(())
}
