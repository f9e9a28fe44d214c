"""The book layer: it builds offline, every listing comes from a real file,
and a broken include, link or formula fails the build."""
import re
import shutil

import pytest

from handofflab.docs import book
from handofflab.ground import paths
from handofflab.ground.console import LabError

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
    """The kit's code in a chapter is included from the file that runs; only an exercise's solution, which shows the
    reader's change and not the kit's code, may write code of its own."""
    for chapter in (paths.BOOK / "src").glob("*.md"):
        text = re.sub(r'<details class="solution".*?</details>', "", chapter.read_text(), flags=re.S)
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
    from handofflab.ground import catalog
    from handofflab.java import javacheck
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


@pytest.mark.skipif(__import__("handofflab.ground.toolchain").ground.toolchain.chromium() is None,
                    reason="no Chromium here (sudo apt-get install chromium)")
def test_a_reader_sees_math_highlighted_code_and_plots_in_chromium():
    shots = book.screenshots()
    assert {s.page for s in shots} == {p for p, _ in book.SCREENSHOT_PAGES}
    assert all(not s.problems and s.png.stat().st_size > 20_000 for s in shots)


def test_a_page_without_its_plot_is_reported(tmp_path, monkeypatch):
    """The screenshot check can fail: a page that should show a plot and shows none."""
    if __import__("handofflab.ground.toolchain").ground.toolchain.chromium() is None:
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
    command and the book agree on the column), and a design's table lists every class of that design."""
    from handofflab.ground import catalog
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
    # a design that has a table lists every class of it there: a contributor's new twin gets its row
    tabled = {cat.variant(name).handoff.name for name, _ in seen}
    for design in tabled:
        classes = {v.name for v in cat.variants.values() if v.handoff.name == design and v.java_class}
        assert classes <= {name for name, _ in seen}, \
            f"the book's table of {design} lacks {sorted(classes - {name for name, _ in seen})}: give each its row"


def test_every_claim_the_chapters_make_about_a_trace_or_table_holds_and_a_false_one_fails(tmp_path):
    """Prose that names rows of a drawn trace, the thread of a step, or a figure of an included table says so in a
    claim beside the sentence, and the build holds each to what it draws now (issue 86 found the IfBuffer sentence
    telling of two workers woken together above a trace where one waited and the other came in fresh). The kit's own
    claims hold; a claim of a thread that did not take the step, of a row the trace lacks, of a value or a figure not
    shown, each fails with the chapter's line."""
    from handofflab.ground.swimlanes import Step, Swimlane
    book.generate()
    assert book.check_claims() == []
    assert len(book.CLAIM.findall("\n".join(p.read_text() for p in (paths.BOOK / "src").glob("*.md")))) >= 12
    src, gen = tmp_path / "src", tmp_path / "generated"
    (gen / "specs").mkdir(parents=True)
    (gen / "notebooks").mkdir()
    (gen / "specs" / "X.md").write_text(Swimlane("X under TLC", "tlc", "deadlock", ["a1", "w1"], [
        Step("w1", "CheckEmpty ▸ WakeTake", ["waitSet = {w1}"]), Step("a1", "Put ▸ Accept", ["count = 1"])],
        ending={"a1": "stuck: WakePut", "w1": "stuck: WakeTake"}).stepper_markdown())
    (gen / "notebooks" / "bench.md").write_text("| FastBuffer | 1.26 |\n")
    src.mkdir()
    good = ('w1 waits first. <!-- specs/X row 1: lane=w1, "waitSet = {w1}" --> <!-- specs/X row end: "stuck: WakePut" -->'
            '\n1.26 times. <!-- notebooks/bench: "1.26" -->\n')
    (src / "ok.md").write_text(good)
    assert book.check_claims(src, gen) == []
    (src / "bad.md").write_text('intro\nw2 waits. <!-- specs/X row 1: lane=a1 --> <!-- specs/X row 9: "x" -->\n'
                                '<!-- specs/X row 2: "count = 2" --> <!-- notebooks/bench: "2.3" --> <!-- specs/Y: "z" -->\n')
    wrong = book.check_claims(src, gen)
    assert len(wrong) == 5 and all(w.startswith("bad.md:") for w in wrong), wrong
    assert "bad.md:2: row 1 of specs/X is not a1's step" in wrong[0] and "has no row 9" in wrong[1]
    assert 'does not show "count = 2"' in wrong[2] and 'notebooks/bench does not show "2.3"' in wrong[3]
    assert "specs/Y is not drawn" in wrong[4]
    monkey = pytest.MonkeyPatch()
    monkey.setattr(book, "check_claims", lambda: wrong)
    try:
        with pytest.raises(LabError, match="the chapters say what their traces and tables do not show"):
            book.build()
    finally:
        monkey.undo()


