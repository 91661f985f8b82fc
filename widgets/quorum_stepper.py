"""`QuorumStepper` in a notebook: the stepper's model with its widget.

Theory of operation
-------------------
The KRaft election stepper's model lives in the package
(``minikafka.testing.QuorumStepper``: a quorum of raft controllers on the
stepping driver, its controls, timeline and readings; see its module doc).
This module gives it its notebook face and nothing else: ``view()`` returns a
new `QuorumStepperView` (a button per control), and a stepper left as the last
expression of a cell displays as one (as text once closed).  The view
subscribes to the stepper and redraws after every control; when the stepper
is closed it freezes.

``QuorumStepperError`` and ``Note`` are the model's, re-exported here so a
lesson imports everything it needs from ``widgets``.
"""

from __future__ import annotations

from minikafka.testing import quorum_stepper as model
from minikafka.testing.quorum_stepper import Note, QuorumStepperError


class QuorumStepper(model.QuorumStepper):
    """``minikafka.testing.QuorumStepper`` that displays as a `QuorumStepperView`."""

    def view(self):
        """A new widget showing this stepper, with a button for every control."""
        self._check_open()
        from widgets.quorum_stepper_view import QuorumStepperView
        return QuorumStepperView(self)

    def _ipython_display_(self) -> None:
        from IPython.display import display
        if self.closed:
            display(str(self))
        else:
            display(self.view())


__all__ = ["QuorumStepper", "QuorumStepperError", "Note"]
