"""What an engine module compiled with mypyc (``make engine``) needs from mypyc,
standing in for it where it is not installed: the pure-Python modules stay the rules.

``mypyc_attr(serializable=True)`` lets a compiled class be pickled and copied as a
plain class is (its ``__new__`` does not call ``__init__``). Uncompiled, it does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*args, **kwargs):
        return lambda cls: cls
