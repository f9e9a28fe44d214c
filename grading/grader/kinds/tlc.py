"""`tlc`: TLC on a submitted TLA+ spec with one catalogued configuration per test. A test scores
when the spec gives the catalog's verdict (the very property it names), so do its two halves
crossed with the kit's spec (its properties on the kit's algorithm, the kit's properties on its
algorithm), and its algorithm is the kit's design (the rubric's `refinement` module: each step,
read on the starter's variables, is a step of the kit's model with the same constants) — under
the one rule of scoring.earns. Without the refinement, an algorithm that is another design and
loses a connection exactly when a bug's constants are set agreed with every crossing."""
from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
from pathlib import Path

from grader import budgets, scoring
from grader.context import Context
from grader.jail import Jail
from grader.rubric import Rubric
from handofflab.ground import catalog, paths
from handofflab.models import tlc
from handofflab.ground.console import LabError

KIND = "tlc"
NEEDS: tuple[str, ...] = ()

SPEC_MODULES = {"Integers", "Naturals", "Sequences", "FiniteSets"}  # what a submitted spec may EXTEND
# (not TLC: its Print/PrintT could write lines that read as TLC's own messages)
TRANSLATION_END = "\\* END TRANSLATION"
REFINES = "your algorithm as the kit's design"   # the refinement run's label among the crossings
REFINEMENT_CFG = "SPECIFICATION KitRefSpec\n{constants}\nINVARIANT StepsOfTheDesign\nCHECK_DEADLOCK FALSE\n"


def _without_comments(text: str) -> str:
    """TLA+ without its comments: `\\*` to the end of a line, and `(* … *)`, which nest."""
    out, depth, i = [], 0, 0
    while i < len(text):
        if text.startswith("(*", i):
            depth, i = depth + 1, i + 2
        elif depth and text.startswith("*)", i):
            depth, i = depth - 1, i + 2
        elif not depth and text.startswith("\\*", i):
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        else:
            out.append(text[i] if not depth else (" " if text[i] != "\n" else "\n"))
            i += 1
    return "".join(out)


