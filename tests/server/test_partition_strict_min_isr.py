"""Partition: the high watermark under min.insync.replicas (KIP-966's strict min ISR, Kafka 3.7+).

Kafka 4.3 applies the rule whether or not ELR is on, so both feature levels are checked.
"""

import pytest

from minikafka.common.errors import Errors
from tests.sim.test_eligible_leader_replicas import ELR, NO_ELR, log_of, make, produce, wait


@pytest.mark.parametrize("features", [ELR, NO_ELR], ids=["elr", "no-elr"])
def test_an_acks_1_record_under_min_isr_stays_above_the_high_watermark(features):
    cluster, check = make(features=features)
    try:
        assert produce(cluster, 1, -1, b"a").error is Errors.NONE
        cluster.shutdown(3)
        cluster.shutdown(2)
        wait(cluster, check, lambda: cluster.isr("fo", 0) == [1])
        assert produce(cluster, 1, 1, b"b").error is Errors.NONE
        cluster.run_for(2000, check)
        assert (log_of(cluster, 1).log_end_offset, log_of(cluster, 1).high_watermark) == (2, 1)
    finally:
        cluster.stop()
