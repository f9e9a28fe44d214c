"""What a class file refers to, read from `javap -v` (the JDK's class-file reader): every class, method and field
its constant pool names, the annotations it carries, and, method by method, where each monitor it takes came
from. The grader reads a submission through this before any of its code runs; allowlist judges what it finds."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# javap -v lines: "  this_class: #8   // a/b/T", "  #7 = Methodref  #8.#9  // java/lang/System.exit:(I)V"
_HEADER = re.compile(r"^Classfile (.+)$")
_SUPER = re.compile(r"^\s+super_class: #\d+\s+// (\S+)")
_THIS = re.compile(r"^\s+this_class: #\d+\s+// (\S+)")
_ENTRY = re.compile(r"^\s+#\d+ = (Class|Methodref|InterfaceMethodref|Fieldref)\s+\S+\s+// (.+)$")
# Annotations are code too: JUnit reads them and acts (a file source reads a file, a condition reads a system
# property, an extension runs), yet their types and values are no Class or member reference. javap -v prints
# each block under a header; inside it, the annotation's type on a line of its own ("org.junit.….Test" or
# "….CsvFileSource("), nested ones as "@…(", and class or enum values in descriptor form ("Lx/y/Z;").
_ANNOTATIONS = re.compile(r"^(\s*)(?:Runtime(?:Visible|Invisible)(?:Parameter|Type)?Annotations|AnnotationDefault):")
_ANNOTATION_TYPE = re.compile(r"^\s+@?([A-Za-z_$][\w$]*(?:\.[\w$]+)+)\(?$")
_NESTED_ANNOTATION = re.compile(r"@([A-Za-z_$][\w$]*(?:\.[\w$]+)+)\(")
_DESCRIPTOR = re.compile(r"\bL([\w$]+(?:/[\w$]+)*);")
_QUOTED = re.compile(r'"(?:\\.|[^"\\])*"')
# `synchronized (x)` is a monitorenter, which names no member: the constant pool shows only how x was loaded.
# A lock on an object the checker also locks (System.out or System.err, a class that is not the submission's)
# can hold the checker before its verdict. The code lines below are followed, method by method, to where each
# monitor came from: straight from a static field or a class literal, or through a local, a field of the
# submission's own, or a method of its own that returns one. (A lock smuggled further, through an array or a
# collection, is not followed: the grader's rerun of the kit's own class still names the blocked check.)
_SYNCHRONIZED_FLAG = re.compile(r"^\s+flags: .*\bACC_SYNCHRONIZED\b")   # a method's flags, before its Code:
_METHOD = re.compile(r"^  (?:[\w$.<>\[\],? ]+ )?([\w$<>]+)\(.*\)(?: throws .*)?;$")
_CODE = re.compile(r"^\s+\d+: (\w+)\s*(?:(\d+)\s*$|#\d+(?:,\s*\d+)?\s+// (\w+) (.+))?")


@dataclass
class ClassFile:
    path: str
    name: str = ""
    super: str = ""
    classes: list[str] = field(default_factory=list)
    members: list[tuple[str, str]] = field(default_factory=list)   # (owner, name)
    annotations: list[str] = field(default_factory=list)   # annotation types used, anywhere in the class
    annotated: list[str] = field(default_factory=list)     # classes named in annotation values (class, enum)
    timed_wait: bool = False   # calls wait(ms) or wait(ms, ns)
    monitors: list[str] = field(default_factory=list)      # where each monitor came from ("field:o/w/N.f", "class:o/w/N", …)
    locked: list[str] = field(default_factory=list)        # methods that run under the object's own lock (synchronized, or on this)
    declared: list[tuple[str, str]] = field(default_factory=list)  # (name, javap's declaration) of each method
    synchronized: list[str] = field(default_factory=list)  # methods declared synchronized
    calls: dict[str, list[str]] = field(default_factory=dict)       # method -> "owner.name" of each call it makes
    # method -> each call it makes while holding a lock of the object's own: `this`, a field or what a call
    # returned, as a monitor or a java.util.concurrent lock (not an array's element: a slot's lock of its own)
    under_lock: dict[str, list[str]] = field(default_factory=dict)
    # what the submission's own fields and methods may hold or return ("field:…" or "call:…" -> an origin)
    origins: dict[str, str] = field(default_factory=dict)


def parse_javap(text: str) -> list[ClassFile]:
    """The references of every class in `javap -v -p` output (several classes in one run)."""
    found: list[ClassFile] = []
    block = None  # the indentation of the annotation block being read, if any
    code = None   # the method body being read, if any
    method = ""
    for line in text.splitlines():
        if block is not None and line.strip() and len(line) - len(line.lstrip()) > block:
            bare = _QUOTED.sub('""', line)  # a string value is data, not a type
            types = ([m.group(1)] if (m := _ANNOTATION_TYPE.match(bare)) else []) + _NESTED_ANNOTATION.findall(bare)
            found[-1].annotations += [t.replace(".", "/") for t in types]
            found[-1].annotated += _DESCRIPTOR.findall(bare)
            continue
        block = None
        if m := _HEADER.match(line):
            found.append(ClassFile(m.group(1)))
            code = None
        elif not found:
            continue
        elif m := _ANNOTATIONS.match(line):
            block = len(m.group(1))
        elif m := _THIS.match(line):
            found[-1].name = m.group(1)
        elif m := _SUPER.match(line):
            found[-1].super = m.group(1)
        elif m := _METHOD.match(line):
            method, code = m.group(1), None
            found[-1].declared.append((method, line.strip()))
        elif method and code is None and _SYNCHRONIZED_FLAG.match(line):
            found[-1].locked.append(method)
            found[-1].synchronized.append(method)
        elif line.strip() == "Code:":
            code = _Code(found[-1], method)
        elif code is not None and (m := _CODE.match(line)):
            code.step(*m.groups())
        elif m := _ENTRY.match(line):
            kind, ref = m.groups()
            if kind == "Class":
                found[-1].classes.append(ref.strip('"'))
            else:
                owner, _, rest = ref.partition(".") if not ref.startswith('"') else _split_array_owner(ref)
                found[-1].timed_wait |= kind == "Methodref" and bool(re.match(r"wait:\(JI?\)V", rest))
                found[-1].members.append((owner.strip('"'), rest.split(":")[0].strip('"')))
    return found


class _Code:
    """One method body, followed just far enough to say where each monitor came from: what the value on top
    of the stack was loaded from (a static field, a field, a class literal, a call), kept through `dup`,
    `checkcast` and the locals it is stored in."""

    def __init__(self, cls: ClassFile, method: str):
        self.cls, self.method, self.top, self.locals, self.duped = cls, method, "", {}, False
        self.this_on_top = False   # `this` (local 0) on top of the stack, through dup and a kept copy
        self.this_locals: set[str] = set()   # other locals that hold `this`
        # Locks of the object's own held here, read in the listing's order (no control flow): a release
        # just before a return is an early exit, the region goes on after it; an exception handler's second
        # release of a region already released finds nothing held (hence the floor at 0).
        self.held = 0
        self.releasing = 0   # instructions left to see whether a release is an early exit

    def _qualified(self, ref: str) -> str:
        name = ref.split(":")[0]
        return name if "." in name else f"{self.cls.name}.{name}"   # javap omits the owner of a class's own members

    def _release_seen(self, op: str) -> None:
        if op.endswith("return"):
            self.releasing = 0   # an early exit: the region it leaves goes on in the listing
        elif self.releasing == 2 and op[1:5] == "load":
            self.releasing = 1   # the value being returned, loaded between the release and the return
        else:
            self.held, self.releasing = max(0, self.held - 1), 0

    def step(self, op: str, index: str | None, kind: str | None, ref: str | None) -> None:
        local = index or (op.rpartition("_")[2] if op[:6] in ("astore", "aload_") and "_" in op else "")
        top, duped, self.duped = self.top, self.duped, op == "dup"
        this_on_top = self.this_on_top
        if self.releasing:
            self._release_seen(op)
        owned = this_on_top or top.startswith(("field:", "call:", "class:"))  # a lock of the object's own
        if op.startswith("invoke") and kind in ("Method", "InterfaceMethod") and ref:
            called = self._qualified(ref)
            self.cls.calls.setdefault(self.method, []).append(called)
            if self.held:
                self.cls.under_lock.setdefault(self.method, []).append(called)
            if called.startswith("java/util/concurrent/locks/") and owned:
                name = called.rpartition(".")[2]
                if name in ("lock", "lockInterruptibly"):
                    self.held += 1
                elif name == "unlock":
                    self.releasing = 2
        elif op == "monitorenter" and owned:
            self.held += 1
        elif op == "monitorexit" and owned:
            self.releasing = 2
        if op.startswith("astore"):
            self.this_locals.discard(local)
            if this_on_top:
                self.this_locals.add(local)   # `Object lock = this;` keeps `this` in a local
        self.this_on_top = (op.startswith("aload") and (local == "0" or local in self.this_locals)) or (
            this_on_top and (op in ("dup", "checkcast") or (op.startswith("astore") and duped)))
        if op == "monitorenter" and this_on_top:
            self.cls.locked.append(self.method)
        if op in ("getstatic", "getfield") and ref:
            self.top = "field:" + self._qualified(ref)
        elif op == "ldc" and kind == "class" and ref:
            self.top = "class:" + ref.strip('"')
        elif op.startswith("invoke") and kind in ("Method", "InterfaceMethod") and ref:
            self.top = "call:" + self._qualified(ref)
        elif op.startswith("aload"):
            self.top = self.locals.get(local, "")
        elif op.startswith("astore"):
            self.locals[local] = top
            self.top = top if duped else ""
        elif op in ("putfield", "putstatic") and ref and top:
            self.cls.origins.setdefault("field:" + self._qualified(ref), top)
        elif op == "areturn" and top:
            self.cls.origins.setdefault(f"call:{self.cls.name}.{self.method}", top)
        elif op == "monitorenter" and top:
            self.cls.monitors.append(top)
        if not op.startswith(("dup", "checkcast", "getstatic", "getfield", "ldc", "invoke", "aload", "astore")):
            self.top = ""  # any other instruction leaves something else on top


def _split_array_owner(ref: str) -> tuple[str, str, str]:
    owner, _, rest = ref[1:].partition('".')
    return owner, ".", rest
