"""The book's counterexample stepper (theme/stepper.js): every counterexample the book draws carries its trace's
frames, and a reader steps through one in Chromium, from file://, with the keyboard alone."""
import json
import re
from html import unescape

import pytest

from handofflab.docs import book
from handofflab.ground import paths, toolchain

# one worker for every test that writes into the source tree (book/src/generated, book/build)
pytestmark = pytest.mark.xdist_group("source-tree")

STEPPER = re.compile(r'<div class="stepper" data-stepper="">(.*?)<script type="application/json" class="stepper-data">'
                     r'(.*?)</script>', re.S)


def _steppers(page: str) -> list[tuple[str, dict]]:
    """(the table's HTML, the frames) of each stepper on a built page."""
    return [(m[1], json.loads(m[2])) for m in STEPPER.finditer((book.BUILD / page).read_text())]


def test_every_counterexample_the_book_draws_carries_its_frames_row_for_row():
    """Each checker's counterexamples (TLC's, Lincheck's, the stress run's, trace validation's, the recorded jcstress
    and JPF runs) are drawn with their frames: one per numbered row of the table above them, the loop's start where
    the ↻ row is, and TLC's states whole."""
    book.build()
    checkers, drawn = set(), 0
    for page in sorted(p.name for p in book.BUILD.glob("*.html")):
        html = (book.BUILD / page).read_text()
        found = _steppers(page)
        assert html.count('class="stepper"') == len(found), page  # no stepper without its frames
        if found:
            assert re.search(r'<script src="theme/stepper[-\w]*\.js"', html), page
        for table, data in found:
            rows = re.findall(r"<tr><td>(\d+)( ↻)?</td>", table)
            assert [int(n) for n, _ in rows] == list(range(1, len(data["steps"]) + 1)), (page, data["title"])
            assert [int(n) for n, loop in rows if loop] == ([data["loop_from"]] if data["loop_from"] else [])
            if data["checker"] == "tlc":
                assert data["initial"] and all(s["state"] for s in data["steps"]), data["title"]
            checkers.add(data["checker"])
            drawn += 1
    assert {"tlc", "lincheck", "stress", "trace", "jcstress", "jpf"} <= checkers, checkers
    assert drawn >= 30


@pytest.mark.full("installs playwright into .venv on first use (requirements-browser.lock), then drives Chromium",
                  seconds=40)
def test_a_reader_steps_through_a_lasso_with_the_keyboard_from_file(tmp_path):
    """pht.html opened from file://, NonPrimePht's lasso: focus its table, ↓ k times; the panel shows step k's whole
    state with exactly the entries row k changed highlighted (and the screenshot shows the highlight); → moves the
    cursor, not the book's page; the loop's start row is marked and L replays the loop's rows; End shows the verdict.
    Without JavaScript the same page shows the plain table."""
    chromium = toolchain.chromium()
    if chromium is None:
        pytest.skip("no Chromium here (sudo apt-get install chromium)")
    sync_api = toolchain.playwright()
    if not (book.BUILD / "pht.html").exists():
        book.build()
    (_, data), = [s for s in _steppers("pht.html") if s[1]["title"] == "NonPrimePht under TLC"]
    k, last, loop = 5, len(data["steps"]), data["loop_from"]
    assert loop, "NonPrimePht is a lasso: TLC's trace must say where it loops"
    url = (book.BUILD / "pht.html").as_uri()
    shot = paths.ROOT / ".cache" / "test-report" / "stepper-NonPrimePht.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            box = page.locator("div.stepper", has_text="NonPrimePht under TLC").first
            panel = box.locator(".stepper-panel")
            box.locator("table").focus()
            for _ in range(k):
                page.keyboard.press("ArrowDown")
            assert panel.locator(".stepper-where strong").inner_text() == f"Step {k} of {last}"
            frame = data["steps"][k - 1]
            marked = [unescape(t) for t in panel.locator(".stepper-state .stepper-changed").all_inner_texts()]
            # each changed entry: its variable (dt) and the entry itself, its screen-reader word "changed: " first
            want = {c.partition("[")[0] for c in frame["changed"]}
            assert {m for m in marked if "↦" not in m and not m.startswith("changed")} == want, (marked, frame)
            for c in frame["changed"]:
                var, _, key = c.partition("[")
                value = frame["state"][var]
                shown = f"{key[:-1]} ↦ {value[key[:-1]]}" if key else value
                assert any(m.endswith(shown) for m in marked), (c, marked)
            assert box.locator("tr.stepper-current td").first.inner_text() == str(k)
            assert box.locator(".stepper-changed").first.evaluate("e => getComputedStyle(e).backgroundColor") \
                == "rgb(255, 224, 102)"
            box.screenshot(path=str(shot))
            from PIL import Image
            colours = dict((c, n) for n, c in Image.open(shot).convert("RGB").getcolors(1 << 24))
            assert colours.get((255, 224, 102), 0) > 200, "no highlight in the screenshot"
            page.keyboard.press("ArrowRight")  # the book's own key for the next chapter
            assert page.url == url and panel.locator(".stepper-where strong").inner_text() == f"Step {k + 1} of {last}"
            start = box.locator("tr.stepper-loop-start td").first.inner_text()
            assert start.split()[0] == str(loop) and "↻" in start
            page.keyboard.press("l")
            page.wait_for_timeout(2500)
            now = int(re.match(r"Step (\d+)", panel.locator(".stepper-where strong").inner_text())[1])
            assert loop <= now <= last and "in the loop" in panel.inner_text()
            page.keyboard.press("End")
            assert f"tlc reports {data['verdict']}" in panel.inner_text()
            assert not errors, errors
            bare = browser.new_page(java_script_enabled=False)
            bare.goto(url)
            plain = bare.locator("div.stepper", has_text="NonPrimePht under TLC").first
            assert plain.locator("table tbody tr").count() == last and plain.locator(".stepper-panel").count() == 0
        finally:
            browser.close()


@pytest.mark.full("installs playwright and axe-core on first use, then axe-core on each of the book's ~40 pages in "
                  "Chromium", seconds=90)
def test_axe_core_finds_no_serious_or_critical_violation_on_any_page_and_would_find_one():
    """axe-core (npm), as course sites check theirs: every page of the built book, its steppers moved and filled, has
    no serious or critical WCAG A/AA violation; and the same check, on a page with an unlabelled button and an image
    without its text, reports them (the check can fail)."""
    if toolchain.chromium() is None:
        pytest.skip("no Chromium here (sudo apt-get install chromium)")
    book.build()
    findings = book.accessibility()
    bad = [str(f) for f in findings if f.impact in book.A11Y_IMPACTS]
    assert not bad, "\n".join(bad)
    probe = book.BUILD / "zz-a11y-probe.html"
    probe.write_text('<!DOCTYPE html><html lang="en"><head><title>probe</title></head><body><main>'
                     '<button></button><img src="store-buffer.svg"></main></body></html>')
    try:
        rules = {(f.rule, f.impact) for f in book.accessibility([probe.name])}
    finally:
        probe.unlink()
    assert ("button-name", "critical") in rules and ("image-alt", "critical") in rules, rules