def _problem(source: Path, rubric: Rubric) -> str:
    """What a submitted spec may not do, found in its text before TLC runs: extend a module other
    than the standard ones, instance anything but Handoff, or let its properties read the
    constants that say which variant is being checked (a property must judge the behaviour)."""
    text = source.read_text(errors="replace")
    x = rubric.spec
    # the module list as TLC reads it: over as many lines as it takes, comments anywhere in it
    # (before: one line was read, and `TLC` on the next line was loaded)
    for names in re.findall(r"\bEXTENDS\s+(\w+(?:\s*,\s*\w+)*)", _without_comments(text)):
        bad = sorted(set(re.findall(r"\w+", names)) - SPEC_MODULES)
        if bad:
            return (f"`{source.name}` extends {', '.join(f'`{b}`' for b in bad)}: a submission may extend only "
                    f"{', '.join(sorted(SPEC_MODULES))} (the grader puts Handoff.tla beside it for INSTANCE).")
    instances = set(re.findall(r"\bINSTANCE\s+(\w+)", text)) - {"Handoff"}
    if instances:
        return f"`{source.name}` instances {sorted(instances)}: only `INSTANCE Handoff` is allowed."
    if not tlc.PLUSCAL.search(text):
        return (f"`{source.name}` has no PlusCal algorithm. The lab asks for the design in the starter's layout: "
                f"a `--algorithm`, its translation between BEGIN and END TRANSLATION, then your properties. "
                "A spec in plain TLA+ may be right, but the grader checks your properties against the kit's "
                "algorithm and the kit's properties against yours, so it needs those two halves: start from "
                f"labs/{rubric.lab}/starter/{source.name} and keep its layout.")
    if TRANSLATION_END not in text:
        return f"`{source.name}` has lost its `{TRANSLATION_END}` line (keep the starter's BEGIN/END TRANSLATION)."
    translation = _without_comments(text.split(TRANSLATION_END, 1)[0])
    declared = set(re.findall(r"\w+", " ".join(re.findall(r"\bVARIABLES?\b([^\n]*(?:\n[ \t]+[^\n]*)*)", translation))))
    lost = [v for v in x.get("shared", []) if v not in declared]
    if lost:
        return (f"`{source.name}` has no variable {', '.join(f'`{v}`' for v in lost)}: keep the starter's variables "
                f"({', '.join(x['shared'])}), with their meaning. The grader reads your algorithm's steps on them "
                "to check that it is the lab's design.")
    refinement = _refinement(rubric)
    if refinement is not None and refinement.exists():  # it EXTENDS the submission: one name, two meanings
        module = refinement.read_text()
        kit_names = set(re.findall(r"^(?:RECURSIVE\s+)?(\w+)\s*(?:\([^)]*\))?\s*==", module, re.M))
        kit_names |= set(re.findall(r"^VARIABLES?\s+(\w+)", module, re.M))
        code = _without_comments(text)
        clash = sorted(n for n in kit_names if re.search(rf"\b{n}\b", code))
        if clash:
            return (f"`{source.name}` uses {', '.join(f'`{n}`' for n in clash)}: the grader's check that your "
                    f"algorithm is the design extends your module and defines these names itself. Rename yours (they are the kit's, none is a name of the lab).")
    properties = text.split(TRANSLATION_END, 1)[1]
    # (and not the breakers module's `Break`: a property that asked which property the grader breaks could be
    # honest there and vacuous everywhere else)
    peeking = [k for k in [*x.get("knobs", []), *(["Break"] if x.get("breakers") else [])]
               if re.search(rf"\b{re.escape(k)}\b", properties)]
    if peeking:
        return (f"The properties of `{source.name}` (below the translation) read {', '.join(f'`{k}`' for k in peeking)}: "
                "those constants say which variant TLC checks. A property must judge what happens "
                "(accepted, taken, the pipes), not which design it is told it is looking at.")
    return ""


def _refinement(rubric: Rubric) -> Path | None:
    """The kit's refinement module the rubric names (specs/<refinement>.tla), or None."""
    name = rubric.spec.get("refinement")
    return paths.SPECS / f"{name}.tla" if name else None


def _crossed(source: Path, rubric: Rubric, work: Path) -> dict[str, Path]:
    """The submitted spec, and its two halves each put beside the other half of the kit's own
    spec (its algorithm above the translation's end, its properties below): the submission's
    properties must judge the kit's algorithm as the catalog says, and the kit's properties
    the submission's algorithm; and the submission under the kit's refinement module, which extends
    it. Each in a folder of its own, with only Handoff.tla (and that module) beside it."""
    reference = paths.SPECS / f"{rubric.spec['reference']}.tla"
    yours = source.read_text(errors="replace")
    texts = {"your spec": yours}
    if reference.exists():
        algo, props = yours.split(TRANSLATION_END, 1)
        kit_algo, kit_props = reference.read_text().split(TRANSLATION_END, 1)
        texts["your properties on the kit's algorithm"] = kit_algo + TRANSLATION_END + props
        texts["the kit's properties on your algorithm"] = algo + TRANSLATION_END + kit_props
    elif not paths.STUDENT_COPY.exists():  # grading needs the crossings; only a student copy lacks the answer
        raise FileNotFoundError(f"the kit's reference spec {paths.shown(reference)} is missing: "
                                "grading crosses the submission with it (git checkout restores it)")
    refinement = _refinement(rubric)
    if refinement is not None and refinement.exists():
        texts[REFINES] = yours
    elif refinement is not None and not paths.STUDENT_COPY.exists():  # likewise: a student copy lacks it
        raise FileNotFoundError(f"the kit's refinement module {paths.shown(refinement)} is missing: grading checks "
                                "that the submitted algorithm is the design with it (git checkout restores it)")
    folders = {}
    for i, (label, text) in enumerate(texts.items()):
        folder = work / f"tlc-{i}"
        folder.mkdir()
        (folder / source.name).write_text(text)
        shutil.copyfile(paths.SPECS / "Handoff.tla", folder / "Handoff.tla")  # the abstract spec is the kit's
        folders[label] = folder / source.name
        if label == REFINES:  # TLC checks the kit's module, which EXTENDS the submitted one
            shutil.copyfile(refinement, folder / refinement.name)
            folders[label] = folder / refinement.name
    return folders


