"""Differential scenario: error answers to bad ConsumerGroupHeartbeat requests (KIP-848).

Raw ConsumerGroupHeartbeat v1 requests, each wrong in one way, go to the
single node (the coordinator of every group): fields the coordinator refuses
before looking at any group (INVALID_REQUEST with the field's text), an
assignor it does not have (UNSUPPORTED_ASSIGNOR), a regex that does not compile
(INVALID_REGULAR_EXPRESSION), an unknown group or member, a member epoch the
coordinator does not know (FENCED_MEMBER_EPOCH), static membership misused
(UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID).  Each answer is reduced to what
does not depend on the cluster: error code and message, member id and epoch,
heartbeat interval, and the assigned partitions without their topic ids.  The
groups are then described with ConsumerGroupDescribe: the bad requests left
them as the good ones made them.
"""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.slow

FIND_COORDINATOR, CONSUMER_GROUP_HEARTBEAT, CONSUMER_GROUP_DESCRIBE = 10, 68, 69
LOADING = (14, 15, 16)      # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR: not yet
TOPIC = "hb-topic"
GROUP, STATIC_GROUP = "hb-bad", "hb-static"


def heartbeat(connection, group_id: str = GROUP, member_id: str = "member-a", member_epoch: int = 0, *,
              instance_id: str | None = None, rack_id: str | None = None, rebalance_timeout_ms: int = 30_000,
              topics: list[str] | None = None, regex: str | None = None, assignor: str | None = None,
              owned: list[dict] | None = None) -> dict:
    """One ConsumerGroupHeartbeat v1; its answer without topic ids (partitions of each assigned topic)."""
    answer = connection.request(CONSUMER_GROUP_HEARTBEAT, 1, group_id=group_id, member_id=member_id,
                                member_epoch=member_epoch, instance_id=instance_id, rack_id=rack_id,
                                rebalance_timeout_ms=rebalance_timeout_ms, subscribed_topic_names=topics,
                                subscribed_topic_regex=regex, server_assignor=assignor, topic_partitions=owned)
    assignment = answer.get("assignment")
    return {"error_code": answer["error_code"], "error_message": answer["error_message"],
            "member_id": answer["member_id"], "member_epoch": answer["member_epoch"],
            "heartbeat_interval_ms": answer["heartbeat_interval_ms"],
            "assignment": None if assignment is None else sorted(
                sorted(t["partitions"]) for t in assignment["topic_partitions"])}


def described(connection, *group_ids: str) -> list[dict]:
    """ConsumerGroupDescribe v1 of the groups: state, epochs and each member's epoch and partitions."""
    answer = connection.request(CONSUMER_GROUP_DESCRIBE, 1, group_ids=list(group_ids),
                                include_authorized_operations=False)
    return [{"group_id": g["group_id"], "error_code": g["error_code"], "error_message": g["error_message"],
             "group_state": g["group_state"], "group_epoch": g["group_epoch"],
             "assignment_epoch": g["assignment_epoch"], "assignor_name": g["assignor_name"],
             "members": sorted((m["member_id"], m["instance_id"], m["member_epoch"], m["subscribed_topic_names"],
                                sorted(p for t in m["assignment"]["topic_partitions"] for p in t["partitions"]))
                               for m in g["members"])}
            for g in answer["groups"]]


def test_bad_heartbeats(single):
    def scenario(side):
        created = side.tool("kafka-topics", "--create", "--topic", TOPIC, "--partitions", "2")
        assert created.returncode == 0, created.text()
        some_topic = [{"topic_id": uuid.UUID(int=7), "partitions": [0]}]
        out: dict = {}
        with side.raw() as connection:
            # As a client starts: FindCoordinator (which creates __consumer_offsets), then the join, asked
            # again while the coordinator loads its partition.
            side.wait_until(lambda: connection.request(FIND_COORDINATOR, 4, key_type=0, coordinator_keys=[
                GROUP, STATIC_GROUP, "hb-regex"])["coordinators"][0]["error_code"] == 0, what="a coordinator")
            out["join"] = side.wait_until(
                lambda: (lambda a: a if a["error_code"] not in LOADING else None)(
                    heartbeat(connection, topics=[TOPIC], owned=[])), timeout_s=60, what="a first join")
            out["static join"] = side.wait_until(
                lambda: (lambda a: a if a["error_code"] not in LOADING else None)(
                    heartbeat(connection, STATIC_GROUP, "member-s", instance_id="static-1", topics=[TOPIC],
                              owned=[])), timeout_s=60, what="a static join")
            bad = {
                "empty member id": dict(member_id=""),
                "blank group id": dict(group_id=" "),
                "empty instance id": dict(member_id="member-x", instance_id=""),
                "blank rack id": dict(member_id="member-x", rack_id="  ", topics=[TOPIC], owned=[]),
                "join without a rebalance timeout": dict(member_id="member-x", rebalance_timeout_ms=-1,
                                                         topics=[TOPIC], owned=[]),
                "join owning partitions": dict(member_id="member-x", topics=[TOPIC], owned=some_topic),
                "join with null owned partitions": dict(member_id="member-x", topics=[TOPIC]),
                "join without a subscription": dict(member_id="member-x", owned=[]),
                "static leave without an instance id": dict(member_epoch=-2),
                "member epoch -3": dict(member_epoch=-3),
                "unknown assignor": dict(member_id="member-x", topics=[TOPIC], assignor="sticky", owned=[]),
                "regex that does not compile": dict(member_id="member-x", regex="hb-(topic", owned=[]),
                "unterminated class": dict(member_id="member-x", regex="hb-[topic", owned=[]),
                "nothing to repeat": dict(member_id="member-x", regex="*hb", owned=[]),
                "unknown group, epoch 1": dict(group_id="hb-never", member_epoch=1),
                "unknown member, epoch 1": dict(member_id="member-x", member_epoch=1),
                "unknown member leaves": dict(member_id="member-x", member_epoch=-1),
                "known member, greater epoch": dict(member_epoch=7),
                "known member, epoch 1 owning a partition it was not given": dict(
                    member_epoch=1, owned=some_topic),
                "instance id owned by another member": dict(group_id=STATIC_GROUP, member_id="member-t",
                                                            instance_id="static-1", topics=[TOPIC], owned=[]),
                "static leave by another member": dict(group_id=STATIC_GROUP, member_id="member-t",
                                                       member_epoch=-2, instance_id="static-1"),
            }
            for label, fields in bad.items():
                out[label] = heartbeat(connection, **fields)
            # (the clusters are shared with other scenarios: no topic of theirs starts with "hb-unmatched-")
            out["regex matching nothing"] = side.wait_until(
                lambda: (lambda a: a if a["error_code"] not in LOADING else None)(
                    heartbeat(connection, "hb-regex", "member-r", regex="hb-unmatched-.*", owned=[])),
                timeout_s=60, what="a join with a regex")
            # One group per request: Kafka answers several in the order of its hash map of their partitions.
            for group_id in (GROUP, STATIC_GROUP, "hb-regex", "hb-never"):
                out[f"{group_id} described after the bad requests"] = described(connection, group_id)
            out["leave"] = heartbeat(connection, member_epoch=-1)
            out["static leave"] = heartbeat(connection, STATIC_GROUP, "member-s", -2, instance_id="static-1")
            out["regex member leaves"] = heartbeat(connection, "hb-regex", "member-r", -1)
        return out
    single.play("groups: error answers to bad ConsumerGroupHeartbeat requests (KIP-848)", scenario, area="groups")
