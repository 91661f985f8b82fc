import random
import re

from minikafka.coordinator.classic_group_member import ClassicGroupMember, generate_member_id
from minikafka.coordinator.requests import JoinGroupRequestProtocol

UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"


def test_member_id_is_client_id_dash_random_uuid():
    member_id = generate_member_id("consumer-demo-1", None, random.Random(1))
    assert re.fullmatch(r"consumer-demo-1-" + UUID4, member_id)


def test_static_member_id_uses_the_instance_id():
    assert generate_member_id("c", "host-1", random.Random(1)).startswith("host-1-")


def test_member_ids_are_reproducible_from_the_seed():
    assert generate_member_id("c", None, random.Random(5)) == generate_member_id("c", None, random.Random(5))
    assert generate_member_id("c", None, random.Random(5)) != generate_member_id("c", None, random.Random(6))


def _member() -> ClassicGroupMember:
    return ClassicGroupMember("m", None, "c", "/127.0.0.1", 1, 1, "consumer",
                              (JoinGroupRequestProtocol("range", b"r"), JoinGroupRequestProtocol("rr", b"x")))


def test_parked_members_count_as_alive_except_new_ones():
    member = _member()
    assert not member.has_satisfied_heartbeat()
    member.awaiting_join = lambda response: None
    assert member.has_satisfied_heartbeat()
    member.is_new = True
    assert not member.has_satisfied_heartbeat()


def test_vote_and_metadata():
    member = _member()
    assert member.vote({"rr", "range"}) == "range"
    assert member.vote({"rr"}) == "rr"
    assert member.metadata("rr") == b"x"
    assert member.describe("range").member_metadata == b"r"
    assert member.describe(None).member_metadata == b""
