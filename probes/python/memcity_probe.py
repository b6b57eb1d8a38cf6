#!/usr/bin/env python3
"""memcity's Python probe: heap snapshots of a running program, standard library only.

Run a script under it:

    python3 memcity_probe.py --out DIR [--every-ms N] [--max-snapshots N] SCRIPT [ARGS...]

or start it from inside a program:

    import memcity_probe
    memcity_probe.start(out="snapshots")
    ...
    memcity_probe.stop()

At garbage-collection points (at most one snapshot per --every-ms, and never for longer than the
program itself ran since the previous one) and once at exit, the probe walks every object
reachable from the interpreter's roots (module globals, every thread's frames and their locals,
sys and builtins) and writes DIR/snapshot-NNNNNN.mcheap: memcity's heap file format
(docs/heapfile.md in the memcity repository). `memcity DIR` opens the series as a city;
`memcity --follow DIR` shows it growing while the program runs.
"""

import array
import gc
import json
import linecache
import os
import struct
import sys
import threading
import time
import tracemalloc
import types
import warnings
import zlib

__all__ = ["start", "stop", "snapshot"]

MAGIC = b"MEMCITYH"
FORMAT_VERSION = 3
NO_NAME = 0xFFFFFFFF
LABEL_INDEX = 1 << 31
LABEL_KEY = 1 << 30
KEY_CHARS = 40  # a dict key longer than this is cut, with "…"
VALUE_CHARS = 200  # a str or bytes value longer than this is written cut, with its length
VALUE_CUT = 0x80
NO_SITE = 0xFFFFFFFF
ROOT_GLOBAL, ROOT_STACK_FRAME, ROOT_INTERNAL, ROOT_OTHER = 0, 1, 2, 3
PROBE_VERSION = "memcity_probe 3"

_state = None
# This module, also when it runs as the script (then it is not "memcity_probe" in sys.modules).
_SELF = sys.modules[__name__]


def start(out, every_ms=1000, max_snapshots=None, sites=True, frames=1, fork=True):
    """Starts taking snapshots into the folder `out` (created if needed)."""
    global _state
    if _state is not None:
        raise RuntimeError("memcity_probe is already started")
    os.makedirs(out, exist_ok=True)
    own_tracing = sites and not tracemalloc.is_tracing()
    if own_tracing:
        tracemalloc.start(max(1, int(frames)))
    _state = _Probe(out, every_ms, max_snapshots, sites, fork)
    _state.own_tracing = own_tracing
    gc.callbacks.append(_on_gc)
    _state.ticker.start()
    return _state


def stop(final=True):
    """Takes the last snapshot (unless `final` is false) and stops the probe."""
    global _state
    probe = _state
    if probe is None:
        return
    try:
        gc.callbacks.remove(_on_gc)
    except ValueError:
        pass
    probe.stopping.set()
    probe.running_child(wait=True)
    if final and probe.allowed(final=True):
        probe.take("exit")
    _state = None


def snapshot(trigger="manual"):
    """Takes a snapshot now (the probe must be started); returns its path or None."""
    if _state is None or not _state.allowed(final=False):
        return None
    return _state.take(trigger)


def _on_gc(phase, info):
    probe = _state
    if phase != "stop" or probe is None or probe.busy:
        return
    now = time.monotonic()
    if now < probe.next_at or not probe.allowed(final=False):
        return
    probe.take("gc", info.get("generation"))