def score(ctx: Context) -> None:
    """All tests together: each needs every verdict (a catch counts only if the correct designs pass)."""
    cat = catalog.load()
    tests = ctx.tests(KIND)
    problem = _problem(ctx.source, ctx.rubric)
    if problem:  # refused before TLC runs: one message with the rule, not the same text under every test
        ctx.grade.problem = (ctx.grade.problem + "\n\n" if ctx.grade.problem else "") + \
            f"Your spec was not checked: it breaks a rule of the lab. {problem}"
        for _, result in tests:
            result.output = "Not graded: your spec breaks a rule of the lab (see above)."
        return
    verdicts, crossed = _verdicts(ctx, tests, cat)
    vacuous = _vacuous(ctx, cat)
    expected = {name: cat.variant(name).expected("tlc") for name in verdicts}
    # the refinement holds under every configuration: the kit's model has the bugs the constants switch on
    right = {n: verdicts[n][0] == expected[n] and all(v[0] == (expected[n] if label != REFINES else "pass")
                                                      for label, v in crossed.get(n, {}).items())
             for n in verdicts}
    every_correct_passes = all(right[n] for n in verdicts if cat.variant(n).correct)
    # a catch is a right verdict other than pass (a harmless slip, like a real pipe's missing busy
    # flag, is buggy code the catalog expects to pass: passing it is not a catch)
    some_bug_caught = any(right[n] for n in verdicts if expected[n] != "pass")
    # and a pass counts only if every property the lab grades rejects the behaviour meant to break it alone: a
    # property that can never fail (NoDuplicate == \A v : taken[v] >= 0) checks nothing, whatever it accepts
    every_property_can_fail = not vacuous
    errors = {run[1] for run in verdicts.values() if run[0] == "error"}
    once = len(errors) == 1 and all(run[0] == "error" for run in verdicts.values())
    if once:  # one mistake, one message: not the same text under every configuration
        ctx.grade.problem = (ctx.grade.problem + "\n\n" if ctx.grade.problem else "") + \
            f"TLC could not check your spec (with any configuration):\n\n```text\n{errors.pop()}\n```"
    # configurations under which the algorithm is not the kit's design: named under the tests that earn nothing for it
    other_design = [n for n in verdicts if crossed.get(n, {}).get(REFINES, ("pass",))[0] != "pass"]
    for spec, result in tests:
        variant = cat.variant(spec.variant)
        if once:
            result.output = "Not graded: TLC could not check your spec (the error is above)."
            continue
        result.output = _feedback(variant, expected[variant.name], verdicts[variant.name], crossed.get(variant.name, {}),
                                  other_design,
                                  every_correct_passes, some_bug_caught, vacuous)
        # the design gates every configuration's points: a must-pass configuration (a real pipe's harmless missing
        # busy flag) is passed by any algorithm that is not the design under the configurations that matter
        if not other_design and scoring.earns(expected[variant.name] == "pass", right[variant.name],
                                              every_correct_passes, some_bug_caught and every_property_can_fail):
            result.score = result.max_score
        lane = verdicts[variant.name][2]
        refines = crossed.get(variant.name, {}).get(REFINES)
        if refines is not None and refines[0] != "pass":  # the step that is not the design's is what to read
            lane = refines[2]
        if lane is not None:  # a caught bug's trace teaches too
            lane.title = f"your {ctx.source.name} with {variant.name}.cfg under TLC"
            result.swimlane_md = lane.markdown()


