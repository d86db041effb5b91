"""`neardup label`'s page in a real headless browser (Debian's chromium driven by Playwright):
label pairs with the keyboard, undo one, kill the server, start it again, finish, and the
labels file holds every answer once. CI installs chromium (apt) and Playwright (the test
extras); elsewhere the test is skipped when chromium is absent."""

import json
import os
import re
import shutil
import signal
import subprocess

import pytest

CHROMIUM = os.environ.get("NEARDUP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

if not os.access(CHROMIUM, os.X_OK):
    if os.environ.get("CI"):
        raise RuntimeError(f"CI must install chromium (apt-get install chromium): {CHROMIUM}")
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import sync_playwright  # noqa: E402


def corpus(path):
    """Chains of documents, each the one before with a word replaced: pairs at every
    similarity."""
    words = [f"w{i}" for i in range(60)]
    with open(path, "w") as f:
        for c in range(12):
            doc = [f"{w}c{c}" for w in words]
            for i in range(8):
                doc[(i * 7) % 60] = f"x{c}_{i}"
                f.write(json.dumps({"id": f"c{c}-{i}", "text": " ".join(doc)}) + "\n")


def start(cli, corpus_path, out):
    proc = subprocess.Popen(
        [cli, "label", "--corpus", str(corpus_path), "--out", str(out), "--per-stratum", "4"],
        stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        found = re.search(r"label at (http://127\.0\.0\.1:\d+/)", line)
        if found:
            return proc, found.group(1)
    raise AssertionError(f"the server did not start (exit {proc.wait()})")


def rows(out):
    return [line.split(",") for line in out.read_text().splitlines()[1:]]


def answered(page):
    return int(page.evaluate("document.body.dataset.answered"))


def press(page, key, expect):
    page.keyboard.press(key)
    page.wait_for_function(f"document.body.dataset.answered == '{expect}'")


def test_label_with_the_keyboard_kill_resume_finish(cli, tmp_path):
    corpus_path, out = tmp_path / "corpus.jsonl", tmp_path / "labels.csv"
    corpus(corpus_path)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        proc, url = start(cli, corpus_path, out)
        page.goto(url)
        page.wait_for_function("document.body.dataset.answered == '0'")
        total = int(re.search(r"of (\d+)", page.text_content("#progress")).group(1))
        assert total > 20
        for i in range(20):
            press(page, "dns"[i % 3], i + 1)
        press(page, "u", 19)          # the 20th answer taken back …
        press(page, "d", 20)          # … and given again
        page.screenshot(path=str(tmp_path / "label-page.png"))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert len(rows(out)) == 20
        proc, url = start(cli, corpus_path, out)
        page.goto(url)
        page.wait_for_function("document.body.dataset.answered == '20'")
        for i in range(20, total):
            press(page, "n", i + 1)
        assert "Every pair is answered" in page.text_content("#done")
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        browser.close()
    labelled = rows(out)
    pairs = {(r[0], r[1]) for r in labelled}
    assert len(labelled) == len(pairs) == total, "every answer once"
    assert labelled[19][2] == "1", "the undone answer was replaced"
    assert {r[2] for r in labelled} == {"1", "0", "skip"}


def test_buttons_answer_and_the_question_is_asked(cli, tmp_path):
    """The key hints are buttons (a mouse user can label), and `--question` says what a
    duplicate is, above every pair."""
    corpus_path, out = tmp_path / "corpus.jsonl", tmp_path / "labels.csv"
    corpus(corpus_path)
    question = "Is one of these a repost of the other?"
    proc = subprocess.Popen(
        [cli, "label", "--corpus", str(corpus_path), "-o", str(out), "--per-stratum", "2",
         "--question", question],
        stderr=subprocess.PIPE, text=True)
    url = None
    for line in proc.stderr:
        found = re.search(r"label at (http://127\.0\.0\.1:\d+/)", line)
        if found:
            url = found.group(1)
            break
    assert url, f"the server did not start (exit {proc.wait()})"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(url)
            page.wait_for_function("document.body.dataset.answered == '0'")
            assert page.text_content("#question") == question
            page.click("button[data-key=d]")
            page.wait_for_function("document.body.dataset.answered == '1'")
            page.click("button[data-key=n]")
            page.wait_for_function("document.body.dataset.answered == '2'")
            page.click("button[data-key=u]")
            page.wait_for_function("document.body.dataset.answered == '1'")
            page.screenshot(path=str(tmp_path / "label-buttons.png"))
            shot = os.environ.get("NEARDUP_SCREENSHOTS")
            if shot:
                page.screenshot(path=os.path.join(shot, "label-buttons.png"))
            browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    assert [r[2] for r in rows(out)] == ["1"]
