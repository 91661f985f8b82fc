from kafka.protocol.parser import KafkaProtocol

from minikafka.network.codec import decode_request, request_class
from minikafka.server.kafka_apis import HANDLERS, dispatch
from minikafka.network.request_channel import CloseConnectionResponse
from minikafka.network.request_context import RequestContext


def decoded_metadata():
    client = KafkaProtocol(client_id="c")
    client.send_request(request_class(3)[12](topics=None))
    return decode_request(bytes(client.send_bytes())[4:])


def ctx_for(decoded):
    return RequestContext("c", "h", "PLAINTEXT", decoded.api_key, decoded.api_version,
                          decoded.correlation_id, decoded.client_id)


def test_registry_holds_the_example_handlers():
    assert {18, 29, 30, 31} <= set(HANDLERS)


def test_missing_handler_closes_the_connection():
    decoded = decoded_metadata()
    outcome = dispatch(ctx_for(decoded), decoded, None, handlers={})
    assert isinstance(outcome, CloseConnectionResponse)
    assert "no handler for Metadata" in str(outcome.reason)


def test_a_raising_handler_closes_the_connection_with_the_error():
    def broken(ctx, request, broker):
        raise KeyError("orders")
    decoded = decoded_metadata()
    outcome = dispatch(ctx_for(decoded), decoded, None, handlers={3: broken})
    assert isinstance(outcome, CloseConnectionResponse) and isinstance(outcome.reason, KeyError)


def test_handler_gets_context_body_and_broker():
    seen = []
    decoded = decoded_metadata()
    broker = object()
    dispatch(ctx_for(decoded), decoded, broker,
             handlers={3: lambda ctx, request, b: seen.append((ctx.api_version, request, b)) or "ok"})
    assert seen == [(12, decoded.body, broker)]
