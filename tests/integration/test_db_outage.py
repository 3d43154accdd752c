"""A PostgreSQL connection killed in the middle of a request (``pg_terminate_backend``, what a
failover or an administrator does): the request fails cleanly with 503, nothing of it is saved,
and the next request reconnects and succeeds."""
from __future__ import annotations

import psycopg2
import pytest
from django.db import connection
from rest_framework.authtoken.models import Token

from corpus.models import Dataset
from tests.platform.corpus.factories import make_dataset, make_user

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_terminate_backend is PostgreSQL's"),
]


def _terminate(pid: int) -> None:
    """Kill backend ``pid`` from a connection of our own, as an administrator would."""
    db = connection.settings_dict
    admin = psycopg2.connect(dbname=db["NAME"], user=db["USER"], host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432)
    try:
        admin.autocommit = True
        with admin.cursor() as cur:
            cur.execute("SELECT pg_terminate_backend(%s)", [pid])
            assert cur.fetchone()[0] is True
    finally:
        admin.close()


class KillAt:
    """``connection.execute_wrapper``: terminates the connection's own backend just before the first
    statement that starts with ``prefix`` runs (so earlier statements of the request succeeded)."""

    def __init__(self, prefix: str):
        self.prefix, self.fired = prefix.upper(), False

    def __call__(self, execute, sql, params, many, context):
        if not self.fired and sql.lstrip().upper().startswith(self.prefix):
            self.fired = True
            _terminate(context["connection"].connection.info.backend_pid)
        return execute(sql, params, many, context)


def test_an_api_write_whose_connection_is_killed_fails_cleanly_and_the_retry_succeeds(client):
    staff = make_user("boss", staff=True)
    token = Token.objects.create(user=staff)
    auth = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    body = {"name": "district-bank", "description": "written during a failover"}
    killer = KillAt("INSERT")
    with connection.execute_wrapper(killer):
        response = client.post("/api/v1/datasets/", body, content_type="application/json", **auth)
    assert killer.fired
    assert response.status_code == 503
    assert response["Retry-After"]
    assert response.json()["code"] == "database_unavailable"
    assert "nothing from this request was saved" in response.json()["detail"]
    assert not Dataset.objects.filter(name="district-bank").exists()
    # The client retries: a fresh connection, the dataset written once.
    again = client.post("/api/v1/datasets/", body, content_type="application/json", **auth)
    assert again.status_code == 201, again.content
    assert Dataset.objects.filter(name="district-bank").count() == 1


def test_a_page_whose_connection_is_killed_answers_503_and_the_next_page_loads(client):
    staff = make_user("boss", staff=True)
    make_dataset("algebra")
    client.force_login(staff)
    killer = KillAt("SELECT")
    with connection.execute_wrapper(killer):
        response = client.get("/datasets/")
    assert killer.fired
    assert response.status_code == 503
    assert b"Try again in a moment" in response.content
    response = client.get("/datasets/")
    assert response.status_code == 200
    assert b"algebra" in response.content