class _Probe:
    def __init__(self, out, every_ms, max_snapshots, sites, fork=True):
        self.out = out
        self.every = max(0, every_ms) / 1000.0
        self.max_snapshots = max_snapshots
        self.sites = sites
        self.taken = 0
        self.busy = False
        self.started = time.monotonic()
        self.next_at = self.started
        self.site_of_address = {}
        self.fallback = _managed_dict_fallback() if sites else None
        self.fork = fork and hasattr(os, "fork")
        self.child = None
        self.stopping = threading.Event()
        self.ticker = threading.Thread(target=self._tick, name="memcity-probe", daemon=True)

    def _tick(self):
        """CPython collects only when containers pile up: a program that frees what it makes
        (refcounting does) may never reach a GC point. Then the probe makes one: a young
        collection, whose callback takes the snapshot as at any other GC point."""
        while not self.stopping.wait(max(self.every, 0.05)):
            if time.monotonic() >= self.next_at + self.every and not self.busy:
                gc.collect(0)

    def allowed(self, final):
        if self.max_snapshots is None:
            return True
        # The exit snapshot is always kept within the limit.
        return self.taken < self.max_snapshots - (0 if final else 1)

    def take(self, trigger, generation=None):
        """Takes a snapshot: in a forked child while the program runs on (it pauses only for
        the fork), in this process at exit or where there is no fork."""
        if self.running_child():
            return None
        self.busy = True
        was_enabled = gc.isenabled()
        gc.disable()
        interval = sys.getswitchinterval()
        # Other threads wait until the roots are taken, so frames do not change under us.
        sys.setswitchinterval(1e6)
        try:
            began = time.monotonic()
            self.taken += 1
            roots = _roots(sys._getframe(), self)
            if self.fork and trigger != "exit":
                return self._fork(trigger, generation, roots, began)
            path = self._write(trigger, generation, roots, began, None)
            done = time.monotonic()
            # Never spend more than half the program's time in snapshots.
            self.next_at = done + max(self.every, done - began)
            return path
        finally:
            sys.setswitchinterval(interval)
            if was_enabled:
                gc.enable()
            self.busy = False

    def _fork(self, trigger, generation, roots, began):
        with warnings.catch_warnings():
            # Python 3.12+ warns about fork() in threaded programs (the probe's own ticker
            # thread counts): the child only reads the heap and exits; see docs/python.md.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            status = 1
            try:
                paused = time.monotonic() - began
                try:
                    os.nice(10)  # the program comes first when cores are scarce
                except OSError:
                    pass
                self._write(trigger, generation, roots, began, paused)
                status = 0
            finally:
                # Never run the program's exit handlers or flush its buffers twice.
                os._exit(status)
        self.child = pid
        self.next_at = time.monotonic() + self.every
        return os.path.join(self.out, _file_name(self.taken))

    def running_child(self, wait=False, timeout=600.0):
        """Whether the child writing the last snapshot still runs (reaps it once done). With
        `wait`, waits for it; a child still running after `timeout` seconds is killed (a fork
        while another thread held a lock of the allocator can leave it stuck)."""
        if self.child is None:
            return False
        deadline = time.monotonic() + timeout
        while True:
            try:
                pid, _ = os.waitpid(self.child, os.WNOHANG)
            except ChildProcessError:
                pid = self.child
            if pid != 0:
                self.child = None
                return False
            if not wait:
                return True
            if time.monotonic() > deadline:
                os.kill(self.child, 9)
                timeout = float("inf")
            time.sleep(0.01)

    def _write(self, trigger, generation, roots, began, paused):
        name = _file_name(self.taken)
        final = os.path.join(self.out, name)
        partial = os.path.join(self.out, "." + name + ".tmp")
        # The partial file exists for the whole snapshot; a probe killed now leaves only it.
        with open(partial, "wb") as f:
            f.write(MAGIC + struct.pack("<II", FORMAT_VERSION, 0))
            f.flush()
            traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else None
            walking = time.monotonic()
            table, keep = None, None
            # Tracing may end in the child, or at exit if the probe started it.
            if self.sites and tracemalloc.is_tracing() and (paused is not None or (
                    trigger == "exit" and self.own_tracing)):
                table, keep = _site_table(self)
            heap = _walk(roots)
            walked = time.monotonic()
            sections = _encode(heap, self, table)
            del keep
            for tag, payload in sections:
                _write_section(f, tag, payload)
            encoded = time.monotonic()
            meta = {
                "producer": PROBE_VERSION,
                "language": "python",
                "runtime": "%s %s" % (sys.implementation.name, sys.version.split()[0]),
                "pid": os.getpid() if paused is None else os.getppid(),
                "program": " ".join(sys.argv),
                "seq": self.taken,
                "trigger": trigger,
                "gc_generation": generation,
                "time_ms": int((began - self.started) * 1000),
                "unix_ms": int(time.time() * 1000),
                "objects": len(heap.objects),
                "edges": len(heap.edges),
                "forked": paused is not None,
                "walk_ms": round((walked - walking) * 1000, 3),
                "encode_ms": round((encoded - walked) * 1000, 3),
                # What the program waited for: the fork, or the whole snapshot.
                "cost_ms": round((encoded - began if paused is None else paused) * 1000, 3),
                "sites": self.sites,
                "traced_bytes": traced,
            }
            _write_section(f, b"META", json.dumps(meta).encode())
            _write_section(f, b"END.", b"")
        os.replace(partial, final)
        return final


