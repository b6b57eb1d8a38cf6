//! The JVM's own class histogram (`jcmd PID GC.class_histogram`), the reference the import's
//! counts are checked against.

use std::collections::BTreeMap;

/// Instances and bytes per class name, rows with the same name summed (one class name can be
/// loaded by several class loaders).
pub type Histogram = BTreeMap<String, (u64, u64)>;

/// Parses jcmd's output; `source` names it in errors.
pub fn parse_histogram(text: &str, source: &str) -> Result<Histogram, String> {
    let mut histogram = Histogram::new();
    for (number, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        // Rows look like "   1:   8185   322600  [B (java.base@17.0.15)", or without the rank
        // ("   171   44312  [C") as JDK 5's jmap wrote them.
        let ranked = words.len() >= 4
            && words[0].ends_with(':')
            && words[0][..words[0].len() - 1].parse::<u64>().is_ok();
        let unranked =
            !ranked && words.len() >= 3 && words[0].parse::<u64>().is_ok() && words[1].parse::<u64>().is_ok();
        if !ranked && !unranked {
            continue;
        }
        let words = if ranked { &words[1..] } else { &words[..] };
        let parse = |w: &str| {
            w.parse::<u64>().map_err(|_| format!("{source}: line {}: not a count: {w:?}", number + 1))
        };
        let entry = histogram.entry(words[2].to_string()).or_default();
        entry.0 += parse(words[0])?;
        entry.1 += parse(words[1])?;
    }
    if histogram.is_empty() {
        return Err(format!("{source}: no class histogram rows found"));
    }
    Ok(histogram)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows_and_sums_duplicates() {
        let text = "123:\n num     #instances         #bytes  class name (module)\n\
            -------------------------------------------------------\n\
               1:          8185         322600  [B (java.base@17.0.15)\n\
               2:          2000          48000  LeakApp$Person\n\
               3:             1             16  LeakApp$Person\n\
            Total         10186         370616\n";
        let h = parse_histogram(text, "h.txt").unwrap();
        assert_eq!(h["[B"], (8185, 322600));
        assert_eq!(h["LeakApp$Person"], (2001, 48016));
        assert_eq!(h.len(), 2);
    }

    #[test]
    fn reads_rows_without_ranks_as_jdk_5_wrote_them() {
        let h = parse_histogram("   171       44312  [C\n    47        4512  java.lang.Class\n", "h.txt")
            .unwrap();
        assert_eq!(h["[C"], (171, 44312));
        assert_eq!(h["java.lang.Class"], (47, 4512));
    }

    #[test]
    fn rejects_bad_counts_and_empty_text() {
        assert!(parse_histogram("   1:   x   5  A\n", "h.txt").unwrap_err().contains("h.txt: line 1"));
        assert!(parse_histogram("nothing here", "h.txt").is_err());
    }
}
