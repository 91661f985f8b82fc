from __future__ import annotations

from minikafka.spark.internal_kafka_consumer_pool import InternalKafkaConsumerPool


class Client:
    def __init__(self, name: str):
        self.name = name
        self.closed = False

    def close(self) -> None:
        self.closed = True


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_returned_client_is_reused_for_the_same_settings_only():
    pool = InternalKafkaConsumerPool(clock=Clock())
    first = pool.borrow("a", lambda: Client("a1"))
    pool.give_back("a", first)
    assert pool.borrow("b", lambda: Client("b1")).name == "b1"  # other settings: a new client
    assert pool.borrow("a", lambda: Client("a2")) is first
    assert pool.borrow("a", lambda: Client("a3")).name == "a3"  # the idle one is lent out already


def test_idle_clients_are_closed_after_the_timeout():
    clock = Clock()
    pool = InternalKafkaConsumerPool(idle_timeout_s=300, clock=clock)
    old = Client("old")
    pool.give_back("a", old)
    clock.now = 299.0
    assert pool.idle_count() == 1 and not old.closed
    clock.now = 300.0
    assert pool.borrow("a", lambda: Client("new")).name == "new"
    assert old.closed


def test_beyond_capacity_the_longest_idle_client_is_closed():
    clock = Clock()
    pool = InternalKafkaConsumerPool(capacity=2, clock=clock)
    clients = [Client(str(n)) for n in range(3)]
    for n, client in enumerate(clients):
        clock.now = float(n)
        pool.give_back(("k", n), client)
    assert [c.closed for c in clients] == [True, False, False]
    pool.close_all()
    assert all(c.closed for c in clients) and pool.idle_count() == 0


def test_a_client_that_fails_to_close_does_not_break_the_pool():
    class Broken(Client):
        def close(self) -> None:
            raise OSError("connection reset")

    pool = InternalKafkaConsumerPool(capacity=0, clock=Clock())
    pool.give_back("a", Broken("x"))
    assert pool.idle_count() == 0