def _exercises() -> list[tuple[str, int, str]]:
    """(chapter, number, text) for every numbered exercise of a chapter's "## Exercises" section."""
    found = []
    for page in sorted((paths.BOOK / "src").glob("*.md")):
        part = page.read_text().split("## Exercises", 1)
        if len(part) == 2:
            section = part[1].split("\n## ", 1)[0].split("\nThe lab", 1)[0]
            found += [(page.name, int(m[1]), m[2]) for m in
                      re.finditer(r"^(\d+)\. (.*?)(?=^\d+\. |\Z)", section, re.S | re.M)]
    return found


def _exercise_commands() -> list[tuple[str, str]]:
    """(chapter, shell block) for every ```sh block in a chapter's exercises."""
    return [(f"{chapter}#{n}", m[1]) for chapter, n, text in _exercises()
            for m in re.finditer(r"```sh\n(.*?)```", re.sub(r"(?m)^   ", "", text), re.S)]


def test_every_exercise_gives_its_command_and_a_folded_solution():
    """Each exercise of each chapter has the command that starts it, to copy and paste (a ```sh block), and a solution
    folded under it (`<details class="solution">`; one that answers part of a lab names it, `data-lab`, and a student
    copy's book leaves it out)."""
    exercises = _exercises()
    assert len(exercises) >= 30
    labs = {p.name for p in paths.LABS.iterdir() if p.is_dir()}
    for chapter, n, text in exercises:
        assert "```sh\n" in text, f"{chapter} exercise {n} gives no command"
        folded = re.findall(r'<details class="solution"(?: data-lab="([\w-]+)")?><summary>Solution</summary>\n(.+?)'
                            r'</details>', text, re.S)
        assert len(folded) == 1 and len(folded[0][1].split()) >= 15, f"{chapter} exercise {n}: no solution under it"
        assert not folded[0][0] or folded[0][0] in labs, (chapter, n, folded[0][0])


def test_a_student_copys_book_leaves_out_the_solutions_that_answer_a_lab():
    from handofflab.commands import copybook
    page = ('1. Fix it.\n\n   <details class="solution" data-lab="buffer"><summary>Solution</summary>\n\n   use while'
            '\n\n   </details>\n2. Think.\n\n   <details class="solution"><summary>Solution</summary>\n\n   because'
            '\n\n   </details>\n')
    out = copybook.SOLUTION.sub(lambda m: copybook.SOLUTION_NOTE.format(lab=m[1]), page)
    assert "use while" not in out and "answers part of the lab* buffer" in out and "because" in out


@pytest.mark.full("runs every command an exercise gives (TLC on a copy, a check, a quick bench: seconds to a minute each)",
                  seconds=30)
