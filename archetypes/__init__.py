"""Ambiguity archetypes: detect the shapes of ambiguity in a data question and build one candidate
query per defensible reading, on any schema (everything is inferred from introspection)."""
from archetypes.analyse import analyse, detect
from archetypes.archetype import Archetype, Context
from archetypes.errors import ArchetypeError, ProfileOverrideError, UnknownAnswerError
from archetypes.model import Analysis, Clarification, Detection, Interpretation, Option, Reading
from archetypes.profile import Lookup, SchemaProfile, build_profile, load_profile_overrides
from archetypes.query import render
from archetypes.registry import ARCHETYPES, BY_ID, guardrails

__all__ = [
    "ARCHETYPES", "BY_ID", "Analysis", "Archetype", "ArchetypeError", "Clarification", "Context", "Detection",
    "Interpretation", "Lookup", "Option", "ProfileOverrideError", "Reading", "SchemaProfile", "UnknownAnswerError",
    "analyse", "build_profile", "detect", "guardrails", "load_profile_overrides", "render",
]
