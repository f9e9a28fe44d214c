"""Handoff Lab's grader: `./lab grade`, `grade-batch`, `export-gradescope` and `export-prairielearn` call it.

It is the house's second floor: the commands (.lab/handofflab/commands) import it, and it imports
the engines and the ground floor (.lab/handofflab), never a command (pyproject.toml's
[tool.importlinter] holds that). Its parts, each importing only the ones listed before it:
- budgets     the limits (in work where it can be, in seconds with retries where it cannot), the jail's too
- rubric      labs/LAB/rubric.toml, typed and validated (closed keys, kinds, hints)
- results     TestResult and Grade: results.json (Gradescope's, with visibility, or PrairieLearn's) and report.md
- cgroups     a run's cgroups, where the host allows them: its memory and tasks capped, its CPU counted
- schedstat   what a run's threads ask of the processors, read from the kernel outside it: a hang asks nothing
- jail        where submitted code runs and its walls (namespaces, a uid per grading, cgroups,
              rlimits), and reading back what it wrote without trusting it
- classfiles  what a class file refers to and where its monitors come from, read from `javap -v`
- allowlist   what a submission's bytecode may call (labs/allowed-api.toml), judged on what classfiles read
- junit_launcher  JUnit's console launcher, written once (TLC's command line is in handofflab.models.tlc)
- submission  unpack, find, compile or translate, and the API allow-list on the bytecode
- feedback    what a failing verdict tells the student, and the lab's own hint for it
- scoring     the one catch/false-alarm rule of labs whose submission judges the kit's designs
- context     what a kind of test gets to score with
- sidebyside  the one rule of labs graded on speed
- kinds/      junit, checker, tlc, mutants, server, dht, design: one module per kind of test
- single      one submission, end to end
- batch       reruns and batches
"""
from grader.batch import batch_jobs, grade_batch, reruns, submissions_in
from grader.single import WeakIsolation, grade
from grader.jail import MalformedReport, read_report
from grader.kinds.tlc import TRANSLATION_END
from grader.results import Grade, TestResult
from grader.rubric import Rubric, load as load_rubric

__all__ = ["Grade", "MalformedReport", "Rubric", "TRANSLATION_END", "TestResult", "WeakIsolation", "batch_jobs",
           "grade", "grade_batch", "load_rubric", "read_report", "reruns", "submissions_in"]
