"""The event log pane (widgets/event_log_view.py)."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

import pytest

from _widget_helpers import NOW
from minikafka.runtime.events import ClusterEvent, EventLog
from widgets.event_log_view import EventLogView, clock_note, format_event, zone_name


def event(text: str, kind: str = "partition_changed", at: int = NOW) -> ClusterEvent:
    return ClusterEvent(at, kind, 2, text)


def set_zone(monkeypatch, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)
    time.tzset()


@pytest.fixture(autouse=True)
def utc_kernel(monkeypatch):
    """The kernel's local zone is UTC unless a test says otherwise (restored afterwards)."""
    set_zone(monkeypatch, "UTC")
    yield
    monkeypatch.undo()
    time.tzset()


def test_format_event_shows_the_time_of_day_with_millis_in_a_given_zone():
    line = format_event(event("orders-1 leader 2 -> 3, epoch 1 -> 2, ISR [2,3,1] -> [3,1]",
                              at=NOW + 3_723_045), timezone.utc)
    assert line == "01:02:03.045  orders-1 leader 2 -> 3, epoch 1 -> 2, ISR [2,3,1] -> [3,1]"


def test_times_are_in_the_learners_local_zone_and_the_header_names_it(monkeypatch):
    set_zone(monkeypatch, "Europe/Paris")            # NOW is 1 January: CET, UTC+01:00
    assert format_event(event("broker 2 fenced", at=NOW + 45)) == "01:00:00.045  broker 2 fenced"
    winter = datetime.fromtimestamp(NOW / 1000, tz=timezone.utc)
    assert zone_name(winter) == "CET, UTC+01:00"
    assert zone_name(winter.replace(month=7)) == "CEST, UTC+02:00"
    set_zone(monkeypatch, "Asia/Kolkata")
    assert zone_name(winter) == "IST, UTC+05:30"
    set_zone(monkeypatch, "UTC")
    assert zone_name(winter) == "UTC" and clock_note(False) == "times: UTC"


def test_a_simulated_cluster_shows_its_virtual_clock_in_utc_and_says_so(monkeypatch):
    set_zone(monkeypatch, "Europe/Paris")
    log = EventLog()
    pane = EventLogView(log, simulated=True)
    log.append(event("broker 2 fenced", at=NOW + 45))
    assert pane.lines == ["00:00:00.045  broker 2 fenced"]
    assert pane.clock_note == "times: the simulated cluster's virtual clock, in UTC"
    assert EventLogView(EventLog()).clock_note == "times: CET, UTC+01:00"


def test_the_pane_breaks_lines_between_words():
    from widgets.theme import STYLE_SHEET
    pane = EventLogView(EventLog())
    assert "minikafka-event-log" in pane._dom_classes
    rule = STYLE_SHEET.split(".minikafka-event-log .jp-OutputArea-output pre {")[1].split("}")[0]
    assert "word-break: normal" in rule and "overflow-wrap: anywhere" in rule
    assert "word-break:normal" in pane.picture()


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
