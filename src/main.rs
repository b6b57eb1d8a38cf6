//! memcity: a program's heap over time as a 3D city. The binary is both the app and the
//! headless CLI; without the `app` feature it is the CLI alone.

#[macro_use]
mod term;

#[cfg(feature = "app")]
mod app;
#[cfg(target_os = "linux")]
mod big_blocks;
mod cli;
// The app alone reads the clock and the progress line; the headless build leaves them unread.
#[cfg_attr(not(feature = "app"), allow(dead_code))]
mod clock;
mod follow;
mod input;
#[cfg_attr(not(feature = "app"), allow(dead_code))]
mod progress;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: big_blocks::BigBlocks = big_blocks::BigBlocks;

fn main() -> std::process::ExitCode {
    cli::main()
}