def _file_name(seq):
    return "snapshot-%06d.mcheap" % seq


def _write_section(f, tag, payload):
    f.write(struct.pack("<4sIQ", tag, zlib.crc32(payload), len(payload)))
    f.write(payload)


class _Frames(dict):
    roots = 0


class _Heap:
    __slots__ = ("objects", "edges", "edge_counts", "addresses", "roots", "root_kinds", "root_names", "ids",
                 "frames", "labels")


class _Roots:
    __slots__ = ("objects", "kinds", "names", "excluded", "frames")


class _Key(str):
    """A dict key as a path shows it (`'sessions'`), told apart from an attribute's name."""


def _roots(top, probe):
    """The interpreter's roots, and the running frames' referents and sizes: taken before a
    fork, because the child has no other threads and their frames' data is gone there."""
    me = _SELF
    r = _Roots()
    r.excluded = [me, getattr(me, "__dict__", None), globals(), probe, probe.__dict__, _on_gc,
                  probe.site_of_address, r, top, probe.ticker, probe.ticker.__dict__,
                  probe.stopping, probe.stopping.__dict__]
    r.objects, r.kinds, r.names, r.frames = [], [], [], {}
    for name, module in list(sys.modules.items()):
        if isinstance(module, types.ModuleType) and module is not me:
            r.objects.append(module)
            r.kinds.append(ROOT_GLOBAL)
            r.names.append("module %s" % getattr(module, "__name__", name))
    builtins = __builtins__ if isinstance(__builtins__, dict) else __builtins__.__dict__
    for internal, name in ((sys.modules, "sys.modules"), (sys.__dict__, "module sys"),
                           (builtins, "module builtins")):
        r.objects.append(internal)
        r.kinds.append(ROOT_INTERNAL)
        r.names.append(name)
    mine = globals()
    for frame in sys._current_frames().values():
        while frame is not None:
            if frame.f_globals is mine:
                r.excluded.append(frame)
            else:
                r.objects.append(frame)
                r.kinds.append(ROOT_STACK_FRAME)
                code = frame.f_code
                r.names.append("frame %s (%s:%d)" % (code.co_name, os.path.basename(code.co_filename),
                                                      frame.f_lineno or 0))
                refs, labels = _frame_referents(frame)
                r.frames[id(frame)] = (refs, _size(frame), labels)
            frame = frame.f_back
    return r


