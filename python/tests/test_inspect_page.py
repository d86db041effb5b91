"""`neardup inspect`'s page in a real headless browser: the words only one document has are
struck or marked as the page says, case and spacing are not shown as differences (the
similarity ignores them), and the cluster tables show each member's text. Skipped without
chromium outside CI (as `test_label_page.py`)."""

import json
import os
import shutil
import subprocess

import pytest

CHROMIUM = os.environ.get("NEARDUP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

if not os.access(CHROMIUM, os.X_OK):
    if os.environ.get("CI"):
        raise RuntimeError(f"CI must install chromium (apt-get install chromium): {CHROMIUM}")
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import sync_playwright  # noqa: E402


def test_the_diff_strikes_what_it_says_and_ignores_case(cli, tmp_path):
    words = [f"word{i}" for i in range(60)]
    base = " ".join(words)
    # The same text with its case changed, and with one word replaced.
    shouting = " ".join(w.upper() if i % 2 else w for i, w in enumerate(words))
    edited = " ".join("changed" if i == 30 else w for i, w in enumerate(words))
    corpus = tmp_path / "corpus.jsonl"
    with open(corpus, "w") as f:
        for i, text in enumerate([base, shouting, edited]):
            f.write(json.dumps({"id": f"d{i}", "text": text}) + "\n")
    out = tmp_path / "out"
    subprocess.run([cli, "dedup", str(corpus), "-o", str(out), "--param", "threshold=0.5"],
                   check=True, capture_output=True)
    printed = subprocess.run([cli, "inspect", str(out)], check=True, capture_output=True,
                             text=True).stdout
    assert "next:" in printed and "neardup label" in printed, printed
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto((out / "inspect.html").as_uri())
        struck = page.eval_on_selector_all(
            "article del", "els => els.map(e => [e.textContent.trim(), "
            "getComputedStyle(e).textDecorationLine])")
        marked = page.eval_on_selector_all("article ins", "els => els.map(e => e.textContent.trim())")
        assert struck, "no removed word is shown"
        assert all(style == "line-through" for _, style in struck), struck
        # Only the replaced word differs; the case changes are no differences.
        assert {w for w, _ in struck} <= {"word30"}, struck
        assert set(marked) <= {"changed"}, marked
        snippets = page.eval_on_selector_all("td.snippet", "els => els.map(e => e.textContent)")
        assert snippets and all(s.lower().startswith("word0 word1") for s in snippets), snippets
        page.screenshot(path=str(tmp_path / "inspect.png"), full_page=True)
        shot = os.environ.get("NEARDUP_SCREENSHOTS")
        if shot:
            page.screenshot(path=os.path.join(shot, "inspect.png"), full_page=True)
        browser.close()
