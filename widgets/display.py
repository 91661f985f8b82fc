"""`show_in_kernel`: display an object when a notebook kernel runs the code, do nothing elsewhere.

`Prediction` and `Task` show their widget as soon as they are made (a
lesson writes ``p = Prediction(...)``, an assignment that displays
nothing); a test or a script that makes one has no front end to show it to.
"""

from __future__ import annotations

from typing import Any


def show_in_kernel(obj: Any) -> bool:
    """Display ``obj`` in the running IPython kernel; False (and nothing shown) outside one."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return False
    from IPython.display import display
    display(obj)
    return True
