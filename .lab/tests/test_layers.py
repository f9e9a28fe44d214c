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

from handofflab.ground import paths

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
    assert "3 kept, 0 broken" in run.stdout, run.stdout


FLOORS = {"commands", "docs", "benches", "suite", "java", "models", "ground"}


def test_every_module_has_a_floor_and_its_folder_is_the_floor():
    """A module no layer names is checked by no layer: every module of handofflab lies in a floor's folder, and
    the contracts name those folders (the grader is one layer, whole). Only the package's entry point is flat."""
    named = set(_layers())
    root = paths.ROOT / ".lab" / "handofflab"
    flat = {p.name for p in root.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert not flat, f"put each in a floor's folder ({', '.join(sorted(FLOORS))}): {sorted(flat)}"
    folders = {p.parent.name for p in root.glob("*/*.py")}
    assert folders == FLOORS, folders
    assert {f"handofflab.{f}" for f in FLOORS} <= named and "grader" in named, named


def _tree_with(tmp_path: Path, module: str, line: str) -> Path:
    """A copy of the kit's Python (and its pyproject) with `line` added to the top of `module`'s body."""
    root = tmp_path / "kit"
    for part in (".lab/handofflab", "grading/grader"):
        shutil.copytree(paths.ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(paths.ROOT / "pyproject.toml", root / "pyproject.toml")
    target = root / module
    source = target.read_text()
    # after the module's docstring and its standard imports (or, in a module that imports nothing of the kit,
    # before its first import)
    at = source.index("\nfrom handofflab") if "\nfrom handofflab" in source else source.index("\nimport ")
    target.write_text(source[:at] + "\n" + line + source[at:])
    return root


@pytest.mark.parametrize("module, line, broken", [
    (".lab/handofflab/ground/toolchain.py", "from handofflab.commands import release", "handofflab.ground.toolchain -> handofflab.commands.release"),
    (".lab/handofflab/ground/toolchain.py", "from handofflab.java import javabuild", "handofflab.ground.toolchain -> handofflab.java.javabuild"),
    (".lab/handofflab/models/tlc.py", "import grader", "handofflab.models.tlc -> grader"),
    # an engine that imports a command, a floor below that imports one above, two families of one floor tied
    (".lab/handofflab/docs/book.py", "from handofflab.commands import release", "handofflab.docs.book -> handofflab.commands.release"),
    (".lab/handofflab/models/tlc.py", "from handofflab.java import javacheck", "handofflab.models.tlc -> handofflab.java.javacheck"),
    (".lab/handofflab/docs/book.py", "from handofflab.benches import bench_handoffs", "handofflab.docs.book -> handofflab.benches.bench_handoffs"),
    # inside the ground floor: the paths stand on nothing of the kit
    (".lab/handofflab/ground/paths.py", "from handofflab.ground import catalog", "handofflab.ground.paths -> handofflab.ground.catalog"),
])
def test_an_import_against_the_direction_breaks_a_contract(tmp_path, module, line, broken):
    run = _lint(_tree_with(tmp_path, module, line))
    assert run.returncode != 0 and "BROKEN" in run.stdout, run.stdout + run.stderr
    assert broken in run.stdout, run.stdout


# The two places the kit starts a program: toolchain's runners (run, run_beside, run_foreground, run_streaming)
# for its tools, the jail for submitted code. run and run_beside name a missing tool; run_beside and the jail
# leave no process behind however their caller ends.
RUNNERS = {"handofflab/ground/toolchain.py", "grader/jail.py"}


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
    assert not started, "start these through handofflab.ground.toolchain's runners:\n" + "\n".join(started)


def test_every_engine_and_ground_module_has_a_test_that_imports_it_by_name():
    """A module's tests are found from its name: some test imports it (`from handofflab.FLOOR import MODULE` or
    `handofflab.FLOOR.MODULE`), so `grep -rl "import.*MODULE" */tests .lab/tests` lists them. The commands are
    tested through `./lab` itself (test_launcher, and each command's users' walks)."""
    import re
    tests = "\n".join(p.read_text() for folder in tomllib.loads((paths.ROOT / "pyproject.toml").read_text())
                      ["tool"]["pytest"]["ini_options"]["testpaths"] for p in (paths.ROOT / folder).rglob("test_*.py"))
    untested = []
    for module in sorted((paths.ROOT / ".lab" / "handofflab").glob("*/*.py")):
        floor, name = module.parent.name, module.stem
        if floor == "commands" or name == "__init__":
            continue
        if not re.search(rf"from handofflab\.{floor} import [^\n]*\b{name}\b|handofflab\.{floor}\.{name}\b", tests):
            untested.append(f"{floor}/{name}.py")
    assert not untested, f"no test imports these by name: {untested}"
