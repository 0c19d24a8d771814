"""Unit tests run with sockets disabled: nothing here may reach a network, moto or AWS."""

import pytest
from pytest_socket import disable_socket, enable_socket


@pytest.fixture(autouse=True)
def _no_network():
    disable_socket(allow_unix_socket=False)
    yield
    enable_socket()
