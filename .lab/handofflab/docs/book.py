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

from handofflab.ground import catalog as catalog_mod, paths, toolchain
from handofflab.java import javacheck, tracecheck
from handofflab.docs import notebooks
from handofflab.models import specs
from handofflab.ground.console import LabError, info, ok, progress, step, warn
from handofflab.ground.swimlanes import Swimlane

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
    check_pins()
    for src, dst in ((specs.OUT, "specs"), (javacheck.OUT, "java"), (tracecheck.OUT, "trace")):
        target = paths.GENERATED / dst
        target.mkdir(parents=True, exist_ok=True)
        for f in src.glob("*.md"):
            trace = f.with_suffix(".json")  # a counterexample: drawn with its stepper, from the trace it was saved as
            if trace.exists():
                (target / f.name).write_text(Swimlane.from_json(trace.read_text()).stepper_markdown())
            else:
                shutil.copyfile(f, target / f.name)
    (paths.GENERATED / "recorded").mkdir(parents=True, exist_ok=True)
    for f in RECORDED.glob("*.json"):
        if f.stem.endswith(".tlc"):
            continue  # a pin: the chapters draw TLC's fresh trace, which check_pins held to it
        lane = Swimlane.from_json(f.read_text())
        (paths.GENERATED / "recorded" / f"{f.stem}.md").write_text(lane.stepper_markdown())


def pin(name: str) -> Path:
    """TLC's trace of `name` as drawn now, pinned for the book (book/recorded/NAME.tlc.json): the prose beside it
    is written against this trace, and every build checks that TLC still draws it."""
    fresh = specs.OUT / f"{name}.json"
    if not fresh.exists():
        specs.check(name, show_traces=False)
    if not fresh.exists():
        raise LabError(f"TLC drew no counterexample of {name}", "pin a buggy variant of specs/catalog.toml that TLC catches")
    out = RECORDED / f"{name}.tlc.json"
    out.write_text(fresh.read_text())
    return out


def check_pins() -> None:
    """Every TLC trace a chapter draws is pinned in book/recorded/, and TLC still draws exactly it: the same steps
    by the same threads, the same states, the same loop (TLC is deterministic here: one worker, one fingerprint
    polynomial). A spec that changed its counterexample stops the build until the trace is pinned again and the
    prose beside it read again, so no sentence goes on describing a trace that is gone."""
    for name in (f[:-3] for f in included("specs") if f != "summary.md"):
        pinned_file = RECORDED / f"{name}.tlc.json"
        fix = (f"if the spec changed on purpose, pin TLC's new trace with `./lab check specs {name} --pin`, then read "
               f"again every sentence of book/src/ beside it (and its <!-- {'specs/' + name} … --> claims)")
        if not pinned_file.exists():
            raise LabError(f"the book draws TLC's trace of {name}, which is not pinned in book/recorded/", fix)
        pinned = Swimlane.from_json(pinned_file.read_text())
        drawn = Swimlane.from_json((specs.OUT / f"{name}.json").read_text())
        if pinned != drawn:
            raise LabError(f"{paths.shown(pinned_file)} is no longer what TLC draws: {_first_difference(pinned, drawn)}", fix)


def _first_difference(pinned: Swimlane, drawn: Swimlane) -> str:
    for i, (a, b) in enumerate(zip(pinned.steps, drawn.steps), 1):
        if a != b:
            return f"row {i} was {a.thread}: {a.action} ({', '.join(a.changes)}), TLC now draws {b.thread}: {b.action} " \
                   f"({', '.join(b.changes)})"
    if len(pinned.steps) != len(drawn.steps):
        return f"{len(pinned.steps)} rows pinned, TLC now draws {len(drawn.steps)}"
    return next(f"its {k} was {getattr(pinned, k)!r}, now {getattr(drawn, k)!r}" for k in pinned.__dataclass_fields__
                if getattr(pinned, k) != getattr(drawn, k))


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


def check_front_door(readme: Path = paths.ROOT / "README.md", drawn: Path = specs.OUT) -> None:
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


# A sentence's claim about what stands beside it, as a comment after the sentence, checked at every build: the rows
# of a drawn trace (`<!-- specs/IfBuffer row 6: "items[0] = 1", "waitSet = {}" -->`, `row end`, `lane=w2` for the
# thread that took the step), the order in which rows show things (`<!-- java/X.lincheck order: "put(2)", "waiters =
# 1" -->`: a checker whose row numbers may move), or the text of an included page (`<!-- notebooks/bench: "1.26" -->`).
CLAIM = re.compile(r"<!-- ((?:specs|java|trace|recorded|notebooks)/[\w.]+)(?: row (\d+|end)| (order))?: (.+?) -->",
                   re.S)
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"|lane=([\w-]+)')


