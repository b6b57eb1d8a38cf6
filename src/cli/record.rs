//! `memcity record`: takes a series of heap dumps (and the JVM's class histograms beside them)
//! from a running JVM with jcmd, or of V8 heap snapshots over the DevTools protocol
//! (`--inspect`, see `inspect.rs`), ready for `memcity import DIR`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

#[derive(clap::Args, Debug)]
pub struct RecordArgs {
    /// Process id of the JVM (see `jcmd -l`).
    #[arg(long, required_unless_present = "inspect", conflicts_with = "inspect")]
    pub pid: Option<u32>,
    /// Record V8 heap snapshots instead: the DevTools inspector at HOST:PORT (a Node started
    /// with `--inspect`, a Chromium with `--remote-debugging-port`).
    #[arg(long, value_name = "HOST:PORT")]
    pub inspect: Option<String>,
    /// With --inspect: the target whose URL or title contains this (default: Node's target or
    /// the first page).
    #[arg(long, value_name = "URL-SUBSTRING", requires = "inspect")]
    pub target: Option<String>,
    /// With --inspect: the longest wait for the inspector to say anything.
    #[arg(long, default_value = "60s", value_parser = parse_duration, requires = "inspect")]
    pub stall: Duration,
    /// Time between dumps, e.g. `500ms`, `2s`, `1m`.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub every: Duration,
    /// Number of dumps to take.
    #[arg(long, default_value_t = 5)]
    pub count: u32,
    /// Folder the dumps go to (created). Numbering continues after dumps already in it, so a
    /// series can be taken in several runs.
    #[arg(long)]
    pub out: PathBuf,
    /// The jcmd program to run.
    #[arg(long, default_value = "jcmd")]
    pub jcmd: PathBuf,
}

/// Parses `250ms`, `2s`, `1.5s`, `1m`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 =
        number.parse().map_err(|_| format!("{text:?} is not a duration like 500ms, 2s or 1m"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" | "" => value,
        "m" | "min" => value * 60.0,
        _ => return Err(format!("{text:?}: unknown unit {unit:?} (use ms, s or m)")),
    };
    Ok(Duration::from_secs_f64(seconds))
}

pub fn run(args: RecordArgs) -> Result<()> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    if args.inspect.is_some() {
        return super::inspect::record(&args);
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    // jcmd resolves a relative dump path against the JVM's working directory, not ours.
    let out = args.out.canonicalize().with_context(|| format!("cannot resolve {}", args.out.display()))?;
    let first = next_number(&out)?;
    let start = Instant::now();
    for step in 1..=args.count {
        let number = first + step - 1;
        let dump = out.join(format!("dump-{number:04}.hprof.gz"));
        let dump_arg = dump.to_str().context("the --out path is not valid UTF-8")?;
        let said = jcmd(&args, &["GC.heap_dump", "-gz=1", dump_arg])?;
        if !dump.is_file() {
            bail!("jcmd wrote no dump at {}: {}", dump.display(), one_line(&said));
        }
        let histogram = jcmd(&args, &["GC.class_histogram"])?;
        let histogram_path = out.join(format!("histogram-{number:04}.txt"));
        std::fs::write(&histogram_path, histogram)
            .with_context(|| format!("cannot write {}", histogram_path.display()))?;
        say!("dump {step}/{}: {}", args.count, dump.display());
        if step < args.count {
            std::thread::sleep((args.every * step).saturating_sub(start.elapsed()));
        }
    }
    say!("import them with: memcity import {}", show(&args.out));
    Ok(())
}

/// One more than the highest `dump-NNNN` number in the folder.
fn next_number(out: &Path) -> Result<u32> {
    let entries = std::fs::read_dir(out).with_context(|| format!("cannot list {}", out.display()))?;
    let numbers = entries.flatten().filter_map(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.strip_prefix("dump-")?.split('.').next()?.parse::<u32>().ok()
    });
    Ok(numbers.max().unwrap_or(0) + 1)
}

/// Runs one jcmd command against the JVM and returns its output; jcmd's own error text (e.g. no
/// such process) becomes the error.
fn jcmd(args: &RecordArgs, command: &[&str]) -> Result<String> {
    let pid = args.pid.context("--pid is required")?;
    let output = Command::new(&args.jcmd)
        .arg(pid.to_string())
        .args(command)
        .output()
        .with_context(|| format!("cannot run {} (is a JDK installed?)", args.jcmd.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    // jcmd exits non-zero when it cannot attach; a dump that was not written is caught by the
    // caller checking the file.
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said = format!("{stdout}\n{stderr}");
        bail!("jcmd {pid} {} failed: {}", command.join(" "), one_line(&said));
    }
    Ok(stdout)
}

/// The line of jcmd's output that says what went wrong, without the `PID:` line and stack
/// frames it adds, so an error stays one line.
fn one_line(said: &str) -> String {
    // Neither blank lines, stack frames (`at …`) nor jcmd's `PID:` header say what went wrong.
    let pid_header = |l: &str| l.strip_suffix(':').is_some_and(|n| n.parse::<u64>().is_ok());
    let mut lines =
        said.lines().map(str::trim).filter(|l| !(l.is_empty() || l.starts_with("at ") || pid_header(l)));
    let first = lines.clone().next();
    let cause = lines.find(|l| l.contains("Exception") || l.contains("Error"));
    let line = cause.or(first).unwrap_or("no output");
    const MAX: usize = 300;
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

fn show(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jcmd_errors_become_one_line() {
        let said = "4242:\ncom.sun.tools.attach.AttachNotSupportedException: Unable to open socket file /proc/4242/root/tmp/.java_pid4242\n\
                    \tat jdk.attach/sun.tools.attach.VirtualMachineImpl.<init>(VirtualMachineImpl.java:95)\n\
                    \tat jdk.attach/sun.tools.attach.AttachProviderImpl.attachVirtualMachine(AttachProviderImpl.java:58)\n\
                    \tat jdk.jcmd/sun.tools.jcmd.JCmd.executeCommandForPid(JCmd.java:113)\n\n";
        assert_eq!(
            one_line(said),
            "com.sun.tools.attach.AttachNotSupportedException: Unable to open socket file /proc/4242/root/tmp/.java_pid4242"
        );
        assert_eq!(one_line("4242:\nCould not find any process\n"), "Could not find any process");
        assert_eq!(one_line(""), "no output");
        assert_eq!(one_line(&"x".repeat(1000)).chars().count(), 301);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("2h").unwrap_err().contains("unknown unit"));
        assert!(parse_duration("fast").is_err());
    }
}
