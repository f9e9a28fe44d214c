"""What the bytecode allow-list refuses, and names: answers written for the judge (a database or store that
answers its own checks), a method beside the lab's, a call hidden by a unicode escape, an annotation that makes JUnit
act, a lock on an object the grader uses, a suite that brings its own subject; and what it lets through (a textbook
handoff, a private helper, a lock of its own, the annotations a test suite needs)."""
import re
import sys
from pathlib import Path

import pytest

import grader
from grader import allowlist, classfiles
from handofflab.ground import paths

sys.path.insert(0, str(Path(__file__).parent))  # ./lab test imports test files by path (importlib mode)
from hostilegrading import grade, hostile  # noqa: E402
from labgrading import SAMPLES  # noqa: E402


# Issue 68's attack on the database lab: the starter (no lock anywhere), plus the two answers its judge read from
# the submission itself — no problems, and a group that hides members who are no longer users. It got 10/10.
ANSWERS_FOR_THE_JUDGE = """
    @Override
    public java.util.List<String> problems() {
        return java.util.List.of();
    }

    @Override
    public java.util.Optional<handofflab.calendar.Event> group(int id) throws IOException {
        return super.group(id);
    }
"""


def _with_methods(lab: str, file: str, methods: str, tmp_path: Path) -> Path:
    src = (paths.LABS / lab / "starter" / file).read_text()
    sub = tmp_path / "answers"
    sub.mkdir()
    (sub / file).write_text(src[:src.rindex("}")] + methods + "}\n")
    return sub


def test_a_database_that_answers_for_its_judge_does_not_compile_and_is_told_why(tmp_path):
    g = grader.grade("database", _with_methods("database", "StudentDatabase.java", ANSWERS_FOR_THE_JUDGE, tmp_path),
                     tmp_path / "out")
    assert g.score == 0, g.report()
    assert "problems() in StudentDatabase cannot override problems() in DatabaseFolders" in g.problem, g.problem
    assert "grader reads are final: your `StudentDatabase` writes only `join`, `deleteUser` and `addEvent`" in g.problem


def test_a_store_that_answers_for_its_judge_does_not_compile(tmp_path):
    load = ("\n    @Override\n    public java.util.Optional<Event> load(int id) {\n"
            "        return java.util.Optional.empty();\n    }\n")
    g = grader.grade("calendar", _with_methods("calendar", "StudentStore.java", load, tmp_path), tmp_path / "out")
    assert g.score == 0 and "overridden method is final" in g.problem, g.report()
    assert "writes only `modify` and `delete`" in g.problem, g.problem


def test_a_method_beside_the_labs_own_is_refused_by_name_and_a_private_helper_is_not(tmp_path):
    """The second wall, for a method a later kit might leave open: a visible method that is not the lab's."""
    extra = "\n    public int entities() {\n        return groupIds().size();\n    }\n"
    g = grader.grade("database", _with_methods("database", "StudentDatabase.java", extra, tmp_path), tmp_path / "out")
    assert g.score == 0 and "the method `entities`" in g.problem and "makes its helpers private" in g.problem, g.problem
    listing = classfiles.parse_javap("\n".join([
        "Classfile /x/StudentDatabase.class", "  this_class: #1   // handofflab/labs/database/StudentDatabase",
        "  super_class: #2  // handofflab/calendar/DatabaseFolders",
        "  private int helper(int);", "  public handofflab.calendar.Events$Outcome join(int, int) throws java.io.IOException;",
        "  private static java.lang.String lambda$join$0(int);"]))
    assert listing[0].declared == [("helper", "private int helper(int);"),
                                   ("join", "public handofflab.calendar.Events$Outcome join(int, int) throws "
                                            "java.io.IOException;"),
                                   ("lambda$join$0", "private static java.lang.String lambda$join$0(int);")]
    from grader.submission import _kit_methods_declared
    assert _kit_methods_declared(listing, grader.load_rubric("database")) == []


def test_a_unicode_escape_does_not_hide_a_call_from_the_bytecode_check(tmp_path):
    # \u0053ystem.exit(0) is System.exit(0) to javac; a pattern on the source text would miss it
    g, report, _ = grade(tmp_path, hostile(tmp_path, static="        \\u0053ystem.exit(0);"))
    assert g.score == 0 and "`java.lang.System.exit" in g.problem, report


def test_the_allow_list_names_each_reference_and_lets_a_textbook_handoff_through(tmp_path):
    classes = [classfiles.ClassFile("A.class", "a/A", "java/lang/Thread", ["java/lang/Thread", "java/io/File"],
                                   [("java/lang/System", "exit"), ("java/lang/Object", "wait"),
                                    ("java/util/concurrent/locks/ReentrantLock", "lock"),
                                    ("java/lang/RuntimeException", "getStackTrace"), ("a/A", "run")])]
    found = allowlist.violations(classes, allowlist.load("handoff"))
    assert any("extends java.lang.Thread" in v for v in found), found
    assert any("`java.io.File`" in v for v in found) and any("`java.lang.System.exit`" in v for v in found)
    assert any("getStackTrace" in v for v in found), found  # a stack trace names the classes that call in
    assert not any("wait" in v or "ReentrantLock" in v for v in found), found
    # The kit's own correct samples use nothing outside their profile (they are graded in test_lab_*.py).


def test_a_lab_rule_is_named_as_the_labs_and_an_unused_import_is_no_use(tmp_path):
    src = (SAMPLES / "server" / "correct" / "StudentHandoff.java").read_text()
    unused = tmp_path / "unused"
    unused.mkdir()
    (unused / "StudentHandoff.java").write_text(src.replace(
        "import handofflab.handoffs.Handoff;", "import handofflab.handoffs.Handoff;\nimport java.util.concurrent.ArrayBlockingQueue;"))
    classes = tmp_path / "c"
    classes.mkdir()
    profile = allowlist.load("handoff", ("java/util/concurrent/",))
    used = [classfiles.ClassFile("S.class", "s/S", "java/lang/Object", ["java/util/concurrent/ArrayBlockingQueue"], [])]
    assert "this lab asks you to build it without `java.util.concurrent.`" in allowlist.violations(used, profile)[0]


