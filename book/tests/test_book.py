"""The book layer: it builds offline, every listing comes from a real file,
and a broken include, link or formula fails the build."""
import re
import shutil

import pytest

from handofflab import book, paths
from handofflab.console import LabError

# one worker for every test that writes into the source tree (book/src/generated, notebooks/build)
pytestmark = pytest.mark.xdist_group("source-tree")


def test_the_book_builds_with_math_and_included_listings():
    index = book.build()
    html = (index.parent / "shared-buffer.html").read_text()
    assert 'class="katex"' in (index.parent / "introduction.html").read_text()   # math rendered at build time
    text = re.sub(r"<[^>]+>", "", html)
    assert "notifyAll();" in text and "NoDuplicate ==" in text                    # included from the real files
    # TLA+ and PlusCal coloured at build time (tree-sitter-tlaplus), kept from highlight.js, which lacks TLA+
    tla = re.findall(r'<pre><code class="tla nohighlight hljs">(.*?)</code></pre>', html, re.S)
    assert len(tla) >= 3 and all('<span class="hljs-keyword">' in listing for listing in tla)
    assert '<span class="hljs-keyword">process</span>' in html and '<span class="hljs-comment">' in html
    assert "language-tla" not in html
    checkers = (index.parent / "checkers.html").read_text()  # trace validation's counterexample, from a real run
    assert "LifoBuffer, one recorded run" in checkers and "the design cannot do this" in checkers
    # tables fit the page: long cells wrap, a wider table scrolls inside it
    css = re.search(r'href="(theme/tables[-\w]*\.css)"', html)  # mdBook adds a hash to the name
    assert css and "overflow-x: auto" in (index.parent / css.group(1)).read_text()
    assert "stuck: WakePut" in html                                                # TLC's recorded counterexample
    assert re.search(r'<img src="generated/notebooks/shared_buffer/output_\d+_\d+\.png"', html)
    assert (index.parent / "katex" / "katex.min.css").exists()
    assert "cdn" not in (index.parent / "index.html").read_text().lower()


def test_readmes_counterexample_must_be_what_tlc_draws_now(tmp_path):
    """README's picture is checked by every build (the test above builds against the kit's README and TLC's run):
    a table that TLC no longer draws, a variant it did not draw, or no markers, each stop the build by name."""
    readme = paths.ROOT / "README.md"
    name, shown = book.FRONT_DOOR.search(readme.read_text()).groups()
    assert "| # |" in shown and name in shown  # a swimlane table, not a sentence about one
    drawn = tmp_path / "specs"
    drawn.mkdir()
    (drawn / f"{name}.md").write_text(shown + "\n")
    book.check_front_door(readme, drawn)
    (drawn / f"{name}.md").write_text(shown.replace("| 1 |", "| 1 | `Accept ▸ Accept` |", 1))
    with pytest.raises(LabError, match="is not what TLC draws now"):
        book.check_front_door(readme, drawn)
    (drawn / f"{name}.md").unlink()
    with pytest.raises(LabError, match="which TLC did not draw"):
        book.check_front_door(readme, drawn)
    bare = tmp_path / "README.md"
    bare.write_text("# A kit\n\nno picture\n")
    with pytest.raises(LabError, match="no counterexample between its markers"):
        book.check_front_door(bare, drawn)


def test_every_listing_is_included_not_pasted():
    for chapter in (paths.BOOK / "src").glob("*.md"):
        text = chapter.read_text()
        for block in re.findall(r"```(?:java|tla)\n(.*?)```", text, re.S):
            assert block.strip().startswith("{{#include"), f"{chapter.name} pastes a listing"


def _scratch_book(tmp_path, chapter: str):
    root = tmp_path / "book"
    shutil.copytree(paths.BOOK / "theme", root / "theme")
    shutil.copyfile(paths.BOOK / "book.toml", root / "book.toml")
    (root / "src").mkdir()
    (root / "src" / "SUMMARY.md").write_text("# Summary\n\n- [Chapter](chapter.md)\n")
    (root / "src" / "chapter.md").write_text(chapter)
    shutil.copytree(paths.BOOK / "src" / "katex", root / "src" / "katex")
    return root