@pytest.mark.parametrize("where, commands", _exercise_commands(), ids=lambda x: x if ".md#" in x else None)
def test_every_command_an_exercise_gives_runs_as_written(where, commands):
    """An exercise's command, run from the kit's root as written, ends in a verdict or a result: exit 0, or 1 where a
    checker found what the exercise asks the reader to predict; never an error (2), a traceback or a hang."""
    import subprocess
    run = subprocess.run(["bash", "-c", f"set -e -o pipefail\n{commands}"], cwd=paths.ROOT, capture_output=True,
                         text=True, timeout=900)
    out = run.stdout + run.stderr
    assert run.returncode in (0, 1) and "Traceback" not in out, (where, commands, out[-3000:])
    if "--file" in commands:
        assert "TLC says" in run.stdout, (where, out[-2000:])


def test_every_included_notebook_says_how_to_open_it():
    for page in sorted((paths.BOOK / "src").glob("*.md")):
        text = page.read_text()
        for m in re.finditer(r"^\{\{#include generated/notebooks/(\w+)\.md\}\}", text, re.M):
            before = text[:m.start()].rstrip().rsplit("\n\n", 1)[-1]
            assert f"`./lab notebooks open {m[1]}`" in before, (page.name, m[1])


def test_the_fast_chapters_measured_table_is_the_shipped_reference_run():
    """fast.md's Measured table says it is the notebook's shipped reference: each of its figures (items per µs to three
    digits, the ratio to ArrayBlockingQueue to two decimals) is that CSV's, so the prose around it cannot quote a run
    the page does not show (issue 86 found the chapter's opening quoting ratios its own table did not have)."""
    import csv
    ref = {(r["impl"], int(r["workers"])): r
           for r in csv.DictReader((paths.NOTEBOOKS / "reference" / "handoffs" / "results.csv").open())}
    text = (paths.BOOK / "src" / "fast.md").read_text()
    table = text.split("## Measured", 1)[1]
    rows = re.findall(r"^\| [^|]*?`(\w+)`[^|]* \| (.+) \|$", table.split("\n\n| ", 1)[0] + "\n" + table, re.M)
    rows = [(name, cells) for name, cells in rows if "[×" in cells]
    assert len(rows) >= 7
    for name, cells in rows:
        for workers, cell in zip((1, 2, 4), cells.split(" | ")):
            figure, ratio = re.fullmatch(r"([\d.]+) \[×([\d.]+)\]", cell.strip()).groups()
            r = ref[(name, workers)]
            assert figure == f"{float(r['items_per_us']):#.3g}" and ratio == f"{float(r['ratio_to_abq']):.2f}", \
                (name, workers, cell, r["items_per_us"], r["ratio_to_abq"])
    opening = text.split("## Step 1", 1)[0]
    pht = [f"{float(ref[('ParallelHashTable', w)]['ratio_to_abq']):.2f}" for w in (1, 4)]
    ring = [f"{float(ref[('FastBuffer', w)]['ratio_to_abq']):.2f}" for w in (1, 2, 4)]
    assert f"moved {pht[0]} items" in opening and f"and {pht[1]} with four" in opening, pht
    assert f"moved {ring[0]}, {ring[1]} and {ring[2]} times" in opening, ring
    assert f"{ring[0]}× with one worker and {ring[2]}× with four" in text, ring  # step 2's looks, against this run


