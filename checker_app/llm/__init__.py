"""Model mode: the `openai` SDK against any OpenAI-compatible server, failing open to the rules.

Importing this package does not import `openai` (only `client` does, when a call is made).

    settings.py  environment settings (OPENAI_API_KEY, OPENAI_BASE_URL, CHECKER_MODEL, ...)
    client.py    SDK wrapper: timeout, retries, bounded concurrent calls, typed failures
    prompt.py    system prompt from the archetype registry and the schema profile
    tool.py      render_ask_user_question: strict schema, quote check, suggestions paired by position
    readings.py  structured output: archetypes seen, readings with one SQL each
    lint.py      placeholder lint and literal substitution
    run.py       one question through the model -> ModelPart (part.py), usage (usage.py)
    hook.py      pipeline glue: model readings as ReadingResults, rules-vs-model comparison
"""
from checker_app.llm.errors import ModelFailure
from checker_app.llm.settings import ModelSettings

__all__ = ["ModelFailure", "ModelSettings"]