# -- reports the grader reads -------------------------------------------------------------


# One case of each rule in the default tier; its other cases (the same rule, another way in) in the full one.
ANOTHER_ANNOTATION = pytest.mark.full("another annotation the same allow-list rule refuses: a compile and a grading",
                                      seconds=6)


ANOTHER_LOCK = pytest.mark.full("another way to the same foreign lock, refused by the same rule: a compile and a grading",
                                seconds=6)


@pytest.mark.parametrize("annotation, named", [
    # reads the JVM's command line (the handoff under test) and fails exactly on the mutants
    ('@org.junit.jupiter.params.ParameterizedTest\n    @org.junit.jupiter.params.provider.CsvFileSource(files = "/proc/self/cmdline")',
     "CsvFileSource"),
    # runs only when the system property names a mutant
    pytest.param('@org.junit.jupiter.api.Test\n    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = '
                 '"handofflab.subject", matches = ".*Notify.*")', "EnabledIfSystemProperty", marks=ANOTHER_ANNOTATION),
    # JUnit converts the string to a PrintStream with new PrintStream(String): a file written
    pytest.param('@org.junit.jupiter.params.ParameterizedTest\n    @org.junit.jupiter.params.provider.ValueSource('
                 'strings = "/tmp/x")', "ValueSource", marks=ANOTHER_ANNOTATION),
])
def test_an_annotation_that_makes_junit_act_is_refused(tmp_path, annotation, named):
    """Annotations are code the Class and member references never show: a file source, a condition on a
    system property, an argument converted to a PrintStream. The allow-list reads them (issue 51)."""
    src = (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()
    sub = tmp_path / "annotated"
    sub.mkdir()
    param = "java.io.PrintStream p" if named == "ValueSource" else "String line" if named == "CsvFileSource" else ""
    body = f"    {annotation}\n    void peek({param}) {{\n        throw new AssertionError(\"caught\");\n    }}\n}}\n"
    (sub / "HandoffTests.java").write_text(src[:src.index("    @Test")] + body)
    g = grader.grade("mutants", sub, tmp_path / "out")
    assert g.score == 0 and f"@org.junit.jupiter.{'params.provider' if 'Source' in named else 'api.condition'}.{named}" \
        in g.problem, g.problem
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("lock, named", [
    ("System.err", "java.lang.System.err"),                       # the checker prints its verdict's line there
    pytest.param("Thread.class", "java.lang.Thread", marks=ANOTHER_LOCK),  # a class literal the submission does not own
    pytest.param("HELD", "java.lang.System.out", marks=ANOTHER_LOCK),      # through a static field of its own
    pytest.param("held()", "java.lang.System.out", marks=ANOTHER_LOCK),    # through a method of its own
])
def test_a_lock_on_an_object_the_grader_uses_is_refused(tmp_path, lock, named):
    """`synchronized (System.err)` held by a daemon thread blocked the checker before its verdict (issue 51);
    a monitorenter names no member, so the allow-list follows each lock back to where it came from."""
    hold = (f"        Thread t = new Thread(() -> {{ synchronized ({lock}) {{ while (true) {{ Thread.onSpinWait(); }} }} }});\n"
            "        t.setDaemon(true);\n        t.start();")
    folder = hostile(tmp_path, static=hold)
    src = (folder / "StudentBuffer.java").read_text()
    (folder / "StudentBuffer.java").write_text(src.replace(
        "    static {", "    static final Object HELD = System.out;\n\n    static Object held() {\n        return System.out;\n"
                       "    }\n\n    static {", 1))
    g, report, _ = grade(tmp_path, folder)
    assert g.score == 0 and f"`synchronized ({named})`" in g.problem, g.problem


def test_a_lock_of_its_own_is_allowed(tmp_path):
    """The other way: its own class literal, a lock object of its own and `this` are what a monitor is made of."""
    folder = hostile(tmp_path, static="        synchronized (StudentBuffer.class) { }\n        Object mine = new Object();\n"
                                      "        synchronized (mine) { }")
    g, report, _ = grade(tmp_path, folder)
    assert g.score == 10 and not g.problem, report


def test_the_annotations_a_test_suite_needs_are_allowed():
    """The closed set is not closed to what a suite uses: the reference suite's @Test and @RepeatedTest."""
    used = set(re.findall(r"@(\w+)", (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()))
    allowed = {a.rpartition("/")[2] for a in allowlist.load("tests").annotations}
    assert {"Test", "RepeatedTest"} <= used and used - {"Override", "SuppressWarnings"} <= allowed


def test_a_suite_that_brings_its_own_subject_is_refused(tmp_path):
    """A class of the submission's own named as the lab's helper replaced it: the suite's own Subject ran no
    kit handoff at all (issue 51). It is refused before anything runs, named."""
    src = (SAMPLES / "mutants" / "correct" / "HandoffTests.java").read_text()
    sub = tmp_path / "shadow"
    sub.mkdir()
    (sub / "HandoffTests.java").write_text(
        src + "\nclass Subject {\n    static handofflab.handoffs.Handoff<Integer> create() { return null; }\n}\n")
    g = grader.grade("mutants", sub, tmp_path / "out")
    assert g.score == 0 and "the class `handofflab.labs.mutants.Subject`" in g.problem, g.problem
    assert "would replace it" in g.problem