def test_a_good_scratch_book_builds(tmp_path):
    book.compile_book(_scratch_book(tmp_path, "# Fine\n\n$x^2$\n"))


@pytest.mark.parametrize("chapter, problem", [
    ("# Bad\n\n{{#include no/such/file.md}}\n", "does not build"),
    ("# Bad\n\n$\\frac{1}{$\n", "does not build"),
    ("# Bad\n\n[missing](nowhere.md)\n", "broken links"),
])
def test_a_broken_include_formula_or_link_fails(tmp_path, chapter, problem):
    with pytest.raises(LabError) as e:
        book.compile_book(_scratch_book(tmp_path, chapter))
    assert problem in e.value.problem


def test_an_include_of_a_missing_anchor_fails(tmp_path):
    root = _scratch_book(tmp_path, "# Bad\n\n```java\n{{#include listing.java:nosuch}}\n```\n")
    (root / "src" / "listing.java").write_text("// ANCHOR: there\nint x;\n// ANCHOR_END: there\n")
    with pytest.raises(LabError) as e:
        book.compile_book(root)
    assert "listing.java:nosuch" in e.value.problem


def test_a_drawn_counterexample_whose_run_differs_from_the_catalog_stops_the_build(monkeypatch):
    """The book runs only the pairs its chapters draw; a run that disagrees with the catalog (here a
    stub: the notify buffer passing) must stop the build, not draw a counterexample nobody can reproduce."""
    from handofflab import catalog, javacheck
    cat = catalog.load()
    monkeypatch.setattr(javacheck, "check_pair", lambda v, checker: javacheck.JavaOutcome(
        v.name, checker, v.expected(checker), "pass", "stubbed", 0.0, {}))
    with pytest.raises(LabError) as e:
        book._java_counterexample(cat, "NotifyBuffer", "stress")
    assert "gave pass, the catalog claims deadlock" in e.value.problem
    with pytest.raises(LabError) as e:  # and an include of a pair the catalog does not have is named
        book._java_counterexample(cat, "NoSuchBuffer", "stress")
    assert "claims no stress verdict for NoSuchBuffer" in e.value.problem


def test_every_design_chapter_tells_code_spec_bug_and_fix():
    """One chapter per design, each with its Java class, its TLA+ model and a real counterexample."""
    for chapter, java, trace in [
        ("two-lock-queue", "headLock.notifyAll();", "NoDummyQueue under TLC"),
        ("pht", "slot.set(item);", "TwoProducerPht under TLC"),
        ("pipes", "channels[i].put(item);", "MailboxNoBusy under TLC"),
    ]:
        page = (book.BUILD / f"{chapter}.html").read_text()
        read = re.sub(r"<[^>]+>", "", page)  # as a reader sees it: the colour's spans gone
        assert java in read, f"{chapter}: no Java listing"
        assert "fair process" in read, f"{chapter}: no TLA+ listing"
        assert trace in page and "<table" in page, f"{chapter}: no swimlanes"


def test_every_design_chapter_ends_with_exercises_and_its_lab():
    """The chapters under "The designs" in SUMMARY.md: each ends with exercises and a link to a lab."""
    summary = (paths.BOOK / "src" / "SUMMARY.md").read_text()
    designs = re.findall(r"\]\(([\w-]+)\.md\)", summary.split("# The designs")[1].split("\n# ")[0])
    assert len(designs) >= 5, designs
    for chapter in designs:
        text = (paths.BOOK / "src" / f"{chapter}.md").read_text()
        tail = text.split("## Exercises")[-1] if "## Exercises" in text else ""
        assert re.search(r"^1\. ", tail, re.M) and re.search(r"\]\(lab-[\w-]+\.md\)", tail), f"{chapter}: no exercises or lab link"
        assert (paths.BOOK / "src" / re.search(r"\]\((lab-[\w-]+\.md)\)", tail)[1]).exists()


