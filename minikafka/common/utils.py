"""Small helpers every layer shares, as Kafka keeps them in ``org.apache.kafka.common.utils.Utils``.

`parse_properties` reads the text of a ``.properties`` file (``server.properties``,
``meta.properties``) into a dict, as ``Utils.loadProps`` does through Java's
``Properties.load``: one ``key=value`` per line, blank lines and ``#`` comments
skipped, whitespace around key and value dropped.  The node reads its
configuration with it at start-up, and the facade's layout checks a planned
node's configuration the same way before anything is written.

Simplified: no ``:`` separator, no ``!`` comments, no line continuations or
escapes (the sandbox writes its own files and never uses them).
"""

from __future__ import annotations


def parse_properties(text: str) -> dict[str, str]:
    """The ``key=value`` settings of a properties file's text, by key."""
    props = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            props[key.strip()] = value.strip()
    return props


__all__ = ["parse_properties"]
