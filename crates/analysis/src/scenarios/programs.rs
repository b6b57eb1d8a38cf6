//! The scenarios' programs. Each runs `params.gcs` cycles of its own work next to the
//! background noise of `Sim::run`.

use super::Params;
use super::sim::Sim;
use crate::trace::RootKind;

/// Mutator period and GC duration of an ordinary cycle.
fn normal_timing(sim: &mut Sim, _cycle: usize) -> (u64, u64) {
    (sim.rng.around(200.0, 0.1), 2 + sim.rng.below(4))
}

const ADD: &[&str] =
    &["java.util.LinkedList.linkLast", "java.util.LinkedList.add", "app.model.Registry.register"];

pub fn linked_list(sim: &mut Sim, params: &Params) {
    registry(sim, params, false);
}

/// The registry with its bug fixed: people who left are removed, so only the active ones stay.
pub fn linked_list_fixed(sim: &mut Sim, params: &Params) {
    registry(sim, params, true);
}

/// People active at once in the fixed registry (about one cycle of sign-ups).
const ACTIVE_PEOPLE: usize = 40;

fn registry(sim: &mut Sim, params: &Params, fixed: bool) {
    let list = sim.instance("java.util.LinkedList", 32, &["app.model.Registry.<clinit>"], "main");
    sim.root(list, RootKind::Static, "app.model.Registry.people");
    let mut last: Option<u64> = None;
    let mut nodes = std::collections::VecDeque::new();
    let step = |sim: &mut Sim, _| {
        for _ in 0..sim.count(40.0) {
            let node = sim.instance("java.util.LinkedList$Node", 24, ADD, "main");
            let person = sim.instance(
                "app.model.Person",
                24,
                &["app.model.Registry.register", "app.web.SignupHandler.handle"],
                "main",
            );
            let name_len = 5 + sim.rng.below(15);
            let name =
                sim.string(name_len, &["app.model.Person.<init>", "app.model.Registry.register"], "main");
            let email_len = 12 + sim.rng.below(20);
            let email =
                sim.string(email_len, &["app.model.Person.setEmail", "app.model.Registry.register"], "main");
            sim.ptr(person, "name", Some(name));
            sim.ptr(person, "email", Some(email));
            sim.ptr(node, "item", Some(person));
            match last {
                None => sim.ptr(list, "first", Some(node)),
                Some(prev) => {
                    sim.ptr(prev, "next", Some(node));
                    sim.ptr(node, "prev", Some(prev));
                }
            }
            sim.ptr(list, "last", Some(node));
            last = Some(node);
            nodes.push_back(node);
            // The fix: Registry.unregister unlinks whoever left (here: the longest registered).
            if fixed && nodes.len() > ACTIVE_PEOPLE {
                nodes.pop_front();
                let first = nodes[0];
                sim.ptr(list, "first", Some(first));
                sim.ptr(first, "prev", None);
            }
        }
    };
    sim.run(params.gcs, step, normal_timing);
}

const POOL: &str = "org.apache.commons.httpclient.MultiThreadedHttpConnectionManager$HostConnectionPool";
const GET_POOL: &[&str] = &[
    "org.apache.commons.httpclient.MultiThreadedHttpConnectionManager$ConnectionPool.getHostPool",
    "org.apache.commons.httpclient.MultiThreadedHttpConnectionManager.getConnectionWithTimeout",
];

pub fn http_client(sim: &mut Sim, params: &Params) {
    connection_manager(sim, params, false);
}

/// The fixed fetcher reuses one HostConfiguration per feed host, so `getHostPool` finds the
/// existing pool instead of adding one per request.
pub fn http_client_fixed(sim: &mut Sim, params: &Params) {
    connection_manager(sim, params, true);
}

/// Feed hosts the fixed fetcher talks to.
const FEED_HOSTS: u64 = 8;