def test_the_theorems_chapter_renders_proofs_and_the_executed_notebooks():
    page = (book.BUILD / "theorems.html").read_text()
    assert page.count('class="katex') > 20                                       # the proofs' math, rendered
    for notebook in ("pht_theorems", "pht_conflicts", "pipes_scan"):
        assert re.search(rf'<img src="generated/notebooks/{notebook}/output_\d+_\d+\.png"', page), notebook
    assert "0.0019703951" in page                                                  # the paper's figure, recomputed
    bench = (book.BUILD / "benchmarks.html").read_text()
    assert "Kruskal" in bench and re.search(r'generated/notebooks/benchmarks/output_\d+_\d+\.png', bench)


@pytest.mark.skipif(__import__("handofflab.toolchain").toolchain.chromium() is None,
                    reason="no Chromium here (sudo apt-get install chromium)")
def test_a_reader_sees_math_highlighted_code_and_plots_in_chromium():
    shots = book.screenshots()
    assert {s.page for s in shots} == {p for p, _ in book.SCREENSHOT_PAGES}
    assert all(not s.problems and s.png.stat().st_size > 20_000 for s in shots)


def test_a_page_without_its_plot_is_reported(tmp_path, monkeypatch):
    """The screenshot check can fail: a page that should show a plot and shows none."""
    if __import__("handofflab.toolchain").toolchain.chromium() is None:
        pytest.skip("no Chromium here (sudo apt-get install chromium)")
    with pytest.raises(LabError) as e:
        book.screenshots((("glossary.html", "plot code tla"),))
    assert "plots missing" in e.value.problem and "code not highlighted" in e.value.problem
    assert "TLA+ not coloured" in e.value.problem


def test_notebook_chapters_show_results_with_the_code_folded():
    """A chapter from a notebook reads as words, tables and plots; each code cell is folded away."""
    book.build()
    pages = sorted((paths.GENERATED / "notebooks").glob("*.md"))
    assert pages
    for page in pages:
        text = page.read_text()
        cells = re.findall(r"^```python\n", text, re.M)
        folded = re.findall(r"<details><summary>Show the code</summary>\n\n```python\n", text)
        assert cells and len(folded) == len(cells), page.name
        assert "```text" in text or "![Figure" in text, f"{page.name}: no result shown"


