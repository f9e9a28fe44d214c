"""The submission, from what was handed in to what runs: unpacked within limits (no link
followed, no path outside, no zip bomb), its one file found, compiled (or its PlusCal
translated), and its bytecode held to the lab's API profile before anything of it runs."""
from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path

from grader import allowlist, budgets, classfiles
from grader.jail import Jail, MalformedReport, read_report
from grader.rubric import Rubric
from handofflab.java import javabuild
from handofflab.ground import paths
from handofflab.models import tlc
from handofflab.ground.console import LabError

_NAME = re.compile(r"[\w.+@ -]+")  # a path component a submission may use


class Refused(Exception):
    """A submission that cannot be unpacked within the limits."""


def unpack(submission: Path, into: Path) -> list[str]:
    """Copy a folder or the one source file, or extract a zip, into `into` — never writing outside it, never following
    a link, and within budgets.UNPACK_FILES files and budgets.UNPACK_BYTES bytes (a zip bomb is refused at its
    first byte over). Returns what was left out; raises Refused over the limits."""
    if submission.is_dir():
        entries = [(str(src.relative_to(submission)), src) for src in sorted(submission.rglob("*"))]
    elif zipfile.is_zipfile(submission):
        try:
            with zipfile.ZipFile(submission) as z:
                return _unpack_zip(z, into)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as e:
            # damaged, truncated, encrypted or packed with a method Python cannot read: the student's to fix
            raise Refused(f"`{submission.name}` is a zip file that cannot be read ({e}); make the zip again "
                          "from your files, without a password") from None
    elif submission.suffix == ".zip":
        raise Refused(f"`{submission.name}` is named .zip but is not a zip file (it may be damaged or empty); "
                      "make the zip again from your files")
    elif submission.suffix in (".java", ".tla"):  # the one file a handout asks for, given alone
        entries = [(submission.name, submission)]
    else:
        raise Refused(f"`{submission.name}` is neither a folder, a zip file nor a .java or .tla file")
    refused, budget = [], [budgets.UNPACK_FILES, budgets.UNPACK_BYTES]
    for rel, src in entries:
        if src.is_symlink():
            refused.append(f"{rel} (a symbolic link)")
        elif src.is_file():
            with src.open("rb") as f:
                _write_entry(rel, f, into, budget, refused)
    return refused


def _unpack_zip(z: zipfile.ZipFile, into: Path) -> list[str]:
    refused, budget = [], [budgets.UNPACK_FILES, budgets.UNPACK_BYTES]
    for info in z.infolist():
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            refused.append(f"{info.filename} (a symbolic link)")
        elif not info.is_dir():
            with z.open(info) as f:
                _write_entry(info.filename, f, into, budget, refused)
    return refused


def _write_entry(name: str, src, into: Path, budget: list[int], refused: list[str]) -> None:
    """One file of a submission, copied under the budget [files left, bytes left]."""
    parts = name.replace("\\", "/").split("/")
    if name.startswith("/") or any(p in ("", ".", "..") or not _NAME.fullmatch(p) or len(p) > 100 for p in parts):
        refused.append(f"{name[:120]} (a name a submission may not use: letters, digits, '.', '-', '_' only)")
        return
    target = into.joinpath(*parts)
    if any(p.exists() and not p.is_dir() for p in target.parents if p.is_relative_to(into)) or target.is_dir():
        refused.append(f"{name} (it collides with another entry of the same name)")
        return
    if target.exists():
        refused.append(f"{name} (a second entry of the same name)")
        return
    budget[0] -= 1
    if budget[0] < 0:
        raise Refused(f"the submission holds more than {budgets.UNPACK_FILES} files")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as dst:
        while chunk := src.read(65536):
            budget[1] -= len(chunk)
            if budget[1] < 0:
                raise Refused(f"the submission unpacks to more than {budgets.UNPACK_BYTES // 1024 // 1024} MiB")
            dst.write(chunk)