fn connection_manager(sim: &mut Sim, params: &Params, fixed: bool) {
    let manager = sim.instance(
        "org.apache.commons.httpclient.MultiThreadedHttpConnectionManager",
        40,
        &["app.feed.Fetcher.<clinit>"],
        "main",
    );
    sim.root(manager, RootKind::Static, "app.feed.Fetcher.connectionManager");
    let map = sim.instance(
        "java.util.HashMap",
        48,
        &["org.apache.commons.httpclient.MultiThreadedHttpConnectionManager$ConnectionPool.<init>"],
        "main",
    );
    sim.ptr(manager, "mapHosts", Some(map));
    let table = sim.array("java.util.HashMap$Node[]", 256, 4, &["java.util.HashMap.resize"], "main");
    sim.ptr(map, "table", Some(table));
    let mut buckets: Vec<Option<u64>> = vec![None; 256];
    let mut host = 0u64;
    let mut requests = 0u64;
    let step = |sim: &mut Sim, _| {
        // The bug: every feed URL builds its own HostConfiguration, so getHostPool never finds
        // the pool again and adds one per request. The fix keeps one configuration per host.
        for _ in 0..sim.count(12.0) {
            requests += 1;
            if fixed && requests > FEED_HOSTS {
                use_connections(sim);
                continue;
            }
            host += 1;
            let config = sim.instance(
                "org.apache.commons.httpclient.HostConfiguration",
                32,
                &["org.apache.commons.httpclient.HttpMethodBase.getHostConfiguration"],
                "feed-fetcher",
            );
            let name = sim.string(
                10 + host % 20,
                &["org.apache.commons.httpclient.HttpHost.<init>"],
                "feed-fetcher",
            );
            sim.ptr(config, "host", Some(name));
            let pool = sim.instance(POOL, 32, GET_POOL, "feed-fetcher");
            let free = sim.instance("java.util.LinkedList", 32, &["org.apache.commons.httpclient.MultiThreadedHttpConnectionManager$HostConnectionPool.<init>"], "feed-fetcher");
            sim.ptr(pool, "freeConnections", Some(free));
            sim.ptr(pool, "hostConfiguration", Some(config));
            let node = sim.instance(
                "java.util.HashMap$Node",
                32,
                &["java.util.HashMap.putVal", GET_POOL[0]],
                "feed-fetcher",
            );
            sim.ptr(node, "key", Some(config));
            sim.ptr(node, "value", Some(pool));
            let b = (host * 2_654_435_761 % 256) as usize;
            sim.ptr(node, "next", buckets[b]);
            sim.ptr(table, &format!("[{b}]"), Some(node));
            buckets[b] = Some(node);
            use_connections(sim);
        }
    };
    sim.run(params.gcs, step, normal_timing);
}

/// A batch of connections is used and released: they die young.
fn use_connections(sim: &mut Sim) {
    for _ in 0..4 {
        let conn = sim.instance("org.apache.commons.httpclient.HttpConnection", 64, &["org.apache.commons.httpclient.MultiThreadedHttpConnectionManager$ConnectionPool.createConnection"], "feed-fetcher");
        let buffer = sim.array(
            "byte[]",
            2048,
            1,
            &["java.io.BufferedInputStream.<init>", "org.apache.commons.httpclient.HttpConnection.open"],
            "feed-fetcher",
        );
        sim.ptr(conn, "inputStream", Some(buffer));
    }
}

const SEARCH: &[&str] =
    &["com.dynatrace.easytravel.LocationSearch.find", "com.dynatrace.easytravel.SearchService.search"];

pub fn easytravel(sim: &mut Sim, params: &Params) {
    location_cache(sim, params, false);
}

/// The fixed QueryKey has equals/hashCode: a repeated search hits the cache and adds nothing.
pub fn easytravel_fixed(sim: &mut Sim, params: &Params) {
    location_cache(sim, params, true);
}

/// Different searches users make in the fixed program (the rest repeat them).
const DISTINCT_QUERIES: u64 = 4;

