"""Regenerate the README's screenshots (docs/screenshots/*.png) from the real-browser tests.

    python scripts/screenshots.py

Runs tests/test_browser.py with CHECKER_SCREENSHOTS pointing at docs/screenshots: each test drives the
page in Debian's Chromium on the live engines and writes its screenshot there. The PNGs are then
re-encoded as 8-bit palette images (Pillow, when installed) so the repository stays small.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "docs" / "screenshots"


def shrink(path: Path) -> None:
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
        small.save(path, optimize=True)


def main() -> int:
    TARGET.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CHECKER_SCREENSHOTS": str(TARGET)}
    code = subprocess.call([sys.executable, "-m", "pytest", "tests/test_browser.py", "-q", "-p", "no:cacheprovider"],
                           cwd=REPO, env=env)
    for path in sorted(TARGET.glob("*.png")):
        shrink(path)
        print(f"{path.relative_to(REPO)}  {path.stat().st_size // 1024} KiB")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
