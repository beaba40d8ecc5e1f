"""Commands registered on the gpukb app (filled in by their module owners)."""
from __future__ import annotations

from . import app  # noqa: F401