def _walk(r):
    """Every object reachable from the roots, breadth first; `objects` doubles as the queue.
    Every reference gets a name where the probe knows one (`_names`)."""
    roots, kinds, excluded, frames = r.objects, r.kinds, r.excluded, r.frames
    ids = {id(o): -1 for o in excluded}
    objects = []
    root_index, root_kinds, root_names = [], [], []
    for o, kind, name in zip(roots, kinds, r.names):
        i = ids.get(id(o))
        if i is None:
            i = len(objects)
            ids[id(o)] = i
            objects.append(o)
        if i >= 0:
            root_index.append(i)
            root_kinds.append(kind)
            root_names.append(name)
    edges = []
    edge_counts = []
    labels = []
    ids_get = ids.get
    referents = gc.get_referents
    frame_type = types.FrameType
    append_object = objects.append
    append_edge = edges.append
    append_count = edge_counts.append
    append_label = labels.append
    namer = _Namer()
    names_of = namer.names
    i = 0
    while i < len(objects):
        o = objects[i]
        i += 1
        if type(o) is frame_type and id(o) in frames:
            refs, _, names = frames[id(o)]
        elif type(o) is dict and id(o) not in namer.attribute_dicts:
            refs, names = namer.entries(o, ids_get)
        else:
            refs = referents(o)
            # Most objects (numbers, strings) refer to nothing: nothing to name.
            names = names_of(o, refs) if refs else None
        count = 0
        for at, r in enumerate(refs):
            k = id(r)
            j = ids_get(k)
            if j is None:
                j = len(objects)
                ids[k] = j
                append_object(r)
            elif j < 0:
                continue
            append_edge(j)
            append_label(names[at] if names is not None else None)
            count += 1
        append_count(count)
    heap = _Heap()
    heap.objects = objects
    heap.edges = edges
    heap.edge_counts = edge_counts
    heap.addresses = list(map(id, objects))
    heap.roots = root_index
    heap.ids = ids
    heap.frames = _Frames(frames)
    heap.frames.roots = len(root_index)
    heap.root_kinds = root_kinds
    heap.root_names = root_names
    heap.labels = labels
    return heap


class _Namer:
    """Names the references of one object, as a path from a root shows them: a dict's values by
    key (`['key']`, the first key where a value is held under several), a list's or tuple's
    items by index (`[3]`), a module's, class's or instance's attributes by name (`.name`). An
    object's reference to its own attribute dict gets the empty name (paths do not show it) and
    the dict's values are named as attributes. Other references stay unnamed (None)."""

    def __init__(self):
        self.attribute_dicts = set()
        self.dict_getter = {}
        self.slot_members = {}
        self.str_keys = {}

    def names(self, o, refs):
        t = type(o)
        if t is dict:
            return self.dict_names(o, refs, id(o) in self.attribute_dicts)
        if t is list or t is tuple:
            return [LABEL_INDEX | min(at, LABEL_INDEX - 2) for at in range(len(refs))]
        if t is types.ModuleType or isinstance(o, types.ModuleType):
            own = getattr(o, "__dict__", None)
        elif isinstance(o, type):
            try:
                own = gc.get_referents(_TYPE_DICT.__get__(o))[0]
            except Exception:
                own = None
        else:
            own = self.instance_dict(o, t)
            slots = self.slot_names(o, t)
            if slots:
                # A class's __slots__ hold their values in the object itself; a subclass
                # without __slots__ adds a dict for the rest.
                names = [slots.get(id(r)) for r in refs]
                if type(own) is dict:
                    rest = self.own_names(own, refs) or [None] * len(refs)
                    names = [n if n is not None else m for n, m in zip(names, rest)]
                return names
        if type(own) is not dict:
            return None
        return self.own_names(own, refs)

    def entries(self, d, ids_get):
        """A dict's references as its entries in iteration order, each key (unnamed) followed
        by its value (named by the key), so a reader pairs them; gc.get_referents would leave
        out str keys. An entry with the probe's own key or value is left out whole."""
        refs, names = [], []
        key = self.key
        try:
            for k, v in d.items():
                if ids_get(id(k)) == -1 or ids_get(id(v)) == -1:
                    continue
                refs.append(k)
                refs.append(v)
                names.append(None)
                names.append(key(k))
        except Exception:
            refs = gc.get_referents(d)
            return refs, self.dict_names(d, refs, False)
        return refs, names

    def own_names(self, own, refs):
        """Names by an object's own attribute dict: the dict itself, or the values in it."""
        mine = id(own)
        for r in refs:
            if id(r) == mine:
                self.attribute_dicts.add(mine)
                return ["" if id(r) == mine else None for r in refs]
        # Values held by the object itself (CPython 3.11+ keeps a plain instance's attributes
        # inline until its dict is asked for).
        return self.dict_names(own, refs, True)

    def slot_names(self, o, t):
        """{id(value): name} of the object's __slots__ members that are set, or None."""
        members = self.slot_members.get(t)
        if members is None:
            members = self.slot_members[t] = _slot_members(t)
        if not members:
            return None
        named = {}
        for name, member in members:
            try:
                value = member.__get__(o, t)
            except Exception:
                continue
            named.setdefault(id(value), name)
        return named

    def instance_dict(self, o, t):
        getter = self.dict_getter.get(t, 0)
        if getter == 0:
            getter = None
            try:
                for klass in t.__mro__:
                    found = klass.__dict__.get("__dict__")
                    if found is not None:
                        getter = found if type(found) is _GETSET else None
                        break
            except Exception:
                getter = None
            self.dict_getter[t] = getter
        if getter is None:
            return None
        try:
            return getter.__get__(o, t)
        except Exception:
            return None

    def dict_names(self, d, refs, attributes):
        try:
            by_value = {}
            for k, v in d.items():
                if id(v) not in by_value:
                    by_value[id(v)] = k
        except Exception:
            return None
        label = self.attribute if attributes else self.key
        return [label(by_value[id(r)]) if id(r) in by_value else None for r in refs]

    @staticmethod
    def attribute(k):
        return k if type(k) is str else _key(k)

    def key(self, k):
        if type(k) is str:
            label = self.str_keys.get(k)
            if label is None:
                label = self.str_keys[k] = _key(k)
            return label
        return _key(k)


