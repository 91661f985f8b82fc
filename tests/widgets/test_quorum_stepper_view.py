"""QuorumStepperView (widgets/quorum_stepper_view.py): buttons, refusals, redraws, close."""

from __future__ import annotations

import pytest

from widgets import QuorumStepper, QuorumStepperView

BUTTONS = {"next_event", "step", "back", "run_until_leader", "drop_next", "timeout", "isolate",
           "heal", "append"}


@pytest.fixture
def stepper():
    stepper = QuorumStepper(3, seed=7)
    yield stepper
    stepper.close()


def test_one_button_per_control_each_with_a_tooltip(stepper):
    view = stepper.view()
    assert isinstance(view, QuorumStepperView)
    assert set(view.buttons) == BUTTONS
    assert all(button.tooltip for button in view.buttons.values())
    descriptions = [button.description for button in view.buttons.values()]
    assert len(set(descriptions)) == len(descriptions)
    assert view.controller.options == (1001, 1002, 1003)
    assert "controller 1001" in view.picture.value


def test_buttons_drive_the_stepper_and_the_picture_follows(stepper):
    view = stepper.view()
    view.buttons["step"].click()
    assert stepper.events == 1
    view.controller.value = 1002
    view.buttons["timeout"].click()
    assert stepper.state()[1002]["role"] == "Prospective"
    assert "Prospective" in view.picture.value
    view.buttons["run_until_leader"].click()
    leader = stepper.leader()
    assert leader is not None and f"leader {leader}" in view.picture.value
    view.record.value = "hello"
    view.buttons["append"].click()
    assert "append(&#x27;hello&#x27;) at leader" in view.picture.value
    view.buttons["back"].click()
    assert "hello" not in view.picture.value.split('<pre')[1]
    view.controller.value = 1003
    view.buttons["isolate"].click()
    assert stepper.isolated == (1003,) and "controller 1003 (isolated)" in view.picture.value
    view.buttons["heal"].click()
    assert stepper.isolated == ()
    events = stepper.events
    view.buttons["drop_next"].click()
    assert stepper.events == events + 1 and view.last_error is None


def test_a_refused_control_shows_its_line_and_raises_nothing(stepper):
    view = stepper.view()
    before = view.picture.value
    view.buttons["back"].click()
    assert view.last_error == "Nothing to go back to: no event has happened yet"
    assert "Nothing to go back to" in view.status.value and view.picture.value == before
    assert "--jp-error-color1" in view.status.value
    view.buttons["step"].click()                                 # success clears the status
    assert view.last_error is None and view.status.value == ""


def test_every_press_that_cannot_act_says_so_in_one_line(stepper):
    view = stepper.view()
    view.buttons["heal"].click()
    assert view.last_status == "The network is not partitioned: nothing to heal"
    assert view.last_error is None and stepper.events == 0
    view.buttons["run_until_leader"].click()
    leader = stepper.leader()
    assert view.last_status.startswith(f"Controller {leader} won epoch 1 after ")
    events = stepper.events
    view.buttons["run_until_leader"].click()                     # twice: nothing to run
    assert view.last_status == f"Controller {leader} already leads epoch 1: nothing to run"
    assert stepper.events == events
    view.controller.value = leader
    view.buttons["timeout"].click()
    assert "a leader has no election or fetch timer" in view.last_error
    view.buttons["isolate"].click()
    assert view.last_status == f"isolate({leader}): controller {leader} is cut off from " + \
        ", ".join(str(n) for n in stepper.node_ids if n != leader)
    view.buttons["isolate"].click()                              # twice: already isolated
    assert view.last_status == f"Controller {leader} is already isolated: nothing changed"
    assert view.last_error is None and len(view.status.value.splitlines()) == 1


def test_next_event_button_says_what_it_landed_on(stepper):
    view = stepper.view()
    view.buttons["next_event"].click()
    assert view.last_status.startswith("t=1.039s  1003 timer: election timeout; "
                                       "1003: Unattached -> Prospective (after 717 routine")
    assert "Prospective" in view.picture.value and view.last_error is None
    view.buttons["back"].click()                                 # back: just before that event
    assert stepper.state()[1003]["role"] == "Unattached" and stepper.events == 717


def test_controls_from_a_cell_redraw_every_view(stepper):
    first, second = stepper.view(), stepper.view()
    stepper.timeout(1001)
    assert "Prospective" in first.picture.value and first.picture.value == second.picture.value


def test_closing_the_view_or_the_stepper(stepper):
    view = stepper.view()
    view.close()
    stepper.step()                                               # no longer redraws that view
    other = stepper.view()
    last = other.picture.value
    stepper.close()
    assert other.picture.comm is not None and other.picture.value == last   # its last picture
    assert other.still.frozen and "stepper was closed" in other.status.value
    assert view.picture.comm is None                             # the view closed by hand is gone
    assert "QuorumStepperView(QuorumStepper(closed))" == repr(other)