def test_the_fast_chapters_sleeping_table_is_the_shipped_reference_run():
    """fast.md's table of what sleeping costs (p50 / p99 / p99.9 in µs; idle CPU in % of a core) is the shipped
    sleeping.csv's, figure for figure, as `./lab bench handoffs` writes its own summary; and the sentence that says
    the sleepers burn nothing idle and the polled queue a quarter to three quarters of a core is that CSV's too."""
    import csv
    from handofflab.benches import bench_handoffs
    ref = {(r["impl"], int(r["workers"])): r
           for r in csv.DictReader((paths.NOTEBOOKS / "reference" / "handoffs" / "sleeping.csv").open())}
    text = (paths.BOOK / "src" / "fast.md").read_text()
    section = text.split("### What sleeping costs and saves", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| [^|]*?`(\w+)`[^|]* \| (.+) \|$", section, re.M)
    assert len(rows) >= 6
    for name, cells in rows:
        for workers, cell in zip((1, 2, 4), cells.split(" | ")):
            r = ref[(name, workers)]
            want = (f"{bench_handoffs._us(float(r['p50_us']))} / {bench_handoffs._us(float(r['p99_us']))} / "
                    f"{bench_handoffs._us(float(r['p999_us']))}; {100 * float(r['idle_cores']):.0f} %")
            assert cell.strip() == want, (name, workers, cell, want)
    spmc = [100 * float(ref[("SpmcArrayQueue", w)]["idle_cores"]) for w in (1, 4)]
    assert 25 <= spmc[0] <= 40 and 65 <= spmc[1] <= 85, spmc  # "more than a quarter of a core ... two thirds with four"
    assert all(float(r["idle_cores"]) < 0.005 for (impl, _), r in ref.items() if impl in
               ("ArrayBlockingQueue", "MonitorBuffer", "ParallelHashTable", "FastPht", "FastBuffer"))


def test_a_pinned_trace_that_tlc_no_longer_draws_stops_the_build(tmp_path, monkeypatch):
    """Every TLC trace a chapter draws is pinned (book/recorded/NAME.tlc.json) and each build holds TLC's fresh trace
    to it; a pin that differs from TLC's trace by one step, or a trace with no pin, stops the build and says how to pin
    again (issue 86: the chapter's NonPrimePht lasso was not the one TLC drew, so a reader could not compare rows)."""
    import json
    from handofflab.models import specs
    book.generate()
    book.check_pins()  # the kit's pins are what TLC draws now
    drawn = [f[:-3] for f in book.included("specs") if f != "summary.md"]
    assert sorted(p.name for p in book.RECORDED.glob("*.tlc.json")) == sorted(f"{n}.tlc.json" for n in drawn)
    pins = tmp_path / "recorded"
    shutil.copytree(book.RECORDED, pins)
    monkeypatch.setattr(book, "RECORDED", pins)
    pin = json.loads((pins / "IfBuffer.tlc.json").read_text())
    pin["steps"][5]["action"] = "Put ▸ Elsewhere"
    (pins / "IfBuffer.tlc.json").write_text(json.dumps(pin))
    with pytest.raises(LabError, match=r"IfBuffer.tlc.json is no longer what TLC draws: row 6 was a1: Put ▸ Elsewhere") as e:
        book.check_pins()
    assert "./lab check specs IfBuffer --pin" in e.value.fix
    (pins / "IfBuffer.tlc.json").unlink()
    with pytest.raises(LabError, match="the book draws TLC's trace of IfBuffer, which is not pinned"):
        book.check_pins()
    assert (specs.OUT / "IfBuffer.json").exists()


def test_no_page_repeats_a_heading_or_states_a_theorem_twice():
    """A notebook included in a chapter leaves out what the chapter already says (its cells tagged notebook-only: a
    title, an introduction that restates the theorems), so no page of the built book has two headings alike or states
    a theorem twice (issue 86: Theorems 1-3 twice on one page; the DHT chapter's headings repeated), and a figure's
    caption is whole sentences, not a line cut short."""
    book.build()
    for page in sorted(book.BUILD.glob("*.html")):
        if page.name in ("print.html", "404.html", "toc.html"):
            continue  # print.html is every chapter on one page, by design
        html = page.read_text()
        headings = [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", html, re.S)]
        repeated = {h for h in headings if headings.count(h) > 1}
        assert not repeated, (page.name, repeated)
        stated = re.findall(r"<strong>(Theorem \d)[ .(]", html)
        assert len(stated) == len(set(stated)), (page.name, stated)
        for alt in re.findall(r'<img src="generated/notebooks/[^"]+" alt="Figure: ([^"]+)"', html):
            assert alt.rstrip().endswith((".", "?", "!", ":", "…", ")")) or ";" not in alt, (page.name, alt)
