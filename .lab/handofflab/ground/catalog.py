"""The catalog (specs/catalog.toml): every handoff, every variant, and what
each checker must report for it.  The only place those facts live."""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from handofflab.ground import paths
from handofflab.ground.console import LabError

CHECKERS = ("tlc", "lincheck", "stress", "jpf", "trace", "locks", "replies", "depth", "races", "jcstress")
# The checkers a class that is not a handoff takes: Lincheck checks a calendar collection list as a
# set and a DHT process's local table (`table`) as a table; a calendar store also gets the stress
# trials (StoreStress) and the lock probe (locks: StoreLocks, which holds one request at its commit
# and sends another beside it); a DHT target's completion queue (`queue`) gets the reply probe
# (replies: ReplyProbe, which plays the writer and sends each reply only when it chooses) and the depth
# probe (depth: DepthProbe, which holds every reply back and sees whether the service thread waits within
# its depth, before and after idle()). None is a
# handoff: no JPF driver, no trace spec. The lock probe takes only a store, the reply probe a queue.
# The calendar's whole database (`database`: users, groups, calendars, events) gets the race probe (races:
# DatabaseRaces, which holds a join or an added event just after it reads the user while the user's delete
# runs beside it: the one schedule that shows each slip of specs/CalendarEntities.tla), the lock probe
# (locks: the same request held while one for other entities must return) and JPF (DatabaseJpfDriver,
# every interleaving of the same races).
CLASS_CHECKERS = {"collection": ("lincheck",), "store": ("lincheck", "stress", "locks", "jpf"), "table": ("lincheck",),
                  "queue": ("replies", "depth"), "database": ("races", "locks", "jpf")}
PROBE_CHECKERS = ("locks", "replies", "depth", "races")  # the probes: each takes one kind of class, never a handoff
JAVA_CHECKERS = ("lincheck", "stress", "locks", "replies", "depth", "races")  # the Java checkers CI runs (JPF when asked)
# Run only when asked (`./lab check java --jpf`, `--jcstress`): JPF needs a jpf-core build of one's own; jcstress
# (java/jcstress) runs a handoff's memory-model tests for minutes on the real JIT and hardware, and sees what every
# other checker, exploring a sequentially consistent machine, cannot: a store that a later load passes.
VERDICT = re.compile(r"pass|deadlock|violation:[A-Z]\w*")  # what every checker reports, TLC and Java alike
TIERS = ("ci", "full")
THREADS = ("one", "per-connection", "pool")  # a server design's threads: who serves a connection


SIZED_BY = ("slots", "workers", "nothing")
# The question a handoff answers: how a server's acceptor passes a connection to a worker (Roussev &
# Wu; exactly-once as specs/Handoff.tla says), or how an origin process passes an insert to a
# target's service thread (Malard & Stewart; applied once, awaited and flushed only when applied), or
# how a calendar store orders the modify, delete and load of one event (McBride & Ferrell; the results
# of one of the orderings, a deleted event never back).
TRACKS = ("servers", "dht", "calendar")


