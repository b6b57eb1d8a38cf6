//! Teaching scenarios (docs/design.md, "Teaching scenarios"): small simulated programs, deterministic for a seed, that
//! emit traces; replayed they give histories that show a leak (or none) in a realistic heap.

mod lessons;
mod programs;
pub mod sim;
mod steady;

pub use lessons::Lesson;

use memcity_model::History;

use crate::replay::{Grouping, replay};
use crate::trace::{Event, Trace};
use sim::Sim;

/// The seed used when the user gives none.
pub const DEFAULT_SEED: u64 = 42;

/// How big a scenario run is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub seed: u64,
    /// Number of GCs (snapshots).
    pub gcs: usize,
    /// Multiplies the number of objects per cycle.
    pub scale: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { seed: DEFAULT_SEED, gcs: 30, scale: 1.0 }
    }
}

pub struct Scenario {
    pub name: &'static str,
    pub summary: &'static str,
    /// The types a user should find growing (empty: no leak).
    pub leak_types: &'static [&'static str],
    /// Every type the leaking structure is made of (the leak types and what they hold).
    pub structure_types: &'static [&'static str],
    /// For a leak: its root cause in the program's source and the fixed variant.
    pub lesson: Option<&'static Lesson>,
    program: fn(&mut Sim, &Params),
}

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "linked-list",
        summary: "a LinkedList<Person> that is only added to: Person, String, char[] and list nodes pile up",
        leak_types: &["java.util.LinkedList$Node", "app.model.Person", "java.lang.String", "char[]"],
        structure_types: &["java.util.LinkedList$Node", "app.model.Person", "java.lang.String", "char[]"],
        lesson: Some(&lessons::LINKED_LIST),
        program: programs::linked_list,
    },
    Scenario {
        name: "linked-list-fixed",
        summary: "linked-list with the bug fixed: people who leave are removed from the registry",
        leak_types: &[],
        structure_types: &[],
        lesson: None,
        program: programs::linked_list_fixed,
    },
    Scenario {
        name: "http-client",
        summary: "HttpClient 3.0.1: a HostConnectionPool per host kept in a HashMap forever, connections come and go",
        leak_types: &[
            "org.apache.commons.httpclient.MultiThreadedHttpConnectionManager$HostConnectionPool",
            "java.util.HashMap$Node",
        ],
        structure_types: &[
            "org.apache.commons.httpclient.MultiThreadedHttpConnectionManager$HostConnectionPool",
            "java.util.HashMap$Node",
            "org.apache.commons.httpclient.HostConfiguration",
            "java.util.LinkedList",
            "java.lang.String",
            "char[]",
        ],
        lesson: Some(&lessons::HTTP_CLIENT),
        program: programs::http_client,
    },
    Scenario {
        name: "http-client-fixed",
        summary: "http-client with the bug fixed: one HostConfiguration per host, so pools are reused",
        leak_types: &[],
        structure_types: &[],
        lesson: None,
        program: programs::http_client_fixed,
    },
    Scenario {
        name: "easytravel",
        summary: "easyTravel: a location-search cache whose QueryKey lacks equals/hashCode keeps every result",
        leak_types: &["com.dynatrace.easytravel.Location", "java.util.Date"],
        structure_types: &[
            "com.dynatrace.easytravel.Location",
            "java.util.Date",
            "com.dynatrace.easytravel.QueryKey",
            "java.util.concurrent.ConcurrentHashMap$Node",
            "java.util.ArrayList",
            "java.lang.Object[]",
            "java.lang.String",
            "char[]",
        ],
        lesson: Some(&lessons::EASYTRAVEL),
        program: programs::easytravel,
    },
    Scenario {
        name: "easytravel-fixed",
        summary: "easytravel with the bug fixed: QueryKey has equals/hashCode, repeated searches hit the cache",
        leak_types: &[],
        structure_types: &[],
        lesson: None,
        program: programs::easytravel_fixed,
    },
    Scenario {
        name: "churn",
        summary: "heavy short-lived allocation with a burst of frequent GCs in the middle; no leak",
        leak_types: &[],
        structure_types: &[],
        lesson: None,
        program: steady::churn,
    },
    Scenario {
        name: "healthy",
        summary: "a steady state: a bounded session cache and request work that all dies young",
        leak_types: &[],
        structure_types: &[],
        lesson: None,
        program: steady::healthy,
    },
];

pub fn find(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.name == name)
}

/// The names of all scenarios, for error messages.
pub fn names() -> String {
    SCENARIOS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

impl Scenario {
    /// The scenario's trace.
    pub fn trace(&self, params: &Params) -> Vec<Event> {
        let mut sim = Sim::new(params.seed, params.scale);
        (self.program)(&mut sim, params);
        sim.events
    }

    /// The scenario replayed into a history.
    pub fn history(&self, params: &Params, options: Grouping) -> History {
        let trace = Trace::from_events(self.trace(params));
        // The simulator only emits consistent events, so replay cannot fail.
        replay(trace, options, self.name).expect("scenario traces are consistent")
    }
}

#[cfg(test)]
mod tests;
