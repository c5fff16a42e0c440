"""The page in a real browser: `ambiguity-checker serve` (and `demo`) on a free port, driven by Debian's
Chromium through Playwright (no `playwright install`). Covered: the pending clarification and the answered
state, Compare SQL with one statement and with repair candidates, the chart of a series and of a scalar
question, the demo command on three engines, a reinstall under a running page, an engine down.

Screenshots land in the test's temporary folder, or in $CHECKER_SCREENSHOTS (`scripts/screenshots.py`
points it at docs/screenshots, which the README shows). The submit -> first results time on the embedded
database is printed to the log (run with -s to see it)."""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from checker_app.ui.display import EXAMPLES
from tests.support import (
    BACKENDS,
    CHROMIUM,
    CHROMIUM_ARGS,
    REPO,
    TOP_PRODUCTS,
    TOP_SELLING,
    main,
    serving,
    settle,
    shot,
    unavailable,
)

DEAD_PG = "pg=postgresql+psycopg://u:s3cret@127.0.0.1:1/x"
VIEWPORT = {"width": 1500, "height": 3000}  # tall: Streamlit scrolls inside the page, not the window
SHOT_VIEWPORT = {"width": 1400, "height": 1000}  # what the README's screenshots show
SCREENSHOTS = os.environ.get("CHECKER_SCREENSHOTS")
AMBIGUOUS = "SELECT id, name FROM orders JOIN customers ON customer_id = customers.id ORDER BY ordered_at DESC LIMIT 3"



@pytest.fixture(scope="module")
def browser():
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        unavailable(f"chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install playwright)")
    with sync_playwright() as playwright:
        executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, tmp_path):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    with contextlib.suppress(Exception):  # what the page showed last (useful when a step failed)
        page.screenshot(path=str(tmp_path / "last.png"))
    context.close()


def metric_values(page, n: int, scope: str = '[data-testid="stMain"]') -> list[str]:
    """The readings' headline answers (st.metric values) in `scope`, once at least `n` are drawn (elements
    after the verdict load lazily)."""
    css = f'{scope} [data-testid="stMetricValue"]'
    page.wait_for_function("([css, n]) => document.querySelectorAll(css).length >= n", arg=[css, n])
    return [t.strip() for t in page.locator(css).all_inner_texts()]


def wait_count(page, css: str, n: int) -> None:
    """Wait until `n` elements match (tables load lazily after the rest of the page)."""
    page.wait_for_function("([css, n]) => document.querySelectorAll(css).length === n", arg=[css, n])


def visible_text(page, text: str):
    return main(page).get_by_text(text, exact=True).filter(visible=True).first


def open_link(page, base: str, question: str) -> None:
    page.goto(f"{base}/?q={urllib.parse.quote(question)}")
    main(page).get_by_role("heading", name="Ambiguity checker").wait_for()


def shots_dir(tmp_path: Path) -> Path:
    target = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    target.mkdir(parents=True, exist_ok=True)
    return target


