"""The page shows what the model got wrong apart from what it found: unknown archetype ids, the
structured-output mode the server refused, a call written as text, and time to the first token
(AppTest, the real SDK over HTTP to the scripted server replaying recorded shapes)."""
from __future__ import annotations

import json

from tests.llm_server import fixture_lines, recorded_error, structured_reply, text_reply
from tests.support import UNITS, checker_page, no_exception


def test_model_errors_fallbacks_and_text_calls_are_shown_apart(llm_page) -> None:
    refusal = recorded_error(fixture_lines("errors")[0])
    tagged = next(c for c in fixture_lines("text_calls") if c["name"] == "<tools> tag")
    readings = {"archetypes": [{"id": "a", "quote": "top"}, {"id": "ranking_metric", "quote": "top selling"}],
                "readings": [{"label": "Most units", "sql": UNITS}]}
    llm_page.push(text_reply(tagged["content"]), refusal, structured_reply(json.dumps(readings)))
    at = checker_page(engine="both")
    no_exception(at)
    captions = " ".join(c.value for c in at.caption)
    assert any("**The model's errors** (1, not used):" in m.value for m in at.markdown)
    assert 'unknown archetype id \\"a\\"' in captions or 'unknown archetype id "a"' in captions, captions
    assert "refused json\\_schema" in captions or "refused json_schema" in captions
    assert "wrote its clarification call as text" in captions, [c.value for c in at.caption if "refused" in c.value or "wrote" in c.value]
    assert any("Rank products by which metric?" in m.value for m in at.markdown)   # the call was read
    steps = next(t.value for t in at.table if "calls" in t.value.columns)
    assert steps["failed attempts"].tolist() == [0, 1]                            # the refused request counts
    assert all(v != "—" for v in steps["first token (s)"].tolist()[:1])