def find_source(work: Path, rubric: Rubric) -> tuple[Path | None, str]:
    found = sorted(p for p in work.rglob(rubric.file) if p.is_file() and not p.is_symlink())
    if not found:
        held = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())
        what = ("It is empty." if not held else
                f"It holds {', '.join(f'`{h}`' for h in held[:5])}{' …' if len(held) > 5 else ''}"
                + (" (a zip inside the zip: zip your files themselves, not a zip of them)."
                   if any(h.endswith(".zip") for h in held) else "."))
        return None, (f"The submission has no `{rubric.file}`. {what} Submit that one file (or a folder or zip "
                      f"containing it), as in labs/{rubric.lab}/starter/.")
    if len(found) > 1:
        return None, f"The submission has {len(found)} files called `{rubric.file}`; submit exactly one."
    if not rubric.file.endswith(".java"):
        return found[0], ""
    package = rubric.cls.rpartition(".")[0]
    if not re.search(rf"^\s*package\s+{re.escape(package)}\s*;", found[0].read_text(errors="replace"), re.M):
        return None, (f"`{rubric.file}` must start with `package {package};` (as the starter does): "
                      "the grader and the tests look for the class there.")
    return found[0], ""


def compile_java(source: Path, classes: Path, jail: Jail, rubric: Rubric) -> str:
    """The submitted class, then its bytecode held to the lab's API profile (labs/allowed-api.toml).
    A test-writing lab's public helpers are compiled apart (into kit-classes), so that only
    what the student wrote is in `classes` and held to the profile."""
    classes.mkdir()
    cp = javabuild.submission_classpath()
    helpers = sorted((paths.LABS / rubric.lab / "public").glob("*.java"))
    if "mutants" in rubric.kinds:
        kit = classes.parent / "kit-classes"
        kit.mkdir()
        cp = f"{cp}:{javabuild.classpath('checks')}"
        run = jail.run([*budgets.JAVAC, "--release", "11", "-Xlint:none", "-proc:none", "-cp", cp, "-d", str(kit),
                        *map(str, helpers)], timeout=budgets.COMPILE_SECONDS)
        if run.returncode != 0:
            raise LabError(f"lab {rubric.lab}'s public helpers do not compile:\n{run.output[-2000:]}",
                           "rebuild the kit (`./lab test`) or restore labs/ from git")
        cp = f"{kit}:{cp}"
    run = jail.run([*budgets.JAVAC, "--release", "11", "-Xlint:none", "-proc:none", "-cp", cp,
                    "-d", str(classes), str(source)], timeout=budgets.COMPILE_SECONDS)
    if run.timed_out:
        return f"Compiling took longer than {budgets.COMPILE_SECONDS} s."
    if run.returncode != 0:
        encoding = ("\n\nIt has characters that are not UTF-8: save the file as UTF-8 (or keep to ASCII)."
                    if "unmappable character" in run.output else "")
        kits = (f"\n\nThe kit's methods that the grader reads are final: your `{rubric.cls.rpartition('.')[2]}` writes "
                f"only {_listed(rubric.methods)} (and private helpers of its own)."
                if rubric.methods and "overridden method is final" in run.output else "")
        return ("Your code does not compile:\n\n```text\n" + run.output.replace(str(source.parent) + "/", "")
                + "\n```" + encoding + kits)
    return _check_api(classes, jail, rubric)


# The API check's javap listing of the submitted classes, in the grading's folder: the design kind and the
# checker kind (timed waits) read it again, through read_listing, so that javap runs once.
LISTING = "javap.txt"


def read_listing(tmp: Path) -> list[classfiles.ClassFile]:
    """The submitted classes as the API check's listing shows them (MalformedReport if it cannot be read)."""
    return classfiles.parse_javap(read_report(tmp / LISTING))