_TYPE_DICT = type.__dict__["__dict__"]
_GETSET = type(_TYPE_DICT)
_MEMBER = types.MemberDescriptorType
_HEAP_TYPE = 1 << 9


def _slot_members(t):
    """The (name, member descriptor) of every __slots__ entry of a class and its bases: only
    classes defined in Python have them (built-in types' members are C fields)."""
    members = []
    try:
        for klass in t.__mro__:
            if not klass.__flags__ & _HEAP_TYPE:
                continue
            for name, found in klass.__dict__.items():
                if type(found) is _MEMBER and name != "__weakref__":
                    members.append((name, found))
    except Exception:
        return []
    return members
_KEY_TYPES = (str, int, float, bool, bytes, type(None))


def _key(k):
    """A dict key as a path shows it: repr for str, numbers, bytes and None (cut at KEY_CHARS
    characters), `<Type>` for anything else (its own __repr__ is never called)."""
    if type(k) in _KEY_TYPES:
        try:
            text = repr(k) if type(k) is not int or -10**40 < k < 10**40 else "<int>"
        except Exception:
            text = "<%s>" % type(k).__name__
    else:
        text = "<%s>" % type(k).__name__
    if len(text) > KEY_CHARS:
        text = text[:KEY_CHARS - 1] + "…"
    return _Key(text)


def _frame_referents(frame):
    """A frame's referents and their names. A running frame's locals live outside the frame
    object (CPython 3.11+), so gc.get_referents does not see them; f_locals does."""
    refs = [frame.f_back, frame.f_code, frame.f_globals]
    names = ["f_back", "f_code", "f_globals"]
    try:
        local = frame.f_locals
        if local is not frame.f_globals:
            for name, value in local.items():
                refs.append(value)
                names.append(name if type(name) is str else _key(name))
    except Exception:
        pass
    kept = [(r, n) for r, n in zip(refs, names) if r is not None]
    return [r for r, _ in kept], [n for _, n in kept]


