"""The people's side of conversations, in the durable database (shared by every worker and machine):
who waits for a person and who has them, every hand-over ever made (for the metrics), the
global panic switch with its log, and what customers asked that the assistant couldn't answer.

A conversation is with people from its hand-over until an operator releases it. Taking one is
a single conditional write, so two operators racing for it can't both get it: the second is
told who has it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from flask import Flask

from assistant.infra.database import DATABASE, Database, Row
from assistant.infra.extensions import Slot

REASONS = {  # why a conversation went to people, as the console says it
    "asked": "asked for a person",
    "not_understood": "not understood twice in a row",
    "article": "a help article that people handle",
    "flow_done": "a completed case for the office",
    "unplaced": "a booking no time could take",
    "panic": "the panic switch was on",
}
UNANSWERED_KEPT = 2000  # the newest questions the console groups; older ones are dropped


@dataclass(frozen=True)
class Handover:
    session_id: str
    pack: str
    reason: str
    summary: str
    since: float
    operator: str | None = None  # who has it; None: it waits for someone
    taken_at: float | None = None

    @property
    def status(self) -> str:
        return "taken" if self.operator else "waiting"


@dataclass(frozen=True)
class Panic:
    on: bool = False
    by: str | None = None
    at: float | None = None


@dataclass(frozen=True)
class Question:
    """A customer's question that nobody answered: masked, and why it went unanswered."""

    text: str
    reason: str
    at: float
    vector: bytes | None


class Taken(RuntimeError):
    """Another operator has the conversation."""

    def __init__(self, operator: str):
        super().__init__(operator)
        self.operator = operator


class NotHeld(RuntimeError):
    """The conversation is not with people, or not with this operator."""


class AlreadyWaiting(RuntimeError):
    """The client has another conversation waiting for a person, `place` in the queue."""

    def __init__(self, place: int):
        super().__init__(place)
        self.place = place


