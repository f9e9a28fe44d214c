"""Where things are.  Everything is relative to the kit's root, so a fresh
clone works wherever it lands."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SPECS = ROOT / "specs"
JAVA = ROOT / "java"
NOTEBOOKS = ROOT / "notebooks"
BOOK = ROOT / "book"
LABS = ROOT / "labs"
GRADING = ROOT / "grading"
CATALOG = SPECS / "catalog.toml"
# The marker a student copy (`./lab release`) carries at its root: the copy withholds the labs' answers.
STUDENT_COPY = ROOT / "STUDENT-COPY.toml"

# Git-ignored: tools ./lab installs, and what the kit builds.
TOOLS = ROOT / ".tools"
# checker verdicts, counterexamples, grading reports, benchmarks; `./lab test` points its tests at
# a temporary folder through HANDOFFLAB_RESULTS, so a test never touches a user's results
RESULTS = Path(os.environ.get("HANDOFFLAB_RESULTS") or ROOT / "results")
GENERATED = BOOK / "src" / "generated"  # what the book includes from real runs


def shown(path: Path) -> str:
    """A path as a message shows it: relative to the kit where it lies in the kit, else whole
    (results may live in a temporary folder, HANDOFFLAB_RESULTS)."""
    path = Path(path)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
