"""The replay viewer page, in a real headless browser (Debian's chromium driven by Playwright)."""

import contextlib
import json
import os
import shutil

import pytest
from click.testing import CliRunner

from tractor_sim.play import record as REC
from tractor_sim.report import viewer
from tractor_sim.cli import main
from tractor_sim.play.replay import replay

HOSTILE = '<img src=x onerror="alert(1)">'
NOTE = "</script><script>alert(2)</script> searched 1,200 samples: this play wins 0.61"


def _browser() -> str | None:
    for name in (os.environ.get("TRACTOR_SIM_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@contextlib.contextmanager
def _opened(html: str, tmp_path, problems: list, dialogs: list, width: int = 1200):
    """The page ``html`` in headless chromium, offline (any other URL aborted), its console errors and
    warnings and page errors into ``problems``, its dialogs (dismissed) into ``dialogs``; skips without
    chromium or playwright."""
    path = _browser()
    if path is None:
        pytest.skip("no chromium installed (apt-get install chromium, or set TRACTOR_SIM_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install playwright)")
    page_file = tmp_path / "deal.html"
    page_file.write_text(html)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": width, "height": 1000})
            page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.route("**/*", lambda route: route.abort() if not route.request.url.startswith("file:")
                       else route.continue_())
            page.goto(page_file.as_uri())
            yield page
        finally:
            browser.close()


@pytest.fixture(scope="module")
def deal():
    """A deal with a failed throw, a hostile policy name and a note on a play."""
    try:  # the same module object as the other tests (it registers strategies once)
        from tests import reference_deal as RD
    except ImportError:
        import reference_deal as RD

    RD.register_test_policies()
    for deal_id in range(40):
        rec = replay(seed=8, deal_id=deal_id, policies=(RD.RASH, "basic"), rules={"throw_penalty": 20})
        throws = [t["trick"] for t in rec["tricks"] if "failed_throw" in t]
        if throws:
            break
    rec["policies"][0] = HOSTILE
    rec["tricks"][0]["plays"][1]["note"] = NOTE
    return REC.validate(rec), throws[0]


def test_page_escapes_the_record(deal):
    rec, _ = deal
    text = viewer.page(rec)
    assert HOSTILE not in text and "<script>alert(2)" not in text
    assert text.count("<script") == 2 and "http://" not in text and "https://" not in text  # no network


def test_replay_writes_the_page(tmp_path):
    out = tmp_path / "deal.html"
    r = CliRunner().invoke(main, ["replay", "--seed", "3", "--deal", "2", "--html", str(out)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert out.read_text().startswith("<!DOCTYPE html>") and "Deal 2 (seed 3)" in out.read_text()
    r = CliRunner().invoke(main, ["replay", "--seed", "3", "--deal", "2", "--html", str(tmp_path / "no" / "x.html")],
                           catch_exceptions=False)
    assert r.exit_code == 2 and "cannot write" in r.output


def test_viewer_in_a_headless_browser(deal, tmp_path):
    rec, throw_trick = deal
    problems, dialogs = [], []
    with _opened(viewer.page(rec), tmp_path, problems, dialogs) as page:
        def status():
            return page.inner_text("#status")

        def cards(sel):
            return page.locator(f"{sel} .card").count()

        assert status().startswith("Before the first trick")
        assert sum(cards(f"#hand{s}") for s in range(4)) == 100 and cards("#center") == 0
        assert cards("#kitty") == 8 and cards("#buried") == 8 and page.locator(".card.red").count() > 0
        assert HOSTILE in page.inner_text("#info")  # shown as text, not markup
        page.click("#next")
        first = rec["tricks"][0]
        assert status().startswith(f"Trick 1 of {len(rec['tricks'])}: led by seat {first['leader']}, "
                                   f"won by seat {first['winner']}")
        n1 = sum(len(p["cards"]) for p in first["plays"])
        assert cards("#center") == n1 and sum(cards(f"#hand{s}") for s in range(4)) == 100 - n1
        assert NOTE in page.inner_text("#notes")
        center1 = page.inner_html("#center")
        page.keyboard.press("ArrowRight")
        assert status().startswith("Trick 2 of") and page.inner_html("#center") != center1
        page.keyboard.press("ArrowLeft")
        assert status().startswith("Trick 1 of") and page.inner_html("#center") == center1
        for _ in range(throw_trick - 1):
            page.keyboard.press("ArrowRight")
        assert status().startswith(f"Trick {throw_trick} of") and "Failed throw" in page.inner_text("#notes")
        page.keyboard.press("End")
        r = rec["result"]
        assert f"= {r['opp_points']}." in page.inner_text("#score") and page.is_disabled("#next")
        page.click("#first")
        assert status().startswith("Before the first trick") and page.is_disabled("#prev")
        page.keyboard.press("ArrowRight")
        shot = tmp_path / "viewer.png"
        page.screenshot(path=str(shot), full_page=True)
        if os.environ.get("TRACTOR_SIM_SCREENSHOT"):
            shutil.copy(shot, os.environ["TRACTOR_SIM_SCREENSHOT"])
    assert shot.stat().st_size > 10_000
    assert problems == [] and dialogs == []
    print(f"\nviewer screenshot: {shot} ({shot.stat().st_size} bytes)")


@pytest.mark.parametrize("game", [{"players": 6, "decks": 3}, {"players": 5, "teams": "friends"}])
def test_viewer_draws_every_size(game, tmp_path):
    """A deal of another size in the browser: every seat's hand around the table, the running points
    of the side that stands (in Finding Friends the landlord's side grows as friends join, and the page
    says who joined and who is the next landlord), with no script error."""
    from tractor_sim.rules.sizes import GameSize

    size = GameSize.of(game)
    friends = size.teams == "friends"
    rec = next(r for r in (replay(seed=5, deal_id=d, policies=("expert", "basic"), game=size) for d in range(30))
               if not friends or any(t.get("joins") for t in r["tricks"]))
    REC.validate(rec)
    held = size.players * ((size.decks * 54 - size.kitty) // size.players)
    problems = []
    with _opened(viewer.page(rec), tmp_path, problems, [], width=1280) as page:
        hands = [f"#hand{s}" for s in range(size.players)]
        assert page.locator(".seat").count() == size.players
        assert sum(page.locator(f"{h} .card").count() for h in hands) == held
        page.keyboard.press("ArrowRight")
        n1 = sum(len(p["cards"]) for p in rec["tricks"][0]["plays"])
        assert page.locator("#center .card").count() == n1
        assert sum(page.locator(f"{h} .card").count() for h in hands) == held - n1
        if friends:
            assert "calls" in page.inner_text("#info")
            joined = next(i for i, t in enumerate(rec["tricks"]) if t.get("joins"))
            page.keyboard.press("Home")
            for _ in range(joined + 1):
                page.keyboard.press("ArrowRight")
            assert f"seat {rec['tricks'][joined]['joins'][0]['seat']} plays the" in page.inner_text("#notes")
        page.keyboard.press("End")
        score = page.inner_text("#score")
        assert f"= {rec['result']['opp_points']}." in score
        assert ("Next landlord: seat" in score) if friends else ("levels" in score)
    assert problems == []


def test_report_links_example_deals(tmp_path):
    (tmp_path / "tiny.toml").write_text('name = "tiny"\nseed = 4\nmode = "fixed"\ncount = 5\nduplicate = true\n'
                                        '[[matchup]]\na = "basic"\nb = "random"\n')
    r = CliRunner().invoke(main, ["run", str(tmp_path / "tiny.toml"), "--out", str(tmp_path / "run"), "--quiet",
                                  "--workers", "1"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    run = tmp_path / "run"
    md = (run / "report.md").read_text()
    html = (run / "report.html").read_text()
    links = [line for line in md.splitlines() if line.startswith("- [") and "](viewer/" in line]
    assert len(links) == 4  # best and worst for each of two policies
    assert any(line.startswith("- [basic: best deal, ") for line in links)
    for line in links:
        href = line.split("](")[1].rstrip(")")
        assert (run / href).exists() and f'href="{href}"' in html
    records = REC.read(run / "viewer" / "examples.jsonl")
    assert 1 <= len(records) <= 4 and all(rec["source"]["matchup"] == "basic-vs-random" for rec in records)


def test_report_without_replayable_deals_says_why(tmp_path):
    blocks = viewer.report_blocks(tmp_path)
    assert blocks[0] == ("h", 2, "Example deals") and "not a finished run directory" in blocks[1][1]
