"""The event log pane (widgets/event_log_view.py)."""

from __future__ import annotations

import threading

import pytest

from _widget_helpers import NOW
from minikafka.runtime.events import ClusterEvent, EventLog
from widgets.event_log_view import EventLogView, format_event


def event(text: str, kind: str = "partition_changed", at: int = NOW) -> ClusterEvent:
    return ClusterEvent(at, kind, 2, text)


def test_format_event_shows_utc_time_of_day_with_millis():
    line = format_event(event("orders-1 leader 2 -> 3, epoch 1 -> 2, ISR [2,3,1] -> [3,1]",
                              at=NOW + 3_723_045))
    assert line == "01:02:03.045  orders-1 leader 2 -> 3, epoch 1 -> 2, ISR [2,3,1] -> [3,1]"


def test_history_then_new_events_newest_on_top():
    log = EventLog()
    for i in range(5):
        log.append(event(f"old {i}", at=NOW + i))
    pane = EventLogView(log, history=2)
    log.append(event("new", at=NOW + 9))
    assert pane.lines == ["00:00:00.003  old 3", "00:00:00.004  old 4", "00:00:00.009  new"]
    assert pane.outputs == ({"output_type": "stream", "name": "stdout",
                             "text": "00:00:00.009  new\n00:00:00.004  old 4\n00:00:00.003  old 3\n"},)
    assert pane.text == "".join(line + "\n" for line in pane.lines)


def test_an_event_between_subscribe_and_history_is_shown_once():
    class RacyLog(EventLog):
        """Another thread appends one event after the pane subscribed, before it reads history."""

        holder: threading.Thread | None = None

        def since(self, seq=0, kinds=None):
            if self.holder is None:
                self.holder = threading.Thread(target=lambda: self.append(event("raced")))
                self.holder.start()
                # The event is in the log once the earlier listener saw it; the
                # pane's listener is then blocked on the pane's lock.
                assert appended.wait(10)
            return super().since(seq, kinds)

    appended = threading.Event()
    log = RacyLog()
    log.append(event("before"))
    log.subscribe(lambda e: appended.set() if e.text == "raced" else None)
    pane = EventLogView(log)
    log.holder.join(10)
    texts = [line.split("  ", 1)[1] for line in pane.lines]
    assert texts == ["before", "raced"]


def test_kinds_filter():
    log = EventLog()
    pane = EventLogView(log, kinds={"broker_fenced"})
    log.append(event("orders-0 ISR shrank"))
    log.append(event("broker 2 fenced", kind="broker_fenced"))
    assert [line.split("  ", 1)[1] for line in pane.lines] == ["broker 2 fenced"]


def test_old_lines_are_trimmed_in_one_step():
    log = EventLog()
    pane = EventLogView(log, max_lines=10)
    for i in range(11):
        log.append(event(f"e{i}"))
    assert len(pane.lines) == 6
    assert pane.lines[0].endswith("e5") and pane.lines[-1].endswith("e10")
    assert pane.outputs[0]["text"].splitlines()[0].endswith("e10")   # newest on top


def test_stop_unsubscribes_and_keeps_the_lines():
    log = EventLog()
    pane = EventLogView(log)
    log.append(event("seen"))
    pane.stop()
    log.append(event("not seen"))
    assert [line.split("  ", 1)[1] for line in pane.lines] == ["seen"]


def test_repr_is_deterministic():
    assert repr(EventLogView(EventLog())) == "EventLogView(kinds='all')"


def test_too_small_max_lines_is_refused():
    with pytest.raises(ValueError, match="max_lines must be at least 2"):
        EventLogView(EventLog(), max_lines=1)
