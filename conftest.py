"""Every pytest process of `./lab test` writes its results into a folder of its own.

`./lab test` runs the suite on every core (pytest-xdist). Each worker is a process of its
own, and the kit's commands write their counterexamples, verdicts and benchmark CSVs into
HANDOFFLAB_RESULTS: two workers sharing that folder could read each other's half-written
files. So each worker gets a subfolder, set here, before any test imports the kit (whose
`paths.RESULTS` is read once, at import)."""
import os

_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker and os.environ.get("HANDOFFLAB_RESULTS"):
    os.environ["HANDOFFLAB_RESULTS"] = os.path.join(os.environ["HANDOFFLAB_RESULTS"], _worker)
    os.makedirs(os.environ["HANDOFFLAB_RESULTS"], exist_ok=True)