def _verdicts(ctx: Context, tests, cat) -> tuple[dict, dict]:
    """TLC on the submitted spec under each test's configuration, and on its crossings with the kit's modules
    (the refinement among them), one TLC per core: the submitted spec's run per variant, and the crossings'
    per variant and label. A TLC error in the submitted spec names the student's own lines."""
    specs = _crossed(ctx.source, ctx.rubric, ctx.jail.work)
    jobs = [(cat.variant(spec.variant), label, path) for spec, _ in tests for label, path in specs.items()]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # one TLC per core
        done = list(pool.map(lambda job: verdict(job[0], job[2], ctx.jail, refinement=job[1] == REFINES), jobs))
    submitted = ctx.tmp / f"{ctx.source.name}.submitted"
    original = submitted.read_text(errors="replace") if submitted.exists() else ""
    done = [(v, _your_lines(detail, ctx.source.read_text(errors="replace"), original, ctx.source.stem), lane)
            if label == "your spec" and v == "error" and original else (v, detail, lane)
            for (_, label, _), (v, detail, lane) in zip(jobs, done)]
    verdicts, crossed = {}, {}
    for (variant, label, _), run in zip(jobs, done):
        if label == "your spec":
            verdicts[variant.name] = run
        else:
            crossed.setdefault(variant.name, {})[label] = run
    return verdicts, crossed


def _region(text: str) -> tuple[int | None, int | None]:
    """The lines (1-based) of the BEGIN and END TRANSLATION markers."""
    lines = text.splitlines()
    begin = next((i + 1 for i, line in enumerate(lines) if "BEGIN TRANSLATION" in line), None)
    end = next((i + 1 for i, line in enumerate(lines) if TRANSLATION_END in line), None)
    return begin, end


def _your_lines(detail: str, translated: str, original: str, module: str) -> str:
    """TLC's line numbers, which count lines of the translated copy, as lines of the file the
    student wrote: the same above the translation, shifted below it, and named as the
    translator's own inside it (before: line 124 of an 87-line file)."""
    (tb, te), (ob, oe) = _region(translated), _region(original)
    if None in (tb, te, ob, oe):
        return detail

    def at(n: str) -> str:
        n = int(n)
        if n < tb:
            return f"line {n}"
        if n >= te:
            return f"line {n - te + oe}"
        return f"the PlusCal translation (generated from your algorithm; line {n - tb} of it)"

    detail = re.sub(rf"line (\d+), col (\d+) to line (\d+), col (\d+) of module {module}\b",
                    lambda m: f"{at(m[1])}, col {m[2]} to {at(m[3])}, col {m[4]} of your {module}.tla", detail)
    detail = re.sub(rf"\b{module}\.tla:(\d+):(\d+)", lambda m: f"{module}.tla, {at(m[1])}, column {m[2]}", detail)
    return re.sub(r"at line (\d+), column (\d+)", lambda m: f"at {at(m[1])}, column {m[2]}", detail)


