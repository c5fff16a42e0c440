"""The schemas seed_db can generate, by name: the demo orders database and the subscription history schema."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Protocol

import sqlalchemy as sa

from .errors import SeedError
from .generate import Dataset
from .history import HistoryDataset
from .history_schema import build_history_metadata
from .load import Source
from .schema import build_metadata


class SeedSource(Source, Protocol):
    """A deterministic generator the loaders and the idempotency check can use."""

    seed: int
    scale: int
    schema_version: int

    def expected_counts(self) -> dict[str, int]: ...


class GeneratedSchema(NamedTuple):
    metadata: Callable[[], sa.MetaData]  # tables in creation order, ``seed_info`` last
    dataset: Callable[[int, int], SeedSource]  # (seed, scale) -> rows


SCHEMAS: dict[str, GeneratedSchema] = {
    "demo": GeneratedSchema(build_metadata, Dataset),
    "history": GeneratedSchema(build_history_metadata, HistoryDataset),
}


def schema_named(name: str) -> GeneratedSchema:
    """The generated schema called ``name``; SeedError naming the choices otherwise."""
    if name not in SCHEMAS:
        raise SeedError(f"unknown schema {name!r}; choose one of {', '.join(SCHEMAS)}")
    return SCHEMAS[name]