def test_every_finding_about_the_papers_links_to_the_section_that_shows_it():
    """The errata page: each finding in its tables points at a notebook section of the built book (the
    link checker, run by every build, fails on an anchor that does not exist)."""
    text = (paths.BOOK / "src" / "papers-errata.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith(("| finding", "|---"))]
    assert len(rows) >= 8
    assert all(re.search(r"\]\((theorems|benchmarks|dht|calendar)\.md#[\w-]+\)", row) for row in rows), rows
    assert "Malard & Stewart" in text and "McBride & Ferrell" in text  # all four papers (issue 49)
    assert "papers-errata.md" in (paths.BOOK / "src" / "SUMMARY.md").read_text()


CHECKER_COLUMNS = {"TLC": "tlc", "Lincheck": "lincheck", "stress": "stress", "JPF": "jpf", "trace": "trace",
                   "jcstress": "jcstress"}


def _checker_tables(text: str):
    """Each table of the book whose header is `| class |` and checkers: (its columns' checkers, its rows' cells)."""
    for block in re.findall(r"^\| class \|.*\n\|[-| ]+\|\n(?:\|.*\n)+", text, re.M):
        header, _, *rows = block.strip().splitlines()
        columns = [CHECKER_COLUMNS.get(c.strip()) for c in header.strip("|").split("|")[1:]]
        if all(columns):
            yield columns, [[c.strip() for c in row.strip("|").split("|")] for row in rows]


def test_the_books_checker_tables_say_what_the_catalog_claims():
    """Every table of classes and checkers in the book (the fast chapter's, with the jcstress column) holds, for each
    class, the verdict its catalog entry claims, or 'not claimed' where it claims none (issue 66: the catalog, the
    command and the book agree on the column)."""
    from handofflab import catalog
    cat = catalog.load()
    seen = set()
    for chapter in sorted((paths.BOOK / "src").glob("*.md")):
        for columns, rows in _checker_tables(chapter.read_text()):
            for name, *cells in rows:
                variant = cat.variant(name.strip("`"))
                for checker, cell in zip(columns, cells):
                    claim = variant.expected(checker)
                    want = f"`{claim}`" if claim else "not claimed"
                    assert cell.startswith(want), f"{chapter.name}: {variant.name} under {checker}: the book says " \
                                                  f"{cell!r}, the catalog {claim or 'nothing'}"
                seen.add((variant.name, "jcstress" in columns))
    claimed = {v.name for v in cat.variants.values() if v.expected("jcstress")}
    assert claimed <= {name for name, has in seen if has}, "a jcstress claim the book's tables do not show"


def test_the_shared_buffer_chapters_account_of_ifbuffer_is_the_trace_it_stands_above():
    """Prose that names rows of a drawn trace holds to them (issue 86 found the IfBuffer sentence telling of two
    workers woken together above a trace where one waited and the other came in fresh): each row the chapter cites
    shows what the sentence says it does, in TLC's trace as drawn now."""
    from handofflab import specs
    if not (specs.OUT / "IfBuffer.md").exists():
        specs.check("IfBuffer", show_traces=False)
    rows = {int(m[1]): m[0] for m in re.finditer(r"^\| (\d+) \|.*$", (specs.OUT / "IfBuffer.md").read_text(), re.M)}
    text = (paths.BOOK / "src" / "shared-buffer.md").read_text()
    assert "waits (row 3)" in text and "(row 6)" in text and "(rows 7–9)" in text and "(rows 10–11)" in text
    assert "| `CheckEmpty ▸ WakeTake` |" in rows[3] and "waitSet = {w1}" in rows[3]  # w1 waits
    assert "items[0] = 1" in rows[6] and "waitSet = {}" in rows[6]  # the put, whose notifyAll empties the wait set
    assert all(re.match(r"\| \d+ \|  \|  \| `", rows[r]) for r in (7, 8, 9)) and "taken[1] = 1" in rows[9]  # w2 fresh
    assert all(re.match(r"\| \d+ \|  \| `", rows[r]) for r in (10, 11)) and "taken[Null] = 1, count = -1" in rows[11]


def _exercise_commands() -> list[tuple[str, str]]:
    """(chapter, shell block) for every ```sh block in a chapter's "## Exercises" section."""
    found = []
    for page in sorted((paths.BOOK / "src").glob("*.md")):
        part = page.read_text().split("## Exercises", 1)
        if len(part) == 2:
            found += [(page.name, m[1]) for m in re.finditer(r"```sh\n(.*?)```", part[1].split("\n## ", 1)[0], re.S)]
    return found


@pytest.mark.full("runs every command an exercise gives (TLC on a copy: a few seconds each)", seconds=20)
@pytest.mark.parametrize("chapter, commands", _exercise_commands(), ids=lambda x: x if x.endswith(".md") else None)
def test_every_command_an_exercise_gives_runs_as_written(chapter, commands):
    """An exercise that says "check a copy" gives the command; run from the kit's root, it ends in a verdict (1 is
    TLC's finding, 0 its pass: the exercise asks the reader to predict which), never an error."""
    import subprocess
    run = subprocess.run(["bash", "-c", f"set -e -o pipefail\n{commands}"], cwd=paths.ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode in (0, 1) and "TLC says" in run.stdout, (chapter, commands, run.stdout[-2000:], run.stderr[-2000:])


def test_every_included_notebook_says_how_to_open_it():
    for page in sorted((paths.BOOK / "src").glob("*.md")):
        text = page.read_text()
        for m in re.finditer(r"^\{\{#include generated/notebooks/(\w+)\.md\}\}", text, re.M):
            before = text[:m.start()].rstrip().rsplit("\n\n", 1)[-1]
            assert f"`./lab notebooks open {m[1]}`" in before, (page.name, m[1])
