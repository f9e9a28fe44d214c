"""What a submitted class may use, checked on its bytecode: labs/allowed-api.toml.

The checkers run a submitted class inside their own JVM (Lincheck must, to control its
threads), so a class that could write files, read /proc, reflect, or end the JVM could also
write the verdict. This check closes that door before any submitted code runs: `javap` (the
JDK's class-file reader) lists every class, method and field each class file refers to, and a
submission that refers to anything the lab's profile does not allow is refused, with the
reference named. Source-text patterns cannot do this (comments, unicode escapes and string
tricks bypass them); the constant pool cannot lie about what the code calls."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from handofflab.ground import paths
from handofflab.ground.console import LabError

from grader.classfiles import ClassFile

POLICY = paths.LABS / "allowed-api.toml"
_KEYS = {"base", "packages", "classes", "members", "types", "deny", "extends", "annotations"}


@dataclass(frozen=True)
class Profile:
    name: str
    packages: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()
    members: frozenset[str] = frozenset()
    types: frozenset[str] = frozenset()
    deny: tuple[str, ...] = ()
    extends: frozenset[str] = frozenset()
    annotations: frozenset[str] = frozenset()    # the annotation types a submission may use (a closed set)
    forbid: tuple[str, ...] = field(default=())   # a lab's own rule (class-name prefixes), not a security one

    def class_named(self, cls: str) -> bool:
        """May this class appear as a type at all?"""
        return (cls in self.classes or cls in self.types or self._package(cls) in self.packages
                or any(m.startswith(cls + ".") for m in self.members) or _throwable_name(cls))

    def member_used(self, owner: str, name: str) -> bool:
        return (owner in self.classes or self._package(owner) in self.packages
                or f"{owner}.{name}" in self.members or _throwable_name(owner))

    @staticmethod
    def _package(cls: str) -> str:
        return cls.rpartition("/")[0] + "/"


def _throwable_name(cls: str) -> bool:  # java/lang's exceptions may be named (caught, declared)
    return cls.startswith("java/lang/") and "/" not in cls[10:] and cls.endswith(("Exception", "Error"))


def load(name: str, forbid: tuple[str, ...] = ()) -> Profile:
    try:
        data = tomllib.loads(POLICY.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise LabError(f"{paths.shown(POLICY)} cannot be read: {e}", "restore it from git")
    profiles = data.get("profile", {})
    if name not in profiles:
        raise LabError(f"no API profile '{name}' in {paths.shown(POLICY)}",
                       f"profiles: {', '.join(sorted(profiles))}")
    merged: dict[str, list[str]] = {k: [] for k in _KEYS - {"base"}}
    chain, seen = [], set()
    while name:
        if name in seen or name not in profiles:
            raise LabError(f"{paths.shown(POLICY)}: profile base '{name}' is unknown or circular",
                           "each base must name another profile")
        seen.add(name)
        chain.append(profiles[name])
        name = profiles[name].get("base", "")
    for p in chain:
        unknown = set(p) - _KEYS
        if unknown:
            raise LabError(f"{paths.shown(POLICY)}: unknown key(s) {sorted(unknown)}",
                           f"keys are {', '.join(sorted(_KEYS))}")
        for k, v in p.items():
            if k != "base":
                merged[k] += v
    return Profile(name=next(iter(seen)), packages=frozenset(merged["packages"]), classes=frozenset(merged["classes"]),
                   members=frozenset(merged["members"]), types=frozenset(merged["types"]),
                   deny=tuple(merged["deny"]), extends=frozenset(merged["extends"]),
                   annotations=frozenset(merged["annotations"]), forbid=forbid)


def foreign_monitors(classes: list[ClassFile]) -> list[tuple[str, str]]:
    """(the class file, the foreign object) for each monitor a submission takes on an object it does not own:
    a static field of a class not its own (System.out, System.err), or a class literal not its own."""
    own = {c.name for c in classes}
    origins = {k: v for c in classes for k, v in c.origins.items()}

    def root(origin: str, depth: int = 0) -> str:
        return root(origins[origin], depth + 1) if origin in origins and depth < 8 else origin

    found = []
    for c in classes:
        for origin in c.monitors:
            what = root(origin)
            kind, _, ref = what.partition(":")
            owner = ref.rpartition(".")[0] if kind in ("field", "call") else ref
            static_field = kind == "field" and owner not in own
            if (kind == "class" and ref not in own) or static_field:
                found.append((Path(c.path).name, ref.replace("/", ".")))
    return found


def _element(cls: str) -> str | None:
    """An array type's element class ('[[Ljava/lang/Object;' -> 'java/lang/Object'); None for primitives."""
    cls = cls.lstrip("[")
    return cls[1:-1] if cls.startswith("L") and cls.endswith(";") else (None if len(cls) == 1 else cls)


def violations(classes: list[ClassFile], profile: Profile) -> list[str]:
    """Every reference the profile does not allow, as '`java/lang/System.exit` (in X.class)'; none: []."""
    judge = _Judge(classes, profile)
    problems = [p for c in classes for step in (judge.annotations, judge.supertype, judge.classes, judge.members)
                for p in step(c, Path(c.path).name)]
    for where, obj in foreign_monitors(classes):
        problems.append(f"`synchronized ({obj})` (in {where}): a lock on an object the grader also uses (System.out, "
                        "System.err, a class that is not yours) can hold up the check that judges you; lock an object "
                        "of your own")
    return list(dict.fromkeys(problems))


class _Judge:
    """The profile's rules applied to one submission's classes: each step yields what one class breaks."""

    def __init__(self, classes: list[ClassFile], profile: Profile):
        self.own = {c.name: c for c in classes}
        self.profile = profile

    def denied(self, ref: str) -> bool:
        owner, _, name = ref.rpartition(".")
        if _throwable_name(owner):  # every exception inherits Throwable's members, and its denials
            ref = f"java/lang/Throwable.{name}"
        return any(ref == d or ref.startswith(d + ".") for d in self.profile.deny)

    def ancestor(self, cls: str) -> str:
        """The first class above `cls` that the submission did not write."""
        seen = set()
        while cls in self.own and cls not in seen:
            seen.add(cls)
            cls = self.own[cls].super
        return cls

    def forbidden(self, cls: str) -> str | None:
        return next((f for f in self.profile.forbid if cls.startswith(f)), None)

    def annotations(self, c: ClassFile, where: str):
        for a in dict.fromkeys(c.annotations):
            if a not in self.own and a not in self.profile.annotations:
                allowed = ", ".join(f"@{x.rpartition('/')[2]}" for x in sorted(self.profile.annotations))
                yield (f"the annotation `@{a.replace('/', '.')}` (in {where}): a framework acts on "
                       f"annotations, so a lab allows a closed set (here: {allowed})")
        for cls in dict.fromkeys(c.annotated):
            if cls not in self.own and (self.denied(cls) or not self.profile.class_named(cls)):
                yield f"`{cls.replace('/', '.')}` in an annotation's value (in {where})"

    def supertype(self, c: ClassFile, where: str):
        if c.super and c.super not in self.own and c.super not in self.profile.extends:
            yield (f"`extends {c.super.replace('/', '.')}` (in {where}): a submitted class may extend "
                   "only Object, its own classes or an exception")

    def classes(self, c: ClassFile, where: str):
        for cls in dict.fromkeys(c.classes):
            target = _element(cls) if cls.startswith("[") else cls
            if target is None or target in self.own:
                continue
            if lab_rule := self.forbidden(target):
                yield (f"`{target.replace('/', '.')}` (in {where}): this lab asks you to build it "
                       f"without `{lab_rule.replace('/', '.')}`")
            elif self.denied(target) or not self.profile.class_named(target):
                yield f"`{target.replace('/', '.')}` (in {where})"

    def members(self, c: ClassFile, where: str):
        for owner, name in dict.fromkeys(c.members):
            if owner.startswith("["):  # an array's clone() or length
                elem = _element(owner)
                if elem is None or elem in self.own or self.profile.class_named(elem):
                    continue
            if owner in self.own:  # its own member, or one it inherits (from Object or an exception)
                if self.denied(f"{self.ancestor(owner)}.{name}"):
                    yield f"`{name}` inherited from `{self.ancestor(owner).replace('/', '.')}` (in {where})"
                continue
            if self.forbidden(owner):
                continue  # named once already, as a class
            ref = f"{owner}.{name}"
            if self.denied(ref) or not self.profile.member_used(owner, name):
                yield f"`{ref.replace('/', '.')}` (in {where})"
