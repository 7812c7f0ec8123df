"""The play tests' ``client``: the server's app in FastAPI's test client, its life cycle run."""

import pytest
from api_client import TestClient

from alphazero_jax.play.routes import create_app


@pytest.fixture
def client():
    with TestClient(create_app()) as c:
        yield c
