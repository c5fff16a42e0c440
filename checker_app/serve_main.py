"""`python -m checker_app.serve_main run APP ...`: Streamlit's own command line, after loading every module
of the application, so a reinstall of the package under a running page (files removed, moved or made
editable) never breaks it: nothing is imported from disk after the server starts."""
from __future__ import annotations

import contextlib
import importlib
import logging
import pkgutil
import sys
from collections.abc import Iterator

PACKAGES = ("adapters", "archetypes", "seed_db", "checker_app")
# scripts Streamlit runs per session (importing them would run them), and the entry points
SKIP = ("checker_app.pages.checker", "checker_app.pages.compare", "checker_app.pages.diagnose",
        "checker_app.streamlit_app", "checker_app.__main__", "checker_app.serve_main")


# Decorating with st.cache_data before the server exists only checks the decorator's parameters against a
# stand-in memory store, and logs "No runtime found" once per decorated function; the store each call
# uses is taken from the running server at call time, so the warning says nothing about the page.
NO_RUNTIME_LOGGER = "streamlit.runtime.caching.cache_data_api"


def _not_the_runtime_warning(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith("No runtime found")


@contextlib.contextmanager
def _no_runtime_warning() -> Iterator[None]:
    # a filter, not a level: Streamlit sets its loggers' levels when it creates them, during the imports
    logger = logging.getLogger(NO_RUNTIME_LOGGER)
    logger.addFilter(_not_the_runtime_warning)
    try:
        yield
    finally:
        logger.removeFilter(_not_the_runtime_warning)


def preload() -> list[str]:
    """Import every module of the application's packages (page scripts excepted: they run per session;
    the drawing modules they import are loaded)."""
    with _no_runtime_warning():
        return _import_all()


def _import_all() -> list[str]:
    loaded = []
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            if info.name in SKIP:
                continue
            try:
                importlib.import_module(info.name)
                loaded.append(info.name)
            except Exception:  # noqa: BLE001 - an optional module (say, a missing extra) loads when used
                continue
    return loaded


def main() -> None:
    preload()
    from streamlit.web.cli import main as streamlit_main

    sys.argv = ["streamlit", *sys.argv[1:]]
    streamlit_main()


if __name__ == "__main__":
    main()
