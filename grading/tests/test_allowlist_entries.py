"""labs/allowed-api.toml tested both ways, entry by entry (issue 51): every member the handoff profile allows
is used by one probe class that must pass the allow-list, compile and run; every entry it denies is used by
another, and each must be named. A new entry without a probe here fails the test, so the list and what it
lets through cannot drift apart."""
import subprocess
import textwrap

import pytest

from grader import allowlist, classfiles

# each allowed member -> a statement that uses it (inside a method with `Object o` and `Thread t` in scope)
ALLOWED = {
    "java/lang/System.out": 'System.out.print("");',
    "java/lang/System.err": 'System.err.print("");',
    "java/lang/System.nanoTime": "long n = System.nanoTime();",
    "java/lang/System.currentTimeMillis": "long m = System.currentTimeMillis();",
    "java/lang/System.arraycopy": "System.arraycopy(new int[1], 0, new int[1], 0, 1);",
    "java/lang/System.identityHashCode": "int h = System.identityHashCode(o);",
    "java/lang/System.lineSeparator": "String s = System.lineSeparator();",
    "java/lang/Thread.<init>": "Thread u = new Thread(() -> { });",
    "java/lang/Thread.start": "t.start();",
    "java/lang/Thread.join": "t.join();",
    "java/lang/Thread.interrupt": "t.interrupt();",
    "java/lang/Thread.isInterrupted": "boolean i = t.isInterrupted();",
    "java/lang/Thread.interrupted": "boolean j = Thread.interrupted();",
    "java/lang/Thread.currentThread": "Thread c = Thread.currentThread();",
    "java/lang/Thread.onSpinWait": "Thread.onSpinWait();",
    "java/lang/Thread.sleep": "Thread.sleep(0);",
    "java/lang/Thread.yield": "Thread.yield();",
    "java/lang/Thread.setDaemon": "new Thread(() -> { }).setDaemon(true);",
    "java/lang/Thread.isDaemon": "boolean d = t.isDaemon();",
    "java/lang/Thread.getName": "String name = t.getName();",
    "java/lang/Thread.setName": 'new Thread(() -> { }).setName("probe");',
    "java/lang/Thread.isAlive": "boolean a = t.isAlive();",
    "java/lang/Thread.holdsLock": "boolean l = Thread.holdsLock(o);",
    "java/lang/Thread.getId": "long id = t.getId();",
    "java/lang/Thread.getState": "Thread.State st = t.getState();",
    "java/io/PrintStream.print": 'System.out.print("");',
    "java/io/PrintStream.println": "System.out.println();",
    "java/io/PrintStream.printf": 'System.out.printf("");',
    "java/io/PrintStream.format": 'System.out.format("");',
    "java/io/PrintStream.flush": "System.out.flush();",
    "java/io/PrintStream.write": "System.out.write(new byte[0], 0, 0);",
    "java/io/PrintStream.append": 'System.out.append("");',
    "java/io/PrintStream.checkError": "boolean e = System.out.checkError();",
    "java/lang/Class.desiredAssertionStatus": "assert o != null;",
}
# each denied entry -> a statement that uses it (compiled, never run)
DENIED = {
    "java/util/Formatter": "Object f = new java.util.Formatter();",
    "java/util/Scanner": 'Object sc = new java.util.Scanner("x");',
    "java/util/ServiceLoader": "Object sl = java.util.ServiceLoader.load(Runnable.class);",
    "java/util/ResourceBundle": "java.util.ResourceBundle.clearCache();",
    "java/util/PropertyResourceBundle": "Object p = (java.util.PropertyResourceBundle) o;",
    "java/util/ListResourceBundle": "Object lr = (java.util.ListResourceBundle) o;",
    "java/util/Properties": "Object pr = (java.util.Properties) o;",
    "java/lang/Integer.getInteger": 'Integer gi = Integer.getInteger("x");',
    "java/lang/Long.getLong": 'Long gl = Long.getLong("x");',
    "java/lang/Boolean.getBoolean": 'boolean gb = Boolean.getBoolean("x");',
    "java/util/Locale.setDefault": "java.util.Locale.setDefault(java.util.Locale.ROOT);",
    "java/util/TimeZone.setDefault": "java.util.TimeZone.setDefault(null);",
    "java/lang/Throwable.getStackTrace": "Object st = new Throwable().getStackTrace();",
    "java/lang/Throwable.setStackTrace": "new Throwable().setStackTrace(new StackTraceElement[0]);",
    "java/lang/Thread.getStackTrace": "Object ts = t.getStackTrace();",
    "java/lang/Thread.getAllStackTraces": "Object all = Thread.getAllStackTraces();",
}


