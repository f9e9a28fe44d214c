"""`./lab book`: regenerates what the chapters include from real runs, builds
the mdBook offline (math by mdbook-katex, KaTeX's CSS and fonts served by the
book itself), and fails on a broken include, link or formula."""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

from handofflab import catalog as catalog_mod, javacheck, notebooks, paths, specs, toolchain, tracecheck
from handofflab.console import LabError, ok, step

BUILD = paths.BOOK / "build"
KATEX_DIR = paths.BOOK / "src" / "katex"
# Counterexamples of checkers CI cannot run (JPF is in no registry), kept from real runs as
# swimlane JSON; rendered into generated/recorded/ like the fresh ones.
RECORDED = paths.BOOK / "recorded"


def included(kind: str) -> list[str]:
    """The generated files of `kind` (specs | java | trace) that the chapters include: read from the
    chapters themselves, so no list here restates the catalog or the book."""
    found = re.findall(rf"{{{{#include generated/{kind}/([\w.]+)}}}}",
                       "\n".join(p.read_text() for p in sorted((paths.BOOK / "src").glob("*.md"))))
    return list(dict.fromkeys(found))


def generate(refresh: bool = False) -> None:
    """Copy the counterexamples and executed notebooks the chapters include,
    running the checkers and notebooks first if their results are missing."""
    # The notebooks first: they read no checker's results (the benchmarks read results/bench/), and a kernel that
    # dies is then the first thing a build meets, not the last after minutes of TLC.
    if refresh or not all((notebooks.RENDERED / f"{s.stem}.md").exists() for s in notebooks.sources()):
        notebooks.run_all()
    if refresh or not all((specs.OUT / f).exists() for f in included("specs")):
        specs.check(show_traces=False)
    drawn = [f for f in included("java") if refresh or not (javacheck.OUT / f).exists()]
    cat = catalog_mod.load() if drawn else None
    for f in drawn:  # only the pairs the chapters draw, not the whole sweep (minutes)
        _java_counterexample(cat, *f.split(".")[:2])
    for f in included("trace"):  # only the runs the chapters draw: each variant's ten runs take seconds
        if refresh or not (tracecheck.OUT / f).exists():
            tracecheck.check(f.split(".")[0], show_traces=False)
    for src, dst in ((specs.OUT, "specs"), (javacheck.OUT, "java"), (tracecheck.OUT, "trace")):
        target = paths.GENERATED / dst
        target.mkdir(parents=True, exist_ok=True)
        for f in src.glob("*.md"):
            shutil.copyfile(f, target / f.name)
    (paths.GENERATED / "recorded").mkdir(parents=True, exist_ok=True)
    for f in RECORDED.glob("*.json"):
        lane = javacheck.Swimlane.from_json(f.read_text())
        (paths.GENERATED / "recorded" / f"{f.stem}.md").write_text(lane.markdown())


def _java_counterexample(cat, name: str, checker: str) -> None:
    """One included Java counterexample, from a real run of its catalogued pair: a chapter never
    shows what the catalog does not claim, so a run that differs stops the build."""
    v = cat.variants.get(name)
    if v is None or v.expected(checker) is None:
        raise LabError(f"the book includes generated/java/{name}.{checker}.md, but the catalog claims no "
                       f"{checker} verdict for {name}", "include a pair that specs/catalog.toml claims")
    with step(f"{checker} on {name} (a counterexample the book draws)"):
        outcome = javacheck.check_pair(v, checker)
    if not outcome.matches or not (javacheck.OUT / f"{name}.{checker}.md").exists():
        raise LabError(f"{checker} on {name} gave {outcome.got}, the catalog claims {outcome.expected}: "
                       "the book would draw a counterexample nobody can reproduce",
                       f"run `./lab check java {name}` and see its detail: {outcome.detail[:200]}")


# README's picture: a counterexample as the book draws it, between these markers (the variant named in the first).
FRONT_DOOR = re.compile(r"<!-- counterexample: (\w+) [^\n]*-->\n(.*?)\n<!-- end of the counterexample -->", re.S)


