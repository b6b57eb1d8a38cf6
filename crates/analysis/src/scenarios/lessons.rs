//! What each leak scenario teaches: the simulated program's lines that cause the leak, why they
//! leak, the fix, and the scenario that runs the fixed program. Guided tours end with these.

/// The root cause of a scenario's leak, told as source code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lesson {
    /// The simulated program's lines that cause the leak (Java).
    pub code: &'static str,
    /// Why these lines leak, in one or two sentences.
    pub why: &'static str,
    /// The same lines with the bug fixed.
    pub fixed_code: &'static str,
    /// The scenario that runs the fixed program.
    pub fixed: &'static str,
}

pub const LINKED_LIST: Lesson = Lesson {
    code: "class Registry {
    static final LinkedList<Person> people = new LinkedList<>();
    void register(Person p) {
        people.add(p);          // every sign-up, forever
    }
}",
    why: "The static list people is a GC root. Every Person is added on sign-up and nothing ever \
          removes it, so each Person, its name and email Strings and their char[] stay reachable \
          through a LinkedList$Node.",
    fixed_code: "void unregister(Person p) {
    people.remove(p);           // called when the person leaves
}",
    fixed: "linked-list-fixed",
};

pub const HTTP_CLIENT: Lesson = Lesson {
    code: "HostConfiguration config = new HostConfiguration();   // one per request
config.setHost(feedUrl);
manager.getConnectionWithTimeout(config, timeout);
// ConnectionPool.getHostPool(config): mapHosts.get(config), else
//     mapHosts.put(config, new HostConnectionPool())  -- never removed",
    why: "The connection manager keeps a HostConnectionPool per HostConfiguration in its mapHosts \
          HashMap and never removes one. A new configuration per request means a new pool and \
          HashMap$Node per request.",
    fixed_code: "// one configuration per feed host, created once and reused
HostConfiguration config = configs.computeIfAbsent(host, HostConfiguration::new);
manager.getConnectionWithTimeout(config, timeout);",
    fixed: "http-client-fixed",
};

pub const EASYTRAVEL: Lesson = Lesson {
    code: "class QueryKey {
    final String text;          // no equals(), no hashCode()
}
List<Location> find(String text) {
    return cache.computeIfAbsent(new QueryKey(text), k -> search(k));
}",
    why: "Without equals/hashCode two keys for the same search are different keys, so the \
          ConcurrentHashMap cache never hits: every search adds its result list of Locations \
          (with their Dates and names) for good.",
    fixed_code: "record QueryKey(String text) {}   // equals and hashCode by value: repeats hit",
    fixed: "easytravel-fixed",
};