class HandoverStore:
    def __init__(self, db: Database):
        self._db = db

    def hand_over(self, session_id: str, pack: str, reason: str, summary: str, client: str | None = None) -> Handover:
        """The conversation joins the queue, unless it is with people already (then as it was).
        One conversation of a `client` waits at a time: a client opening sessions to fill the
        queue gets AlreadyWaiting for the next, and the queue holds the one."""
        now = time.time()
        with self._db.transaction() as db:
            db.lock(f"handover:{session_id}")  # rows not there yet decide: no row lock would do
            db.lock(f"handover-client:{client}")
            if db.execute("SELECT 1 FROM handovers WHERE session_id = ?", (session_id,)).fetchone() is None:
                waiting = db.execute(
                    "SELECT since, session_id FROM handovers JOIN handover_clients USING (session_id)"
                    " WHERE client = ? AND operator IS NULL",
                    (client,),
                ).fetchone()
                if waiting is not None:
                    ahead = (
                        "SELECT COUNT(*) FROM handovers WHERE operator IS NULL AND (since < ? OR (since = ? AND session_id <= ?))"
                    )
                    raise AlreadyWaiting(int(db.execute(ahead, (waiting[0], waiting[0], waiting[1])).fetchone()[0]))
                db.execute("INSERT INTO handovers VALUES (?, ?, ?, ?, ?, NULL, NULL)", (session_id, pack, reason, summary, now))
                if client is not None:
                    db.execute(
                        "INSERT INTO handover_clients VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET client=excluded.client",
                        (session_id, client),
                    )
                db.execute("INSERT INTO handover_log (session_id, reason, since) VALUES (?, ?, ?)", (session_id, reason, now))
        found = self.current(session_id)
        assert found is not None, "just written, and only a release removes it"
        return found

    def current(self, session_id: str) -> Handover | None:
        """The conversation's hand-over while people have it; None: the assistant answers."""
        row = self._db.one(f"SELECT {_COLUMNS} FROM handovers WHERE session_id = ?", (session_id,))
        return _handover(row) if row else None

    def standing(self, session_id: str) -> tuple[Handover | None, bool]:
        """The conversation's hand-over (as `current`) and whether the panic switch is on, in one
        round trip: every turn asks both."""
        row = self._db.one(
            f"SELECT {_HELD_COLUMNS}, p.on_ FROM (SELECT 1 AS here) AS here"
            " LEFT JOIN handovers AS h ON h.session_id = ?"
            " LEFT JOIN (SELECT on_ FROM panic_log ORDER BY id DESC LIMIT 1) AS p ON 1 = 1",
            (session_id,),
        )
        assert row is not None, "the one row of (SELECT 1)"
        return (_handover(row[:-1]) if row[0] is not None else None), bool(row[-1])

    def queue(self) -> list[Handover]:
        """Every conversation with people, the longest waiting first."""
        return [_handover(row) for row in self._db.rows(f"SELECT {_COLUMNS} FROM handovers ORDER BY since, session_id")]

    def take(self, session_id: str, operator: str) -> Handover:
        """`operator` has the conversation now (again, if they had it). Raises Taken when someone
        else has it, NotHeld when it is not with people."""
        with self._db.transaction() as db:
            taken = db.execute(
                "UPDATE handovers SET operator = ?, taken_at = ? WHERE session_id = ? AND (operator IS NULL OR operator = ?)",
                (operator, time.time(), session_id, operator),
            ).rowcount
            if taken:
                db.execute(
                    "UPDATE handover_log SET operator = ? WHERE id = (SELECT MAX(id) FROM handover_log WHERE session_id = ?)",
                    (operator, session_id),
                )
        found = self.current(session_id)
        if found is None:
            raise NotHeld(session_id)
        if not taken:
            assert found.operator is not None, "the update misses only a conversation someone else has"
            raise Taken(found.operator)
        return found

    def holds(self, session_id: str, operator: str) -> Handover:
        """The hand-over `operator` has; NotHeld if they don't have it."""
        found = self.current(session_id)
        if found is None or found.operator != operator:
            raise NotHeld(session_id)
        return found

    def release(self, session_id: str, operator: str, note: str) -> None:
        """The assistant answers again; `note` says what the person did. Only the operator who has
        the conversation, or anyone while it still waits, releases it."""
        with self._db.transaction() as db:
            gone = db.execute(
                "DELETE FROM handovers WHERE session_id = ? AND (operator IS NULL OR operator = ?)", (session_id, operator)
            ).rowcount
            if gone:
                db.execute("DELETE FROM handover_clients WHERE session_id = ?", (session_id,))
                db.execute(
                    "UPDATE handover_log SET released_at = ?, note = ?, operator = COALESCE(operator, ?)"
                    " WHERE id = (SELECT MAX(id) FROM handover_log WHERE session_id = ?)",
                    (time.time(), note, operator, session_id),
                )
        if not gone:
            raise NotHeld(session_id)

    def counts(self) -> tuple[dict[str, int], int]:
        """Hand-overs ever made, by reason, and how many of them a person took."""
        by_reason = {str(r): int(n) for r, n in self._db.rows("SELECT reason, COUNT(*) FROM handover_log GROUP BY reason")}
        row = self._db.one("SELECT COUNT(*) FROM handover_log WHERE operator IS NOT NULL")
        return by_reason, int(row[0]) if row else 0

    def panic(self) -> Panic:
        row = self._db.one('SELECT on_, "by", at FROM panic_log ORDER BY id DESC LIMIT 1')
        return Panic(bool(row[0]), str(row[1]), float(row[2])) if row else Panic()

    def set_panic(self, on: bool, by: str) -> Panic:
        self._db.write('INSERT INTO panic_log (on_, "by", at) VALUES (?, ?, ?)', (int(on), by, time.time()))
        return self.panic()

    def panic_log(self, limit: int = 50) -> list[Panic]:
        """Every switch, the newest first."""
        rows = self._db.rows('SELECT on_, "by", at FROM panic_log ORDER BY id DESC LIMIT ?', (limit,))
        return [Panic(bool(on), str(by), float(at)) for on, by, at in rows]

    def note_unanswered(self, text: str, reason: str, vector: bytes | None) -> None:
        """A question nobody answered (already masked: this table is read by operators)."""
        with self._db.transaction() as db:
            db.execute("INSERT INTO unanswered (text, reason, at, vector) VALUES (?, ?, ?, ?)", (text, reason, time.time(), vector))
            db.execute("DELETE FROM unanswered WHERE id <= (SELECT MAX(id) FROM unanswered) - ?", (UNANSWERED_KEPT,))

    def unanswered(self) -> list[Question]:
        """The questions kept, the oldest first."""
        return [Question(*row) for row in self._db.rows("SELECT text, reason, at, vector FROM unanswered ORDER BY id")]


_COLUMNS = "session_id, pack, reason, summary, since, operator, taken_at"
_HELD_COLUMNS = ", ".join(f"h.{column}" for column in _COLUMNS.split(", "))


def _handover(row: Row) -> Handover:
    return Handover(*row)


HANDOVERS: Slot[HandoverStore] = Slot("handovers")


def init_app(app: Flask) -> None:
    HANDOVERS.put(app, HandoverStore(DATABASE.get(app)))