@dataclass(frozen=True)
class CheckProfile:
    """How the Java checkers build and drive a handoff (the catalog's [handoff.check]); it
    reaches Java as one `--profile` argument, so Java holds no list of the kit's classes."""
    size: int
    sized_by: str
    bounded: bool
    acceptors: int
    stress_sizes: tuple[int, ...]
    same_slot_takes: bool = False
    spin_looks: int = 0  # the most times the class looks in a loop before it sleeps (Lincheck lets a loop run that long)
    jpf_acceptors: int = 1
    jpf_ids: tuple[int, ...] = (1, 2)  # the connections JPF's driver hands over (one worker each)
    start_keys: tuple[int, ...] = ()   # a table's take starts, steered, for Lincheck's overtaking scenario (ProbeStarts)
    more_workers_than_slots: bool = False  # stress: takes held between claim and swap, workers waiting ahead of the acceptor
    lapping_put: bool = False  # Lincheck: the ring starts full, and the acceptor's next put laps it while workers take

    @classmethod
    def of(cls, table: dict, where: str) -> CheckProfile:
        keys = {"size", "sized_by", "bounded", "acceptors", "stress_sizes", "same_slot_takes", "spin_looks", "jpf_acceptors",
                "jpf_ids", "start_keys", "more_workers_than_slots", "lapping_put"}
        unknown = set(table) - keys
        missing = {"size", "sized_by", "bounded", "acceptors"} - set(table)
        if unknown or missing:
            raise LabError(f"{where}: check profile has unknown keys {sorted(unknown)} or lacks {sorted(missing)}",
                           f"the keys are {sorted(keys)}")
        if table["sized_by"] not in SIZED_BY or table["size"] < 1 or table["acceptors"] not in (1, 2) \
                or table.get("spin_looks", 0) < 0 or any(not isinstance(k, int) or k < 0 for k in table.get("start_keys", [])):
            raise LabError(f"{where}: check profile {table} is out of range",
                           f"sized_by is one of {SIZED_BY}, size at least 1, acceptors 1 or 2, start_keys whole numbers "
                           "from 0")
        return cls(table["size"], table["sized_by"], table["bounded"], table["acceptors"],
                   tuple(table.get("stress_sizes", [table["size"]])), table.get("same_slot_takes", False),
                   table.get("spin_looks", 0), table.get("jpf_acceptors", 1), tuple(table.get("jpf_ids", (1, 2))),
                   tuple(table.get("start_keys", ())), table.get("more_workers_than_slots", False),
                   table.get("lapping_put", False))

    def arg(self) -> str:
        """The `--profile` argument of handofflab.checks.Main (CheckProfile.parse in Java)."""
        low = lambda b: str(b).lower()  # noqa: E731
        return (f"size={self.size};sized_by={self.sized_by};bounded={low(self.bounded)};acceptors={self.acceptors};"
                f"stress_sizes={'/'.join(map(str, self.stress_sizes))};same_slot_takes={low(self.same_slot_takes)};"
                f"spin_looks={self.spin_looks};"
                f"jpf_acceptors={self.jpf_acceptors};jpf_ids={'/'.join(map(str, self.jpf_ids))};"
                f"start_keys={'/'.join(map(str, self.start_keys))};"
                f"more_workers_than_slots={low(self.more_workers_than_slots)};lapping_put={low(self.lapping_put)}")


@dataclass(frozen=True)
class Handoff:
    name: str
    title: str
    spec: str
    java: str
    summary: str
    stress_seconds: float = 0.0  # at least this long per stress run, where a design's races are rare
    check: dict = field(default_factory=dict, hash=False)  # [handoff.check], raw: variants override keys
    trace: str = ""  # the spec a recorded run is validated against (`./lab check trace`), if the design has one
    track: str = "servers"  # which paper's question: servers (Roussev & Wu), dht (Malard & Stewart), calendar (McBride & Ferrell)
    trace_steps: str = ""  # the steps inside a call the kit's class logs and the trace spec allows, in words
    # The prefix of its jcstress tests' names (java/jcstress: handofflab.jcstress.tests.<prefix><Claim>), if it has any:
    # `./lab check java --jcstress` runs them on each of its variants that claims a jcstress verdict.
    jcstress: str = ""

    @property
    def jcstress_tests(self) -> str:
        """jcstress's -t regexp for this handoff's tests: its prefix, then the claim's capitalised name."""
        return rf"\.{self.jcstress}[A-Z]\w*$" if self.jcstress else ""


