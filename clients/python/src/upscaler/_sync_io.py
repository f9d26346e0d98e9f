"""What the synchronous client blocks on where the asynchronous one awaits (``_async_io.py`` is its twin)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

sleep = time.sleep


def resolve(value: Any) -> Any:
    """The value as it is: nothing to await in the synchronous client."""
    return value


def run_blocking(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, here and now."""
    return fn(*args)
