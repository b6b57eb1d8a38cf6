//! `memcity serve`: the WebSocket server without a window, for scripts and CI. It collects what
//! clients push and writes it on a `save` message or when stopped (Ctrl-C, SIGTERM).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use memcity_wire::{DEFAULT_ADDR, DEFAULT_MAX_CLIENTS, Server, ServerConfig};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on; anything but loopback must be given explicitly. Port 0 picks a
    /// free port (the first line printed is the URL actually bound).
    #[arg(default_value = DEFAULT_ADDR)]
    pub addr: String,
    /// Write the history here on a `save` message without a path, and on exit.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Refuse connections beyond this many clients.
    #[arg(long, default_value_t = DEFAULT_MAX_CLIENTS, value_name = "N")]
    pub max_clients: usize,
    /// Reject messages larger than this many MiB.
    #[arg(long, default_value_t = 256, value_name = "M", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_message_mib: u64,
    /// Also follow a probe's snapshot folder (e.g. memcity_probe.py --out DIR): its snapshots
    /// become the history as they appear.
    #[arg(long, value_name = "DIR")]
    pub follow: Option<PathBuf>,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let config = ServerConfig {
        addr: args.addr,
        max_clients: args.max_clients,
        max_message_bytes: usize::try_from(args.max_message_mib << 20)
            .context("--max-message-mib is too large")?,
        save_path: args.save,
    };
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
