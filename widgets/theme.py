"""Colours and one style sheet that let every widget follow JupyterLab's light or dark theme.

Theory of operation
-------------------
JupyterLab describes its theme in CSS custom properties on the page
(``--jp-layout-color0`` for the background, ``--jp-ui-font-color1`` for
text, ``--jp-border-color1`` for rules...) and says whether the theme is
light on ``<body data-jp-theme-light="true|false">``.  The widgets' HTML
uses those variables through `var` with a light fallback, so a fragment
read outside JupyterLab (GitHub, nbviewer, a still picture) keeps the
light colours, and inside JupyterLab follows the theme:

* `fg`, `bg`, `border`, `muted` give ``var(--jp-..., fallback)`` strings for
  inline styles;
* `VERDICT_COLOURS` are the right / wrong / no-answer colours, and
  `verdict_badge` draws the verdict as its word in white on that colour
  (a filled badge reads the same on a white and on a dark page; the word
  is always there, so colour is never the only cue);
* `STYLE_SHEET` is a ``<style>`` block for what inline styles cannot
  reach: JupyterLab's own output ``<pre>`` (which breaks lines inside
  words, ``word-break: break-all``; the event log wants whole words), the
  diagram's scaling inside the compact dashboard, and the small fault
  buttons.  `style_widget()` wraps it in an invisible ``ipywidgets.HTML``
  a composite widget puts among its children; the rules are scoped to this
  package's class names, so they change nothing else on the page.

Graphviz hard-codes white backgrounds and black text in its SVG;
`widgets.render.themed_svg` rewrites those to ``transparent`` and
``currentColor`` (the text colour of the page around it), so a diagram is
no white block in the dark theme and unchanged on a light page.
"""

from __future__ import annotations

import ipywidgets


def fg(level: int = 1) -> str:
    """Text colour of the theme (``level`` 0 strongest .. 3 faintest)."""
    fallback = {0: "#000", 1: "rgba(0,0,0,0.87)", 2: "rgba(0,0,0,0.54)", 3: "rgba(0,0,0,0.38)"}
    return f"var(--jp-ui-font-color{level}, {fallback[level]})"


def bg(level: int = 0) -> str:
    """Background colour of the theme (0 the page, 1-2 slightly raised panes)."""
    fallback = {0: "#fff", 1: "#fff", 2: "#eee"}
    return f"var(--jp-layout-color{level}, {fallback[level]})"


def border(level: int = 1) -> str:
    """Colour of rules and frames."""
    fallback = {1: "#bdbdbd", 2: "#e0e0e0"}
    return f"var(--jp-border-color{level}, {fallback[level]})"


def muted() -> str:
    """Captions and secondary text."""
    return fg(2)


# right / wrong / no answer: white text on these has a contrast of at least 4.5:1
VERDICT_COLOURS = {
    "right": "#2e7d32",
    "wrong": "#c62828",
    "no answer": "#6b6b6b",
    "no points": "#6b6b6b",     # a drill's answer that counts only along with a repair
}
_VERDICT_MARKS = {"right": "✔", "wrong": "✘", "no answer": "–", "no points": "–"}
ERROR_COLOUR = "#d93b3b"        # a one-line refusal in a status line

# The diagram in the compact dashboard: the window's height less JupyterLab's bars and a margin
# (416 CSS px on a 1280x720 screen at 125%), but never below 240 px.
DIAGRAM_MAX_HEIGHT = "max(240px, calc(100vh - 160px))"

STYLE_SHEET = f"""<style>
.minikafka-event-log .jp-OutputArea-output pre {{
  word-break: normal; overflow-wrap: anywhere; white-space: pre-wrap;
  font-size: 11.5px; line-height: 1.3;
}}
.minikafka-event-log .jp-OutputArea-output {{ padding: 0; }}
.minikafka-event-log .jp-OutputArea-prompt {{ display: none; }}
.minikafka-compact .minikafka-topology svg {{
  width: auto; height: auto; max-width: 100%; max-height: {DIAGRAM_MAX_HEIGHT};
}}
.minikafka-compact .minikafka-topology details {{ font-size: 12px; }}
.minikafka-fault-grid .jupyter-widgets.widget-button {{
  height: 22px; line-height: 22px; padding: 0 6px; font-size: 12px; margin: 1px;
}}
.minikafka-fault-grid .jupyter-widgets.widget-label {{
  height: 24px; line-height: 24px; font-size: 12px; margin: 0 4px 0 0;
}}
.minikafka-fault-grid .jupyter-widgets.widget-hbox {{ flex-wrap: nowrap; }}
.minikafka-drill-brief pre, .minikafka-drill-brief {{
  white-space: pre-wrap; word-break: normal; overflow-wrap: anywhere;
}}
</style>"""


def verdict_badge(word: str) -> str:
    """``word`` (right, wrong or no answer) as a small filled badge with its mark."""
    colour = VERDICT_COLOURS[word]
    return (f'<span class="minikafka-verdict-{word.replace(" ", "-")}" style="background:{colour};'
            f'color:#fff;border-radius:3px;padding:0 6px;font-weight:bold;white-space:nowrap">'
            f"{_VERDICT_MARKS[word]} {word}</span>")


def style_widget() -> ipywidgets.HTML:
    """An invisible widget carrying `STYLE_SHEET` (a ``<style>`` applies wherever it sits)."""
    return ipywidgets.HTML(STYLE_SHEET, layout=ipywidgets.Layout(display="none"))
