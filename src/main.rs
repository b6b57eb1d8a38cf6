//! memcity: a program's heap over time as a 3D city. The binary is both the app and the
//! headless CLI; without the `app` feature it is the CLI alone.

#[macro_use]
mod term;

#[cfg(feature = "app")]
mod app;
mod cli;
mod clock;
mod follow;
#[cfg(target_os = "linux")]
mod huge_pages;
mod input;
mod progress;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: huge_pages::HugePages = huge_pages::HugePages;

fn main() -> std::process::ExitCode {
    cli::main()
}
