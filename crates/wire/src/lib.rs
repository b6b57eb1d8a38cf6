//! memcity's WebSocket JSON interface (docs/websocket.md): a server that collects histories and
//! live snapshots pushed by any tool, the clients that push them, and a client for AntTracks'
//! capability protocol.
//!
//! - [`protocol`]: the messages and replies, parsed with precise errors.
//! - [`live`]: the live history, a state machine that applies messages all-or-nothing.
//! - [`server`]: the server on background threads; the app polls [`Server::latest`].
//! - [`client`]: `push` (whole or live) and the AntTracks fetch.

pub mod access;
mod budget;
pub mod client;
mod connection;
#[doc(hidden)]
pub mod fuzzing;
pub mod live;
pub mod protocol;
mod save;
pub mod server;

pub use access::{Access, TOKEN_VARIABLE};
pub use client::{ClientError, Connection, fetch_anttracks, push_history, push_live};
pub use live::{Applied, LiveHistory};
pub use protocol::{Change, Message, Reply, parse_message};
pub use server::{
    DEFAULT_ADDR, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CLIENTS,
    DEFAULT_MAX_MEMORY_BYTES, DEFAULT_MAX_MESSAGE_BYTES, Server, ServerConfig, Update,
};
