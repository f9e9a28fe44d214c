"""Where things are.  Everything is relative to the kit's root, so a fresh
clone works wherever it lands."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
JAVA = ROOT / "java"
NOTEBOOKS = ROOT / "notebooks"
BOOK = ROOT / "book"
LABS = ROOT / "labs"
GRADING = ROOT / "grading"
CATALOG = SPECS / "catalog.toml"

# Git-ignored: tools ./lab installs, and what the kit builds.
TOOLS = ROOT / ".tools"
# checker verdicts, counterexamples, grading reports, benchmarks; `./lab test` points its tests at
# a temporary folder through HANDOFFLAB_RESULTS, so a test never touches a user's results
RESULTS = Path(os.environ.get("HANDOFFLAB_RESULTS") or ROOT / "results")
GENERATED = BOOK / "src" / "generated"  # what the book includes from real runs