def _feedback(variant, expected: str, yours: tuple, crossed: dict, other_design: list[str],
              every_correct_passes: bool, some_bug_caught: bool, vacuous: list[tuple[str, str]]) -> str:
    verdict_, detail = yours[0], yours[1]
    what = f"`{variant.name}.cfg` ({variant.bug if not variant.correct else 'the correct design'})"
    refines = crossed.get(REFINES)
    crossed = {label: run for label, run in crossed.items() if label != REFINES}
    if refines is not None and verdict_ != "error" and refines[0] != "pass":
        if refines[0] == "error":
            return f"TLC could not check that your algorithm is the pipe design with {what}:\n\n```text\n{refines[1]}\n```"
        return (f"Not the lab's design: with {what}, your algorithm takes a step the kit's pipe model cannot take "
                "(the trace's last step, read on the starter's variables status, pipe, accepted, taken, conn, at "
                "and got; after it `kitPc`, the kit's control states that explain your run so far, is empty). Each "
                "step of yours must be one or a few steps of the design with the same constants: the handout's "
                "*Grading* lists them. Properties that judge well earn nothing on another algorithm.")
    if other_design and verdict_ != "error":
        return (f"Your spec reports {verdict_} for {what}, but with "
                f"{', '.join(f'`{n}.cfg`' for n in other_design)} your algorithm is not the pipe design (those tests "
                "show the step the design cannot take), and nothing counts until it is.")
    disagree = [f"{label}: {v}" + (f" ({why.strip()[:300]})" if v == "error" else "")
                for label, (v, why, _) in crossed.items() if v != expected]
    cross = ("\n\nBut the catalog's verdict is `" + expected + "`, and swapping halves with the kit's "
             "spec gives: " + "; ".join(disagree) + ". Your properties must judge any algorithm as the "
             "kit's do, and your algorithm must be judged by the kit's properties as the catalog says.")
    if verdict_ == "error":
        return f"TLC could not check your spec with {what}:\n\n```text\n{detail}\n```"
    if expected == "pass" and verdict_ == "pass":
        if disagree:
            return f"Your spec accepts {what}." + cross
        if some_bug_caught and not vacuous:
            return f"Passed: your spec accepts {what}, as it should."
        why = [] if some_bug_caught else [
            "it catches none of the buggy variants: a spec that checks nothing accepts everything"]
        if vacuous:
            why.append("a property of yours cannot fail: " + "; ".join(f"`{p}` accepts {b}" for p, b in vacuous)
                       + " (each such behaviour breaks that one property and nothing of the design, and a property "
                       "that accepts it checks nothing)")
        return f"Your spec accepts {what}, but " + "; and ".join(why) + ". So this pass earns nothing yet."
    if expected == "pass":
        return (f"Failed: your spec rejects {what}, which the catalog says is correct for "
                f"exactly-once ({verdict_}). {variant.why.get('tlc', '')} Read the trace below.")
    if verdict_ == "pass":
        return f"Not caught: your spec accepts {what}. Which property should fail, and in which step?"
    if verdict_ != expected:
        return (f"Not caught as it should be: your spec reports {verdict_} for {what}, but the bug "
                f"breaks `{expected.partition(':')[2] or expected}` — which property "
                "should fail first, and does your spec let TLC reach that state?")
    if disagree:
        return f"Your spec reports {verdict_} for {what}." + cross
    if every_correct_passes:
        return f"Caught: {what} — TLC reports {verdict_}, in your spec" + (
            " and crossed with the kit's." if crossed else " (crossing it with the kit's spec is left to your instructor's grading).")
    return (f"Your spec rejects {what} ({verdict_}), but it also rejects a correct design, so "
            "the catch proves nothing yet. Fix the correct designs first.")


def verdict(variant, source: Path, jail: Jail, refinement: bool = False) -> tuple[str, str, object]:
    """(verdict, error text, swimlane) of TLC on the submitted spec with one catalogued cfg; with
    `refinement`, `source` is the kit's refinement module and the cfg keeps only the variant's constants."""
    # A folder of its own per run: the runs go in parallel, and TLC writes files beside the spec
    # (a violation's SPEC_TTrace_<seconds>.tla), which two runs in one folder can clash on.
    own = source.parent / f"run-{variant.name}"
    own.mkdir()
    for f in source.parent.glob("*.tla"):  # the spec, Handoff.tla, and (refinement) the submitted Pipes.tla
        shutil.copyfile(f, own / f.name)
    source = own / source.name
    cfg = own / f"{variant.name}.cfg"
    if refinement:
        cfg.write_text(REFINEMENT_CFG.format(constants=_constants(variant.cfg_file.read_text())))
    else:
        shutil.copyfile(variant.cfg_file, cfg)
    verdict_, problem, trace = _tlc(source, cfg, jail)
    if verdict_.startswith("violation:") and "/" in verdict_:  # TLC names no temporal property: one at a time
        text = cfg.read_text()
        for name in tlc.properties(text):
            one = own / f"{variant.name}-{name}.cfg"
            one.write_text(tlc.with_one_property(text, name))
            if _tlc(source, one, jail)[0].startswith("violation:"):
                return f"violation:{name}", problem, trace
    return verdict_, problem, trace