def check_claims(src: Path = paths.BOOK / "src", generated: Path = paths.GENERATED) -> list[str]:
    """Every claim a chapter makes about a drawn trace or an included table, held to what the build draws now: the
    prose cannot tell of a row, a thread or a figure its page does not show (issue 86 read a sentence of two workers
    woken together above a trace in which one waited and the other came in fresh)."""
    wrong = []
    for chapter in sorted(src.glob("*.md")):
        text = chapter.read_text()
        for m in CLAIM.finditer(text):
            if text[m.start() - 1:m.start()] == "`":
                continue  # a claim shown as code (the glossary's example), not made
            target, row, order, wants = m[1], m[2], m[3], QUOTED.findall(m[4])
            where = f"{chapter.name}:{text.count(chr(10), 0, m.start()) + 1}"
            page = generated / f"{target}.md"
            if not wants:
                wrong.append(f'{where}: the claim about {target} quotes nothing (write "text" or lane=THREAD)')
                continue
            if not page.exists():
                wrong.append(f"{where}: {target} is not drawn (no {paths.shown(page)})")
                continue
            drawn = page.read_text()
            if order:
                rows, at = re.findall(r"^\| (?:\d+|end)(?: ↻)? \|.*$", drawn, re.M), 0
                for quote, _ in wants:
                    found = next((i for i in range(at, len(rows)) if quote in rows[i]), None)
                    if found is None:
                        wrong.append(f'{where}: {target} shows no "{quote}" after the rows before it in the claim')
                        break
                    at = found + 1
                continue
            line, cells, lanes = drawn, [], []
            if row:
                lines = re.findall(rf"^\| {row}(?: ↻)? \|.*$", drawn, re.M)
                header = re.search(r"^\| # \|(.*)\|$", drawn, re.M)
                if not lines or not header:
                    wrong.append(f"{where}: {target} has no row {row}")
                    continue
                line = lines[0]
                lanes = [c.strip() for c in header[1].split("|")]
                cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[2:-1]]
            for quote, lane in wants:
                if lane:
                    at = lanes.index(lane) if lane in lanes else None
                    if at is None or not cells[at]:
                        wrong.append(f"{where}: row {row} of {target} is not {lane}'s step: {line}")
                elif quote.replace('\\"', '"') not in line:
                    wrong.append(f"{where}: {target}{f' row {row}' if row else ''} does not show \"{quote}\""
                                 + (f": {line}" if row else ""))
    return wrong


def build(refresh: bool = False) -> Path:
    generate(refresh)
    check_front_door()
    wrong = check_claims()
    if wrong:
        raise LabError("the chapters say what their traces and tables do not show:\n" + "\n".join(wrong),
                       "read the trace or table as the build draws it now, then mend the sentence and its "
                       "<!-- … --> claim (book/src/)")
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
    # mdBook's toc.html (the sidebar's frame when JavaScript is off) has no <title>: a reader's screen reader names
    # the frame by it (axe-core: document-title)
    toc = out / "toc.html"
    html = toc.read_text() if toc.exists() else "<title>"
    if "<title>" not in html:
        toc.write_text(html.replace("<head>", "<head>\n        <title>Contents</title>", 1))
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


A11Y_IMPACTS = ("serious", "critical")  # what fails the check; minor and moderate ones are listed, not failed


@dataclass
class A11yFinding:
    page: str
    rule: str
    impact: str
    help: str
    targets: list[str]

    def __str__(self) -> str:
        return f"{self.page}: {self.impact} {self.rule} ({self.help}) at {', '.join(self.targets[:3])}"


def accessibility(pages: list[str] | None = None) -> list[A11yFinding]:
    """axe-core (npm) run in headless Chromium on every page of the built book, as course sites check theirs (WCAG 2.1
    A and AA rules): each page from file://, after its scripts ran, with its first stepper moved to its second row (its
    panel filled, its highlight shown), so the steppers are checked as a reader meets them. Returns every violation,
    of every impact."""
    chrome = toolchain.chromium()
    if chrome is None:
        raise LabError("no Chromium to check the book's accessibility with", "sudo apt-get install chromium")
    sync_api = toolchain.playwright()
    axe = toolchain.axe_core().read_text()
    if not (BUILD / "index.html").exists():
        build()
    names = pages or sorted(p.name for p in BUILD.glob("*.html") if p.name not in ("404.html", "print.html"))
    findings: list[A11yFinding] = []
    with sync_api.sync_playwright() as pw, progress() as bar:
        browser = pw.chromium.launch(executable_path=str(chrome), args=["--no-sandbox", "--disable-gpu"])
        task = bar.add_task("axe-core on the book's pages", total=len(names))
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            for name in names:
                bar.update(task, description=f"axe-core {name}")
                page.goto((BUILD / name).as_uri())
                if page.locator("div.stepper table").count():
                    page.locator("div.stepper table").first.focus()
                    page.keyboard.press("ArrowDown")
                    page.keyboard.press("ArrowDown")
                page.add_script_tag(content=axe)
                result = page.evaluate("""() => axe.run(document, {runOnly: {type: 'tag',
                    values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}, resultTypes: ['violations']})""")
                for v in result["violations"]:
                    findings.append(A11yFinding(name, v["id"], v.get("impact") or "", v["help"],
                                                [" ".join(map(str, n["target"])) for n in v["nodes"]]))
                bar.advance(task)
        finally:
            browser.close()
    return findings


def check_accessibility() -> None:
    """`./lab book accessibility`: every violation listed; the check fails on a serious or critical one."""
    findings = accessibility()
    for f in findings:
        (warn if f.impact in A11Y_IMPACTS else info)(str(f))
    bad = [f for f in findings if f.impact in A11Y_IMPACTS]
    if bad:
        raise LabError(f"axe-core found {len(bad)} serious or critical accessibility violations in the book",
                       "fix the pages and rules named above (book/src/, book/theme/); axe's help for a rule: "
                       "https://dequeuniversity.com/rules/axe/4.14/RULE")
    ok(f"axe-core: no serious or critical violation on any page of the book ({len(findings)} of lesser impact)")


def serve(port: int = 3000) -> None:
    env = _env()
    toolchain.run_foreground([str(toolchain.mdbook()), "serve", str(paths.BOOK), "-n", "127.0.0.1", "-p", str(port)], env)