def check_front_door(readme: Path = paths.ROOT / "README.md", drawn: Path = paths.GENERATED / "specs") -> None:
    """README shows what TLC draws now, not a table pasted once: the build fails when they differ."""
    found = FRONT_DOOR.search(readme.read_text())
    if found is None:
        raise LabError(f"{paths.shown(readme)} has no counterexample between its markers",
                       "put `<!-- counterexample: NAME … -->` and `<!-- end of the counterexample -->` around one")
    name, shown = found.groups()
    lane = drawn / f"{name}.md"
    if not lane.exists():
        raise LabError(f"{paths.shown(readme)} shows a counterexample of {name}, which TLC did not draw",
                       "name a buggy variant of specs/catalog.toml that TLC catches")
    if shown.strip() != lane.read_text().strip():
        raise LabError(f"{paths.shown(readme)}'s counterexample of {name} is not what TLC draws now",
                       f"put {paths.shown(lane)} between its markers, and check the sentence below it")


def build(refresh: bool = False) -> Path:
    generate(refresh)
    check_front_door()
    toolchain.mdbook_katex()  # the preprocessor book.toml names: installed before mdbook runs it
    dist = toolchain.katex_assets()
    if KATEX_DIR.exists():
        shutil.rmtree(KATEX_DIR)
    KATEX_DIR.mkdir(parents=True)
    shutil.copyfile(dist / "katex.min.css", KATEX_DIR / "katex.min.css")
    shutil.copytree(dist / "fonts", KATEX_DIR / "fonts")
    compile_book(paths.BOOK)
    ok(f"book built: {paths.shown(BUILD)}/index.html")
    return BUILD / "index.html"


def _env() -> dict:
    """mdBook's preprocessors on PATH: mdbook-katex, and this Python (with tree-sitter) for TLA+ listings."""
    return {**os.environ, "PATH": f"{toolchain.mdbook_katex().parent}:{Path(sys.executable).parent}:{os.environ['PATH']}"}


def compile_book(book: Path) -> Path:
    """mdbook build, failing on any error or warning (a broken include is only
    a logged error to mdBook), then on any broken local link."""
    env = _env()
    with step("Building the book with mdBook"):
        proc = toolchain.run([str(toolchain.mdbook()), "build", str(book)], "mdbook build",
                             "`./lab doctor` checks mdBook", env=env, timeout=600, check=False)
    log = proc.stdout + proc.stderr
    # mdbook-katex 0.10.0 was built against mdbook 0.5.3 and says so on every run; that one line is benign.
    problems = [line for line in log.splitlines() if re.search(r"\b(ERROR|WARN)\b", line)
                and "was built against mdbook" not in line]
    if proc.returncode != 0 or problems:
        raise LabError("the book does not build cleanly:\n" + "\n".join(problems or log.splitlines()[-15:]),
                       "fix the include, link or formula it names (paths are relative to book/src/)")
    missing = check_anchors(book / "src")
    if missing:
        raise LabError("the book includes anchors that do not exist (mdBook would include nothing):\n"
                       + "\n".join(missing), "add the ANCHOR/ANCHOR_END comments to the file, or fix the name")
    out = book / "build"
    broken = check_links(out)
    if broken:
        raise LabError("the book has broken links:\n" + "\n".join(broken[:30]),
                       "fix the links in the chapters named (book/src/)")
    return out


def check_anchors(src: Path) -> list[str]:
    """Every `{{#include FILE:NAME}}` must name an anchor that FILE has: mdBook
    silently includes nothing for an unknown one."""
    missing = []
    for chapter in src.rglob("*.md"):
        for target, name in re.findall(r"\{\{#include\s+([^:}\s]+):([A-Za-z_][\w-]*)\s*\}\}", chapter.read_text()):
            file = (chapter.parent / target).resolve()
            text = file.read_text() if file.exists() else ""
            if not re.search(rf"ANCHOR:\s*{re.escape(name)}\b", text):
                missing.append(f"{chapter.relative_to(src)}: {target}:{name}")
    return missing


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])


