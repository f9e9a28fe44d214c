"""`./lab notebooks`: executes the kit's notebooks (jupytext percent files in
notebooks/) with a real Jupyter kernel, and renders each to markdown for the book;
`./lab notebooks open` serves them in JupyterLab, for a reader to change and run."""
from __future__ import annotations

import atexit
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from handofflab.ground import paths, toolchain
from handofflab.ground.console import LabError, ok, progress, step, warn

BUILD = paths.NOTEBOOKS / "build"
RENDERED = paths.GENERATED / "notebooks"


@dataclass
class Executed:
    name: str
    ipynb: Path
    markdown: Path
    figures: int


def sources() -> list[Path]:
    return sorted(p for p in paths.NOTEBOOKS.glob("*.py"))


def execute(source: Path, timeout: int = 600) -> Executed:
    import jupytext
    import nbformat
    from jupyter_client.manager import AsyncKernelManager
    from jupyter_core.utils import run_sync
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from nbconvert import MarkdownExporter

    BUILD.mkdir(parents=True, exist_ok=True)
    mpl = paths.ROOT / ".cache" / "matplotlib"
    mpl.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MPLCONFIGDIR", str(mpl))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    for attempt in (1, 2):
        nb = jupytext.read(source)
        # The kernel talks to us over Unix sockets in a folder of our own, not over TCP on loopback: the
        # kernel warns on every start that TCP is unencrypted (and any local user could connect). A short
        # absolute path: a socket's path has a limit of about 100 bytes.
        sockets = tempfile.mkdtemp(prefix="handofflab-kernel-")
        # asynchronous, as nbclient's own default: with a blocking client, a kernel that dies while a cell runs leaves
        # nbclient waiting on its output channel for ever (seen: a cell that ended its own process)
        km = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
        client = NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(paths.NOTEBOOKS)}})
        try:
            client.execute()
            break
        except CellExecutionError as e:  # the notebook's own code failed: running it again would too
            raise LabError(f"notebook {source.name} failed:\n{str(e)[-3000:]}",
                           f"run it cell by cell in JupyterLab: ./lab notebooks open {source.stem}") from None
        except Exception as e:  # the kernel or the client: it did not start, it died, or a cell ran out of time
            what = kernel_failure(e, timeout)
            if attempt == 1 and toolchain.busy():
                warn(f"notebook {source.name}: the Jupyter kernel {what} on a busy machine; running it once more")
                continue
            raise LabError(f"notebook {source.name}: the Jupyter kernel {what} ({type(e).__name__}: "
                           f"{str(e).strip()[:300] or 'no message'})",
                           "run `./lab notebooks " + source.stem + "` again on a quieter machine; if it happens again, "
                           "`./lab doctor` checks the kernel's packages (.venv), and "
                           f"`./lab notebooks open {source.stem}` runs it cell by cell") from None
        finally:
            # a kernel that did not start leaves nbclient's exit hook registered, which then fails at the interpreter's
            # exit with a traceback of its own (seen: `assert self.km is not None`, after the clear message)
            atexit.unregister(client._cleanup_kernel)
            if km.has_kernel:  # nbclient shuts down only the kernels it started itself
                run_sync(km.shutdown_kernel)(now=True)
            shutil.rmtree(sockets, ignore_errors=True)
    ipynb = BUILD / f"{source.stem}.ipynb"
    nbformat.write(nb, ipynb)
    figures = sum(1 for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
    # Markdown for the book: text outputs fenced (so KaTeX leaves their `$` alone), figures as files; without the
    # cells tagged notebook-only (a title and an introduction that the chapter around the notebook already gives:
    # issue 86 read Theorems 1-3 stated twice on one page, and headings repeated).
    nb = nbformat.from_dict({**nb, "cells": [c for c in nb.cells if BOOK_OMITS not in c.metadata.get("tags", [])]})
    body, resources = MarkdownExporter().from_notebook_node(nb)
    target = RENDERED / source.stem
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for name, data in resources.get("outputs", {}).items():
        (target / name).write_bytes(data)
    body = body.replace("](output_", f"](generated/notebooks/{source.stem}/output_")
    body = _alt_texts(nb, body)
    markdown = RENDERED / f"{source.stem}.md"
    markdown.write_text(fold_code(_fence_outputs(body)))
    return Executed(source.stem, ipynb, markdown, figures)


BOOK_OMITS = "notebook-only"  # a cell's tag (`# %% [markdown] tags=["notebook-only"]`): JupyterLab shows it, the book not


def kernel_failure(e: Exception, timeout: int) -> str:
    """What went wrong with the kernel, in words: nbclient's own exceptions, or the assertion it makes when a kernel
    never came up (`assert self.kc is not None`, seen beside a load average of 9 on 2 cores)."""
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    if isinstance(e, DeadKernelError):
        return "died while it ran a cell"
    if isinstance(e, CellTimeoutError):
        return f"did not finish a cell within {timeout} s"
    if isinstance(e, (AssertionError, RuntimeError, TimeoutError)):
        return "did not start"
    return "failed"


def _alt_texts(nb, md: str) -> str:
    """nbconvert names every figure "png"; a reader who cannot see it gets the words the notebook
    says just before it instead: the last heading, then the first sentence of the last text cell."""
    heading, sentence = "", ""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for block in re.split(r"\n\s*\n", cell.source):
                block = " ".join(block.split())
                if block.startswith("#"):
                    heading, sentence = block.lstrip("#").strip(), ""
                elif block and not sentence:
                    sentence = first_sentence(block)
        for j, out in enumerate(cell.get("outputs", [])):
            if "image/png" in out.get("data", {}):
                alt = "; ".join(x for x in (heading, sentence) if x) or "a plot of the results above"
                alt = re.sub(r"[\[\]$`*_]", "", alt)  # plain words: no markdown, no math
                md = md.replace("![png](generated/notebooks/", f"![Figure: {alt}](generated/notebooks/", 1) \
                    if f"output_{i}_{j}.png" in md else md
    return md


def first_sentence(paragraph: str, most: int = 300) -> str:
    """A paragraph's first sentence, whole (a paragraph's first *line* once cut captions mid-sentence: "The scatter's
    does not"): it ends at a full stop, question or exclamation mark before a capital letter, not at "e.g." or "Fig. 3",
    and a sentence too long for a caption ends at a word, with an ellipsis."""
    sentence = re.split(r"(?<![Ee]\.g\.)(?<!i\.e\.)(?<!Fig\.)(?<!Sec\.)(?<=[.!?])\s+(?=[A-Z(])", paragraph, maxsplit=1)[0]
    return sentence if len(sentence) <= most else sentence[:most].rsplit(" ", 1)[0] + " …"


def _fence_outputs(md: str) -> str:
    """nbconvert indents text outputs by four spaces; make them ```text blocks
    (indented lines inside a fenced code block are code, and stay), and
    demote headings one level for inclusion in a chapter."""
    out, block, in_fence = [], [], False
    for line in md.splitlines():
        if not in_fence and line.startswith("    "):
            block.append(line[4:])
            continue
        if block and not (not line.strip() and not in_fence):
            if any(b.strip() for b in block):  # a figure's cell has an empty text output: no empty box
                out += ["```text", *block, "```", ""]
            block = []
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("#"):
            line = "#" + line  # a notebook's headings sit one level under the chapter that includes it
        if not block:
            out.append(line)
    if any(b.strip() for b in block):
        out += ["```text", *block, "```"]
    return "\n".join(out) + "\n"


def fold_code(md: str) -> str:
    """Each code cell folded under a "Show the code" line, so a chapter reads as the notebook's words
    and results (the tables and plots each cell prints stay open) and the code is one click away."""
    return re.sub(r"^```python\n.*?^```\n", lambda m: f"<details><summary>Show the code</summary>\n\n{m.group(0)}\n</details>\n",
                  md, flags=re.M | re.S)


def run_all(name: str | None = None) -> list[Executed]:
    chosen = [s for s in sources() if not name or s.stem == name]
    if not chosen:
        raise LabError(f"no notebook called '{name}'", "notebooks: " + ", ".join(s.stem for s in sources()))
    done = []
    with progress() as bar:
        task = bar.add_task("notebooks", total=len(chosen))
        for source in chosen:
            bar.update(task, description=f"executing {source.name}")
            done.append(execute(source))
            bar.advance(task)
    for e in done:
        ok(f"{e.name}: executed ({e.figures} figures) → {paths.shown(e.ipynb)}, "
           f"{paths.shown(e.markdown)}")
    return done


# `./lab notebooks open`: JupyterLab on the notebooks, for a reader who changes a parameter and runs a cell again.
JUPYTERLAB_LOCK = paths.ROOT / "requirements-jupyterlab.lock"
# JupyterLab's settings, as its overrides.json in the environment: a notebooks/*.py file opens as a notebook
# (jupytext's viewer) and is saved only when the reader saves it (autosave would rewrite the kit's .py files'
# headers on every run), every cell is rendered, not only those in view (the kit's notebooks are short, and the
# browser's find then finds a result), and no news is fetched (a reader need not be asked).
LAB_SETTINGS = {"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"python": "Jupytext Notebook"},
                                                            "autosave": False},
                "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
                "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}


def jupyterlab() -> Path:
    """`jupyter-lab` in .venv, installed from its own lock on first use (the rest of the kit does without it)."""
    bin_dir = Path(sys.executable).parent
    toolchain.pip_lock(JUPYTERLAB_LOCK, "JupyterLab", bin_dir / "jupyter-lab")
    settings = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(LAB_SETTINGS, indent=2))
    return bin_dir / "jupyter-lab"


def open_lab(name: str | None, port: int) -> int:
    """JupyterLab on localhost over notebooks/, opened at `name` if given, until Ctrl-C. The kernel is the kit's own
    (.venv's python3, which imports handofflab), and the token is in the address printed (JUPYTER_TOKEN sets it)."""
    if name and name not in {s.stem for s in sources()}:
        raise LabError(f"no notebook called '{name}'", "notebooks: " + ", ".join(s.stem for s in sources()))
    lab = jupyterlab()
    token = os.environ.get("JUPYTER_TOKEN") or secrets.token_hex(16)
    page = f"lab/tree/{name}.py" if name else "lab"
    ok(f"JupyterLab on http://127.0.0.1:{port}/{page}?token={token}  (open it in a browser; Ctrl-C stops it). "
       "Each notebooks/*.py opens as a notebook; what you change is saved to the .py file when you save it (Ctrl-S)")
    env = {**os.environ, "JUPYTER_TOKEN": token, "MPLCONFIGDIR": str(paths.ROOT / ".cache" / "matplotlib")}
    return toolchain.run_foreground([str(lab), "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--allow-root",
                                     f"--ServerApp.root_dir={paths.NOTEBOOKS}", "--ServerApp.port_retries=0"], env)
