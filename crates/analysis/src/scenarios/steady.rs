//! The programs without a leak: heavy churn with a burst of GCs, and a healthy steady state.

use super::Params;
use super::programs::normal_timing;
use super::sim::Sim;
use crate::trace::RootKind;

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