def check_links(root: Path) -> list[str]:
    """Every local link and image in the built book must point at a file that
    exists (and, with #fragment, at an id in it).  mdBook itself does not check."""
    pages = {}
    for page in root.rglob("*.html"):
        if page.name == "404.html":
            continue  # mdBook's not-found page links from the site root ("/"), by design
        parser = _Links()
        parser.feed(page.read_text(errors="replace"))
        pages[page.resolve()] = parser
    broken = []
    for page, parser in pages.items():
        for link in parser.links:
            url = urlparse(link)
            if url.scheme or link.startswith("//") or link.startswith("mailto:"):
                continue
            target = (page.parent / unquote(url.path)).resolve() if url.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(root.resolve())}: {link} (no such file)")
            elif url.fragment and target in pages and url.fragment not in pages[target].ids:
                broken.append(f"{page.relative_to(root.resolve())}: {link} (no such anchor)")
    return broken


# The pages a reader must see rendered: (page, what it must show).
SCREENSHOT_PAGES = (("shared-buffer.html", "code math plot"), ("pht.html", "code math"),
                    ("theorems.html", "math plot"), ("benchmarks.html", "math plot"),
                    ("pipes.html", "code tla"), ("glossary.html", "math"))
SHOTS = paths.RESULTS / "book" / "screenshots"


@dataclass
class Shot:
    page: str
    png: Path
    problems: list[str]


def screenshots(pages=SCREENSHOT_PAGES) -> list[Shot]:
    """Opens each page in headless Chromium, as a reader would: a screenshot to look at, and
    the page as the browser built it (after its scripts), checked for rendered math (KaTeX),
    highlighted code (highlight.js runs in the browser) and plots that load."""
    chrome = toolchain.chromium()
    if chrome is None:
        raise LabError("no Chromium to look at the book with", "sudo apt-get install chromium")
    if not (BUILD / "index.html").exists():
        build()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shots = []
    for page, wants in pages:
        url = (BUILD / page).as_uri()
        png = SHOTS / page.replace(".html", ".png")
        with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
            flags = [str(chrome), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     f"--user-data-dir={profile}", "--hide-scrollbars", "--virtual-time-budget=3000"]
            fix = "`./lab doctor` checks Chromium"
            toolchain.run([*flags, "--window-size=1100,1500", f"--screenshot={png}", url], "chromium", fix,
                          timeout=120, check=False)
            dom = toolchain.run([*flags, "--dump-dom", url], "chromium", fix, timeout=120, check=False).stdout
        problems = [] if png.exists() and png.stat().st_size > 20_000 else ["no screenshot, or a blank one"]
        if "math" in wants and 'class="katex"' not in dom:
            problems.append("no rendered math (KaTeX)")
        if "code" in wants and "hljs-keyword" not in dom:
            problems.append("code not highlighted (highlight.js did not run)")
        if "tla" in wants and not re.search(r'<code class="tla nohighlight hljs">(?:(?!</code>).)*hljs-keyword', dom, re.S):
            problems.append("TLA+ not coloured (or re-coloured as plain text by highlight.js)")
        if "plot" in wants:
            images = re.findall(r'<img src="([^"]+\.png)"', dom)
            missing = [i for i in images if not (BUILD / unquote(i)).is_file()]
            if not images or missing:
                problems.append(f"plots missing: {missing or 'none on the page'}")
        shots.append(Shot(page, png, problems))
    for s in shots:
        if not s.problems:
            ok(f"{s.page}: {paths.shown(s.png)}")
    bad = [f"{s.page}: {', '.join(s.problems)}" for s in shots if s.problems]
    if bad:
        raise LabError("pages do not render as a reader should see them:\n" + "\n".join(bad),
                       "open the screenshots in results/book/screenshots/ and fix the chapter")
    return shots


def serve(port: int = 3000) -> None:
    env = _env()
    toolchain.run_foreground([str(toolchain.mdbook()), "serve", str(paths.BOOK), "-n", "127.0.0.1", "-p", str(port)], env)
