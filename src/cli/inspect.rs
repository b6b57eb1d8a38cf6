//! `memcity record --inspect HOST:PORT`: V8 heap snapshots from a Node or Chromium inspector
//! over the DevTools protocol (memcity-v8's recorder), ready for `memcity import DIR`.

use anyhow::{Result, bail};

use super::record::RecordArgs;

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
        println!(
            "snapshot {step}/{}: {} ({mb:.1} MB in {total:.2} s; memcity's part {:.1} ms, {:.1}%)",
            args.count,
            file.display(),
            own * 1e3,
            100.0 * own / total.max(1e-9)
        );
    });
    match result {
        Ok(_) => {
            println!("import them with: memcity import {}", args.out.display());
            Ok(())
        }
        Err(stopped) => {
            if !stopped.written.is_empty() {
                eprintln!(
                    "memcity: {} snapshot(s) recorded before the error are kept in {}",
                    stopped.written.len(),
                    args.out.display()
                );
            }
            Err(anyhow::Error::new(stopped.error))
        }
    }
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
}
