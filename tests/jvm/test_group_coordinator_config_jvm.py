"""The sandbox's group coordinator settings checked against 4.3.1's own GroupCoordinatorConfig.

One JVM reads one case per line (``name=value`` pairs separated by spaces),
builds the real ``GroupCoordinatorConfig`` from them and prints ``ok`` or the
exception it threw; the sandbox must accept and refuse the same cases with the
same words.  The teaching profile's scaled consumer-protocol timers are one of
the cases: a real broker must accept what the sandbox writes into
``server.properties``.
"""

from __future__ import annotations

import subprocess

import pytest

from minikafka.common.config.broker_configs import timing_static_props
from minikafka.common.errors import ConfigException
from minikafka.coordinator.group_coordinator_config import CONSUMER_GROUP_TIMERS, GroupCoordinatorConfig
from minikafka.common.timing import TEACHING

JAVA_SOURCE = """
import java.io.*;
import java.util.*;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;

public class CheckGroupCoordinatorConfig {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            Map<String, Object> props = new HashMap<>();
            for (String pair : line.trim().split(" ")) {
                if (pair.isEmpty()) continue;
                int eq = pair.indexOf('=');
                props.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            try {
                new GroupCoordinatorConfig(new AbstractConfig(GroupCoordinatorConfig.CONFIG_DEF, props));
                System.out.println("ok");
            } catch (Exception e) {
                System.out.println(e.getClass().getName() + ": " + e.getMessage());
            }
        }
    }
}
"""

TEACHING_TIMERS = {name: value for name, value in timing_static_props(TEACHING).items()
                   if name in CONSUMER_GROUP_TIMERS}

CASES = [
    {},
    TEACHING_TIMERS,
    {"group.consumer.session.timeout.ms": "9000", "group.consumer.heartbeat.interval.ms": "1000"},
    {"group.consumer.max.heartbeat.interval.ms": "4000"},
    {"group.consumer.heartbeat.interval.ms": "16000"},
    {"group.consumer.max.session.timeout.ms": "40000"},
    {"group.consumer.session.timeout.ms": "61000"},
    {"group.consumer.min.session.timeout.ms": "10000", "group.consumer.session.timeout.ms": "12000",
     "group.consumer.heartbeat.interval.ms": "14000"},
    {"group.consumer.session.timeout.ms": "1", "group.consumer.heartbeat.interval.ms": "1"},
]


def sandbox_answer(configs: dict[str, str]) -> str:
    try:
        GroupCoordinatorConfig.from_configs(configs, "kafka")
    except ConfigException as error:
        return f"{error.java_class}: {error}"
    return "ok"


def test_the_sandbox_accepts_and_refuses_what_kafka_does(kafka_classpath, tmp_path):
    assert len(TEACHING_TIMERS) == 6
    source = tmp_path / "CheckGroupCoordinatorConfig.java"
    source.write_text(JAVA_SOURCE)
    lines = "".join(" ".join(f"{k}={v}" for k, v in case.items()) + "\n" for case in CASES)
    run = subprocess.run(["java", "-Xmx128m", "-cp", kafka_classpath, str(source)], input=lines,
                         capture_output=True, text=True, timeout=120, check=True)
    kafka = run.stdout.splitlines()
    assert kafka[:2] == ["ok", "ok"]          # Kafka's defaults, and the teaching profile's settings
    assert [sandbox_answer(case) for case in CASES] == kafka