def _encode(heap, probe, table):
    objects = heap.objects
    strings = {}

    def intern(s):
        i = strings.get(s)
        if i is None:
            i = strings[s] = len(strings)
        return i

    type_index = {}
    for t in set(map(type, objects)):
        type_index[t] = intern(_type_name(t))
    types_column = array.array("I", map(type_index.__getitem__, map(type, objects)))
    sizes = array.array("Q", _sizes(objects, heap.frames))
    sites_column, site_frames = _sites(heap, probe, intern, table)
    counts = array.array("I", heap.edge_counts)
    edges = array.array("I", heap.edges)
    addresses = array.array("Q", heap.addresses)
    names = array.array("I", map(_label_code(intern), heap.labels))
    root_names = array.array("I", map(intern, heap.root_names))

    encoded = [s.encode("utf-8", "surrogateescape") for s in strings]
    strs = struct.pack("<I", len(encoded)) + _le(array.array("I", map(len, encoded))) + b"".join(encoded)
    frame_counts = array.array("I", map(len, site_frames))
    flat = array.array("I", [f for frames in site_frames for f in frames])
    site = struct.pack("<I", len(site_frames)) + _le(frame_counts) + _le(flat)
    objs = b"".join([struct.pack("<I", len(objects)), _le(types_column), _le(sites_column),
                     _le(sizes), _le(addresses), _le(counts)])
    edge = struct.pack("<Q", len(edges)) + _le(edges)
    name = struct.pack("<Q", len(names)) + _le(names)
    vals = _values(objects)
    root = (struct.pack("<I", len(heap.roots)) + _le(array.array("I", heap.roots))
            + bytes(heap.root_kinds) + _le(root_names))
    return [(b"STRS", strs), (b"SITE", site), (b"OBJS", objs), (b"EDGE", edge), (b"NAME", name),
            (b"VALS", vals), (b"ROOT", root)]


_VALUE_KINDS = {type(None): 0, bool: 1, int: 2, float: 3, str: 4, bytes: 5}
_INT_LIMIT = 10 ** VALUE_CHARS


def _values(objects):
    """VALS: the value of every str, bytes, int, float, bool and None object, short: a str's
    first VALUE_CHARS characters and a bytes object's first bytes, with the whole length; an
    int of more digits, or a str that is not valid Unicode (lone surrogates), has none."""
    index = array.array("I")
    kinds = bytearray()
    lengths = array.array("Q")
    sizes = array.array("I")
    chunks = []
    kind_of = _VALUE_KINDS.get
    for i, o in enumerate(objects):
        kind = kind_of(type(o))
        if kind is None:
            continue
        if kind == 4:
            length = len(o)
            try:
                data = (o[:VALUE_CHARS] if length > VALUE_CHARS else o).encode("utf-8")
            except UnicodeEncodeError:
                continue
        elif kind == 5:
            length = len(o)
            data = o[:VALUE_CHARS]
        elif kind == 2:
            if not -_INT_LIMIT < o < _INT_LIMIT:
                continue
            data = str(o).encode()
            length = len(data)
        else:
            data = repr(o).encode()
            length = len(data)
        index.append(i)
        kinds.append(kind | VALUE_CUT if length > VALUE_CHARS and kind >= 4 else kind)
        lengths.append(length)
        sizes.append(len(data))
        chunks.append(data)
    return (struct.pack("<I", len(index)) + _le(index) + bytes(kinds) + _le(lengths) + _le(sizes)
            + b"".join(chunks))


def _label_code(intern):
    """A reference's name as the NAME section codes it: an index as is, a dict key with
    LABEL_KEY, an attribute's name as its string."""
    def code(label):
        if label is None:
            return NO_NAME
        if type(label) is int:
            return label
        if type(label) is _Key:
            return LABEL_KEY | intern(str(label))
        return intern(label)
    return code


