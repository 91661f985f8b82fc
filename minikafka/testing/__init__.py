"""Simulation and testing tools a learner can use too, as trio keeps ``trio.testing``.

* `QuorumStepper` (`quorum_stepper`): a KRaft quorum of controllers in virtual
  time, stepped by hand -- deliver, drop or reorder a message, fire a timer,
  isolate a controller, go back exactly.  Headless here; ``widgets`` gives it
  a widget (``widgets.QuorumStepper``).  Its reads come from `SteppedQuorum`
  (`stepped_quorum`), its timeline is a `History` (`quorum_history`), the
  table of steps that matter is `quorum_stepper_next`, its texts
  `quorum_stepper_text`, and `quorum_scenarios` holds lesson 04's recipes.
* `transition_edges`/`transition_dot` (`quorum_state_diagram`): the KRaft
  epoch-state diagram, drawn from the transition table ``raft.quorum_state``
  consults (the stepper's ``state_diagram``).
* `RaftInvariantChecker` (`raft_invariants`): Raft's safety properties, the
  checker the raft tests run after every step, the stepper runs on demand
  (``check_invariants()``) and a learner can run over their own quorum.

These sit above the drivers (the stepper runs on ``drivers.stepping``) and
below ``widgets``; nothing here imports ``widgets``.
"""

from minikafka.testing import quorum_scenarios
from minikafka.testing.quorum_history import History
from minikafka.testing.quorum_state_diagram import Edge, transition_dot, transition_edges
from minikafka.testing.quorum_stepper import Note, QuorumStepper, QuorumStepperError
from minikafka.testing.raft_invariants import CheckedLog, RaftInvariantChecker
from minikafka.testing.stepped_quorum import SteppedQuorum

__all__ = ["CheckedLog", "Edge", "History", "Note", "QuorumStepper", "QuorumStepperError",
           "RaftInvariantChecker", "SteppedQuorum", "quorum_scenarios", "transition_dot",
           "transition_edges"]
