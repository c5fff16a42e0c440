"""What the diagnose page shows, computed without streamlit (the page only draws it)."""
from __future__ import annotations

from typing import Any

from adapters import CheckerError, Database
from checker_app.diagnose.findings import PATTERNS, DiagnoseReport, rules_classifier
from checker_app.diagnose.traces import read_trace_text

MAX_UPLOAD_BYTES = 20_000_000


def diagnose_upload(data: bytes | str, name: str, db: Database) -> DiagnoseReport:
    """Diagnose an uploaded trace against `db`'s profile. Raises CheckerError with one line."""
    from checker_app.profiles import load_profile, lookup_for

    if isinstance(data, bytes):
        if len(data) > MAX_UPLOAD_BYTES:
            raise CheckerError(f"{name}: {len(data):,} bytes; the limit is {MAX_UPLOAD_BYTES:,}")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CheckerError(f"{name}: not UTF-8 text") from None
    conversations = read_trace_text(data, name)
    from checker_app.diagnose.findings import diagnose

    return diagnose(conversations, rules_classifier(load_profile(db), lookup_for(db)), source=name)


def finding_rows(report: DiagnoseReport) -> list[dict[str, Any]]:
    return [{"code": f.code, "pattern": f.name, "conversation": f.conversation, "message": f.message_index + 1,
             "message id": f.message_id or "", "tool call": f.tool_call_id or "", "detail": f.detail}
            for f in report.findings]


def pattern_rows(report: DiagnoseReport) -> list[dict[str, Any]]:
    counts = report.counts()
    return [{"code": p.code, "pattern": p.name, "found": counts[p.code], "meaning": p.summary} for p in PATTERNS]
