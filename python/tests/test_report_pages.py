"""The committed report site in a real headless browser (Debian's chromium driven by
Playwright): every report's first page answers in a few screens — its question, then its
headline chart and key table — and the details (every chart, examples, timing, configuration)
are its other pages, each linked from a line every page of the report carries. CI installs
chromium (apt) and Playwright (the test extras); elsewhere the test is skipped when chromium
is absent."""

import os
import pathlib
import shutil

import pytest

CHROMIUM = os.environ.get("NEARDUP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

if not os.access(CHROMIUM, os.X_OK):
    if os.environ.get("CI"):
        raise RuntimeError(f"CI must install chromium (apt-get install chromium): {CHROMIUM}")
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import sync_playwright  # noqa: E402

REPORTS = pathlib.Path(__file__).resolve().parents[2] / "reports"
#: A screen of a laptop, and how many of them a report's first page may take (#53 item 13).
VIEWPORT = {"width": 1280, "height": 800}
MAX_SCREENS = 6


def screens_of(page, html):
    """Opens `html` and returns its height in screens of VIEWPORT."""
    page.goto(html.as_uri())
    return page.evaluate("document.documentElement.scrollHeight") / VIEWPORT["height"]


def test_every_page_of_every_report_takes_few_screens():
    answers = sorted(REPORTS.glob("*/index.html"))
    assert len(answers) > 10, answers
    too_long = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWPORT)
        for answer in answers:
            screens = screens_of(page, answer)
            if screens > MAX_SCREENS:
                too_long.append(f"{answer.parent.name}: {screens:.1f} screens")
            # Each of the report's other pages is one click away, and is there.
            for link in page.locator("header .tabs a").all():
                target = answer.parent / link.get_attribute("href")
                assert target.is_file(), f"{answer}: tab to missing {target}"
        # The other pages too: all charts (a gallery, per-algorithm families folded) and the
        # example pairs (an overview, sections folded) ran 8–20 screens before #53.
        for other in sorted(set(REPORTS.glob("*/*.html")) - set(answers)):
            screens = screens_of(page, other)
            if screens > MAX_SCREENS:
                too_long.append(f"{other.parent.name}/{other.name}: {screens:.1f} screens")
        browser.close()
    assert not too_long, too_long


def test_a_reports_pages_link_each_other_and_its_headline_chart_comes_first():
    folder = REPORTS / "real-corpora"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWPORT)
        page.goto((folder / "index.html").as_uri())
        # The heat map, the report's headline, starts within the first screen.
        top = page.evaluate("document.querySelector('main img').getBoundingClientRect().top")
        assert top < VIEWPORT["height"], top
        tabs = [a.inner_text() for a in page.locator("header .tabs a").all()]
        assert tabs[0] == "Answer" and "All charts" in tabs and "Timing" in tabs, tabs
        page.locator("header .tabs a", has_text="All charts").click()
        assert page.url.endswith("/charts.html")
        assert page.locator("main img").count() >= 5
        assert page.locator("header .tabs a.here").inner_text() == "All charts"
        browser.close()


def test_example_pages_open_on_an_overview_and_a_cell_opens_its_pairs():
    """Each report's example pairs page fits in a few screens — the overview table of what
    every algorithm misses, its sections folded (unfolded they ran 12–20 screens, #53 item
    13) — and a click on a cell opens the folded blocks around that cell's pairs."""
    pages = sorted(REPORTS.glob("*/examples.html"))
    assert len(pages) >= 4, pages
    too_long = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWPORT)
        for examples in pages:
            screens = screens_of(page, examples)
            if screens > MAX_SCREENS:
                too_long.append(f"{examples.parent.name}: {screens:.1f} screens")
            assert page.locator("main table a").count() > 0, f"{examples}: no overview table"
            link = page.locator("main table a").first
            target = link.get_attribute("href")
            assert not page.locator(f"{target} .pair").first.is_visible(), examples
            link.click()
            assert page.locator(f"{target} .pair").first.is_visible(), (examples, target)
        browser.close()
    assert not too_long, too_long
