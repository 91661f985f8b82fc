"""Invariants of a Kafka cluster, checked against every node after every simulation step.

* Raft election safety: at most one leader per epoch, across all controllers and time.
* Raft log matching: committed metadata batches are identical on every voter.
* Partition state in every node's committed metadata: the leader is in the ISR,
  the ISR is within the replicas, the ISR is never empty (unless ELR is on),
  the ELR is within the replicas and apart from the ISR.
* A partition leader's high watermark never goes back within its leader epoch.
* At most one broker believes it leads a partition in a given leader epoch.
"""

from __future__ import annotations

from minikafka.controller.feature_control_manager import is_elr_enabled
from minikafka.drivers.cluster_runtime import NodeState


class InvariantViolation(AssertionError):
    pass


class InvariantChecker:
    def __init__(self, cluster):
        self.cluster = cluster
        self.raft_leaders: dict[int, int] = {}          # raft epoch -> leader id
        self.partition_leaders: dict[tuple, int] = {}   # (topic, partition, epoch) -> broker
        self.high_watermarks: dict[tuple, int] = {}     # (broker, incarnation, tp, epoch) -> HW
        self.steps = 0

    def __call__(self) -> None:
        self.steps += 1
        for node_id, handle in self.cluster.driver.handles.items():
            if handle.state is NodeState.DEAD or handle.node is None:
                continue
            node = handle.node
            self._check_raft(node_id, node)
            if node.broker is not None:
                self._check_image(node_id, node.broker.image)
                self._check_partitions(node_id, handle.incarnation, node.broker)
            if node.controller is not None:
                self._check_image(node_id, node.controller.committed_image)
        if self.steps % 200 == 0:
            self.check_log_matching()

    def _check_raft(self, node_id: int, node) -> None:
        if node.raft.role != "Leader":
            return
        seen = self.raft_leaders.setdefault(node.raft.epoch, node_id)
        if seen != node_id:
            raise InvariantViolation(f"two raft leaders in epoch {node.raft.epoch}: {seen} and {node_id}")

    def _check_image(self, node_id: int, image) -> None:
        for name in image.topic_names():
            topic = image.topics.get_topic(name)
            for index, reg in topic.partitions.items():
                where = f"{name}-{index} on node {node_id}"
                if not reg.isr and not is_elr_enabled(image):
                    raise InvariantViolation(f"{where}: empty ISR")      # with ELR it may be empty
                if set(reg.isr) & set(reg.elr) or not set(reg.elr) <= set(reg.replicas):
                    raise InvariantViolation(f"{where}: ELR {reg.elr} overlaps ISR {reg.isr} or leaves "
                                             f"the replicas")
                if not set(reg.isr) <= set(reg.replicas):
                    raise InvariantViolation(f"{where}: ISR {reg.isr} not within replicas {reg.replicas}")
                if reg.leader >= 0 and reg.leader not in reg.isr:
                    raise InvariantViolation(f"{where}: leader {reg.leader} not in ISR {reg.isr}")

    def _check_partitions(self, node_id: int, incarnation: int, broker) -> None:
        for tp, partition in broker.replica_manager.partitions.items():
            if not partition.is_leader or partition.log is None:
                continue
            key = (tp.topic, tp.partition, partition.leader_epoch)
            owner = self.partition_leaders.setdefault(key, node_id)
            if owner != node_id:
                raise InvariantViolation(f"{tp} has two leaders in epoch {partition.leader_epoch}: "
                                         f"{owner} and {node_id}")
            hw_key = (node_id, incarnation, tp, partition.leader_epoch)
            hw = partition.log.high_watermark
            if hw < self.high_watermarks.get(hw_key, 0):
                raise InvariantViolation(f"{tp} high watermark went back on leader {node_id}: "
                                         f"{self.high_watermarks[hw_key]} -> {hw}")
            self.high_watermarks[hw_key] = hw

    def check_log_matching(self) -> None:
        logs = []
        for controller in self.cluster.layout.controllers:
            handle = self.cluster.driver.handles[controller]
            if handle.node is None:
                continue
            raft = handle.node.raft
            committed = raft.high_watermark or 0
            logs.append((controller, committed, handle.node.metadata_log))
        if not logs:
            return
        common = min(committed for _, committed, _ in logs)
        reference = None
        for controller, _, log in logs:
            batches = [(b.base_offset, b.epoch, b.records) for b in log.read(0, 10**9)
                       if b.next_offset <= common]
            if reference is None:
                reference = (controller, batches)
            elif batches != reference[1]:
                raise InvariantViolation(f"committed metadata differs between controllers "
                                         f"{reference[0]} and {controller} below offset {common}")
