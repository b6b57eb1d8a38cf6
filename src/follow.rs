//! `--follow DIR`: a probe's snapshot folder feeds a live memcity server as the program runs. A
//! thread polls the folder (memcity-heapfile's `Follower`) and pushes what is new over
//! WebSocket, exactly as any live client would (docs/websocket.md): new snapshots are appended
//! while the earlier ones are unchanged; when a later snapshot regroups earlier ones (a group
//! that gains subgroups), the whole history is sent again.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use memcity_heapfile::{Follower, default_grouping};
use memcity_model::History;
use memcity_wire::Connection;
use memcity_wire::protocol::{history_message, snapshot_message};

/// How often the folder is looked at.
const POLL: Duration = Duration::from_millis(200);

/// Starts following `dir`, pushing to the server at `url` until `stop` is set. Bad snapshot
/// files are reported on stderr and skipped; the city keeps what it has.
pub fn spawn(dir: &Path, url: String, stop: Arc<AtomicBool>) -> Result<JoinHandle<()>> {
    let mut follower =
        Follower::new(dir, default_grouping()).map_err(|e| anyhow::anyhow!("--follow: {e}"))?;
    let thread = std::thread::Builder::new().name("memcity-follow".into()).spawn(move || {
        let mut sent: Option<History> = None;
        // A history the server has not taken yet is sent again at the next poll.
        let mut pending: Option<History> = None;
        while !stop.load(Ordering::SeqCst) {
            let poll = follower.poll();
            for error in &poll.errors {
                shout!("memcity: --follow: {error}");
            }
            if let Some(history) = poll.history.or(pending.take())
                && let Err(error) = push(&url, &mut sent, &history)
            {
                shout!("memcity: --follow: {error:#}");
                pending = Some(history);
            }
            std::thread::sleep(POLL);
        }
    });
    thread.context("cannot start the --follow thread")
}

/// Sends what `sent` lacks of `history` on a connection of its own (a program may write nothing
/// for longer than the server keeps an idle client): appends, or the whole history if earlier
/// snapshots changed.
fn push(url: &str, sent: &mut Option<History>, history: &History) -> Result<()> {
    let mut connection = Connection::open(url, memcity_wire::client::DEFAULT_TIMEOUT)?;
    let known = sent.as_ref().map_or(0, |s| s.snapshots.len());
    let appends = sent.as_ref().is_some_and(|s| {
        known > 0 && known <= history.snapshots.len() && s.snapshots[..] == history.snapshots[..known]
    });
    let messages: Vec<String> = if appends {
        history.snapshots[known..].iter().map(snapshot_message).collect()
    } else {
        vec![history_message(history)]
    };
    // Nothing counts as sent until the server took it.
    *sent = None;
    for message in messages {
        let reply = connection.request(message)?;
        let value: serde_json::Value =
            serde_json::from_str(&reply).context("the server's reply is not JSON")?;
        if value.get("ok") != Some(&serde_json::Value::Bool(true)) {
            anyhow::bail!("the server refused a snapshot: {}", value.get("error").unwrap_or(&value));
        }
    }
    connection.close();
    *sent = Some(history.clone());
    Ok(())
}
