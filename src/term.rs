//! What the CLI prints goes through here: names in it come from heaps made on other people's
//! machines, so control characters are shown escaped (`\x1b`) instead of reaching the terminal
//! (memcity_model::escape::terminal). Use `say!` for stdout and `shout!` for stderr wherever
//! `println!`/`eprintln!` would print text that holds an input's names, paths or errors.

/// `println!` with the text escaped for a terminal (newlines and tabs kept). A reader that
/// went away (`memcity … | head`) is no error: the rest is not printed, and the command's own
/// result (its exit code) stands.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), "{}", memcity_model::escape::terminal(&format!($($arg)*)));
    }};
}

/// `eprintln!` with the text escaped for a terminal (newlines and tabs kept).
macro_rules! shout {
    ($($arg:tt)*) => {
        eprintln!("{}", memcity_model::escape::terminal(&format!($($arg)*)))
    };
}

/// `print!` with the text escaped for a terminal (newlines and tabs kept); as `say!`, a
/// reader that went away is no error.
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), "{}", memcity_model::escape::terminal(&format!($($arg)*)));
    }};
}