@dataclass(frozen=True)
class Variant:
    name: str
    handoff: Handoff
    cfg: str | None
    java: str | None
    bug: str
    tier: str
    expect: dict = field(hash=False)
    why: dict = field(hash=False)
    check: dict = field(default_factory=dict, hash=False)  # overrides of its handoff's [handoff.check]
    # A class that is not a handoff (the catalog's `java` beside its `kind`), in the field of its kind, checked by
    # CLASS_CHECKERS: `collection`, one of the calendar store's collection lists (handofflab.calendar), as a set;
    # `store`, the store itself (EventStore, or a subclass with its own locking), against requests run one at a
    # time; `table`, a DHT process's local table (handofflab.dht), against the table run one operation at a time;
    # `queue`, a DHT target's completion queue (handofflab.dht), by the reply and depth probes; `database`, the
    # calendar's whole database (CalendarDatabase or a subclass), by the race and lock probes and JPF. No handoff
    # benchmark or server takes them; `java` stays None for them (it is a handoff's class).
    collection: str | None = None
    store: str | None = None
    table: str | None = None
    queue: str | None = None
    database: str | None = None
    # What a trace claim rests on: "calls", the class's calls alone (as a submission is recorded: it logs no
    # steps), or "steps", its calls and the steps the kit's class logs itself (a claim that says nothing about
    # a student's class with the same bug). `./lab check trace` records each claim on what it rests on.
    trace_from: str = "calls"
    # Which of its handoff's jcstress tests a variant runs, by the rest of their names after the handoff's prefix (a
    # regexp, "" for all). A twin runs the tests of the Dekker pairs (their halves, side by side, never block): the
    # design's other tests put and take for real, and a twin's lost wake-up hangs them until jcstress gives up on the
    # iteration (30 s or more, each).
    jcstress_tests: str = ""
    # The module its cfg is written for, when not its handoff's: a model that makes explicit what the handoff's spec
    # abstracts (ParallelHashTable.tla waits with `await`; OneMonitorPht.tla's one monitor and its wait set).
    spec: str | None = None
    # The catalogued variant whose cfg models this class's slip, where the two are named apart (a DHT completion
    # queue's twin, a calendar store's or database's: EarlyReleaseQueue in Java, DistEarlyRelease.cfg in TLA+).
    model: str | None = None

    @property
    def module(self) -> str:
        """The spec module TLC checks this variant's cfg against."""
        return self.spec or self.handoff.spec

    @property
    def jcstress_selector(self) -> str:
        """jcstress's -t regexp for this variant: its handoff's tests, or those jcstress_tests names."""
        if not self.jcstress_tests:
            return self.handoff.jcstress_tests
        return rf"\.{self.handoff.jcstress}(?:{self.jcstress_tests})$"

    @property
    def java_class(self) -> str | None:
        """The Java class the Java checkers run: a handoff's, a collection list's, a store's or a table's."""
        return self.java or self.collection or self.store or self.table or self.queue or self.database

    @property
    def class_kind(self) -> str | None:
        """'collection', 'store', 'table', 'queue' or 'database' for a class that is not a handoff; None for a handoff."""
        return next((k for k in CLASS_CHECKERS if getattr(self, k)), None)

    @property
    def profile(self) -> CheckProfile:
        """How the Java checkers build and drive this variant's class."""
        return CheckProfile.of({**self.handoff.check, **self.check}, f"variant '{self.name}'")

    @property
    def correct(self) -> bool:
        return not self.bug

    @property
    def spec_file(self) -> Path:
        return paths.SPECS / f"{self.module}.tla"

    @property
    def cfg_file(self) -> Path | None:
        return paths.SPECS / self.cfg if self.cfg else None

    def expected(self, checker: str) -> str | None:
        return self.expect.get(checker)


@dataclass(frozen=True)
class Server:
    """A TCP server design (java/servers), with the paper's settings and Table 1 times (ms)."""
    name: str
    java: str
    handoff: Handoff | None
    summary: str
    paper_workers: int | None
    paper_slots: int | None
    table1: dict[int, int]  # t_r in ms -> the paper's time to serve 2800 requests, in ms
    threads: str = "pool"   # one | per-connection | pool
    sweeps: tuple[str, ...] = ()  # what `./lab bench servers` varies: workers, slots

    def java_entry(self) -> str:
        """This design in -Dhandofflab.designs (Designs.java): NAME/CLASS/THREADS[/HANDOFF/SIZED_BY]."""
        parts = [self.name, self.java, self.threads]
        if self.handoff and self.handoff.check:  # a kit handoff class carries its connections
            parts += [self.handoff.java, self.handoff.check["sized_by"]]
        return "/".join(parts)

    @property
    def paper_settings(self) -> tuple[int, int]:
        """(workers, slots) of this design's Table 1 row; 50 and 101 where the row names none."""
        return self.paper_workers or 50, self.paper_slots or 101


@dataclass(frozen=True)
class PaperSweep:
    """A thread sweep the paper printed: ms to serve 2800 requests at t_r, per worker count."""
    figure: str
    design: str
    t_r: int
    workers: list[int]
    ms: list[int]


@dataclass(frozen=True)
class Catalog:
    handoffs: dict[str, Handoff]
    variants: dict[str, Variant]
    servers: dict[str, Server] = field(default_factory=dict)
    paper_sweeps: list[PaperSweep] = field(default_factory=list)

    def design_table(self) -> str:
        """Every server design as Java reads it (-Dhandofflab.designs): Java keeps no list of them."""
        return ",".join(s.java_entry() for s in self.servers.values())

    def server(self, name: str) -> Server:
        if name not in self.servers:
            raise LabError(f"unknown design '{name}'", f"pick one of: {', '.join(self.servers)}")
        return self.servers[name]

    def variant(self, name: str) -> Variant:
        if name not in self.variants:
            known = ", ".join(self.variants)
            designs = ", ".join(h for h in self.handoffs if h not in self.variants)
            raise LabError(f"unknown model or class '{name}'",
                           f"pick one of: {known}; or a design, for all its variants: {designs}")
        return self.variants[name]

    def select(self, name: str | None = None, tier: str = "ci", checker: str | None = None,
               handoff: str | None = None) -> list[Variant]:
        """The variants a command works on: one by name, or all up to a tier (of one handoff). A name that is a
        design's and no variant's (SharedBuffer) means that design's variants, as for `./lab check java`."""
        if name and name not in self.variants and name in self.handoffs:
            name, handoff = None, name
        if name:
            chosen = [self.variant(name)]
        else:
            chosen = [v for v in self.variants.values() if (tier == "full" or v.tier == "ci")
                      and (handoff is None or v.handoff.name == handoff)]
        if checker:
            chosen = [v for v in chosen if checker in v.expect and (v.cfg if checker == "tlc" else v.java_class)]
        return chosen