fn location_cache(sim: &mut Sim, params: &Params, fixed: bool) {
    let cache = sim.instance(
        "java.util.concurrent.ConcurrentHashMap",
        64,
        &["com.dynatrace.easytravel.LocationCache.<clinit>"],
        "main",
    );
    sim.root(cache, RootKind::Static, "com.dynatrace.easytravel.LocationCache.cache");
    let table = sim.array(
        "java.util.concurrent.ConcurrentHashMap$Node[]",
        512,
        4,
        &["java.util.concurrent.ConcurrentHashMap.initTable"],
        "main",
    );
    sim.ptr(cache, "table", Some(table));
    let mut buckets: Vec<Option<u64>> = vec![None; 512];
    let mut query = 0u64;
    let step = |sim: &mut Sim, _| {
        // Every search builds a new QueryKey; without equals/hashCode it never hits the cache.
        for _ in 0..sim.count(6.0) {
            query += 1;
            let thread = if query.is_multiple_of(2) { "http-nio-exec-1" } else { "http-nio-exec-2" };
            let key = sim.instance("com.dynatrace.easytravel.QueryKey", 24, SEARCH, thread);
            let text = sim.string(4 + query % 10, SEARCH, thread);
            sim.ptr(key, "text", Some(text));
            if fixed && query > DISTINCT_QUERIES {
                // A cache hit: the lookup key dies young and nothing is added.
                continue;
            }
            let results = sim.count(8.0).max(1);
            let list = sim.instance(
                "java.util.ArrayList",
                24,
                &["com.dynatrace.easytravel.LocationSearch.find"],
                thread,
            );
            let items = sim.array(
                "java.lang.Object[]",
                results,
                4,
                &["java.util.ArrayList.grow", "com.dynatrace.easytravel.LocationSearch.find"],
                thread,
            );
            sim.ptr(list, "elementData", Some(items));
            for i in 0..results {
                let location = sim.instance(
                    "com.dynatrace.easytravel.Location",
                    32,
                    &[
                        "com.dynatrace.easytravel.Location.<init>",
                        "com.dynatrace.easytravel.LocationSearch.find",
                    ],
                    thread,
                );
                let date =
                    sim.instance("java.util.Date", 24, &["com.dynatrace.easytravel.Location.<init>"], thread);
                let name_len = 6 + sim.rng.below(20);
                let name = sim.string(name_len, &["com.dynatrace.easytravel.Location.<init>"], thread);
                sim.ptr(location, "lastUpdate", Some(date));
                sim.ptr(location, "name", Some(name));
                sim.ptr(items, &format!("[{i}]"), Some(location));
            }
            let node = sim.instance(
                "java.util.concurrent.ConcurrentHashMap$Node",
                32,
                &[
                    "java.util.concurrent.ConcurrentHashMap.putVal",
                    "com.dynatrace.easytravel.LocationCache.put",
                ],
                thread,
            );
            sim.ptr(node, "key", Some(key));
            sim.ptr(node, "val", Some(list));
            let b = (query * 2_654_435_761 % 512) as usize;
            sim.ptr(node, "next", buckets[b]);
            sim.ptr(table, &format!("[{b}]"), Some(node));
            buckets[b] = Some(node);
        }
    };
    sim.run(params.gcs, step, normal_timing);
}

/// Is `cycle` in the middle fifth of the run (the churn burst)?
fn in_burst(cycle: usize, cycles: usize) -> bool {
    (2 * cycles / 5..3 * cycles / 5).contains(&cycle)
}

pub fn churn(sim: &mut Sim, params: &Params) {
    let cycles = params.gcs;
    let step = |sim: &mut Sim, cycle| {
        // Boxed numbers and temporary strings formatted per record, thrown away at once.
        let n = if in_burst(cycle, cycles) { 1500.0 } else { 200.0 };
        for _ in 0..sim.count(n) {
            let boxed = sim.instance(
                "java.lang.Long",
                24,
                &["java.lang.Long.valueOf", "app.report.Aggregator.add"],
                "report-worker",
            );
            let label_len = 8 + sim.rng.below(24);
            let label = sim.string(
                label_len,
                &["java.lang.String.format", "app.report.Aggregator.label"],
                "report-worker",
            );
            let entry = sim.instance("app.report.Entry", 24, &["app.report.Aggregator.add"], "report-worker");
            sim.ptr(entry, "value", Some(boxed));
            sim.ptr(entry, "label", Some(label));
        }
    };
    // In the burst the young generation fills fast: short periods, longer GCs.
    let timing = |sim: &mut Sim, cycle| {
        if in_burst(cycle, cycles) {
            (sim.rng.around(40.0, 0.1), 8 + sim.rng.below(4))
        } else {
            normal_timing(sim, cycle)
        }
    };
    sim.run(params.gcs, step, timing);
}

pub fn healthy(sim: &mut Sim, params: &Params) {
    let cache = sim.array("app.session.Session[]", 200, 4, &["app.session.SessionCache.<clinit>"], "main");
    sim.root(cache, RootKind::Static, "app.session.SessionCache.slots");
    let mut next_slot = 0u64;
    // Filled at start-up, then new sessions replace the oldest: the cache stays at 200 entries.
    let mut open_sessions = |sim: &mut Sim, n: u64| {
        for _ in 0..n {
            let session = sim.instance(
                "app.session.Session",
                40,
                &["app.session.SessionCache.open", "app.web.LoginHandler.handle"],
                "http-nio-exec-1",
            );
            let user = sim.string(10, &["app.session.Session.<init>"], "http-nio-exec-1");
            sim.ptr(session, "user", Some(user));
            sim.ptr(cache, &format!("[{}]", next_slot % 200), Some(session));
            next_slot += 1;
        }
    };
    open_sessions(sim, 200);
    let step = |sim: &mut Sim, _| {
        let n = sim.count(30.0);
        open_sessions(sim, n);
    };
    sim.run(params.gcs, step, normal_timing);
}