def _probes(folder, classes: dict[str, list[str]]) -> dict[str, list[classfiles.ClassFile]]:
    """Each probe class (name -> its statements), compiled by one javac and listed by one javap (a JVM each for the
    lot: a javac and a javap per probe were 24 CPU seconds of the default tier), as the allow-list reads them."""
    sources = []
    for name, statements in classes.items():
        body = textwrap.indent("\n".join(statements), " " * 8)
        src = folder / "probe" / f"{name}.java"
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(f"package probe;\n\npublic class {name} {{\n"
                       "    public static void main(String[] args) throws Exception {\n"
                       "        Object o = new Object();\n        Thread t = new Thread(() -> { });\n"
                       f"{body}\n    }}\n}}\n")
        sources.append(str(src))
    subprocess.run(["javac", "-d", str(folder / "classes"), *sources], check=True, capture_output=True, text=True)
    classes_dir = folder / "classes" / "probe"
    listing = subprocess.run(["javap", "-v", "-p", *(str(classes_dir / f"{name}.class") for name in classes)],
                             check=True, capture_output=True, text=True).stdout
    parsed = classfiles.parse_javap(listing)  # several classes in one listing, each under its own header
    by_name = {name: [c for c in parsed if c.name == f"probe/{name}"] for name in classes}
    assert all(len(found) == 1 for found in by_name.values()), {n: len(f) for n, f in by_name.items()}
    return by_name


def _probe(tmp_path, name: str, statements) -> list[classfiles.ClassFile]:
    return _probes(tmp_path, {name: list(statements)})[name]


@pytest.fixture(scope="module")
def denied(tmp_path_factory):
    """Every denied entry's probe, one class each, compiled and listed together: {entry: its class's listing}."""
    names = {entry: f"Denied{i}" for i, entry in enumerate(sorted(DENIED))}
    found = _probes(tmp_path_factory.mktemp("denied"), {names[e]: [DENIED[e]] for e in names})
    return {entry: found[names[entry]] for entry in names}


def test_every_entry_of_the_handoff_profile_has_a_probe():
    profile = allowlist.load("handoff")
    assert set(ALLOWED) == set(profile.members)
    assert set(DENIED) == set(profile.deny)


def test_what_the_handoff_profile_allows_compiles_runs_and_passes(tmp_path):
    classes = _probe(tmp_path, "Allowed", ALLOWED.values())
    assert allowlist.violations(classes, allowlist.load("handoff")) == []
    run = subprocess.run(["java", "-ea", "-cp", str(tmp_path / "classes"), "probe.Allowed"], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("entry", sorted(DENIED))
def test_what_the_handoff_profile_denies_is_named(denied, entry):
    found = allowlist.violations(denied[entry], allowlist.load("handoff"))
    shown = entry.rpartition("/")[2].replace("/", ".")   # 'Formatter', 'Integer.getInteger', 'Throwable.getStackTrace'
    assert any(shown.rpartition(".")[2] in v for v in found), (entry, found)


def test_the_dht_profile_denies_printing(tmp_path):
    """The DHT lab's own denial: a process's standard output is the line the grader reads."""
    found = allowlist.violations(_probe(tmp_path, "Prints", ['System.out.print("");']), allowlist.load("dht"))
    assert any("java.lang.System.out" in v for v in found), found
