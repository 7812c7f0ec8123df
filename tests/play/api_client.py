"""What the play tests share: FastAPI's test client and a new game through it."""

import warnings

with warnings.catch_warnings():  # newer Starlette prefers httpx2 to httpx; both work
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def new(client, **body):
    """A new game (Tic-Tac-Toe against random unless ``body`` says otherwise) and its view."""
    response = client.post("/api/sessions", json={"game": "tic_tac_toe", "agent": "random", **body})
    assert response.status_code == 200, response.text
    return response.json()


__all__ = ["TestClient", "new"]
