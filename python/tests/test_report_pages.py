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


def test_every_report_answers_on_its_first_pages_few_screens():
    answers = sorted(REPORTS.glob("*/index.html"))
    assert len(answers) > 10, answers
    too_long = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWPORT)
        for answer in answers:
            page.goto(answer.as_uri())
            screens = page.evaluate("document.documentElement.scrollHeight") / VIEWPORT["height"]
            if screens > MAX_SCREENS:
                too_long.append(f"{answer.parent.name}: {screens:.1f} screens")
            # Each of the report's other pages is one click away, and is there.
            for link in page.locator("header .tabs a").all():
                target = answer.parent / link.get_attribute("href")
                assert target.is_file(), f"{answer}: tab to missing {target}"
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
