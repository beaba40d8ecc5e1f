"""Kubernetes resource quantities (``500m``, ``2Gi``, ``1e3``) as exact fractions."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["parse_quantity", "QUANTITY_RX", "format_quantity", "is_extended_resource", "is_gpu_resource"]

# The pattern the API server quotes in its error message.
QUANTITY_RX = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

_NUM = re.compile(r"^([+-]?)(\d+\.?\d*|\.\d+)(.*)$")
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_EXP = re.compile(r"^[eE]([+-]?\d+)$")


def parse_quantity(value: Any) -> Fraction | None:
    """The exact value of a quantity, or None when it is not a valid quantity."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        return Fraction(str(value))
    if not isinstance(value, str):
        return None
    m = _NUM.match(value.strip())
    if not m or value != value.strip():
        return None
    sign, number, suffix = m.groups()
    try:
        base = Fraction(number)
    except (ValueError, ZeroDivisionError):
        return None
    if suffix in _BINARY:
        mult: Fraction = Fraction(_BINARY[suffix])
    elif suffix in _DECIMAL:
        mult = _DECIMAL[suffix]
    else:
        e = _EXP.match(suffix)
        if not e or abs(int(e.group(1))) > 40:
            return None
        mult = Fraction(10) ** int(e.group(1))
    out = base * mult
    return -out if sign == "-" else out


def format_quantity(value: Any) -> str:
    return str(value)


def is_extended_resource(name: str) -> bool:
    """A fully qualified resource name outside ``kubernetes.io`` (e.g. ``nvidia.com/gpu``)."""
    if not isinstance(name, str) or "/" not in name:
        return False
    domain = name.split("/", 1)[0]
    if domain == "kubernetes.io" or domain.endswith(".kubernetes.io"):
        return False
    return not name.startswith("requests.")


def is_gpu_resource(name: str) -> bool:
    """Resources the GPU rules speak about: every ``nvidia.com/*`` name and other vendors' GPUs."""
    if not isinstance(name, str):
        return False
    return name.startswith("nvidia.com/") or name in ("amd.com/gpu", "gpu.intel.com/i915", "gpu.intel.com/xe")
