//! The server's memory budget: what the history holds plus what is being received or sent, all
//! clients together. Sockets are read through [`Metered`], which charges every byte received
//! before tungstenite buffers it, so a message that does not fit is refused while it arrives
//! rather than after it was held whole.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A byte received is charged five times: the text itself, and room for the parsed form and
/// the tables that check it (measured: a tree of short-named nodes takes about 2.3 times its
/// JSON, the key tables of its check about 0.8 times more).
pub(crate) const CHARGE_PER_BYTE: u64 = 5;

/// Bytes charged against a limit by every client at once.
pub(crate) struct Budget {
    pub(crate) limit: u64,
    /// Messages being received (charged per byte) and replies being sent.
    in_flight: AtomicU64,
    /// The history's estimated size ([`memcity_model::History::memory_estimate`]).
    held: AtomicU64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Budget {
        Budget { limit, in_flight: AtomicU64::new(0), held: AtomicU64::new(0) }
    }

    /// Charges `bytes` if they fit beside everything else; otherwise charges nothing.
    pub(crate) fn try_charge(&self, bytes: u64) -> bool {
        let held = self.held.load(Ordering::SeqCst);
        self.in_flight
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                let total = now.checked_add(bytes)?.checked_add(held)?;
                (total <= self.limit).then_some(now + bytes)
            })
            .is_ok()
    }

    pub(crate) fn release(&self, bytes: u64) {
        self.in_flight.fetch_sub(bytes, Ordering::SeqCst);
    }

    pub(crate) fn set_held(&self, bytes: u64) {
        self.held.store(bytes, Ordering::SeqCst);
    }

    pub(crate) fn held(&self) -> u64 {
        self.held.load(Ordering::SeqCst)
    }

    pub(crate) fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::SeqCst)
    }
}

/// `n` bytes as MiB for messages, rounded up so a small amount never reads as 0.
pub(crate) fn mib(n: u64) -> u64 {
    n.div_ceil(1 << 20)
}

/// A client's socket as tungstenite reads it: every byte is charged to the budget, and until
/// the handshake is done every read is limited by one deadline for the whole handshake (a
/// per-read timeout would let a client trickle one byte at a time forever).
pub(crate) struct Metered<'a> {
    pub(crate) stream: TcpStream,
    budget: &'a Budget,
    /// What this client has charged: for the message it is sending now, plus `retained`.
    charged: u64,
    /// Bytes received of the message being sent now.
    message: u64,
    /// The largest message this connection received: tungstenite keeps a read buffer of that
    /// capacity (touched, so resident) for as long as the connection lives, so it stays charged.
    retained: u64,
    deadline: Option<Instant>,
    /// Set when a read was refused because the budget was spent.
    pub(crate) over_budget: bool,
}

impl<'a> Metered<'a> {
    pub(crate) fn new(stream: TcpStream, budget: &'a Budget, handshake: Duration) -> Metered<'a> {
        Metered {
            stream,
            budget,
            charged: 0,
            message: 0,
            retained: 0,
            deadline: Some(Instant::now() + handshake),
            over_budget: false,
        }
    }

    /// After the handshake: reads wait at most `idle` for the next byte.
    pub(crate) fn handshake_done(&mut self, idle: Duration) -> io::Result<()> {
        self.deadline = None;
        self.stream.set_read_timeout(Some(idle))
    }

    /// The message was handled: what it charged is free again, except the read buffer that
    /// holds it.
    pub(crate) fn release(&mut self) {
        self.retained = self.retained.max(std::mem::take(&mut self.message));
        self.budget.release(self.charged - self.retained);
        self.charged = self.retained;
    }
}

impl Metered<'_> {
    /// The connection is being closed: nothing of it stays charged (its buffers go within the
    /// drain time), so others may use the room at once.
    pub(crate) fn release_all(&mut self) {
        self.budget.release(std::mem::take(&mut self.charged));
        (self.message, self.retained) = (0, 0);
    }
}

impl Drop for Metered<'_> {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
}

impl Read for Metered<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(deadline) = self.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "handshake deadline passed"));
            }
            self.stream.set_read_timeout(Some(left))?;
        }
        let n = self.stream.read(buf)?;
        let cost = n as u64 * CHARGE_PER_BYTE;
        if !self.budget.try_charge(cost) {
            self.over_budget = true;
            return Err(io::Error::other("the server's memory budget is spent"));
        }
        self.charged += cost;
        self.message += n as u64;
        Ok(n)
    }
}

impl Write for Metered<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_keeps_its_largest_message_charged_until_it_closes() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut peer = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let budget = Budget::new(1 << 20);
        let mut metered = Metered::new(listener.accept().unwrap().0, &budget, Duration::from_secs(5));
        let mut read = |metered: &mut Metered, n: usize| {
            peer.write_all(&vec![b'x'; n]).unwrap();
            let mut buf = vec![0; n];
            metered.read_exact(&mut buf).unwrap();
        };
        read(&mut metered, 1000);
        assert_eq!(budget.in_flight(), 1000 * CHARGE_PER_BYTE);
        metered.release();
        assert_eq!(budget.in_flight(), 1000, "the read buffer stays");
        read(&mut metered, 10);
        metered.release();
        assert_eq!(budget.in_flight(), 1000, "a smaller message fits in it");
        read(&mut metered, 200_000);
        metered.release();
        assert_eq!(budget.in_flight(), 200_000, "the buffer grew");
        peer.write_all(&vec![b'x'; 300_000]).unwrap();
        let mut buf = vec![0; 300_000];
        assert!(metered.read_exact(&mut buf).is_err() && metered.over_budget, "4 x 300 kB do not fit");
        drop(metered);
        assert_eq!(budget.in_flight(), 0);
    }

    #[test]
    fn charges_fit_beside_the_history_or_are_refused_whole() {
        let budget = Budget::new(100);
        budget.set_held(40);
        assert!(budget.try_charge(50));
        assert!(!budget.try_charge(11), "40 held + 50 in flight + 11 > 100");
        assert_eq!(budget.in_flight(), 50, "a refused charge takes nothing");
        assert!(budget.try_charge(10));
        budget.release(60);
        assert!(!budget.try_charge(u64::MAX), "no wrap-around");
        assert!(budget.try_charge(60));
    }
}