@pytest.fixture
def small(browser):  # a laptop-sized window for the README's screenshots
    context = browser.new_context(viewport=SHOT_VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(90_000)
    yield page
    context.close()


def readme_shot(page, tmp_path: Path, name: str, at=None) -> Path:
    """A screenshot for the README: the window with `at` (a locator) scrolled to the top."""
    settle(page)
    if at is not None:
        # to the top, then a little back down: Streamlit's fixed header covers the first 60 px
        at.evaluate("""(e) => { e.scrollIntoView({block: 'start'}); let p = e.parentElement;
                       while (p && p.scrollHeight <= p.clientHeight) p = p.parentElement;
                       if (p) p.scrollTop -= 80; }""")
        page.wait_for_timeout(300)
    path = shots_dir(tmp_path) / name
    page.screenshot(path=str(path))
    return path


def wait_text(page, text: str, scope: str = '[data-testid="stMain"]') -> None:
    page.locator(scope).get_by_text(text, exact=False).first.wait_for()


def test_pending_clarification_keeps_the_question_at_the_top_then_the_answered_box(small, demo_urls, tmp_path) -> None:
    page = small
    with serving(tmp_path, *(f"{b}={demo_urls[b]}" for b in BACKENDS)) as base:
        open_link(page, base, TOP_SELLING)
        verdict = page.locator(".st-key-verdict_main")
        verdict.get_by_text("8 readings, 3 different answers").wait_for()
        page.locator(".st-key-wizard").wait_for()
        box = main(page).get_by_label("Your data question")
        example = main(page).get_by_role("button", name=EXAMPLES[-1])
        box.wait_for()
        example.wait_for()
        settle(page)
        # the question box and the examples stay above the verdict while the clarification is pending
        assert box.is_visible() and example.is_visible()
        assert box.bounding_box()["y"] < verdict.bounding_box()["y"]
        assert example.bounding_box()["width"] >= example.evaluate("(e) => e.scrollWidth") - 1  # not truncated
        bullets = verdict.get_by_role("button")
        assert bullets.count() == 8  # metric x currency treatment (money only) x which orders count
        assert {p for p in TOP_PRODUCTS if bullets.filter(has_text=p).count() >= 1} == set(TOP_PRODUCTS)
        assert verdict.bounding_box()["y"] < 900  # the verdict leads: in the first screen
        # SQL collapsed; the Deploy toolbar hidden
        assert not main(page).locator("details[open] code").count()
        assert page.get_by_role("button", name="Deploy").count() == 0
        readme_shot(page, tmp_path, "pending-clarification.png")

        bullets.filter(has_text="USB-C Cable").first.click()
        answered = page.locator(".st-key-answers")
        answered.get_by_text("Answered: USB-C Cable, by units").wait_for()
        assert page.locator(".st-key-verdict_main").count() == 0  # the answered box replaced the red one
        tool = answered.locator("details").filter(has_text="Tool output")
        assert tool.count() == 1 and tool.get_attribute("open") is None  # collapsed
        assert metric_values(page, 1, ".st-key-answers") == ["USB-C Cable"]
        answered.locator("summary").filter(has_text="SQL (").first.click()  # the anchored SQL, opened
        code = answered.locator("code").filter(has_text="SELECT").first.inner_text()
        assert "SUM(" in code and '"quantity"' in code and "\n" in code   # pretty-printed
        assert "ALL PRIVILEGES on *.*" in main(page).inner_text()   # the grant as written, not eaten as italics
        readme_shot(page, tmp_path, "answered.png", answered)


def test_compare_sql_with_one_statement_and_with_repair_candidates(small, demo_urls, tmp_path) -> None:
    page = small
    with serving(tmp_path, *(f"{b}={demo_urls[b]}" for b in BACKENDS)) as base:
        page.goto(f"{base}/compare")
        body = main(page)
        body.get_by_role("heading", name="Compare SQL").wait_for()
        body.locator("textarea").first.fill("SELECT COUNT(*) AS orders FROM orders")
        body.get_by_role("button", name="Compare").click()
        wait_text(page, "1 statement, answered")
        assert metric_values(page, 1) == ["6,000"]
        body.locator("textarea").first.fill(AMBIGUOUS)
        body.get_by_role("button", name="Compare").click()
        wait_text(page, "the candidates give different answers")
        candidates = body.locator('[class*="st-key-cand_cmp_1_"]')
        candidates.nth(1).wait_for()  # the second may render a rerun after the first on a loaded machine
        assert candidates.count() >= 2
        first = candidates.first
        assert "orders.id" in first.inner_text() and "SELECT" in first.locator("code").inner_text()
        assert "{'kind'" not in body.inner_text() and "after: {" not in body.inner_text()
        readme_shot(page, tmp_path, "compare-repair.png", body.get_by_text("Candidate 1", exact=False).first)
        first.get_by_role("button", name="Use this candidate").click()
        wait_text(page, "1 statement, answered")
        assert "orders.id" in body.locator("textarea").first.input_value()


def chart_of(page):
    chart = main(page).locator('[data-testid="stVegaLiteChart"]').first
    chart.wait_for()
    chart.locator("canvas, svg").first.wait_for()
    return chart


def test_the_chart_of_a_series_and_of_a_scalar_question(small, demo_urls, tmp_path) -> None:
    page = small
    with serving(tmp_path, f"sqlite={demo_urls['sqlite']}") as base:
        open_link(page, base, "How have sales trended recently?")
        wait_text(page, "Each reading over its whole range")
        chart = chart_of(page)
        readme_shot(page, tmp_path, "chart-series.png", main(page).get_by_text("Each reading over its whole range"))
        assert chart.bounding_box()["height"] > 250
        open_link(page, base, "Show me revenue for Acme")
        wait_text(page, "What each reading returns")
        chart_of(page)
        readme_shot(page, tmp_path, "chart-scalar.png", main(page).get_by_text("What each reading returns"))


def test_the_demo_command_serves_three_engines(small, demo_urls, tmp_path) -> None:
    page = small
    extra = ("--postgres", demo_urls["postgresql"], "--mysql", demo_urls["mysql"])
    with serving(tmp_path, command_name="demo", extra=extra) as base:
        said = serving.log.read_text(errors="replace")  # type: ignore[attr-defined]
        for name in ("sqlite", "postgresql", "mariadb"):
            assert re.search(rf"found {name}\b", said), said
        assert "3 engine(s)" in said
        open_link(page, base, TOP_SELLING)
        sidebar = page.locator('[data-testid="stSidebar"]')
        for name in ("sqlite", "postgresql", "mariadb"):
            sidebar.get_by_text(name, exact=True).first.wait_for()
        sidebar.get_by_text("seeded by the demo command", exact=True).wait_for()  # not "from --db"
        assert sidebar.get_by_text("from --db").count() == 0
        main(page).get_by_text("same rows on", exact=False).first.wait_for()
        readme_shot(page, tmp_path, "demo-three-engines.png",
                    main(page).get_by_role("heading", name="Revenue (unit price x quantity)").first)


def test_a_reinstall_under_a_running_page_does_not_break_it(page, tmp_path) -> None:
    """The packages are served from a copy on PYTHONPATH; once the page runs, that copy is removed (what a
    reinstall does to site-packages) and the page must still check a question."""
    site = tmp_path / "site"
    for package in ("adapters", "archetypes", "seed_db", "checker_app"):
        shutil.copytree(REPO / package, site / package, ignore=shutil.ignore_patterns("__pycache__"))
    with serving(tmp_path, pythonpath=site, cwd=tmp_path) as base:
        page.goto(base)
        main(page).get_by_label("Your data question").wait_for()
        shutil.move(str(site), str(tmp_path / "site-removed"))  # the installed files are gone
        open_link(page, base, TOP_SELLING)
        assert set(metric_values(page, 8)) == set(TOP_PRODUCTS)
        page.goto(f"{base}/compare")
        main(page).get_by_role("heading", name="Compare SQL").wait_for()
        assert "No such file" not in main(page).inner_text()


def test_an_engine_down_in_the_browser_hides_its_password(page, demo_urls, tmp_path) -> None:
    with serving(tmp_path, f"sqlite={demo_urls['sqlite']}", DEAD_PG) as base:
        open_link(page, base, TOP_SELLING)
        visible_text(page, "MacBook Pro").wait_for()
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text("127.0.0.1:1/x").wait_for()
        shot(page, tmp_path / "engine-down.png")
        assert "s3cret" not in page.content()
        assert "s3cret" not in page.url


def test_a_partial_question_strikes_the_word_through_and_offers_what_was_meant(small, demo_urls, tmp_path) -> None:
    page = small
    with serving(tmp_path, *(f"{b}={demo_urls[b]}" for b in BACKENDS)) as base:
        open_link(page, base, "Show revenue for labtops")
        verdict = page.locator(".st-key-verdict_main")
        verdict.get_by_text("partly understood: 'labtops' was not read").wait_for()
        struck = verdict.locator("del").filter(has_text="labtops").first
        struck.wait_for()
        assert struck.evaluate("(e) => getComputedStyle(e).textDecorationLine") == "line-through"
        pick = verdict.get_by_role("button", name="Laptops")
        pick.wait_for()
        settle(page)
        # what was not read, and the pick, come before the readings' answers, in the first screen
        first_reading = verdict.locator('[class*="st-key-pick_main_"]').first
        assert pick.bounding_box()["y"] < first_reading.bounding_box()["y"] and pick.bounding_box()["y"] < 1000
        readme_shot(page, tmp_path, "partial.png")
        # the question is quoted once, in the verdict (the archetypes below do not quote it again)
        assert main(page).locator("blockquote").filter(has_text="labtops").count() == 1
        pick.click()
        main(page).get_by_label("Your data question").filter(has_text="").wait_for()
        page.wait_for_function("() => new URL(location.href).searchParams.get('q') === 'Show revenue for Laptops'")
        page.locator(".st-key-verdict_main").get_by_text("6 readings, 6 different answers").wait_for()
        # the earlier question's struck word may outlive the new verdict by a rerun on a loaded machine: it must
        # be gone once the page settles
        page.wait_for_function("() => document.querySelectorAll('.st-key-verdict_main del').length === 0",
                               timeout=15000)


CUT = """() => [...document.querySelectorAll('[data-testid="stMetricValue"], [data-testid="stMetricValue"] *')]
              .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)"""


def test_chinook_answers_are_whole_ties_and_percentages(small, chinook_urls, tmp_path) -> None:
    """Found by a newcomer on Chinook: st.metric cut a change ("relative_chang…") and a series' range ("(12 per…")
    to one line, and showed the relative change as 0.186; the first example named one of 256 tied tracks. Each
    answer is now whole on the screen, the change a percentage, the tie a tie."""
    page = small
    with serving(tmp_path, f"chinook={chinook_urls['sqlite']}") as base:
        open_link(page, base, "how did our sales change from october to november 2024?")
        assert metric_values(page, 2) == ["change = -5.00, -11.7%", "change = 0, 0%"]  # money, units
        settle(page)
        assert page.evaluate(CUT) == []
        shot(page, tmp_path / "chinook-oct-nov.png")
        open_link(page, base, "what are our monthly sales in 2024?")  # two readings side by side
        assert metric_values(page, 2) == ["2024-01 to 2024-12 (12 periods)"] * 2
        settle(page)
        assert page.evaluate(CUT) == []
        open_link(page, base, "What is the top-selling track?")
        assert metric_values(page, 3) == ["tied: 8 rows share revenue = 3.98", "tied: at least 10 rows share units = 2",
                                          "tied: at least 10 rows share invoices = 2"]
        settle(page)
        assert page.evaluate(CUT) == []
        wait_text(page, "all 3 tie at the top, compared as sets of tied winners")
        shot(page, tmp_path / "chinook-top-track.png")