def _tlc(source: Path, cfg: Path, jail: Jail) -> tuple[str, str, object]:
    """(verdict, error text, swimlane) of one TLC run in the jail, in a metadata folder of its own."""
    meta, tmp = source.parent / f"tlc-meta-{cfg.stem}", source.parent / f"tmp-{cfg.stem}"
    meta.mkdir()
    tmp.mkdir()
    run = jail.run(tlc.command(cfg, source, meta, tmp, small=True), timeout=budgets.TLC_SECONDS)
    if run.timed_out:
        return "error", f"TLC ran past {budgets.TLC_SECONDS} s: is the state space unbounded (a counter with no limit)?", None
    try:
        result = tlc.parse(tlc.Checked(f"your {source.stem}", source.stem, cfg.name, cfg), run.output, 0.0)
    except LabError as e:
        return "error", e.problem.replace(str(source.parent) + "/", "").replace("specs/", ""), None
    return result.verdict, "", result.trace


# What the behaviour that breaks each property does (the rubric's [spec] breakers module, with its `Break`)
BREAKS = {"NoDuplicate": "a worker that takes connection 1 twice",
          "NoInvented": "a worker handed nothing (Null) that counts it taken",
          "NoLoss": "a worker that drops connection 1 untaken",
          "EventuallyTaken": "workers that never read their pipes",
          "Refines": "a read and the next accept taken as one step"}


def _vacuous(ctx: Context, cat) -> list[tuple[str, str]]:
    """The properties the rubric grades (`[spec] breaks`) that accept the behaviour meant to break each alone, as
    (property, what that behaviour does): the submission's properties put under the lab's breakers module, with
    the reference design's constants and `Break` naming the property, and TLC checking that property alone. A
    property TLC could not check there is not shown able to fail either."""
    x = ctx.rubric.spec
    if not x.get("breakers"):
        return []
    module = paths.LABS / ctx.rubric.lab / x["breakers"]
    algo = module.read_text().split(TRANSLATION_END, 1)[0]
    props = ctx.source.read_text(errors="replace").split(TRANSLATION_END, 1)[1]
    base = cat.variant(x["reference"]).cfg_file.read_text()
    invariants = " ".join(re.findall(r"^INVARIANTS?\s+(.*?)(?=^[A-Z_]+\b|\Z)", base, re.M | re.S)).split()
    jobs = []
    for prop in x["breaks"]:
        folder = ctx.jail.work / f"breaks-{prop}"
        folder.mkdir()
        (folder / ctx.source.name).write_text(algo + TRANSLATION_END + props)
        shutil.copyfile(paths.SPECS / "Handoff.tla", folder / "Handoff.tla")
        cfg = folder / f"Break{prop}.cfg"
        check = "INVARIANT" if prop in invariants else "PROPERTY"
        cfg.write_text(f"SPECIFICATION ServerSpec\n{_constants(base)}\n    Break = \"{prop}\"\n{check} {prop}\n"
                       "CHECK_DEADLOCK FALSE\n")
        jobs.append((prop, folder / ctx.source.name, cfg))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = list(pool.map(lambda job: _tlc(job[1], job[2], ctx.jail), jobs))
    return [(prop, BREAKS.get(prop, "the behaviour meant to break it") + (f" (TLC could not check it there: "
                                                                           f"{detail.strip()[:200]})" if v == "error" else ""))
            for (prop, _, _), (v, detail, _) in zip(jobs, done) if v != f"violation:{prop}"]


def _constants(cfg: str) -> str:
    """The CONSTANTS section of a catalogued cfg (the variant's knobs and sizes), alone."""
    return re.search(r"^CONSTANTS\b.*?(?=^[A-Z_]+\b(?<!CONSTANTS)|\Z)", cfg, re.S | re.M)[0].strip()
