//! Who may talk to the server, decided at the WebSocket handshake so that no message of an
//! untrusted client is ever parsed (docs/websocket.md, "Security").
//!
//! A browser lets any web page open a WebSocket to `127.0.0.1`; only its `Origin` header tells
//! the page apart from a tool. Tools (memcity push, scripts, the Python `websockets` client)
//! send no `Origin`. So: a handshake with an `Origin` is refused unless that origin was
//! allowed; a `Host` that is not an IP literal, `localhost` or an allowed name is refused (DNS
//! rebinding: a page whose own name resolves to 127.0.0.1); and where a token is set, a
//! handshake without it is refused.

use std::fmt;

use tungstenite::handshake::server::{ErrorResponse, Request};
use tungstenite::http::{HeaderMap, StatusCode};

/// The environment variable tools read a token from when their URL has none.
pub const TOKEN_VARIABLE: &str = "MEMCITY_TOKEN";

/// Who may connect.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// Required of every client when set: `?token=…` in the URL or `Authorization: Bearer …`.
    pub token: Option<String>,
    /// Origins (`https://example.org`) whose pages may connect; `*` allows every origin and
    /// needs a token.
    pub allowed_origins: Vec<String>,
    /// Host names, besides IP literals and `localhost`, that clients may address the server by.
    pub allowed_hosts: Vec<String>,
}

impl fmt::Debug for Access {
    // The token stays out of logs and panic messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Access")
            .field("token", &self.token.as_ref().map(|_| "…"))
            .field("allowed_origins", &self.allowed_origins)
            .field("allowed_hosts", &self.allowed_hosts)
            .finish()
    }
}

/// Why a handshake was refused: the HTTP status and one line for the client and the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub reason: String,
}

impl Access {
    /// Whether this access can serve `addr`: beyond loopback a token is required, and `*` as an
    /// origin only with a token.
    pub fn check_config(&self, loopback: bool) -> Result<(), String> {
        if self.token.as_deref() == Some("") {
            return Err("the token is empty".into());
        }
        if !loopback && self.token.is_none() {
            return Err("listening beyond loopback needs a token (--token T or MEMCITY_TOKEN); \
                        anyone who can reach the port could otherwise replace or read the history"
                .into());
        }
        if self.allowed_origins.iter().any(|o| o == "*") && self.token.is_none() {
            return Err("--allow-origin '*' lets every web page connect, so it needs a token".into());
        }
        Ok(())
    }

    /// Decides a handshake from its request head alone.
    pub fn check(&self, request: &Request) -> Result<(), Refusal> {
        let headers = request.headers();
        if let Some(host) = header(headers, "host")?
            && !self.host_allowed(host)
        {
            return Err(forbidden(format!(
                "Host {host:?} is not an IP address, localhost or a name allowed with --allow-host"
            )));
        }
        if let Some(origin) = header(headers, "origin")?
            && !self.origin_allowed(origin)
        {
            return Err(forbidden(format!(
                "Origin {origin:?} is not allowed (a web page; allow it with --allow-origin)"
            )));
        }
        if let Some(token) = &self.token {
            let given = query_token(request.uri().query().unwrap_or(""))
                .or_else(|| bearer(headers.get("authorization")?.to_str().ok()?));
            match given {
                Some(given) if same(given.as_bytes(), token.as_bytes()) => {}
                Some(_) => return Err(unauthorized("wrong token")),
                None => return Err(unauthorized("no token (give ?token=… in the URL)")),
            }
        }
        Ok(())
    }

    fn host_allowed(&self, host: &str) -> bool {
        let name = host_name(host);
        name.eq_ignore_ascii_case("localhost")
            || name.parse::<std::net::IpAddr>().is_ok()
            || self.allowed_hosts.iter().any(|h| h.eq_ignore_ascii_case(name))
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/');
        self.allowed_origins.iter().any(|o| o == "*" || o.trim_end_matches('/').eq_ignore_ascii_case(origin))
    }
}

/// A header's value, refusing one that is not text or given twice (which would let a proxy and
/// this check read different values).
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, Refusal> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else { return Ok(None) };
    if values.next().is_some() {
        return Err(bad_request(format!("more than one {name} header")));
    }
    value.to_str().map(Some).map_err(|_| bad_request(format!("the {name} header is not text")))
}

/// The name in a Host header: without the port, IPv6 literals without their brackets.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// `token` from a URL query (`a=1&token=T`), percent-decoded.
fn query_token(query: &str) -> Option<String> {
    query.split('&').find_map(|pair| pair.strip_prefix("token=")).map(percent_decode)
}

fn bearer(value: &str) -> Option<String> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_string())
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Compares in time that depends only on the lengths, so a client cannot find the token byte
/// by byte from how long a refusal takes.
fn same(given: &[u8], token: &[u8]) -> bool {
    let mut differ = (given.len() != token.len()) as u8;
    for (i, &t) in token.iter().enumerate() {
        differ |= t ^ given.get(i).copied().unwrap_or(!t);
    }
    differ == 0
}

fn forbidden(reason: String) -> Refusal {
    Refusal { status: StatusCode::FORBIDDEN, reason }
}

fn unauthorized(reason: &str) -> Refusal {
    Refusal { status: StatusCode::UNAUTHORIZED, reason: reason.into() }
}

fn bad_request(reason: String) -> Refusal {
    Refusal { status: StatusCode::BAD_REQUEST, reason }
}

