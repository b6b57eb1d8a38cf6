//! `memcity generate-dump`: a JVM-shaped HPROF dump of about N objects, streamed with no JVM
//! (the heap of benches/structures/BigHeap.java; docs/hprof.md), for benchmarks and tests.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use memcity_hprof::generate::{Spec, write_file};

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// About how many objects: a number, or with a suffix k, M or G (96M).
    #[arg(long, value_name = "N")]
    pub objects: String,
    /// The most bytes of one heap dump segment, in MiB (each is gathered in memory before it
    /// is written, so this bounds the generator's memory; arrays larger than it stream).
    #[arg(long, value_name = "MIB", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=4095))]
    pub segment_mib: u64,
    /// Where the dump is written.
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,
}

/// The most objects asked for: beyond u32 object numbers, memcity refuses the dump anyway.
const MOST: u64 = 1 << 32;

pub fn run(args: GenerateArgs) -> Result<()> {
    let objects = parse_count(&args.objects)?;
    let mut spec = Spec::for_objects(objects);
    spec.segment_bytes = (args.segment_mib << 20) as usize;
    let summary = write_file(&args.out, &spec).with_context(|| format!("writing {}", args.out.display()))?;
    say!(
        "{}: {} objects, {} references, {} bytes in {} heap dump segments",
        args.out.display(),
        summary.objects,
        summary.references,
        summary.bytes,
        summary.segments
    );
    Ok(())
}

/// `96M` → 96,000,000; refuses anything else in one line.
fn parse_count(text: &str) -> Result<u64> {
    let (digits, unit) = match text.char_indices().last() {
        Some((at, 'k' | 'K')) => (&text[..at], 1_000),
        Some((at, 'M')) => (&text[..at], 1_000_000),
        Some((at, 'G')) => (&text[..at], 1_000_000_000),
        _ => (text, 1),
    };
    let count = digits.parse::<u64>().ok().and_then(|n| n.checked_mul(unit));
    match count {
        Some(n) if (1_000..=MOST).contains(&n) => Ok(n),
        _ => bail!(
            "--objects {}: give a count from 1000 to 4G, e.g. 2000000 or 96M",
            memcity_model::escape::terminal(text)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_count;

    #[test]
    fn counts_with_suffixes_and_one_line_refusals() {
        assert_eq!(parse_count("2000").unwrap(), 2000);
        assert_eq!(parse_count("96M").unwrap(), 96_000_000);
        assert_eq!(parse_count("5k").unwrap(), 5_000);
        assert_eq!(parse_count("4G").unwrap(), 4_000_000_000);
        for bad in ["", "M", "12", "5G", "-3", "1.5M", "10 M", "99999999999999999999"] {
            let err = parse_count(bad).unwrap_err().to_string();
            assert!(err.starts_with(&format!("--objects {bad}: give a count")), "{bad}: {err}");
            assert!(!err.contains('\n'));
        }
    }
}