def _le(column):
    if sys.byteorder != "little":
        column = array.array(column.typecode, column)
        column.byteswap()
    return column.tobytes()


def _type_name(t):
    module = getattr(t, "__module__", None)
    name = getattr(t, "__qualname__", None) or getattr(t, "__name__", "?")
    if not isinstance(module, str):
        module = "(no module)"
    return "%s.%s" % (module, name)


def _sizes(objects, frames):
    """Shallow sizes; running frames (roots, so at the start) were measured before the fork."""
    running = {i: frames[id(o)][1] for i, o in enumerate(objects[:frames.roots]) if id(o) in frames}
    if running:
        objects = list(objects)
        for i in running:
            objects[i] = None
    try:
        sizes = list(map(sys.getsizeof, objects))
    except Exception:
        # A __sizeof__ of the program's own raised: ask one by one.
        sizes = [_size(o) for o in objects]
    for i, size in running.items():
        sizes[i] = size
    return sizes


def _size(o):
    try:
        return max(0, int(sys.getsizeof(o)))
    except Exception:
        return 0


def _site_table(probe):
    """Before the walk, where tracing may end (in the child, or at exit): the traceback of every
    object tracemalloc knows, then tracemalloc stops, so the walk's own allocations are not
    traced (that makes it about ten times faster)."""
    frame_type = types.FrameType
    tracked = [o for o in gc.get_objects() if type(o) is not frame_type]
    is_tracked = gc.is_tracked
    untracked = []
    frontier = [r for r in gc.get_referents(*tracked) if not is_tracked(r)]
    while frontier:
        untracked += frontier
        frontier = [r for r in gc.get_referents(*frontier) if not is_tracked(r)]
    found = tracked + untracked
    del tracked, untracked
    tracebacks = _tracebacks(found, probe)
    tracemalloc.stop()
    # Only now: every int id() makes is no longer traced.
    return dict(zip(map(id, found), tracebacks)), found


def _tracebacks(objects, probe):
    tracebacks = list(map(_object_traceback, objects))
    fallback = probe.fallback
    if fallback is not None:
        known, managed = probe.site_of_address, fallback.managed
        seen = {}
        for i, o in enumerate(objects):
            if tracebacks[i] is None and type(o).__flags__ & managed:
                key = id(o)
                tb = known.get(key)
                if tb is None:
                    tb = fallback.traceback(key)
                seen[key] = tb
                tracebacks[i] = tb
        probe.site_of_address = seen
    return tracebacks


def _sites(heap, probe, intern, table):
    """The allocation site of every object, as an index into the table of distinct sites."""
    n = len(heap.objects)
    if table is not None:
        tracebacks = list(map(table.get, heap.addresses))
    elif probe.sites and tracemalloc.is_tracing():
        tracebacks = _tracebacks(heap.objects, probe)
    else:
        tracebacks = [None] * n
    _name_globals(heap, tracebacks)
    index = {None: NO_SITE}
    frames = []
    for tb in set(tracebacks):
        if tb is None:
            continue
        index[tb] = len(frames)
        if isinstance(tb, str):
            frames.append([intern(tb)])
        else:
            frames.append([intern(_frame_name(f)) for f in tb])
    return array.array("I", map(index.__getitem__, tracebacks)), frames


def _name_globals(heap, tracebacks):
    """Objects tracemalloc cannot place (made before it started, or reused from CPython's free
    lists, as most module-level lists and dicts are) but that a module global holds get the
    global's name as their site, so the holder of a leak is named in the city."""
    ids_get = heap.ids.get
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        prefix = "global %s." % getattr(module, "__name__", "?")
        for name, value in list(namespace.items()):
            i = ids_get(id(value))
            if i is not None and i >= 0 and tracebacks[i] is None and not isinstance(value, _ATOMS):
                tracebacks[i] = prefix + str(name)


_ATOMS = (int, float, str, bytes, bool, type(None), types.ModuleType, type)


