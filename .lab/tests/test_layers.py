"""The house's layers, held by the real tool: import-linter's `lint-imports` reads the contracts in
pyproject.toml ([tool.importlinter]: commands → grader → engines → ground floor, and no circle
among a package's modules) and checks them against the imports of .lab/handofflab and
grading/grader. The contracts can fail: the two imports that once knotted the house (the doctor,
in toolchain, read the student copy's facts from release, and the jail's row from javabuild),
put back into a copy of the tree, break them."""
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from handofflab import paths

LINT = Path(sys.executable).parent / "lint-imports"


def _lint(root: Path) -> subprocess.CompletedProcess:
    """lint-imports on the tree at root: its own packages first on the path, no cache left in the tree."""
    env = {"PYTHONPATH": f"{root / '.lab'}:{root / 'grading'}", "PATH": "/usr/bin:/bin"}
    return subprocess.run([str(LINT), "--no-cache", "--no-logo", str(root / "pyproject.toml")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def _layers() -> list[str]:
    contracts = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    return [name.strip() for layer in layers for name in layer.replace("|", ":").split(":")]


def test_the_kits_imports_keep_the_layers():
    run = _lint(paths.ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 kept, 0 broken" in run.stdout, run.stdout


def test_every_module_has_a_floor():
    """A module no layer names is checked by no layer: each of handofflab's and its commands' is named (the
    grader is one layer, whole)."""
    named = set(_layers())
    modules = {f"handofflab.{p.stem}" for p in (paths.ROOT / ".lab" / "handofflab").glob("*.py")
               if p.stem != "__init__"} | {"handofflab.commands"}
    assert modules - named == set(), "give each a layer in pyproject.toml's [tool.importlinter]"
    assert "grader" in named


def _tree_with(tmp_path: Path, module: str, line: str) -> Path:
    """A copy of the kit's Python (and its pyproject) with `line` added to the top of `module`'s body."""
    root = tmp_path / "kit"
    for part in (".lab/handofflab", "grading/grader"):
        shutil.copytree(paths.ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(paths.ROOT / "pyproject.toml", root / "pyproject.toml")
    target = root / module
    source = target.read_text()
    at = source.index("\nfrom handofflab")  # after the module's docstring and its standard imports
    target.write_text(source[:at] + "\n" + line + source[at:])
    return root


@pytest.mark.parametrize("module, line, broken", [
    (".lab/handofflab/toolchain.py", "from handofflab.commands import release", "handofflab.toolchain -> handofflab.commands.release"),
    (".lab/handofflab/toolchain.py", "from handofflab import javabuild", "handofflab.toolchain -> handofflab.javabuild"),
    (".lab/handofflab/tlc.py", "import grader", "handofflab.tlc -> grader"),
])
def test_an_import_against_the_direction_breaks_a_contract(tmp_path, module, line, broken):
    run = _lint(_tree_with(tmp_path, module, line))
    assert run.returncode != 0 and "BROKEN" in run.stdout, run.stdout + run.stderr
    assert broken in run.stdout, run.stdout


# The two places the kit starts a program: toolchain's runners (run, run_beside, run_foreground, run_streaming)
# for its tools, the jail for submitted code. run and run_beside name a missing tool; run_beside and the jail
# leave no process behind however their caller ends.
RUNNERS = {"handofflab/toolchain.py", "grader/jail.py"}


def test_programs_are_started_by_the_kits_runners_only():
    import ast
    started = []
    for package in (paths.ROOT / ".lab" / "handofflab", paths.ROOT / "grading" / "grader"):
        for module in package.rglob("*.py"):
            if "tests" in module.parts or str(module.relative_to(package.parent)) in RUNNERS:
                continue
            for node in ast.walk(ast.parse(module.read_text())):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("subprocess", "os") \
                        and node.attr in ("run", "Popen", "call", "check_call", "check_output", "system", "popen",
                                          "execv", "execvp", "spawnv"):
                    started.append(f"{module.relative_to(paths.ROOT)}:{node.lineno} {node.value.id}.{node.attr}")
    assert not started, "start these through handofflab.toolchain's runners:\n" + "\n".join(started)
