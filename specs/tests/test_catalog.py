"""The catalog is the only truth: no code restates its lists, its check profiles reach Java as
arguments, and its verdicts speak one vocabulary for TLC and the Java checkers."""
import re
import subprocess

import pytest

from handofflab.ground import catalog, paths
from handofflab.java import javabuild
from handofflab.ground.console import LabError

# Code that must take its designs, classes and variants from the catalog (the notebooks and the
# book discuss particular designs by name; the tests use names as examples).
CODE = ("java/*/src/main/java/**/*.java", ".lab/handofflab/**/*.py", "grading/grader/**/*.py", "labs/*/public/*.java")


def _catalog_names() -> set[str]:
    cat = catalog.load()
    return ({v.java for v in cat.variants.values() if v.java} | set(cat.variants) | set(cat.servers)
            | set(cat.handoffs)) - {"Handoff"}  # Handoff is also the Java interface every class implements


def restated(text: str, names: set[str]) -> list[str]:
    """Two catalog names side by side in a list, or a switch on one: what restating the catalog looks like."""
    pairs = [f"{a}, {b}" for a, b in re.findall(r'"(\w+)"\s*,\s*"(\w+)"', text) if a in names and b in names]
    cases = [f"case {n}" for n in re.findall(r'case\s+"(\w+)"', text) if n in names]
    return pairs + cases


def test_no_code_restates_the_catalog():
    names = _catalog_names()
    found = {str(f.relative_to(paths.ROOT)): hits for pattern in CODE for f in paths.ROOT.glob(pattern)
             if (hits := restated(f.read_text(), names))}
    assert not found, f"lists or switches that restate specs/catalog.toml: {found}"


def test_the_restatement_check_can_fail():
    names = _catalog_names()
    assert restated('List.of("MonitorBuffer", "NotifyBuffer")', names)
    assert restated('switch (d) { case "Pipes": return 1; }', names)
    assert not restated('Handoffs.create("com.example.Mine", 1)', names)


def _broken(tmp_path, old: str, new: str):
    text = paths.CATALOG.read_text()
    assert old in text
    (tmp_path / "catalog.toml").write_text(text.replace(old, new, 1))
    with pytest.raises(LabError) as e:
        catalog.load(tmp_path / "catalog.toml")
    return e.value.problem


def test_a_check_profile_with_an_unknown_key_is_named(tmp_path):
    problem = _broken(tmp_path, "size = 1              # slots", "sise = 1              # slots")
    assert "unknown keys ['sise']" in problem and "lacks ['size']" in problem


def test_a_verdict_outside_the_vocabulary_is_named(tmp_path):
    problem = _broken(tmp_path, 'tlc = "violation:NoInvented"', 'tlc = "invariant:NoInvented"')
    assert "'invariant:NoInvented' is no verdict" in problem


