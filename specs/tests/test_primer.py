"""The book's primer (book/src/primer.md): its small specs are current PlusCal translations, and each
configuration the chapter runs gives the verdict the chapter tells."""
import re
import shutil

import pytest

from handofflab.ground import paths
from handofflab.models import tlc

PRIMER = paths.SPECS / "primer"
# cfg -> (module, what the chapter says TLC reports)
TOLD = {"StepsOne": ("Steps", "pass"), "StepsTwo": ("Steps", "violation:AllCounted"),
        "WaitingAnswered": ("Waiting", "pass"), "WaitingEventually": ("Waiting", "violation:Eventually"),
        "WaitingUnfair": ("Waiting", "violation:Answered"),
        "OneSlot": ("OneSlot", "pass"), "OneSlotKept": ("OneSlot", "violation:Refines")}


def test_the_chapter_runs_every_configuration_of_the_primer_and_only_those():
    text = (paths.BOOK / "src" / "primer.md").read_text()
    ran = set(re.findall(r"--file specs/primer/(\w+)\.tla --cfg specs/primer/(\w+)\.cfg", text))
    assert ran == {(module, cfg) for cfg, (module, _) in TOLD.items()}
    assert {p.stem for p in PRIMER.glob("*.cfg")} == set(TOLD)


def test_the_primers_translations_are_current(tmp_path):
    for spec in sorted(PRIMER.glob("*.tla")):
        copy = tmp_path / spec.name
        shutil.copyfile(spec, copy)
        tlc.translate(copy)
        assert copy.read_text() == spec.read_text(), f"{spec.name}: re-translate it (./lab check specs --translate)"


@pytest.mark.full("TLC on the primer's seven configurations (a few seconds each)", seconds=30)
@pytest.mark.parametrize("cfg", TOLD)
def test_each_primer_configuration_gives_the_verdict_the_chapter_tells(cfg):
    module, verdict = TOLD[cfg]
    result = tlc.check_file(PRIMER / f"{module}.tla", PRIMER / f"{cfg}.cfg")
    assert result.verdict == verdict, (cfg, result.verdict)
    if verdict != "pass":
        assert result.trace is not None and result.trace.steps, "a counterexample is drawn as swimlanes"
