"""Lesson 06's harness: the plumbing behind "Scaling and operating a cluster".

A learner need not read this module.  The lesson's cells call the Kafka
verbs themselves (``kafka-reassign-partitions.sh``,
``cluster.reassign_partitions``, ``cluster.elect_leaders``,
``cluster.decommission_broker``, the brokers' metrics...); what is here is
the machinery around them:

* `simulated_move`: the throttle experiment.  One reassignment (a replica of
  ``events-0`` added on a new broker) in a *simulated* cluster, with or
  without ``--throttle``, while a producer writes acks=all batches to the
  same leader; every 100 ms of virtual time it samples the new broker's
  ``ReplicationBytesInPerSec`` and the leader's ``BytesInPerSec``, and it
  returns a `MoveRun` (the move's duration, the samples, the throttle
  configs in force).  Same arguments, same numbers: nothing here depends on
  the machine.  `move_table`, `per_second` and `plot_moves` show the runs.
  The simulated network delivers every message after a fixed 1 ms and has
  no bandwidth limit, so the copy does not slow the producer here: what the
  experiment shows is the copy's traffic next to the producer's;
* `drain_plan`: the reassignment plan that empties a broker, each of its
  replicas replaced by a broker that does not hold the partition yet;
* `replicas_on`: the partitions whose replica list names a broker;
* `share_in_words`: a measured share (0.5) as one of the choices a
  prediction offers ("about half");
* checks for the lesson's tasks, each returning an
  `minikafka.course.task.Outcome` read from the cluster:
  `replicated_onto`, `decommissioned`, `led_by_preferred`, `leads_none`.

Everything takes the cluster as an argument; nothing here is a Kafka
concept of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minikafka.course.task import Outcome

__all__ = ["SHARES", "MoveRun", "decommissioned", "drain_plan", "leads_none", "led_by_preferred", "move_table",
           "per_second", "plot_moves", "replicas_on", "replicated_onto", "share_in_words", "simulated_move"]


# ---------------------------------------------------------------------- the throttle experiment
REPLICATION_BYTES_IN = "kafka.server:type=BrokerTopicMetrics,name=ReplicationBytesInPerSec"
TRAFFIC_BYTES_IN = "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=traffic"


@dataclass(frozen=True)
class MoveRun:
    """One reassignment measured in a simulated cluster (all times in virtual milliseconds)."""

    throttle: int | None          # --throttle in bytes/s, None for none
    size: int                     # bytes in the moving partition's log when the move started
    leader: int                   # the broker the new replica copies from
    new_broker: int               # the broker that receives the copy
    move_ms: int | None           # --execute until the controller completed the move (None: not within the watch)
    times_ms: tuple[int, ...]     # sample times since --execute
    copied: tuple[int, ...]       # ReplicationBytesIn of the new broker at each sample (cumulative)
    produced: tuple[int, ...]     # BytesIn of topic traffic on the leader at each sample (cumulative)
    sent: int                     # produce requests sent to traffic during the watch
    acked: int                    # ... of which acknowledged (acks=all)
    throttle_configs: dict[str, str]   # the throttle settings in force halfway through the move

    def copy_rate(self) -> float | None:
        """Bytes per second the copy averaged while the move ran (None if it did not finish)."""
        if not self.move_ms:
            return None
        return self.copied[-1] / (self.move_ms / 1000)

    def traffic_rate(self) -> float:
        """Bytes per second the producer wrote to the leader over the whole watch."""
        return self.produced[-1] / (self.times_ms[-1] / 1000)

    def busiest(self, window_ms: int = 1000) -> int:
        """The most bytes the copy moved in any ``window_ms`` of the watch (samples' resolution)."""
        step = self.times_ms[0]
        width = max(1, window_ms // step)
        padded = (0,) + self.copied
        return max(padded[i + width] - padded[i] for i in range(len(padded) - width)) \
            if len(padded) > width else padded[-1]


def simulated_move(throttle: int | None, *, megabytes: int = 8, seed: int = 6, watch_ms: int = 10_000,
                   sample_ms: int = 100, traffic_batch: int = 10) -> MoveRun:
    """Build a small simulated cluster, fill ``events-0`` (one replica) with ``megabytes`` MB, add a
    broker, and add a replica of ``events-0`` on it with ``reassign_partitions`` (as
    ``kafka-reassign-partitions.sh --execute --throttle``), while a producer sends one acks=all batch
    of ``traffic_batch`` 1 KB records every ``sample_ms`` to a partition of ``traffic`` led by the
    same leader.  Every ``sample_ms`` of virtual time it reads the new broker's
    ReplicationBytesInPerSec and the leader's BytesInPerSec for ``traffic``; the move's duration is
    the time of the controller's ``reassignment_completed`` event.  Same arguments, same numbers."""
    from minikafka import Cluster
    from minikafka.drills.drill_client import DrillClient

    cluster = Cluster(brokers=3, controllers=1, seed=seed, simulated=True).start()
    try:
        cluster.create_topic("events", partitions=1, replication_factor=1)
        cluster.create_topic("traffic", partitions=3, replication_factor=1)
        leader = cluster.leader("events", 0)
        traffic = next(p for p in range(3) if cluster.leader("traffic", p) == leader)
        client = DrillClient(cluster, "lesson06-producer")
        for _ in range(megabytes * 10):
            outcome = client.produce("events", 0, [bytes(1000)] * 100, acks=1)
            if not outcome.ok:
                raise RuntimeError(f"filling events-0 failed: {outcome.error}")
        new_broker = cluster.add_broker()
        cluster.run_for(1_000)
        size = _log_size(cluster, leader, "events", 0)
        copied0 = cluster.metric(REPLICATION_BYTES_IN).get(new_broker, 0)
        produced0 = cluster.metric(TRAFFIC_BYTES_IN).get(leader, 0)
        seq, start = cluster.events.last_seq, cluster.driver.now()
        cluster.reassign_partitions({("events", 0): [leader, new_broker]}, throttle_bytes_per_sec=throttle)
        times, copied, produced = [], [], []
        configs: dict[str, str] = {}
        sent = acked = 0
        for tick in range(1, watch_ms // sample_ms + 1):
            acked += client.produce("traffic", traffic, [bytes(1000)] * traffic_batch, acks=-1).ok
            sent += 1
            cluster.run_for(start + tick * sample_ms - cluster.driver.now())
            times.append(tick * sample_ms)
            copied.append(cluster.metric(REPLICATION_BYTES_IN).get(new_broker, 0) - copied0)
            produced.append(cluster.metric(TRAFFIC_BYTES_IN).get(leader, 0) - produced0)
            if not configs and cluster.list_reassignments():
                configs = _throttle_configs(cluster, leader, new_broker)
        done = [e.time_ms for e in cluster.events.since(seq, {"reassignment_completed"})]
        return MoveRun(throttle, size, leader, new_broker, done[0] - start if done else None,
                       tuple(times), tuple(copied), tuple(produced), sent, acked, configs)
    finally:
        cluster.stop()


def _log_size(cluster: Any, broker: int, topic: str, partition: int) -> int:
    """Bytes in a partition's log on one broker (what kafka-log-dirs.sh reports as its size)."""
    for partition_state in cluster.snapshot().topic(topic).partitions:
        if partition_state.partition == partition:
            for replica in partition_state.replica_states:
                if replica.broker == broker and replica.size_bytes is not None:
                    return replica.size_bytes
    raise LookupError(f"broker {broker} holds no replica of {topic}-{partition}")


def _throttle_configs(cluster: Any, leader: int, new_broker: int) -> dict[str, str]:
    """The reassignment's throttle settings in force: the two brokers' dynamic rates, from the
    last ConfigRecord of each in the metadata log (what every broker replays), and the topic's
    throttled replicas."""
    wanted = [(str(leader), "leader.replication.throttled.rate"),
              (str(new_broker), "follower.replication.throttled.rate")]
    rates: dict[tuple[str, str], str | None] = {}
    for entry in cluster.metadata_records():
        record = entry.record
        if entry.type_name == "CONFIG_RECORD" and (record.resource_name, record.name) in wanted:
            rates[(record.resource_name, record.name)] = record.value
    found = {f"broker {node}: {name}": rate for node, name in wanted
             if (rate := rates.get((node, name))) is not None}
    for name, value in sorted(cluster.snapshot().topic("events").configs.items()):
        if "throttled" in name:
            found[f"topic events: {name}"] = value
    return found


def move_table(runs: list[MoveRun]) -> str:
    """The runs side by side: the move's duration, the copy's speed and the producer's traffic."""
    def mb(value: float | None) -> str:
        return "-" if value is None else f"{value / 1_000_000:.2f}"
    lines = [f"{'throttle':>12}  {'move took':>9}  {'copy MB/s':>9}  {'busiest 1 s':>11}  "
             f"{'traffic MB/s':>12}  {'acks':>7}"]
    for run in runs:
        label = "none" if run.throttle is None else f"{run.throttle / 1_000_000:g} MB/s"
        took = "-" if run.move_ms is None else f"{run.move_ms / 1000:.2f} s"
        lines.append(f"{label:>12}  {took:>9}  {mb(run.copy_rate()):>9}  {mb(run.busiest()) + ' MB':>11}  "
                     f"{mb(run.traffic_rate()):>12}  {f'{run.acked}/{run.sent}':>7}")
    return "\n".join(lines)


def per_second(run: MoveRun, series: str = "copied") -> list[int]:
    """Bytes of ``series`` ("copied" or "produced") in each whole second of the watch."""
    values = getattr(run, series)
    per = 1000 // run.times_ms[0]
    ends = [0] + [values[i - 1] for i in range(per, len(values) + 1, per)]
    return [b - a for a, b in zip(ends, ends[1:])]


def plot_moves(runs: list[MoveRun]):
    """Two panels: the bytes copied to the new broker over time, and bytes per second next to the
    producer's traffic into the same leader."""
    import matplotlib.pyplot as plt
    figure, (total, rate) = plt.subplots(1, 2, figsize=(10, 3.2))
    for run in runs:
        label = "no throttle" if run.throttle is None else f"--throttle {run.throttle:,}"
        total.step([0] + [t / 1000 for t in run.times_ms], [0] + [c / 1_000_000 for c in run.copied],
                   where="post", label=label)
        seconds = per_second(run)
        rate.step(range(len(seconds) + 1), [b / 1_000_000 for b in seconds + seconds[-1:]], where="post",
                  label=f"copy, {label}")
    traffic = per_second(runs[0], "produced")
    rate.step(range(len(traffic) + 1), [b / 1_000_000 for b in traffic + traffic[-1:]], where="post",
              color="black", linestyle=":", label="producer traffic")
    total.set(title="MB copied to the new broker", xlabel="virtual seconds since --execute")
    rate.set(title="MB per second into the leader / out to the copy", xlabel="virtual seconds since --execute")
    total.legend(fontsize=8)
    rate.legend(fontsize=8)
    figure.tight_layout()
    return figure


# ---------------------------------------------------------------------- draining a broker
def replicas_on(cluster: Any, broker: int) -> list[tuple[str, int]]:
    """(topic, partition) of every partition, internal topics included, whose replica list
    names ``broker`` (what ``kafka-topics.sh --describe`` shows under Replicas)."""
    return [(t.name, p.partition) for t in cluster.snapshot().topics for p in t.partitions
            if broker in p.replicas]


def drain_plan(cluster: Any, broker: int) -> dict[tuple[str, int], list[int]]:
    """{(topic, partition): new replicas} that moves every replica off ``broker``: in each list
    the broker is replaced, at the same place, by the first broker that holds no replica of
    that partition yet."""
    plan = {}
    for topic, partition in replicas_on(cluster, broker):
        replicas = cluster.replicas(topic, partition)
        spare = next((b for b in cluster.broker_ids if b != broker and b not in replicas), None)
        if spare is None:
            raise ValueError(f"no broker is free to take {topic}-{partition}'s replica from broker {broker}")
        plan[(topic, partition)] = [spare if r == broker else r for r in replicas]
    return plan


# ---------------------------------------------------------------------- predictions
SHARES = {"about a tenth": 0.1, "about a quarter": 0.25, "about half": 0.5,
          "about three quarters": 0.75, "nearly all": 1.0}


def share_in_words(share: float) -> str:
    """The choice of `SHARES` nearest to ``share`` (0.48 -> "about half")."""
    return min(SHARES, key=lambda words: abs(SHARES[words] - share))


# ---------------------------------------------------------------------- checks for the tasks
def _target(partition: Any) -> list[int]:
    """A partition's replicas once its reassignment (if any) is done."""
    return [b for b in partition.replicas if b not in partition.removing_replicas]


def replicated_onto(cluster: Any, topic: str, broker: int, replication_factor: int) -> Outcome:
    """Check: every partition of ``topic`` has (or is moving to) ``replication_factor`` replicas,
    one of them on ``broker``."""
    partitions = cluster.snapshot().topic(topic).partitions
    short = [f"{topic}-{p.partition} has {len(_target(p))}" for p in partitions
             if len(_target(p)) != replication_factor]
    if short:
        return Outcome(False, f"{', '.join(short)} replica(s), not {replication_factor}")
    missing = [f"{topic}-{p.partition}" for p in partitions if broker not in _target(p)]
    if missing:
        return Outcome(False, f"broker {broker} holds no replica of {', '.join(missing)}")
    return Outcome(True, f"every partition of {topic} has {replication_factor} replicas, one on broker {broker}")


def decommissioned(cluster: Any, broker: int) -> Outcome:
    """Check: ``broker`` is gone from the cluster and no partition lists it any more."""
    listed = replicas_on(cluster, broker)
    if listed:
        shown = ", ".join(f"{t}-{p}" for t, p in listed[:6])
        return Outcome(False, f"{shown}{' ...' if len(listed) > 6 else ''} still list broker {broker}")
    if broker in cluster.broker_ids:
        return Outcome(False, f"broker {broker} holds no replica, but it is still part of the cluster")
    return Outcome(True, f"broker {broker} is gone; the brokers are {', '.join(map(str, cluster.broker_ids))}")


def led_by_preferred(cluster: Any, topics: Any = None, wait_ms: int = 5_000) -> Outcome:
    """Check: every partition of ``topics`` (default: every topic, internal ones included) is led
    by its preferred replica, the first in its list.  Waits up to ``wait_ms`` for the brokers to
    see an election the controller has just made."""
    def others() -> list[str]:
        return [f"{t.name}-{p.partition}" for t in cluster.snapshot().topics
                if topics is None or t.name in topics for p in t.partitions
                if p.replicas and p.leader != p.replicas[0]]
    cluster.wait_until(lambda: not others(), timeout_ms=wait_ms)
    left = others()
    if left:
        return Outcome(False, f"{len(left)} partition(s) not led by their preferred replica, e.g. "
                              f"{', '.join(left[:4])}")
    return Outcome(True, "every partition is led by its preferred replica")


def leads_none(cluster: Any, topic: str, broker: int) -> Outcome:
    """Check: ``broker`` leads no partition of ``topic``."""
    led = [p.partition for p in cluster.snapshot().topic(topic).partitions if p.leader == broker]
    if led:
        return Outcome(False, f"broker {broker} leads {len(led)} partition(s) of {topic}")
    return Outcome(True, f"broker {broker} leads no partition of {topic}")
