//! V8 heap snapshots from a Node or Chromium inspector over the DevTools protocol (memcity-v8's
//! recorder): `memcity record --inspect HOST:PORT` writes a series for `memcity import DIR`, and
//! `memcity --inspect HOST:PORT` feeds a live city that grows while the program runs.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use memcity_v8::recorder::{RecordOptions, take_one};

use super::record::RecordArgs;

/// How long `--inspect` waits for the inspector to say anything.
const STALL: Duration = Duration::from_secs(60);

/// The inspector's address: a bare port means loopback; anything else must be given in full.
pub fn inspector_addr(given: &str) -> Result<String> {
    if !given.is_empty() && given.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(format!("127.0.0.1:{given}"));
    }
    match given.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Ok(given.to_string()),
        _ => bail!("--inspect {given:?}: expected HOST:PORT (e.g. 127.0.0.1:9229) or a port"),
    }
}

pub fn record(args: &RecordArgs) -> Result<()> {
    let addr = inspector_addr(args.inspect.as_deref().unwrap_or_default())?;
    let options = memcity_v8::recorder::RecordOptions {
        addr,
        target: args.target.clone(),
        every: args.every,
        count: args.count,
        out: args.out.clone(),
        stall: args.stall,
    };
    let mut step = 0;
    let result = memcity_v8::recorder::record(&options, &mut |file, taken| {
        step += 1;
        let mb = taken.bytes as f64 / 1e6;
        let (total, own) = (taken.total.as_secs_f64(), taken.own.as_secs_f64());
        say!(
            "snapshot {step}/{}: {} ({mb:.1} MB in {total:.2} s; memcity's part {:.1} ms, {:.1}%)",
            args.count,
            file.display(),
            own * 1e3,
            100.0 * own / total.max(1e-9)
        );
    });
    match result {
        Ok(_) => {
            say!("import them with: memcity import {}", args.out.display());
            Ok(())
        }
        Err(stopped) => {
            if !stopped.written.is_empty() {
                shout!(
                    "memcity: {} snapshot(s) recorded before the error are kept in {}",
                    stopped.written.len(),
                    args.out.display()
                );
            }
            Err(anyhow::Error::new(stopped.error))
        }
    }
}

/// Where this process's `--inspect` keeps the snapshots it takes.
pub fn snapshot_folder() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("memcity-inspect-{}", std::process::id()))
}

/// Takes a snapshot from the inspector every `every` (`count` of them, or until an error) and
/// pushes each, as soon as it is imported, to the memcity server at `ws`: the first as a new
/// history, the others as appended snapshots, as `--listen` clients do. Snapshots are kept in
/// a temporary folder (printed) for `memcity import` later.
pub fn feed(addr: &str, target: Option<String>, every: Duration, ws: &str, count: Option<u32>) -> Result<()> {
    let out = snapshot_folder();
    let options = RecordOptions { addr: inspector_addr(addr)?, target, every, count: 1, out, stall: STALL };
    say!("--inspect: snapshots of {} go to {}", options.addr, options.out.display());
    let live = memcity_v8::live::LiveSeries::new(memcity_v8::default_grouping());
    let mut connection = memcity_wire::Connection::open(ws, memcity_wire::client::DEFAULT_TIMEOUT)?;
    let mut session = None;
    let start = Instant::now();
    let mut step = 0u32;
    while count.is_none_or(|c| step < c) {
        let (file, _) = take_one(&options, &mut session)?;
        let snapshot = live.add(&file, start.elapsed().as_millis() as u64)?;
        let text = if step == 0 {
            let snapshots = vec![snapshot];
            let history = memcity_model::History {
                format: memcity_model::FORMAT.into(),
                metric_names: Default::default(),
                snapshots,
            };
            memcity_wire::protocol::history_message(&history)
        } else {
            memcity_wire::protocol::snapshot_message(&snapshot)
        };
        let reply: serde_json::Value = serde_json::from_str(&connection.request(text)?)
            .context("the city's server answered with something not JSON")?;
        if reply.get("ok") != Some(&serde_json::Value::Bool(true)) {
            bail!("the city's server refused snapshot {step}: {}", reply["error"]);
        }
        step += 1;
        std::thread::sleep((every * step).saturating_sub(start.elapsed()));
    }
    connection.close();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspector_addresses() {
        assert_eq!(inspector_addr("9229").unwrap(), "127.0.0.1:9229");
        assert_eq!(inspector_addr("localhost:9222").unwrap(), "localhost:9222");
        assert!(inspector_addr("nohost").is_err());
        assert!(inspector_addr(":9229").is_err());
        assert!(inspector_addr("h:99999").is_err());
    }

    /// A live city from a real Node process: three snapshots reach the server, and the leaking
    /// RequestContext group grows. Needs node (fails without it under CI=1).
    #[test]
    fn a_running_node_program_feeds_a_live_city() {
        use std::io::{BufRead, BufReader};
        let present =
            std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
        if !present {
            assert!(
                std::env::var("CI").is_err() && std::env::var("MEMCITY_REQUIRE_NODE").is_err(),
                "node is required"
            );
            return;
        }
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/leak.js");
        let mut node = std::process::Command::new("node")
            .arg("--inspect=127.0.0.1:0")
            .arg(script)
            .arg("serve")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(node.stderr.take().unwrap()).lines();
        let port = loop {
            let line = lines.next().expect("node printed no inspector address").unwrap();
            if let Some(rest) = line.strip_prefix("Debugger listening on ws://127.0.0.1:") {
                break rest.split('/').next().unwrap().to_string();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        let config = memcity_wire::ServerConfig { addr: "127.0.0.1:0".into(), ..Default::default() };
        let server = memcity_wire::Server::start(config).unwrap();
        let ws = format!("ws://{}", server.local_addr());
        let fed = feed(&port, None, Duration::from_millis(400), &ws, Some(3));
        let _ = node.kill();
        let _ = node.wait();
        fed.unwrap();
        let (_, history) = server.latest().unwrap();
        assert_eq!(history.snapshots.len(), 3);
        let contexts: Vec<u64> = history
            .snapshots
            .iter()
            .map(|s| {
                let mut objects = 0;
                s.tree.walk(&mut |n, _| {
                    if n.key == "Heap#Node Type:object#Type:RequestContext" {
                        objects = n.objects;
                    }
                });
                objects
            })
            .collect();
        assert!(contexts[0] < contexts[1] && contexts[1] < contexts[2], "{contexts:?}");
    }
}