def load(path: Path = paths.CATALOG) -> Catalog:
    """specs/catalog.toml, every entry checked as it is read: a bad one is named with its fix."""
    data = _read(path)
    handoffs = _handoffs(data, path)
    variants = {}
    for v in data.get("variant", []):
        if v.get("name") in variants:
            raise LabError(f"{path.name}: variant '{v['name']}' appears twice", "give each variant one entry")
        variants[v["name"]] = _variant(v, handoffs, path)
    servers = _servers(data, handoffs, path)
    return Catalog(handoffs, variants, servers, _paper_sweeps(data, servers, path))


def _read(path: Path) -> dict:
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise LabError(f"catalog not found: {path}", "restore it with `git checkout specs/catalog.toml`")
    except tomllib.TOMLDecodeError as e:
        raise LabError(f"{path}: not valid TOML: {e}", "fix the line it names")
    return data


def _handoffs(data: dict, path: Path) -> dict[str, Handoff]:
    handoffs = {}
    for h in data.get("handoff", []):
        handoffs[h["name"]] = Handoff(h["name"], h.get("title", h["name"]), h["spec"], h["java"], h.get("summary", ""),
                                     float(h.get("stress_seconds", 0)), dict(h.get("check", {})), h.get("trace", ""),
                                     h.get("track", "servers"), h.get("trace_steps", ""), h.get("jcstress", ""))
        if handoffs[h["name"]].track not in TRACKS:
            raise LabError(f"{path.name}: handoff '{h['name']}' has track = '{h['track']}'", f"use one of {TRACKS}")
        if handoffs[h["name"]].trace and not (paths.SPECS / f"{handoffs[h['name']].trace}.tla").exists():
            raise LabError(f"{path.name}: handoff '{h['name']}' has trace = '{h['trace']}', which is no spec in specs/",
                           "name a trace spec that exists (e.g. SharedBufferTrace)")
    return handoffs


