"""The durable database layer sends one SQL text to SQLite or PostgreSQL alike: `?` parameters,
a literal `%`, FOR UPDATE (dropped where SQLite's transaction holds the file already), advisory
locks, rollback on error, and a customer's NUL character, which PostgreSQL's text cannot hold."""

from __future__ import annotations

import threading
import time

import pytest


def test_the_same_sql_runs_on_both(open_db):
    db = open_db()
    assert db.write("INSERT INTO preferences VALUES (?, ?)", ("c-1", '{"note": "100% sure?"}')) == 1
    assert db.one("SELECT body FROM preferences WHERE customer_id = ? AND body LIKE '%100%%'", ("c-1",)) == (
        '{"note": "100% sure?"}',
    )
    with db.transaction() as tx:
        assert tx.execute("SELECT body FROM preferences WHERE customer_id = ? FOR UPDATE", ("c-1",)).fetchone()
        tx.execute("UPDATE preferences SET body = ? WHERE customer_id = ?", ("{}", "c-1"))
    assert open_db().rows("SELECT body FROM preferences") == [("{}",)]


def test_a_failed_transaction_leaves_nothing(open_db):
    db = open_db()
    with pytest.raises(ZeroDivisionError), db.transaction() as tx:
        tx.execute("INSERT INTO preferences VALUES (?, ?)", ("c-2", "{}"))
        raise ZeroDivisionError
    assert db.rows("SELECT * FROM preferences") == []


def test_a_nul_character_is_kept_as_a_visible_mark_not_a_failure(open_db, database_url):
    db = open_db()
    db.write("INSERT INTO unanswered (text, reason, at) VALUES (?, ?, ?)", ("a\x00b", "asked", 1.0))
    kept = db.one("SELECT text FROM unanswered")
    assert kept == (("a\ufffdb",) if database_url.startswith("postgresql") else ("a\x00b",))


def test_a_lock_makes_another_transaction_wait(open_db):
    """Two workers deciding on the same key: the second reads only after the first committed."""
    first, second, seen = open_db(), open_db(), []
    locked = threading.Event()

    def later() -> None:
        locked.wait()
        with second.transaction() as tx:
            tx.lock("hour:17")
            seen.append(tx.execute("SELECT COUNT(*) FROM booked_hours").fetchone()[0])

    waiting = threading.Thread(target=later)
    waiting.start()
    with first.transaction() as tx:
        tx.lock("hour:17")
        locked.set()
        time.sleep(0.3)  # the other transaction is waiting meanwhile
        tx.execute("INSERT INTO booked_hours VALUES (?, ?, ?)", ("BK-1", "call", "2026-11-24T17"))
    waiting.join()
    assert seen == [1]
