//! Bounds that every reader of untrusted input shares, so that hostile input cannot take
//! unbounded memory (docs/limits.md).

/// Gzipped input may inflate to at most this many times its file size. Real heap dumps and
/// heap snapshots compress 3 to 20 times; a file of zeros (a gzip bomb) about 1000 times.
pub const MAX_GZIP_RATIO: u64 = 100;
/// ...but a small file may always inflate this far.
pub const MIN_GZIP_LIMIT: u64 = 64 << 20;

/// How many bytes gzip data of `compressed` bytes may inflate to.
pub fn gzip_limit(compressed: u64) -> u64 {
    compressed.saturating_mul(MAX_GZIP_RATIO).max(MIN_GZIP_LIMIT)
}

/// The one-line reason a gzip file past [`gzip_limit`] is refused; `what` is what to import
/// instead once it is gunzipped (".hprof").
pub fn gzip_bomb(limit: u64, what: &str) -> String {
    format!(
        "the gzip data inflates to more than {limit} bytes, {MAX_GZIP_RATIO} times the file: refused as a \
         likely gzip bomb (if it is real, gunzip it and import the {what})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_may_always_inflate_to_the_minimum() {
        assert_eq!(gzip_limit(1000), MIN_GZIP_LIMIT);
        assert_eq!(gzip_limit(10 << 20), 1000 << 20);
        assert_eq!(gzip_limit(u64::MAX), u64::MAX);
        assert!(gzip_bomb(5, ".hprof").contains("more than 5 bytes, 100 times the file"));
    }
}
