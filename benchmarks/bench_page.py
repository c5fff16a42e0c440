"""The page in Chromium on the embedded demo database: submit -> first results, and -> every reading's panel.

    python benchmarks/bench_page.py [--repeat 3] [--out DIR]

Serves the page (`ambiguity-checker serve`, no --db) on a free port, types the demo question three times
and prints, per submit, when the verdict first names every product (first results) and when every reading's
panel shows its answer, measured by the browser's own clock. Needs Debian's chromium and playwright (the
same as tests/test_browser.py, whose helpers in tests/support.py it reuses); the figures are in the README.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker_app.ui.display import EXAMPLES  # noqa: E402
from tests.support import CHROMIUM, CHROMIUM_ARGS, TOP_PRODUCTS, TOP_SELLING, main, serving, shot  # noqa: E402

# In the page: when Enter is pressed, when the verdict first names every product (first results), and when
# every reading's panel shows its answer, measured by the browser's own clock (no polling delay).
MARK_TIMES = """(products) => {
  window.__marks = {};
  const box = document.querySelector('[data-testid="stMain"] input[aria-label="Your data question"]');
  box.addEventListener('keydown', (e) => { if (e.key === 'Enter') window.__marks.submitted = performance.now(); },
                       {capture: true, once: true});
  const check = () => {
    const m = window.__marks;
    if (m.submitted === undefined) return;
    const verdict = document.querySelector('[data-testid="stMain"] .st-key-verdict_main');
    const names = verdict ? [...verdict.querySelectorAll('strong')].map((e) => e.innerText) : [];
    if (m.first === undefined && products.every((p) => names.includes(p))) m.first = performance.now();
    const metrics = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMetricValue"]')];
    if (m.first !== undefined && m.panels === undefined && metrics.length >= products.length) {
      m.panels = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def measure(repeat: int, out: Path) -> list[tuple[int, float, float]]:
    from playwright.sync_api import sync_playwright

    timings = []
    with sync_playwright() as playwright:
        executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1366, "height": 900})  # an ordinary laptop window
        page = context.new_page()
        page.set_default_timeout(60_000)
        try:
            with serving(out) as base:  # no --db: the embedded demo database
                for attempt in range(1, repeat + 1):
                    page.goto(base)
                    box = main(page).get_by_label("Your data question")
                    box.wait_for()
                    # the page has finished its first run: the last example and the sidebar's schema are drawn
                    main(page).get_by_role("button", name=EXAMPLES[-1]).wait_for()
                    page.locator('[data-testid="stSidebar"]').get_by_text("demo (sqlite)").wait_for()
                    page.wait_for_timeout(1000)
                    box.fill(TOP_SELLING)
                    page.evaluate(MARK_TIMES, list(TOP_PRODUCTS))
                    box.press("Enter")
                    page.wait_for_function("() => window.__marks && window.__marks.panels")
                    marks = page.evaluate("() => window.__marks")
                    timings.append((attempt, (marks["first"] - marks["submitted"]) / 1000,
                                    (marks["panels"] - marks["submitted"]) / 1000))
                shot(page, out / "embedded-demo.png")
        finally:
            context.close()
            browser.close()
    return timings


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="folder for the server log and a screenshot")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-page-"))
    out.mkdir(parents=True, exist_ok=True)
    for attempt, first, panels in measure(args.repeat, out):
        print(f"submit {attempt}: first results (verdict with the three answers) {first * 1000:.0f} ms, "
              f"every reading's panel {panels * 1000:.0f} ms")
    print(f"screenshot and server log: {out}")


if __name__ == "__main__":
    run()