_object_traceback = getattr(tracemalloc, "_get_object_traceback", None) or (
    lambda o: None if (tb := tracemalloc.get_object_traceback(o)) is None
    else tuple((f.filename, f.lineno) for f in reversed(tb)))


def _frame_name(frame):
    filename, lineno = frame
    line = linecache.getline(filename, lineno).strip()
    shown = filename
    try:
        relative = os.path.relpath(filename)
        if not relative.startswith(".."):
            shown = relative
    except ValueError:
        pass
    return "%s:%d %s" % (shown, lineno, line) if line else "%s:%d" % (shown, lineno)


class _ManagedDictFallback:
    """CPython 3.11's tracemalloc misses objects with a managed dict (plain class instances):
    it looks for their memory block at the wrong address. Ask for the right one through the
    C API instead (slow, about 6 µs an object, so sites are remembered between snapshots)."""

    def __init__(self, managed, lookup, offset):
        self.managed = managed
        self.lookup = lookup
        self.offset = offset

    def traceback(self, address):
        return self.lookup(0, address - self.offset)


def _managed_dict_fallback():
    if sys.version_info[:2] != (3, 11) or sys.implementation.name != "cpython":
        return None
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        return None

    class Probe:
        pass

    sample = Probe()
    if _object_traceback(sample) is not None:
        return None
    try:
        import ctypes

        lookup = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_uint, ctypes.c_size_t)(
            ("_PyTraceMalloc_GetTraceback", ctypes.pythonapi))
        offset = 4 * ctypes.sizeof(ctypes.c_void_p)  # two pre-header words, then the GC header
        fallback = _ManagedDictFallback(1 << 4, lookup, offset)
        return fallback if fallback.traceback(id(sample)) is not None else None
    except Exception:
        return None


def _main(argv):
    import argparse

    parser = argparse.ArgumentParser(
        prog="memcity_probe.py",
        description="Run a Python script and write heap snapshots for memcity.")
    parser.add_argument("--out", required=True, help="folder for the snapshot files")
    parser.add_argument("--every-ms", type=int, default=1000, metavar="N",
                        help="at most one snapshot per N ms of GC points (default 1000)")
    parser.add_argument("--max-snapshots", type=int, default=None, metavar="N",
                        help="stop after N snapshots (the exit snapshot included)")
    parser.add_argument("--no-sites", action="store_true",
                        help="do not start tracemalloc: no allocation sites, less overhead")
    parser.add_argument("--no-fork", action="store_true",
                        help="take snapshots in the program's own process (it waits for each)")
    parser.add_argument("--frames", type=int, default=1, metavar="N",
                        help="frames per allocation site (tracemalloc depth, default 1)")
    parser.add_argument("script", help="the Python script to run as __main__")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    options = parser.parse_args(argv)
    if options.every_ms < 0:
        parser.error("--every-ms must be 0 or more")
    if options.max_snapshots is not None and options.max_snapshots < 1:
        parser.error("--max-snapshots must be 1 or more")
    if not 1 <= options.frames <= 100:
        parser.error("--frames must be from 1 to 100")
    try:
        with open(options.script, "rb") as f:
            source = f.read()
    except OSError as e:
        parser.error("cannot read %s: %s" % (options.script, e.strerror))
    code = compile(source, options.script, "exec")
    # The script becomes __main__ as under `python3 SCRIPT`; this module stays importable.
    sys.modules.setdefault("memcity_probe", sys.modules[__name__])
    main = types.ModuleType("__main__")
    main.__file__ = options.script
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    sys.argv = [options.script] + options.args
    sys.path[0] = os.path.dirname(os.path.abspath(options.script))
    start(options.out, options.every_ms, options.max_snapshots, not options.no_sites, options.frames,
          not options.no_fork)
    status = 0
    try:
        exec(code, main.__dict__)
    except SystemExit as e:
        status = e.code
    finally:
        stop()
    return status


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
