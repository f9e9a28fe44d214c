"""`./lab export-prairielearn LAB`: a PrairieLearn question and the recipe of its external grader's image,
which runs this very grader.

PrairieLearn grades a submission in a Docker image of the course's: it copies the student's files to
/grade/student, runs the image's entrypoint with no network and a timeout of at most 600 s, and reads
/grade/results/results.json (score in [0, 1]; `gradable: false` awards nothing, takes nothing and counts
no attempt: what the kit's "pending, regrade" and a grader's own failure are). The export writes
- question/: info.json (externalGradingOptions naming the image and its entrypoint), question.html (the
  handout, an editor holding the starter, the grader's results) and the starter file;
- image/: the Dockerfile (Debian's JDK, Maven and Python, the kit's tracked files as the working tree has them, `kitarchive`'s), the
  entrypoint and check-grader, which grades the starter at build time and refuses the image unless the
  marks are the known ones (known-marks.json), as Gradescope's setup.sh does."""
from __future__ import annotations

import json
import re
import shutil
import uuid
from pathlib import Path

import grader
from markdown_it import MarkdownIt
from handofflab.ground import console, paths
from handofflab.commands import devcontainer, kitarchive, rubriccheck, verify
from handofflab.ground.console import LabError, ok, warn

OUT = paths.RESULTS / "prairielearn"
TEMPLATES = paths.GRADING / "prairielearn"
ENTRYPOINT = (TEMPLATES / "entrypoint.template").read_text()
CHECK = (TEMPLATES / "check-grader.template").read_text()
DOCKERFILE = (TEMPLATES / "Dockerfile.template").read_text()
SMOKE = (TEMPLATES / "smoke-test.template").read_text()
HOME = "/opt/handofflab"          # where the image holds the kit and its scripts
TIMEOUT = 600                     # PrairieLearn's most: a lab's heaviest grading takes a few minutes on 2 cores
# [registry[:port]/]path[:tag], as Docker names an image (its path lowercase)
IMAGE_NAME = re.compile(r"(?:[a-zA-Z0-9.-]+(?::\d+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
                        r"(?::\w[\w.-]{0,127})?")
NAMESPACE = uuid.UUID("6f1c7a52-1d0e-4d63-9a58-2f0f3b1f6c11")  # a question's uuid is the same at every export


def export(lab: str, allow_weak_isolation: bool = False, check: bool = True, image_name: str | None = None) -> Path:
    """`check`: first `./lab check rubric LAB` (the handout's points and every sample's marks, with this rubric);
    the command always checks, a test of the export's shape alone may not. `image_name`: the image info.json names,
    in a registry the course can push to (default handofflab/grader-LAB:HEAD, a name to replace)."""
    if image_name is not None and not IMAGE_NAME.fullmatch(image_name):
        raise LabError(f"--image {image_name!r} is not a Docker image name", "e.g. --image myaccount/handofflab-grader-"
                       f"{lab}:term1 (lowercase path, an optional registry host first, a tag after ':')")
    rubric = grader.load_rubric(lab)  # an unknown lab, a wrong rubric: a clear error
    if check:
        rubriccheck.check(lab)
    head, kit = kitarchive.working_tree("export-prairielearn")
    target = OUT / lab
    shutil.rmtree(target, ignore_errors=True)
    question, image = target / "question", target / "image"
    question.mkdir(parents=True)
    named = image_name is not None
    image_name = image_name or f"handofflab/grader-{lab}:{head.split()[0]}"
    (question / "info.json").write_text(json.dumps(info(lab, rubric, image_name), indent=2) + "\n")
    (question / "question.html").write_text(question_html(lab, rubric))
    shutil.copyfile(paths.LABS / lab / "starter" / rubric.file, question / rubric.file)
    for info_, data in kit:
        dst = image / info_.filename
        if info_.is_dir():
            dst.mkdir(parents=True, exist_ok=True)
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
        dst.chmod(0o755 if (info_.external_attr >> 16) & 0o111 else 0o644)
    weak = "--allow-weak-isolation" if allow_weak_isolation else ""
    for name, text in (("entrypoint", ENTRYPOINT.format(lab=lab, weak_flag=weak)), ("check-grader", CHECK.format(lab=lab)),
                       ("Dockerfile", DOCKERFILE.format(lab=lab, head=head, image=image_name,
                                                        packages=" ".join(devcontainer.DEBIAN_PACKAGES)))):
        (image / name).write_text(text)
        (image / name).chmod(0o644 if name == "Dockerfile" else 0o755)
    (image / "known-marks.json").write_text(json.dumps({"submission": f"labs/{lab}/starter",
                                                        "marks": verify.sample_marks()[lab]["starter"]}))
    smoke = image / "smoke-test"
    smoke.write_text(SMOKE.format(lab=lab, image=image_name, file=rubric.file))
    smoke.chmod(0o755)
    ok(f"{target} (the kit at {head}): build the image (`docker build -t {image_name} {image}`), try it "
       f"(`{smoke}`: the starter graded as PrairieLearn runs it, no network), push it (`docker push {image_name}`), "
       f"and copy question/ into your course's questions/; students submit {rubric.file}")
    if not allow_weak_isolation:  # PrairieLearn's containers are not this machine, and its build step cannot tell
        console.info("The grader jails each submission (namespaces, a uid of its own), which PrairieLearn's grading container "
             "must allow; the image's build cannot check it (a build step has no namespaces to give). smoke-test runs "
             "the image unprivileged, as PrairieLearn does: if its job log says the host cannot isolate submitted "
             "code, export again with --allow-weak-isolation (README: \"The jail on a platform\").")
    if not named:
        warn(f"the image is named {image_name}, an account that is not yours: export again with --image "
             "YOURACCOUNT/NAME:TAG, a name your registry lets you push to")
    return target


def info(lab: str, rubric: grader.Rubric, image: str) -> dict:
    return {"uuid": str(uuid.uuid5(NAMESPACE, lab)), "title": f"Handoff Lab: {rubric.title}", "topic": "Concurrency",
            "tags": ["handofflab", lab], "type": "v3", "singleVariant": True, "gradingMethod": "External",
            "externalGradingOptions": {"enabled": True, "image": image, "entrypoint": f"{HOME}/entrypoint",
                                       "timeout": TIMEOUT}}


def question_html(lab: str, rubric: grader.Rubric) -> str:
    """The handout as HTML (markdown-it, which rich already brings), an editor on the starter, the results."""
    handout = MarkdownIt("commonmark").enable("table").render((paths.LABS / lab / "README.md").read_text())
    mode = "ace/mode/java" if rubric.file.endswith(".java") else "ace/mode/text"
    return f"""<pl-question-panel>
  <p><em>The lab <code>{lab}</code> of Handoff Lab. Here you edit <code>{rubric.file}</code> below and submit it;
  the public and hidden tests run on every submission, and a grading the machine could not finish counts no
  attempt. The handout's <code>./lab</code> commands are a student copy's, for working on your own machine.</em></p>
{handout}
</pl-question-panel>

<pl-file-editor file-name="{rubric.file}" ace-mode="{mode}" source-file-name="{rubric.file}"></pl-file-editor>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""
