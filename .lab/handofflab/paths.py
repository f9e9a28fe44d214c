"""Where things are.  Everything is relative to the kit's root, so a fresh
clone works wherever it lands."""
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
RESULTS = ROOT / "results"          # checker verdicts, counterexamples, grading reports
GENERATED = BOOK / "src" / "generated"  # what the book includes from real runs
