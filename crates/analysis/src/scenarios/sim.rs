//! A tiny simulated JVM program that emits trace events: allocation helpers with Java-like
//! sizes, a clock, GCs, and realistic background noise (worker threads with fluctuating working
//! sets and garbage from many allocation sites) that every scenario runs next to its own logic.

use crate::trace::{Event, RootKind};

/// splitmix64: small, seedable, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// `n` ± `spread` (a fraction), at least 0.
    pub fn around(&mut self, n: f64, spread: f64) -> u64 {
        let f = 1.0 - spread + 2.0 * spread * (self.below(1_000_000) as f64 / 1e6);
        (n * f).round().max(0.0) as u64
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The size of a Java array with `len` elements of `element` bytes (16-byte header, 8-aligned).
pub fn array_size(len: u64, element: u64) -> u64 {
    (16 + len * element).div_ceil(8) * 8
}

pub struct Sim {
    pub events: Vec<Event>,
    pub rng: Rng,
    /// Scales the number of objects per cycle.
    pub scale: f64,
    next_id: u64,
    time_ms: u64,
    gc_id: u64,
    /// Each worker thread's current working set (rooted by a local variable).
    working_sets: Vec<Option<u64>>,
}

/// Worker threads of the background noise and how many objects each keeps alive.
const THREADS: [(&str, f64); 3] =
    [("http-nio-exec-1", 400.0), ("http-nio-exec-2", 400.0), ("scheduler-1", 150.0)];

/// Noise types with their library allocation frames.
const NOISE: [(&str, &[&str]); 12] = [
    ("java.lang.String", &["java.lang.StringBuilder.toString", "java.lang.String.substring"]),
    ("char[]", &["java.util.Arrays.copyOf", "java.lang.StringBuilder.<init>"]),
    ("byte[]", &["java.nio.HeapByteBuffer.<init>", "java.io.BufferedInputStream.<init>"]),
    ("java.lang.Integer", &["java.lang.Integer.valueOf"]),
    ("java.util.HashMap$Node", &["java.util.HashMap.newNode"]),
    ("app.web.Request", &["app.web.Server.accept"]),
    ("app.web.Response", &["app.web.Server.respond"]),
    ("java.lang.Object[]", &["java.util.ArrayList.grow", "java.util.Arrays.copyOf"]),
    ("java.lang.Long", &["java.lang.Long.valueOf"]),
    ("java.time.LocalDate", &["java.time.LocalDate.of", "java.time.LocalDate.parse"]),
    ("app.db.Row", &["app.db.ResultSetReader.next"]),
    ("app.web.Headers", &["app.web.Server.accept"]),
];

/// The program's own code that allocates noise: handlers × methods give many call sites.
const HANDLERS: [&str; 16] = [
    "Order", "Cart", "Login", "Search", "Catalog", "Invoice", "Report", "Profile", "Payment", "Stock",
    "Shipping", "Review", "Coupon", "Admin", "Health", "Metrics",
];
const METHODS: [&str; 5] = ["handle", "render", "validate", "load", "toJson"];

impl Sim {
    pub fn new(seed: u64, scale: f64) -> Sim {
        Sim {
            events: Vec::new(),
            rng: Rng::new(seed),
            scale,
            next_id: 1,
            time_ms: 0,
            gc_id: 0,
            working_sets: vec![None; THREADS.len()],
        }
    }

    /// `n` scaled and jittered by ±20%.
    pub fn count(&mut self, n: f64) -> u64 {
        self.rng.around(n * self.scale, 0.2)
    }

    pub fn alloc(
        &mut self,
        type_name: &str,
        size: u64,
        len: Option<u64>,
        site: &[&str],
        thread: &str,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.events.push(Event::Alloc {
            id,
            type_name: type_name.into(),
            size,
            len,
            site: site.iter().map(|s| s.to_string()).collect(),
            thread: thread.into(),
        });
        id
    }

    pub fn instance(&mut self, type_name: &str, size: u64, site: &[&str], thread: &str) -> u64 {
        self.alloc(type_name, size, None, site, thread)
    }

    pub fn array(&mut self, type_name: &str, len: u64, element: u64, site: &[&str], thread: &str) -> u64 {
        self.alloc(type_name, array_size(len, element), Some(len), site, thread)
    }

    /// A `java.lang.String` with its `char[]` of `len` characters.
    pub fn string(&mut self, len: u64, site: &[&str], thread: &str) -> u64 {
        let s = self.instance("java.lang.String", 24, site, thread);
        let chars = self.array("char[]", len, 2, site, thread);
        self.ptr(s, "value", Some(chars));
        s
    }

    pub fn ptr(&mut self, from: u64, field: &str, to: Option<u64>) {
        self.events.push(Event::Ptr { from, field: field.into(), to });
    }

    pub fn root(&mut self, id: u64, kind: RootKind, name: &str) {
        self.events.push(Event::Root { id, kind, name: name.into() });
    }

    pub fn unroot(&mut self, id: u64, name: &str) {
        self.events.push(Event::Unroot { id, name: name.into() });
    }

    /// Runs `cycles` mutator phases of `period_ms`, each followed by a GC of `gc_ms`; `step`
    /// is the scenario's own work in cycle `i`, next to the background noise.
    pub fn run(
        &mut self,
        cycles: usize,
        mut step: impl FnMut(&mut Sim, usize),
        mut timing: impl FnMut(&mut Sim, usize) -> (u64, u64),
    ) {
        self.static_config();
        for i in 0..cycles {
            step(self, i);
            self.background();
            let (period_ms, gc_ms) = timing(self, i);
            self.time_ms += period_ms;
            self.gc_id += 1;
            let start = self.time_ms;
            self.time_ms += gc_ms;
            self.events.push(Event::Gc { id: self.gc_id, start, end: self.time_ms });
        }
    }

    /// Settings loaded at start-up and kept forever.
    fn static_config(&mut self) {
        let map = self.instance("java.util.HashMap", 48, &["app.Config.load"], "main");
        self.root(map, RootKind::Static, "app.Config.settings");
        let table = self.array(
            "java.util.HashMap$Node[]",
            64,
            4,
            &["java.util.HashMap.resize", "app.Config.load"],
            "main",
        );
        self.ptr(map, "table", Some(table));
        for i in 0..300 {
            let node = self.instance(
                "java.util.HashMap$Node",
                32,
                &["java.util.HashMap.putVal", "app.Config.load"],
                "main",
            );
            let key = self.string(12, &["app.Config.parseKey"], "main");
            let value = self.string(30, &["app.Config.parseValue"], "main");
            self.ptr(node, "key", Some(key));
            self.ptr(node, "value", Some(value));
            self.ptr(table, &format!("[{}]", i % 64), Some(node));
        }
    }

    /// Each worker drops its working set and builds a new one of similar size, plus garbage.
    fn background(&mut self) {
        for (t, &(thread, size)) in THREADS.iter().enumerate() {
            if let Some(old) = self.working_sets[t].take() {
                self.unroot(old, &format!("{thread}.workingSet"));
            }
            // Working sets vary a little around their size; request garbage varies more.
            let n = self.rng.around(size * self.scale, 0.05);
            let list = self.instance("java.util.ArrayList", 24, &["app.web.Worker.run"], thread);
            let items = self.array(
                "java.lang.Object[]",
                n,
                4,
                &["java.util.ArrayList.grow", "app.web.Worker.run"],
                thread,
            );
            self.ptr(list, "elementData", Some(items));
            for i in 0..n {
                let o = self.noise_object(thread);
                self.ptr(items, &format!("[{i}]"), Some(o));
            }
            for _ in 0..self.count(size * 2.0) {
                self.noise_object(thread); // garbage: never referenced
            }
            self.root(list, RootKind::Local, &format!("{thread}.workingSet"));
            self.working_sets[t] = Some(list);
        }
    }

    fn noise_object(&mut self, thread: &str) -> u64 {
        let (type_name, library) = NOISE[self.rng.below(NOISE.len() as u64) as usize];
        // Skewed towards the first call sites, like real programs: a few hot sites, a long tail.
        let spread = self.rng.below((HANDLERS.len() * METHODS.len()) as u64) + 1;
        let code = self.rng.below(spread) as usize;
        let frame =
            format!("app.web.{}Handler.{}", HANDLERS[code / METHODS.len()], METHODS[code % METHODS.len()]);
        let first = *self.rng.pick(library);
        let site: [&str; 3] = if type_name.starts_with("app.") {
            [&frame, "app.web.Worker.run", ""]
        } else {
            [first, &frame, "app.web.Worker.run"]
        };
        let site = if site[2].is_empty() { &site[..2] } else { &site[..] };
        match type_name {
            "java.lang.String" => {
                let len = 5 + self.rng.below(60);
                self.string(len, site, thread)
            }
            "char[]" | "byte[]" | "java.lang.Object[]" => {
                let len =
                    if self.rng.below(50) == 0 { 256 + self.rng.below(1000) } else { self.rng.below(200) };
                let element = if type_name == "char[]" {
                    2
                } else if type_name == "byte[]" {
                    1
                } else {
                    4
                };
                self.array(type_name, len, element, site, thread)
            }
            _ => {
                let size = 16 + 8 * self.rng.below(5);
                self.instance(type_name, size, site, thread)
            }
        }
    }
}
