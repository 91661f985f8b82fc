"""SVG rendering and the fallback without Graphviz (widgets/render.py)."""

from __future__ import annotations

import threading

import pytest

from _widget_helpers import three_brokers
from widgets import render
from widgets.render import (DOT_MISSING_MESSAGE, GraphvizNotFound, dot_to_svg, topology_diagram,
                            topology_html)
from widgets.topology_text import topology_text


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """A PATH without Graphviz, and the once-only message not yet shown."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(render, "_reported", threading.Event())


@pytest.mark.graphviz
def test_dot_to_svg_returns_the_svg_element_without_prolog():
    svg = dot_to_svg("digraph g { a -> b }")
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")


@pytest.mark.graphviz
def test_svg_is_deterministic_for_one_graphviz_version():
    assert render.svg_document(three_brokers()) == render.svg_document(three_brokers())


@pytest.mark.graphviz
def test_html_scales_the_svg_and_carries_the_text_version():
    page = topology_html(three_brokers())
    assert '<svg style="max-width:100%;height:auto" width="' in page
    assert "<summary>Text version</summary>" in page
    assert "orders-2  F (out of sync)" in page


@pytest.mark.graphviz
def test_diagram_bundle_has_svg_and_deterministic_text():
    bundle = topology_diagram(three_brokers())._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "text/plain"}
    assert bundle["text/plain"] == topology_text(three_brokers())


def test_missing_dot_raises_a_clear_error(no_dot):
    with pytest.raises(GraphvizNotFound, match="sudo apt-get install graphviz"):
        dot_to_svg("digraph g { a }")


def test_missing_dot_message_names_every_installer():
    for how in ("sudo apt-get install graphviz", "conda install graphviz",
                "brew install graphviz"):
        assert how in DOT_MISSING_MESSAGE


def test_missing_dot_falls_back_to_text_and_says_so_once(no_dot, capsys):
    diagram = topology_diagram(three_brokers())
    first = diagram._repr_mimebundle_()
    second = diagram._repr_mimebundle_()
    assert first == second == {"text/plain": topology_text(three_brokers())}
    assert capsys.readouterr().err == DOT_MISSING_MESSAGE + "\n"


def test_missing_dot_html_shows_the_text_form(no_dot):
    page = topology_html(three_brokers())
    assert "<svg" not in page
    assert "sudo apt-get install graphviz" in page
    assert "orders-2  F (out of sync)" in page


def test_diagram_repr_is_the_text_form():
    diagram = topology_diagram(three_brokers(), legend=False)
    assert repr(diagram) == str(diagram) == topology_text(three_brokers())
    assert diagram.dot.startswith("digraph minikafka {")