def test_every_java_variant_has_a_profile_java_accepts():
    """Each profile as Java parses it: a wrong one is refused by name, before any checker runs."""
    cat = catalog.load()
    java = [v for v in cat.variants.values() if v.java]
    assert java and all(v.profile.size >= 1 for v in java)
    assert cat.variant("NonPrimePht").profile.size == 4            # a variant's own key overrides its handoff's
    assert cat.variant("TwoProducerPht").profile.acceptors == 2
    assert cat.variant("ParallelHashTable").profile.acceptors == 1
    cp = javabuild.classpath("checks")
    bad = subprocess.run(["java", "-cp", cp, "handofflab.checks.Main", "stress", "MonitorBuffer",
                          "--profile", "size=1;sized_by=slots;bounded=true"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "lacks acceptors" in bad.stderr, bad.stderr
    missing = subprocess.run(["java", "-cp", cp, "handofflab.checks.Main", "stress", "MonitorBuffer"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "--profile is missing" in missing.stderr, missing.stderr


def test_the_design_table_is_the_catalogs():
    cat = catalog.load()
    table = cat.design_table().split(",")
    assert [entry.split("/")[0] for entry in table] == list(cat.servers)
    assert "Pipes/PreThreadedServer/pool/PipeHandoff/workers" in table  # the class and its sizing, from the catalog
    assert "LockedAccept/LockedAcceptServer/pool" in table             # no kit handoff: nothing is handed over


def test_a_collection_list_claiming_a_handoff_checker_is_named(tmp_path):
    # a collection list is a set: stress and JPF drive handoffs, so a claim for them cannot be checked
    problem = _broken(tmp_path, 'java = "LazyList"\nkind = "collection"\nbug = ""\ntier = "ci"\n[variant.expect]\nlincheck = "pass"',
                      'java = "LazyList"\nkind = "collection"\nbug = ""\ntier = "ci"\n[variant.expect]\nlincheck = "pass"\nstress = "pass"')
    assert "is a collection class with a claim for stress, which does not check it" in problem




def test_a_class_is_named_by_one_field_and_its_kind_by_another(tmp_path):
    """`java` names every class, `kind` what it is when it is no handoff (issue 88: six keys did it before); the old
    keys and an unknown kind are refused, saying the one way; a handoff's `v.java` stays its class alone."""
    cat = catalog.load()
    assert {v.class_kind for v in cat.variants.values()} == {None, *catalog.CLASS_CHECKERS}
    assert all((v.java is None) == (v.class_kind is not None) for v in cat.variants.values() if v.java_class)
    old = _broken(tmp_path, 'java = "LazyList"\nkind = "collection"', 'collection = "LazyList"')
    assert "names its class with `collection = ...`" in old
    with pytest.raises(LabError) as e:
        catalog.load(tmp_path / "catalog.toml")  # the old key, as _broken left it
    assert e.value.fix == 'say `java = "LazyList"` and `kind = "collection"`'
    assert "has kind = 'lists'" in _broken(tmp_path, 'java = "LazyList"\nkind = "collection"',
                                            'java = "LazyList"\nkind = "lists"')


CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+\b")  # a class, a cfg, a variant: ParallelHashTable


def _unknown_names(text: str) -> set[str]:
    """The names in `text` that no variant, handoff, Java class (the kit's or a lab's), cfg or spec has."""
    cat = catalog.load()
    java = {p.stem for p in paths.JAVA.glob("*/src/**/*.java")} | {p.stem for p in paths.LABS.rglob("*.java")}
    models = {p.stem for p in paths.SPECS.glob("*.cfg")} | {p.stem for p in paths.SPECS.glob("*.tla")}
    return set(CAMEL.findall(text)) - (set(cat.variants) | set(cat.handoffs) | java | models)


def test_every_name_a_bug_string_says_exists_and_each_model_is_a_catalogued_cfg():
    """A bug string that names a class or a configuration names one that exists (eight once said "(DistEarlyRelease
    in Java)" where the Java class is EarlyReleaseQueue); the link from a Java twin to the cfg that models its slip is
    the variant's `model`: a catalogued variant with a cfg and no class of its own."""
    cat = catalog.load()
    for v in cat.variants.values():
        assert not _unknown_names(v.bug), f"{v.name}'s bug names {sorted(_unknown_names(v.bug))}, which do not exist"
        assert " in Java)" not in v.bug, f"{v.name}: say the model with `model = \"...\"`, not in the bug string"
        if v.model:
            model = cat.variants.get(v.model)
            assert model is not None and model.cfg and not model.java_class, \
                f"{v.name}: model '{v.model}' is no catalogued variant with a cfg and no class"
    assert sum(1 for v in cat.variants.values() if v.model) == 8


def test_a_bug_string_that_names_a_class_that_does_not_exist_is_caught():
    bug = catalog.load().variant("EarlyReleaseQueue").bug
    assert _unknown_names(bug) == set()
    assert _unknown_names(bug + " (EarlyReleaseBuffer in Java)") == {"EarlyReleaseBuffer"}


def test_a_design_name_selects_its_variants_for_every_checker():
    """`./lab check specs SharedBuffer`, `check java SharedBuffer` and `check trace SharedBuffer` mean the same: the
    design's variants (a contributor's walk found check specs refusing what check java accepted)."""
    cat = catalog.load()
    design = next(h for h in cat.handoffs if h not in cat.variants and any(
        v.handoff.name == h and v.cfg for v in cat.variants.values()))
    chosen = cat.select(design, "full", checker="tlc")
    assert chosen and {v.handoff.name for v in chosen} == {design}
    assert {v.name for v in chosen} == {v.name for v in cat.variants.values() if v.handoff.name == design and v.cfg}
    with pytest.raises(LabError) as refused:
        cat.select("NoSuchDesignOrVariant")
    assert design in refused.value.fix
