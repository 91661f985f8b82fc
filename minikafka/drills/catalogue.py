"""The catalogue of drills: one row per drill, and where its scenario lives.

Theory of operation
-------------------
A teacher picks a drill from this table by id.  Each row says what kind of
drill it is (predict, diagnose or fix), which lesson it follows, whether it
runs on a simulated cluster (virtual time, exact, the same for everyone
with the same seed) or a live one (real clients over TCP), and the claim of
the course's seed texts it puts to the test.  The scenario class is named
by its module path and loaded on first use, so reading the catalogue starts
no cluster and imports no broker code.

Not a Kafka concept: the teaching layer's index.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from minikafka.drills.question import DrillError

KINDS = ("predict", "diagnose", "fix")


@dataclass(frozen=True, slots=True)
class DrillInfo:
    id: str
    title: str
    kind: str              # predict | diagnose | fix
    lesson: str            # the lesson it follows ("03")
    live: bool             # a live cluster with real clients (else simulated)
    claim: str             # the seed texts' claim it exercises, in the course's words
    scenario: str          # "module:Class" of its scenario

    def load(self):
        module, _, name = self.scenario.partition(":")
        return getattr(importlib.import_module(f"minikafka.drills.{module}"), name)


_ROWS = (
    DrillInfo("leader-crash", "A partition leader crashes", "predict", "01", False,
              "When a broker fails, a follower on another broker takes over as leader of its "
              "partitions", "broker_failure_drills:LeaderCrash"),
    DrillInfo("replication-factor-vs-brokers", "More replicas than brokers", "predict", "02",
              False, "Replicas of a partition sit on different brokers, so a replication factor "
              "can never exceed the number of brokers; partitions spread evenly over the brokers",
              "sizing_drills:ReplicationFactorVsBrokers"),
    DrillInfo("isr-not-enough-replicas", "Followers fall out of the ISR under acks=all",
              "predict", "03", False,
              "Followers that stop copying leave the in-sync replicas; with acks=all and "
              "min.insync.replicas the leader then refuses writes rather than risk them",
              "durability_drills:NotEnoughReplicas"),
    DrillInfo("acks1-data-loss", "Acknowledged with acks=1, then lost", "predict", "03", False,
              "Replication protects data only once followers have it: acks=1 records can vanish "
              "when the leader dies", "durability_drills:AcksOneLoss"),
    DrillInfo("unclean-election", "The last in-sync replica dies", "predict", "03", False,
              "Availability or durability: an offline partition comes back with an unclean "
              "election, at the price of acknowledged records", "durability_drills:UncleanElection"),
    DrillInfo("power-loss", "Acknowledged, then the power fails", "predict", "03", False,
              "A broker persists messages to local disk: written to its files, but flushed to the "
              "disk only now and then; replication, not fsync, keeps acknowledged records",
              "durability_drills:PowerLoss"),
    DrillInfo("controller-crash", "The active controller crashes", "predict", "04", False,
              "In KRaft the controllers, not the brokers, elect the active controller; "
              "the data keeps flowing while they do", "quorum_drills:ControllerCrash"),
    DrillInfo("controller-majority-lost", "Something is wrong with the metadata quorum",
              "diagnose", "04", False,
              "Run an odd number of controllers: a quorum works only while a majority is alive",
              "quorum_drills:MajorityLost"),
    DrillInfo("quick-restart", "A broker restarted right after a clean stop", "predict", "04", False,
              "The controller decides which brokers belong to the cluster: it fences a broker whose "
              "heartbeats stop, and registers a restarted broker under a new broker epoch",
              "quorum_drills:QuickRestart"),
    DrillInfo("follower-out-of-sync", "Partitions are under-replicated", "diagnose", "03", False,
              "Followers copy the leader to take over when it fails; an operator watches the "
              "under-replicated partitions", "broker_failure_drills:FollowerOutOfSync"),
    DrillInfo("wrong-advertised-listener", "Clients connect, then time out", "diagnose", "05", True,
              "If advertised.listeners is wrong, bootstrap succeeds but connections to the "
              "leaders fail", "client_drills:WrongAdvertisedListener"),
    DrillInfo("consumers-exceed-partitions", "More consumers than partitions", "predict", "05",
              True, "A topic can never have more useful consumers in a group than it has "
              "partitions", "client_drills:ConsumersExceedPartitions"),
    DrillInfo("fourth-member-joins", "A fourth member joins a group", "predict", "05", True,
              "A classic eager rebalance stops the whole group; under the consumer protocol "
              "(KIP-848) the coordinator moves only the partitions that must move",
              "group_protocol_drills:FourthMemberJoins"),
    DrillInfo("keyed-partitions-added", "Partitions added to a keyed topic", "predict", "06",
              False, "Adding partitions later disrupts key-based ordering",
              "scaling_drills:KeyedPartitionsAdded"),
    DrillInfo("throttled-reassignment", "A throttled reassignment under traffic", "predict", "06",
              False, "Reassignment copies data over the network and competes with live traffic: "
              "throttle it, and remove the throttle afterwards", "scaling_drills:ThrottledReassignment"),
    DrillInfo("empty-new-broker", "A new broker holds nothing", "fix", "06", False,
              "A new broker takes over no partitions by itself: you reassign partitions to use it",
              "scaling_drills:EmptyNewBroker"),
    DrillInfo("unbalanced-leaders", "One broker leads everything", "fix", "06", False,
              "Spread leadership evenly; an unbalanced cluster overloads the brokers that lead "
              "the most partitions", "scaling_drills:UnbalancedLeaders"),
    DrillInfo("offline-partition", "A partition is offline", "fix", "03", False,
              "With replication factor 3 a broker loss never causes data loss, if you bring back "
              "the right broker", "broker_failure_drills:OfflinePartition"),
    DrillInfo("lagging-group", "A consumer group lags behind", "fix", "05", True,
              "A group's progress is its committed offsets; its lag falls only when it commits, "
              "and a topic can never have more useful consumers in a group than partitions",
              "consumer_group_drills:LaggingGroup"),
)

CATALOGUE = {row.id: row for row in _ROWS}


def catalogue(kind: str | None = None, lesson: str | None = None) -> list[DrillInfo]:
    """The drills, in the catalogue's order (optionally only one kind, or one lesson)."""
    if kind is not None and kind not in KINDS:
        raise DrillError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return [row for row in _ROWS if (kind is None or row.kind == kind)
            and (lesson is None or row.lesson == str(lesson).zfill(2))]


def info(drill_id: str) -> DrillInfo:
    """The catalogue row of ``drill_id``; an unknown id is refused in one line."""
    row = CATALOGUE.get(drill_id) if isinstance(drill_id, str) else None
    if row is None:
        raise DrillError(f"No drill {drill_id!r}; the catalogue has {', '.join(CATALOGUE)}")
    return row


def catalogue_text(kind: str | None = None) -> str:
    """The catalogue as a plain table: id, kind, lesson, cluster, title."""
    rows = catalogue(kind)
    width = max(len(r.id) for r in rows)
    lines = [f"{'ID':{width}}  {'KIND':8}  LESSON  CLUSTER    TITLE"]
    lines += [f"{r.id:{width}}  {r.kind:8}  {r.lesson:6}  {'live' if r.live else 'simulated':9}  "
              f"{r.title}" for r in rows]
    return "\n".join(lines)
