"""Offline trace diagnostic for the clarification loop (no model, no streamlit).

    from checker_app.diagnose import diagnose_path
    report = diagnose_path("trace.jsonl", classify)     # DiagnoseReport: findings with pattern codes
"""
from __future__ import annotations

from pathlib import Path

from checker_app.diagnose.findings import (
    BY_CODE,
    PATTERNS,
    Classifier,
    DiagnoseReport,
    Finding,
    Pattern,
    diagnose,
    rules_classifier,
    sql_of,
)
from checker_app.diagnose.traces import Conversation, Message, ToolCall, TraceError, read_trace, read_trace_text

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "traces"


def diagnose_path(path: str | Path, classify: Classifier) -> DiagnoseReport:
    return diagnose(read_trace(path), classify, source=Path(path).name)


def diagnose_text(text: str, classify: Classifier, name: str = "trace") -> DiagnoseReport:
    return diagnose(read_trace_text(text, name), classify, source=name)


def sample_traces() -> list[Path]:
    return sorted(p for p in SAMPLES.glob("*") if p.suffix in (".json", ".jsonl"))


__all__ = [
    "BY_CODE", "PATTERNS", "SAMPLES", "Classifier", "Conversation", "DiagnoseReport", "Finding", "Message",
    "Pattern", "ToolCall", "TraceError", "diagnose", "diagnose_path", "diagnose_text", "read_trace",
    "read_trace_text", "rules_classifier", "sample_traces", "sql_of",
]
