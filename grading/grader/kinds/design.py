"""`design`: whether the submission is the design the lab teaches, read from its bytecode (the javap listing
the API check wrote). A correct class in another design (a wrapper around ArrayBlockingQueue for "fix the
monitor", a FIFO under one lock for the parallel hash table) keeps its correctness marks and loses these:
a grade says what the student built, not only that it is exactly-once.

A test names what the design calls (`calls`: each entry "owner.name", or alternatives joined by "|"; a
java/lang/Object method is also met when the submission's own class is the receiver, as javac writes an
inherited call), what it must not use (`avoid`: class-name prefixes), which methods must not do the design's
own work under one lock (`unlocked`, with `covers`: class-name prefixes of the calls that work is, a slot's
`set` or `swap`, say), and says why (`why`). A method "does it under one lock" when such a call, or a method of
the submission's own that makes one, runs while it holds a lock of the object's own (`synchronized`, a block on
`this` or on a field, or a java.util.concurrent lock): what the lock covers is judged, not which object it is,
so a monitor of its own around a count is fine, whichever object it is. Without `covers`, any such lock in the
method is one lock too many."""
from __future__ import annotations

from grader.context import Context
from grader import submission
from grader.jail import MalformedReport

KIND = "design"
NEEDS: tuple[str, ...] = ()


def score(ctx: Context) -> None:
    try:
        classes = submission.read_listing(ctx.tmp)
    except MalformedReport as e:
        raise RuntimeError(f"the API check's javap listing cannot be read: {e}") from None
    own = {c.name for c in classes}
    used = {(o, m) for c in classes for o, m in c.members}
    named = {n for c in classes for n in (*c.classes, *(o for o, _ in c.members))}

    def called(entry: str) -> bool:
        owner, _, name = entry.rpartition(".")
        return any(m == name and (o == owner or (owner == "java/lang/Object" and o in own)) for o, m in used)

    for spec, result in ctx.tests(KIND):
        missing = [e for e in spec.calls if not any(called(alt) for alt in e.split("|"))]
        avoided = sorted({n for n in named for prefix in spec.avoid if n.startswith(prefix) and n not in own})
        locked = [m for m in spec.unlocked if any(_locks_over(c, m, spec.covers, classes) if spec.covers
                                                  else m in c.locked for c in classes)]
        if not missing and not avoided and not locked:
            result.score = result.max_score
            result.output = "Passed: the lab's design."
            continue
        said = [f"it never calls {' or '.join(f'`{_shown(a)}`' for a in e.split('|'))}" for e in missing]
        said += [f"it uses {', '.join(f'`{_shown(n)}`' for n in avoided[:5])}"] if avoided else []
        said += [f"{' and '.join(f'`{m}()`' for m in locked)} " + (
            f"call{'s' if len(locked) == 1 else ''} {' or '.join(_covered(c) for c in spec.covers)} while holding "
            "one lock of the object's (`synchronized`, a block on `this` or a field, or a lock), one lock around the "
            "whole table" if spec.covers else f"run{'s' if len(locked) == 1 else ''} under the object's own lock "
            "(`synchronized`, or a block on `this`), one lock around the whole table")] if locked else []
        result.output = (f"Not the lab's design: {'; '.join(said)}. {spec.why} Your other marks say whether the "
                         "class is correct; this one says whether it is what the lab asks you to build.")


def _locks_over(cls, method: str, covers: tuple[str, ...], classes) -> bool:
    """Whether `method` of `cls` makes a `covers` call (itself or through a method of the submission's own) while
    holding a lock of the object's own, or calls a method of its own that does."""
    methods = {f"{c.name}.{m}": c for c in classes for m in (*c.calls, *c.synchronized)}

    def reaches(ref: str, seen: frozenset) -> bool:  # a covers call, or an own method that makes one
        if ref.startswith(covers):
            return True
        c = methods.get(ref)
        return c is not None and ref not in seen and any(
            reaches(r, seen | {ref}) for r in c.calls.get(ref.rpartition(".")[2], ()))

    def locks_over(ref: str, seen: frozenset) -> bool:
        c = methods.get(ref)
        if c is None or ref in seen:
            return False
        name, seen = ref.rpartition(".")[2], seen | {ref}
        calls, under = c.calls.get(name, []), c.under_lock.get(name, [])
        if name in c.synchronized and any(reaches(r, seen) for r in calls):
            return True
        return any(reaches(r, seen) for r in under) or any(locks_over(r, seen) for r in calls)
    return locks_over(f"{cls.name}.{method}", frozenset())


def _covered(prefix: str) -> str:
    name = prefix.rstrip("./").rpartition("/")[2]
    return f"`{name}`'s methods" if prefix.endswith(".") else f"`{prefix.replace('/', '.')}`"


def _shown(name: str) -> str:
    owner, _, member = name.rpartition(".")
    return f"{owner.rpartition('/')[2]}.{member}()" if owner and "/" in owner else name.replace("/", ".")
