"""Two of three controllers die: metadata changes time out, the data plane keeps working.

Without a majority the KRaft quorum elects no leader, so there is no active
controller: a CreateTopics forwarded by a broker gets no answer and the broker
replies REQUEST_TIMED_OUT once the request's ``timeout_ms`` is spent.  Brokers
keep their last metadata and their partition leaders, so producing to and
fetching from existing partitions goes on (as long as the ISR does not need to
change, which needs the controller).  A producer that got its producer id
before the loss keeps producing; a *new* idempotent producer would need the
controller to hand its broker a block of producer ids.
"""

import time

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import RequestTimedOutError

from minikafka import Cluster
from tests.e2e.groups_admin_helpers import admin_client, eventually

pytestmark = pytest.mark.live


def send_all(producer, values):
    futures = [producer.send("steady", value=v) for v in values]
    producer.flush(timeout=20)
    assert all(f.succeeded() for f in futures)


def test_create_topics_times_out_and_existing_leaders_keep_serving():
    cluster = Cluster(brokers=3, controllers=3, seed=105).start()
    try:
        cluster.create_topic("steady", 2, 3)
        producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all")
        send_all(producer, [f"before-{i}".encode() for i in range(10)])
        admin = admin_client(cluster)
        try:
            for controller in cluster.controller_ids[:2]:
                cluster.kill(controller)
            eventually(lambda: cluster.active_controller is None, what="the quorum without a leader")
            started = time.monotonic()
            with pytest.raises(RequestTimedOutError):
                admin.create_topics({"impossible": {"num_partitions": 1}}, timeout_ms=2000)
            assert time.monotonic() - started < 9.0                  # the broker answered, not the client's timer
            answer = admin.create_topics({"impossible": {}}, timeout_ms=1000, raise_errors=False)
            assert [(t["name"], t["error_code"], t["error_message"]) for t in answer["topics"]] == \
                [("impossible", 7, None)]
        finally:
            admin.close()

        send_all(producer, [f"after-{i}".encode() for i in range(10)])
        producer.close()
        reader = KafkaConsumer(bootstrap_servers=cluster.bootstrap_servers, group_id=None,
                               auto_offset_reset="earliest", consumer_timeout_ms=10_000)
        try:
            reader.assign([TopicPartition("steady", p) for p in (0, 1)])
            values = []
            eventually(lambda: values.extend(r.value for b in reader.poll(timeout_ms=200).values() for r in b)
                       or len(values) >= 20, what="all 20 records")
            assert sorted(values) == sorted([f"before-{i}".encode() for i in range(10)]
                                            + [f"after-{i}".encode() for i in range(10)])
        finally:
            reader.close()
    finally:
        cluster.stop(graceful=False)        # a controlled shutdown needs the controller: just kill the rest
