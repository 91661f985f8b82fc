import pytest


def pytest_configure(config: pytest.Config) -> None:
    # kafka-python 3.0 loads its JSON schemas with a deprecated importlib API
    config.addinivalue_line("filterwarnings",
                            "ignore:.*(read_text|open_text) is deprecated:DeprecationWarning")
