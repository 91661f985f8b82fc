"""``__transaction_state`` records byte for byte against Kafka 4.3.1's own TransactionLog.

One JVM reads one case per line (a transactional id, the fields of a
``TxnTransitMetadata``, the client's and the cluster's transaction version
and the partitions), builds the real ``TxnTransitMetadata`` and prints the
hex of ``TransactionLog.keyToBytes`` and ``valueToBytes`` and the partition
``Utils.abs(id.hashCode()) % 50``; the sandbox must write the same bytes and
pick the same partition, and read back what it wrote.
"""

from __future__ import annotations

import subprocess

from minikafka.common.topic_partition import TopicPartition
from minikafka.transaction_coordinator.transaction_log import (
    TxnRecord, key_to_bytes, partition_for, read, value_to_bytes,
)
from minikafka.transaction_coordinator.transaction_state import TransactionState
from minikafka.transaction_coordinator.transaction_version import TransactionVersion
from minikafka.transaction_coordinator.txn_transit_metadata import TxnTransitMetadata

JAVA_SOURCE = """
import java.io.*;
import java.util.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.transaction.*;
import org.apache.kafka.server.common.TransactionVersion;

public class DumpTransactionLog {
    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) out.append(String.format("%02x", b));
        return out.toString();
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] f = line.trim().split(" ");
            HashSet<TopicPartition> partitions = new HashSet<>();
            if (f.length > 12) {
                for (String tp : f[12].split(",")) {
                    int colon = tp.lastIndexOf(':');
                    partitions.add(new TopicPartition(tp.substring(0, colon), Integer.parseInt(tp.substring(colon + 1))));
                }
            }
            TxnTransitMetadata transit = new TxnTransitMetadata(Long.parseLong(f[1]), Long.parseLong(f[2]),
                Long.parseLong(f[3]), Short.parseShort(f[4]), Short.parseShort(f[5]), Integer.parseInt(f[6]),
                TransactionState.valueOf(f[7]), partitions, Long.parseLong(f[8]), Long.parseLong(f[9]),
                TransactionVersion.fromFeatureLevel(Short.parseShort(f[10])));
            try {
                System.out.println(hex(TransactionLog.keyToBytes(f[0])) + " "
                    + hex(TransactionLog.valueToBytes(transit, TransactionVersion.fromFeatureLevel(Short.parseShort(f[11]))))
                    + " " + (Utils.abs(f[0].hashCode()) % 50));
            } catch (Exception e) {
                System.out.println(e.getClass().getName());
            }
        }
    }
}
"""

S = TransactionState
TV0, TV1, TV2 = TransactionVersion.TV_0, TransactionVersion.TV_1, TransactionVersion.TV_2


def tps(*names: str) -> frozenset[TopicPartition]:
    return frozenset(TopicPartition(n.rpartition(":")[0], int(n.rpartition(":")[2])) for n in names)


def transit(pid, prev, nxt, epoch, last, timeout, state, parts, start, update, client_tv):
    return TxnTransitMetadata(pid, prev, nxt, epoch, last, timeout, state, parts, start, update, client_tv)


MANY = tps(*(f"orders:{p}" for p in range(12)), "payments:3", "payments:0", "audit:7", "z:1")
# (transactional id, transit, the cluster's transaction.version)
CASES = [
    ("my-txn", transit(1000, -1, -1, 0, -1, 60000, S.EMPTY, frozenset(), -1, 1700000000000, TV0), TV2),
    ("my-txn", transit(1000, -1, -1, 0, -1, 60000, S.EMPTY, frozenset(), -1, 1700000000000, TV0), TV0),
    ("my-txn", transit(1000, 1000, -1, 0, -1, 60000, S.ONGOING, tps("orders:0", "orders:2", "out:1"),
                       1700000000005, 1700000000005, TV2), TV2),
    ("my-txn", transit(1000, 1000, -1, 0, -1, 60000, S.ONGOING, tps("orders:0", "orders:2", "out:1"),
                       1700000000005, 1700000000005, TV0), TV0),
    ("my-txn", transit(1000, 1000, -1, 1, 0, 60000, S.PREPARE_COMMIT, tps("orders:0", "out:1"),
                       1700000000005, 1700000000009, TV2), TV2),
    ("my-txn", transit(1000, 1000, 2000, 32767, 32766, 60000, S.PREPARE_ABORT, tps("orders:0"),
                       5, 9, TV2), TV2),
    ("my-txn", transit(2000, 1000, -1, 0, 32766, 60000, S.COMPLETE_ABORT, frozenset(), 5, 11, TV2), TV2),
    ("app-1-0_0", transit(7, 7, -1, 3, -1, 900000, S.COMPLETE_COMMIT, frozenset(), 100, 200, TV1), TV1),
    ("app-1-0_0", transit(7, 7, -1, 3, -1, 900000, S.PREPARE_COMMIT, MANY, 100, 200, TV2), TV2),
    ("\u00e9t\u00e9", transit(8, 8, -1, 4, 3, 10000, S.DEAD, frozenset(), -1, 5, TV2), TV2),
    ("x", transit(9, 9, -1, 0, -1, 1, S.EMPTY, tps("a:0"), -1, 5, TV2), TV2),   # refused by both
]


def line(transactional_id: str, t: TxnTransitMetadata, level: TransactionVersion) -> str:
    fields = [transactional_id, t.producer_id, t.prev_producer_id, t.next_producer_id, t.producer_epoch,
              t.last_producer_epoch, t.txn_timeout_ms, t.txn_state.name, t.txn_start_timestamp,
              t.txn_last_update_timestamp, int(t.client_transaction_version), int(level)]
    if t.topic_partitions:
        fields.append(",".join(f"{tp.topic}:{tp.partition}" for tp in sorted(t.topic_partitions)))
    return " ".join(str(f) for f in fields) + "\n"


def sandbox_answer(transactional_id: str, t: TxnTransitMetadata, level: TransactionVersion) -> str:
    try:
        value = value_to_bytes(t, level)
    except Exception:
        return "java.lang.IllegalStateException"
    record = read(key_to_bytes(transactional_id), value)
    assert isinstance(record, TxnRecord) and record.transactional_id == transactional_id
    md = record.metadata
    assert (md.producer_id, md.producer_epoch, md.state, md.txn_timeout_ms) == (
        t.producer_id, t.producer_epoch, t.txn_state, t.txn_timeout_ms)
    assert md.topic_partitions == (frozenset() if t.txn_state == S.EMPTY else t.topic_partitions)
    return f"{key_to_bytes(transactional_id).hex()} {value.hex()} {partition_for(transactional_id, 50)}"


def test_the_sandbox_writes_the_bytes_kafka_writes(kafka_classpath, tmp_path):
    source = tmp_path / "DumpTransactionLog.java"
    source.write_text(JAVA_SOURCE)
    run = subprocess.run(["java", "-Xmx128m", "-cp", kafka_classpath, str(source)],
                         input="".join(line(*case) for case in CASES), capture_output=True, text=True,
                         timeout=120, check=True, encoding="utf-8")
    kafka = run.stdout.splitlines()
    assert kafka[-1] == "java.lang.IllegalStateException"
    assert [sandbox_answer(*case) for case in CASES] == kafka
