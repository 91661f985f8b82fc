"""`StillPicture`: what a widget leaves on the page when it can no longer move.

Theory of operation
-------------------
A widget's output in a notebook is only a reference to a model that lives in
the kernel.  Where there is no such model the picture is gone: GitHub and
nbviewer show the widget's ``repr``, JupyterLab opening a saved notebook
shows "Loading widget...", and a widget closed by a later cell vanishes from
the page.  So every widget of this package displays itself (IPython calls
its ``_ipython_display_``) through a `StillPicture`, as one bundle:

* the live widget view (``application/vnd.jupyter.widget-view+json``), which
  JupyterLab draws while the kernel runs;
* ``text/html``: a *still picture*, the widget's own HTML as it is at that
  moment, which every static reader shows instead;
* ``text/plain``: the widget's deterministic ``repr`` (nbval compares it).

The display carries a display id.  When the widget stops for good (its
cluster is stopped, or it is closed) the widget calls `freeze` with a
caption: the output is replaced by the still picture of the last state and
the caption, without the live view, so the page can no longer lose it.
JupyterLab applies that replacement on the page (the browser test after
*Run All Cells* sees the still picture), and nbclient and nbconvert apply it
to the saved notebook.  The widget itself also keeps its last picture, with
the same caption and its buttons disabled, for a front end that does not
apply display updates.

Why not renew the still picture on every redraw: replacing an output that
holds a live widget view makes JupyterLab's widget renderer draw a second
view of the same model under the first, and a redraw can come from a
background thread many times a second.  The still is taken when the widget
is displayed and when it freezes; both reuse HTML the widget already drew.

In the nbval reference notebooks the still picture is sanitized to a
placeholder (`lessons/nbval_sanitize.cfg`): its SVG depends on the Graphviz
version, and the caption of a saved output is the frozen one while the
cell's own run shows the live one.  ``tests/lessons`` checks the saved
notebooks for the pictures themselves.

This is widget plumbing, outside the sans-IO core.
"""

from __future__ import annotations

import html
from typing import Any, Callable

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
STILL_CLASS = "minikafka-still"
PICTURE_END = "<!--/minikafka-still-->"      # where the sanitizer's match ends

LIVE_CAPTION = ("A still picture of this widget when its cell ran; run the notebook to use "
                "the live widget.")
CLUSTER_STOPPED = "The cluster was stopped: this is the last picture of it."
CLOSED = "This view was closed: this is its last picture."


def still_html(picture: str, caption: str) -> str:
    """The still picture ``picture`` (HTML) with its ``caption``, in one marked block."""
    return (f'<div class="{STILL_CLASS}">{picture}'
            f'<p style="color:var(--jp-ui-font-color2, #555);font-size:90%;margin:2px 0"><i>{html.escape(caption)}</i></p>'
            f"</div>{PICTURE_END}")


def caption_html(caption: str) -> str:
    """The caption as a live widget shows it under its last picture."""
    return f'<span style="color:var(--jp-ui-font-color2, #555)"><i>{html.escape(caption)}</i></span>'


class StillPicture:
    """The displayed outputs of one widget and their still picture (see the module docstring).

    ``live_bundle()`` gives the live view's bundle (ipywidgets' own), ``picture()`` the
    widget's current HTML, ``plain()`` its repr.
    """

    def __init__(self, live_bundle: Callable[[], dict], picture: Callable[[], str],
                 plain: Callable[[], str]):
        self._live_bundle = live_bundle
        self._picture = picture
        self._plain = plain
        self._handle: Any = None            # IPython's DisplayHandle once shown in a kernel
        self.caption: str | None = None     # set by freeze()

    @property
    def frozen(self) -> bool:
        return self.caption is not None

    def picture(self) -> str:
        """The widget's HTML as it is now (a part of a larger widget's picture)."""
        return self._picture()

    def bundle(self) -> dict:
        """What a display shows now: the live view beside the still picture, or, once frozen,
        the still picture of the last state alone."""
        if self.caption is not None:
            return {"text/html": still_html(self._picture(), self.caption),
                    "text/plain": self._plain()}
        bundle = dict(self._live_bundle() or {})
        bundle["text/html"] = still_html(self._picture(), LIVE_CAPTION)
        bundle["text/plain"] = self._plain()
        return bundle

    def display(self) -> None:
        """Show the widget in the running kernel (all displays share one display id)."""
        from IPython.display import display
        if self._handle is None:
            self._handle = display(self.bundle(), raw=True, display_id=True)
        else:
            display(self.bundle(), raw=True, display_id=self._handle.display_id)

    def freeze(self, caption: str) -> bool:
        """Replace every display of the widget by its still picture with ``caption``; only the
        first call does anything (True then)."""
        if self.caption is not None:
            return False
        self.caption = caption
        if self._handle is not None:
            self._handle.update(self.bundle(), raw=True)
        return True
