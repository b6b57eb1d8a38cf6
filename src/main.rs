//! memcity: a program's heap over time as a 3D city. The binary is both the app and the
//! headless CLI; without the `app` feature it is the CLI alone.

#[cfg(feature = "app")]
mod app;
mod cli;
mod follow;
mod input;

fn main() -> std::process::ExitCode {
    cli::main()
}