impl Refusal {
    /// The HTTP answer: the status and the reason as plain text.
    pub fn response(&self) -> ErrorResponse {
        let mut response = ErrorResponse::new(Some(format!("memcity: {}\n", self.reason)));
        *response.status_mut() = self.status;
        response
            .headers_mut()
            .insert("content-type", tungstenite::http::HeaderValue::from_static("text/plain; charset=utf-8"));
        response
    }
}

/// A fresh token: 128 bits from the operating system's random source, as hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    if !os_random(&mut bytes) {
        // std's hasher keys come from the operating system's randomness too.
        use std::hash::{BuildHasher, Hasher};
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_usize(i);
            chunk.copy_from_slice(&hasher.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn os_random(bytes: &mut [u8]) -> bool {
    use std::io::Read;
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(bytes)).is_ok()
}

/// `url` with the token as its query (`ws://HOST:PORT/?token=T`), for printing and for tools.
pub fn url_with_token(url: &str, token: Option<&str>) -> String {
    let Some(token) = token else { return url.to_string() };
    let encoded: String = token
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let base = url.trim_end_matches('/');
    if url.contains('?') { format!("{url}&token={encoded}") } else { format!("{base}/?token={encoded}") }
}

/// The URL a tool should connect to: `url` as given when it names a token, else with the
/// token from [`TOKEN_VARIABLE`] if that is set.
pub fn url_for_tool(url: &str) -> String {
    let has_token = url.split_once('?').is_some_and(|(_, q)| query_token(q).is_some());
    match std::env::var(TOKEN_VARIABLE) {
        Ok(token) if !has_token && !token.is_empty() => url_with_token(url, Some(&token)),
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().uri(uri);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).unwrap()
    }

    fn status(access: &Access, uri: &str, headers: &[(&str, &str)]) -> Option<u16> {
        access.check(&request(uri, headers)).err().map(|r| r.status.as_u16())
    }

    #[test]
    fn tools_without_origin_pass_and_pages_are_refused() {
        let open = Access::default();
        assert_eq!(status(&open, "/", &[("host", "127.0.0.1:7878")]), None);
        assert_eq!(status(&open, "/", &[("host", "[::1]:7878")]), None);
        assert_eq!(status(&open, "/", &[("host", "LocalHost:1")]), None);
        assert_eq!(
            status(&open, "/", &[("host", "127.0.0.1"), ("origin", "https://evil.example")]),
            Some(403)
        );
        assert_eq!(status(&open, "/", &[("origin", "null")]), Some(403));
        let allowed = Access { allowed_origins: vec!["https://teach.example/".into()], ..Access::default() };
        assert_eq!(status(&allowed, "/", &[("origin", "https://teach.example")]), None);
        assert_eq!(status(&allowed, "/", &[("origin", "https://teach.example.evil")]), Some(403));
    }

    #[test]
    fn rebound_names_are_refused_unless_allowed() {
        let open = Access::default();
        assert_eq!(status(&open, "/", &[("host", "evil.example:7878")]), Some(403));
        assert_eq!(status(&open, "/", &[("host", "localhost.evil.example")]), Some(403));
        let named = Access { allowed_hosts: vec!["builder.lan".into()], ..Access::default() };
        assert_eq!(status(&named, "/", &[("host", "Builder.lan:7878")]), None);
        assert_eq!(status(&open, "/", &[("host", "a"), ("host", "127.0.0.1")]), Some(400));
    }

    #[test]
    fn tokens_missing_wrong_and_right() {
        let access = Access { token: Some("s3cr/t".into()), ..Access::default() };
        assert_eq!(status(&access, "/", &[]), Some(401));
        assert_eq!(status(&access, "/?token=s3cr", &[]), Some(401));
        assert_eq!(status(&access, "/?token=s3cr%2Ftt", &[]), Some(401));
        assert_eq!(status(&access, "/?x=1&token=s3cr%2Ft", &[]), None);
        assert_eq!(status(&access, "/", &[("authorization", "Bearer s3cr/t")]), None);
        assert_eq!(status(&access, "/", &[("authorization", "Bearer nope")]), Some(401));
        // The URL a tool builds carries the token through percent-encoding.
        let url = url_with_token("ws://127.0.0.1:1", Some("s3cr/t"));
        assert_eq!(url, "ws://127.0.0.1:1/?token=s3cr%2Ft");
        assert_eq!(status(&access, &url["ws://127.0.0.1:1".len()..], &[]), None);
    }

    #[test]
    fn beyond_loopback_needs_a_token_and_so_does_every_origin() {
        let none = Access::default();
        assert!(none.check_config(true).is_ok());
        assert!(none.check_config(false).unwrap_err().contains("needs a token"));
        let star = Access { allowed_origins: vec!["*".into()], ..Access::default() };
        assert!(star.check_config(true).unwrap_err().contains("needs a token"));
        let star = Access { token: Some(new_token()), ..star };
        assert!(star.check_config(false).is_ok());
        assert_eq!(status(&star, "/", &[("origin", "https://any.example")]), Some(401));
        assert!(
            format!("{star:?}").contains('…') && !format!("{star:?}").contains(star.token.as_ref().unwrap())
        );
    }

    #[test]
    fn tokens_are_fresh_and_compared_whole() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(same(b"abc", b"abc"));
        assert!(
            !same(b"abd", b"abc") && !same(b"ab", b"abc") && !same(b"abcd", b"abc") && !same(b"", b"abc")
        );
    }
}