def _check_api(classes: Path, jail: Jail, rubric: Rubric) -> str:
    """Refuses a submission whose bytecode uses what its lab's profile does not allow."""
    files = sorted(str(p) for p in classes.rglob("*.class"))
    # into a file, not through the jail's output (cut at 64 KiB): a large class's listing is longer than that
    listing = classes.parent / LISTING
    run = jail.run(["sh", "-c", 'out="$1"; shift; exec javap -v -p "$@" > "$out"', "javap", str(listing), *files],
                   timeout=budgets.COMPILE_SECONDS)
    try:
        text = read_report(listing)
    except MalformedReport as e:
        text = f"({e})"
    parsed = classfiles.parse_javap(text)
    if run.returncode != 0 or len(parsed) != len(files):
        return ("Your compiled classes could not be read back by `javap`:\n\n```text\n"
                + (run.output or text)[-2000:] + "\n```")
    profile = allowlist.load(rubric.api, rubric.forbid)
    found = allowlist.violations(parsed, profile)
    # A class of its own named as the lab's helpers or placed in another package would shadow what judges it
    # (a suite's own `Subject` ran no kit handoff at all, issue 51): a submission's classes are its lab's.
    package = rubric.cls.rpartition(".")[0].replace(".", "/") + "/"
    helpers = {package + p.stem for p in (paths.LABS / rubric.lab / "public").glob("*.java")}
    for c in parsed:
        if c.name in helpers:
            found.insert(0, f"the class `{c.name.replace('/', '.')}`: the lab's own `{c.name.rpartition('/')[2]}` has "
                            "that name; yours would replace it (leave it out, and use the lab's)")
        elif not c.name.startswith(package) or "/" in c.name[len(package):]:
            found.insert(0, f"the class `{c.name.replace('/', '.')}`: a submission's classes live in the package "
                            f"`{package[:-1].replace('/', '.')}`")
    found += _kit_methods_declared(parsed, rubric)
    if not found:
        return ""
    listed = "\n".join(f"- {v}" for v in found[:20]) + (f"\n- … and {len(found) - 20} more" if len(found) > 20 else "")
    return (f"`{rubric.file}` uses what a submission to lab {rubric.lab} may not use, so it was not run:\n\n"
            f"{listed}\n\n{_NEEDS.get(rubric.api, 'A submission')} needs only monitors, locks, atomics and collections; files, processes, "
            "reflection, system properties and ending the JVM are refused, because the checkers run your class in "
            "their own JVM. `labs/allowed-api.toml` lists what is allowed.")


# What the lab's class is, by its API profile (labs/allowed-api.toml), for the sentence that says what it needs.
_NEEDS = {"handoff": "A handoff", "pht": "A handoff", "calendar": "A calendar store (the kit's store keeps its files)",
          "database": "The calendar's database (the kit's keeps its files)", "dht": "A completion queue",
          "tests": "A test suite"}


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{n}`" for n in names[:-1]) + (" and " if len(names) > 1 else "") + f"`{names[-1]}`"


def _kit_methods_declared(parsed: list[classfiles.ClassFile], rubric: Rubric) -> list[str]:
    """A class that extends the kit's (the calendar's store, the database) writes only the lab's methods: any
    other method it makes visible could answer for the kit's, which the checkers read (problems(), group()).
    The kit makes those final; this names any that a later kit leaves open, and any new one."""
    if not rubric.methods:
        return []
    found = []
    for c in parsed:
        if not c.super.startswith("handofflab/"):
            continue
        for name, declaration in c.declared:
            if name not in rubric.methods and not declaration.startswith("private "):
                found.append(f"the method `{name}` (in {Path(c.path).name}: `{declaration.rstrip(';')}`): a "
                             f"submission to lab {rubric.lab} writes only {_listed(rubric.methods)}, and makes its "
                             "helpers private; the rest is the kit's, which judges it")
    return found


def translate(source: Path, jail: Jail) -> str:
    """A submitted spec with a PlusCal algorithm is translated first (as the kit's own are)."""
    if not tlc.PLUSCAL.search(source.read_text(errors="replace")):
        return ""
    run = jail.run(tlc.pcal_command(source), timeout=budgets.COMPILE_SECONDS)
    if run.timed_out:
        return f"Translating the PlusCal took longer than {budgets.COMPILE_SECONDS} s."
    if run.returncode != 0 or "Translation completed" not in run.output:
        tail = "\n".join(run.output.strip().splitlines()[-10:]).replace(str(source.parent) + "/", "")
        return f"Your PlusCal does not translate:\n\n```text\n{tail}\n```"
    return ""
