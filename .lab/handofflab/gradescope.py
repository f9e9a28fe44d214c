"""`./lab export-gradescope LAB`: an autograder zip for Gradescope that runs this very grader.

Gradescope unpacks the zip into /autograder/source, runs setup.sh once (as root, on its Ubuntu
image) and then run_autograder for each submission, which must leave results/results.json.
The zip carries the kit itself (its tracked files at HEAD, via `git archive`), so the
submission is graded exactly as `./lab grade` grades it here: same rubric, checkers, sandbox."""
from __future__ import annotations

import io
import subprocess
import zipfile
from pathlib import Path

from handofflab import grader, paths
from handofflab.console import LabError, ok

OUT = paths.RESULTS / "gradescope"

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when the autograder is built.
set -euo pipefail
apt-get update -q
apt-get install -y -q openjdk-17-jdk-headless maven python3 python3-venv util-linux iproute2
cd /autograder/source/kit
./lab doctor || true          # lists what is there; the grader needs no book tools
./lab grade {lab} labs/{lab}/starter --out /tmp/warm-up >/dev/null  # builds java/ and .venv once
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission: /autograder/submission in, results/results.json out.
# AUTOGRADER_ROOT and HANDOFFLAB_KIT let the kit's tests run it outside Gradescope.
set -uo pipefail
root="${{AUTOGRADER_ROOT:-/autograder}}"
kit="${{HANDOFFLAB_KIT:-$root/source/kit}}"
mkdir -p "$root/results"
if ! "$kit/lab" grade {lab} "$root/submission" --out "$root/results"; then
  # the grader itself failed: still a valid results.json, so the student sees why
  python3 -c 'import json,sys; json.dump({{"score": 0, "output": "The autograder itself failed, not your code. "
  "Please tell your instructor.", "tests": []}}, open(sys.argv[1], "w"))' "$root/results/results.json"
fi
"""


def export(lab: str) -> Path:
    rubric = grader.load_rubric(lab)  # an unknown lab is a clear error
    head = subprocess.run(["git", "-C", str(paths.ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        raise LabError("export-gradescope packs the kit from git, and this is not a git checkout",
                       "run it in a clone of the kit")
    archive = subprocess.run(["git", "-C", str(paths.ROOT), "archive", "--format=zip", "--prefix=kit/", "HEAD"],
                             capture_output=True)
    OUT.mkdir(parents=True, exist_ok=True)
    target = OUT / f"{lab}-autograder.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in (("setup.sh", SETUP.format(lab=lab)), ("run_autograder", RUN.format(lab=lab))):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o100755 << 16  # executable, as Gradescope requires
            z.writestr(info, text)
        with zipfile.ZipFile(io.BytesIO(archive.stdout)) as kit:
            for info in kit.infolist():
                z.writestr(info, kit.read(info))
    ok(f"{target} (the kit at {head.stdout.strip()}): upload it as the autograder of the Gradescope "
       f"assignment; students submit {rubric['file']}")
    return target