def _variant(v: dict, handoffs: dict[str, Handoff], path: Path) -> Variant:
    """One [[variant]]: its handoff known, its tier and claims in the catalog's vocabulary, its classes' checkers."""
    where = f"{path.name}: variant '{v.get('name', '?')}'"
    if v.get("handoff") not in handoffs:
        raise LabError(f"{where} names unknown handoff '{v.get('handoff')}'", "add a [[handoff]] entry or fix the name")
    if v.get("tier", "ci") not in TIERS:
        raise LabError(f"{where} has tier '{v.get('tier')}'", f"use one of {TIERS}")
    expect = dict(v.get("expect", {}))
    unknown = set(expect) - set(CHECKERS) - {"states"}
    if unknown:
        raise LabError(f"{where} expects results from unknown checkers {sorted(unknown)}", f"checkers are {CHECKERS}")
    for checker, verdict in expect.items():  # one vocabulary for TLC and the Java checkers
        if checker != "states" and not VERDICT.fullmatch(str(verdict)):
            raise LabError(f"{where}: {checker} = '{verdict}' is no verdict",
                           "verdicts are pass, deadlock and violation:PROPERTY (e.g. violation:NoLoss)")
    # One field names the class (`java`), one what it is when it is no handoff (`kind`); the Variant keeps a field a
    # kind, so that `v.java` is a handoff's class and `v.store` a store's.
    old_keys = sorted(set(v) & set(CLASS_CHECKERS))
    if old_keys:
        raise LabError(f"{where} names its class with `{old_keys[0]} = ...`",
                       f"say `java = \"{v[old_keys[0]]}\"` and `kind = \"{old_keys[0]}\"`")
    kind = v.get("kind")
    if kind is not None and (kind not in CLASS_CHECKERS or not v.get("java")):
        raise LabError(f"{where} has kind = '{kind}'" + ("" if v.get("java") else " and no `java` class"),
                       f"a kind is one of {', '.join(CLASS_CHECKERS)}, beside `java = \"CLASS\"`; a handoff has none")
    classes = {k: v.get("java") if kind == k else None for k in CLASS_CHECKERS}
    variant = Variant(
        name=v["name"], handoff=handoffs[v["handoff"]], cfg=v.get("cfg"), java=None if kind else v.get("java"),
        bug=v.get("bug", ""), tier=v.get("tier", "ci"), expect=expect, why=dict(v.get("why", {})),
        check=dict(v.get("check", {})), **classes, trace_from=v.get("trace_from", "calls"),
        jcstress_tests=v.get("jcstress_tests", ""), spec=v.get("spec"), model=v.get("model"),
    )
    if v.get("trace_from", "calls") not in ("calls", "steps") or ("trace_from" in v and "trace" not in expect):
        raise LabError(f"{where} has trace_from = '{v.get('trace_from')}'",
                       "trace_from is 'calls' or 'steps', beside a trace claim")
    unchecked = kind and sorted(set(expect) - set(CLASS_CHECKERS[kind]))
    if unchecked:
        raise LabError(f"{where} is a {kind} class with a claim for {', '.join(unchecked)}, which does not "
                       f"check it", f"a {kind} class takes only {', '.join(CLASS_CHECKERS[kind])} verdicts "
                       "(catalog.CLASS_CHECKERS)")
    if variant.java and set(expect) & set(PROBE_CHECKERS):
        raise LabError(f"{where} is a handoff with a claim for {', '.join(sorted(set(expect) & set(PROBE_CHECKERS)))}",
                       "the probes check one kind of class each (locks: a calendar store; replies and depth: a "
                       "DHT completion queue), never a handoff: remove the claim")
    if "jcstress" in expect and not (variant.java and variant.handoff.jcstress):
        raise LabError(f"{where} claims a jcstress verdict, but its handoff '{variant.handoff.name}' has no jcstress "
                       "tests", "give the [[handoff]] `jcstress = \"PREFIX\"` (its tests in java/jcstress are named "
                       "PREFIX<Claim>), or remove the claim")
    if v.get("jcstress_tests") and "jcstress" not in expect:
        raise LabError(f"{where} names jcstress_tests but claims no jcstress verdict", "add `jcstress = \"...\"` under "
                       "its [variant.expect], or remove jcstress_tests")
    if variant.java:
        variant.profile  # noqa: B018 (a Java class needs a valid check profile: fail at load)
    if not variant.correct:
        for checker, verdict in expect.items():
            if verdict == "pass" and checker not in v.get("why", {}):
                raise LabError(f"{where}: {checker} is expected to pass a buggy variant without a reason",
                               f"say why under [variant.why] {checker} = \"...\"")
    return variant


def _servers(data: dict, handoffs: dict[str, Handoff], path: Path) -> dict[str, Server]:
    servers = {}
    for sv in data.get("server", []):
        where = f"{path.name}: server '{sv.get('name', '?')}'"
        if sv.get("handoff") and sv["handoff"] not in handoffs:
            raise LabError(f"{where} names unknown handoff '{sv['handoff']}'", "add a [[handoff]] entry or fix the name")
        servers[sv["name"]] = Server(
            name=sv["name"], java=sv["java"], handoff=handoffs.get(sv.get("handoff", "")), summary=sv.get("summary", ""),
            paper_workers=sv.get("paper_workers"), paper_slots=sv.get("paper_slots"),
            table1={t: sv[f"table1_{t}"] for t in (250, 500) if f"table1_{t}" in sv},
            threads=sv.get("threads", ""), sweeps=tuple(sv.get("sweeps", ())),
        )
        if set(servers[sv["name"]].sweeps) - {"workers", "slots"}:
            raise LabError(f"{where} has sweeps = {sv['sweeps']}", "sweeps are \"workers\" and \"slots\"")
        if servers[sv["name"]].threads not in THREADS:
            raise LabError(f"{where} has threads = '{sv.get('threads')}'", f"use one of {THREADS}")
    return servers


def _paper_sweeps(data: dict, servers: dict[str, Server], path: Path) -> list[PaperSweep]:
    sweeps = []
    for sw in data.get("paper_sweep", []):
        if sw.get("design") not in servers or len(sw.get("workers", [])) != len(sw.get("ms", [])):
            raise LabError(f"{path.name}: paper_sweep '{sw.get('figure')}' names an unknown design or has "
                           "unequal workers and ms lists", "fix that entry")
        sweeps.append(PaperSweep(sw["figure"], sw["design"], sw["t_r"], list(sw["workers"]), list(sw["ms"])))
    return sweeps
