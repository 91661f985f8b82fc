from minikafka.network.request_context import (EMPTY_CLIENT_INFORMATION, ClientInformation,
                                               RequestContext, is_valid_client_software)


def test_software_name_pattern_of_kip_511():
    assert is_valid_client_software("kafka-python", "3.0.12")
    assert is_valid_client_software("apache-kafka-java", "4.1.1")
    assert is_valid_client_software("a", "1")
    assert not is_valid_client_software("", "1")
    assert not is_valid_client_software("kafka python", "1")
    assert not is_valid_client_software("-leading", "1")
    assert not is_valid_client_software("trailing.", "1")
    assert not is_valid_client_software("ok", "1.0-")
    assert not is_valid_client_software(None, "1")


def test_client_information_defaults_to_unknown():
    assert EMPTY_CLIENT_INFORMATION == ClientInformation("unknown", "unknown")
    assert ClientInformation.of("", "") == EMPTY_CLIENT_INFORMATION
    assert ClientInformation.of("rdkafka", "2.15.0").software_name == "rdkafka"


def test_context_defaults():
    ctx = RequestContext("127.0.0.1:9092-127.0.0.1:5000-0-0", "127.0.0.1", "PLAINTEXT",
                         api_key=3, api_version=12, correlation_id=1, client_id="c")
    assert ctx.principal == "User:ANONYMOUS" and ctx.security_protocol == "PLAINTEXT"
    assert ctx.client_information == EMPTY_CLIENT_INFORMATION
