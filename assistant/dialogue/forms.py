"""How a long form's answers are read (a flow that `reads: asked`): a slot only from the answer
to its question, from a part of the message that names it ("the e-mail is a@b.es"), or from a
form nothing else has (an e-mail address); the files sent go to the attachment slot asked for.

Several slots asked at once are answered one per line, or separated by ';' or ', ', each
part named ("brand: Akrapovic") or in the order asked; a choice is known by its option's words
wherever it is. Each value is checked (assistant/tools/validators.py): a refused one is said,
in the pack's words, and asked again.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from assistant.dialogue.said import Said
from assistant.dialogue.whose import Parties
from assistant.language import phrases, pieces
from assistant.language.phones import PHONE_LIKE, e164
from assistant.language.privacy import EMAIL_IN_TEXT
from assistant.pack.checks import Check
from assistant.pack.flows import Flow, Slot
from assistant.pack.model import Catalog
from assistant.pack.texts import say
from assistant.tools import validators
from assistant.tools.validators import Verdict

_LINES = re.compile(r"\s*[\n;]\s*")
_PARTS = re.compile(r"\s*(?:\n|;|,\s)\s*")  # with no line breaks, ', ' parts an answer too
_CLAUSE = re.compile(r"\s*[,;.!?]\s*")
_TOKEN = re.compile(r"[^\s,;:()«»\"']+")
WINDOW = 3  # a checked value is looked for in up to this many words in a row ("1234 BCD")
LONGEST = 200  # characters kept of a free answer


def fold(text: str) -> str:
    """Lower case without accents, one character for each: a name found in the folded text is at
    the same place in the text as said."""
    return "".join((unicodedata.normalize("NFKD", c)[:1] or c).lower()[:1] or c for c in text)


class FormReader:
    """Reads the slots of the flows that read only what was asked."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog

    def read(self, flow: Flow, said: Said, asked: Sequence[str], slots: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """The slots the message fills, and the refusals of what it got wrong, by slot."""
        typed = [flow.slot(name) for name in asked if name in _names(flow) and flow.slot(name).kind != "attachment"]
        parties = self.parties(flow, said.text, asked)
        raw = {
            name: told
            for name, spans in self._parts(flow, parties, typed, bool(said.attachments), slots).items()
            if (told := _said(parties.view(flow.slot(name)), spans))
        }
        email = next((s for s in flow.slots() if s.kind == "email" and s.slot not in raw), None)
        found = EMAIL_IN_TEXT.search(parties.view(email)) if email else None
        if email and found and not any(found.group(0) in text for text in raw.values()):
            raw[email.slot] = found.group(0)
        patch: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for name, text in raw.items():
            slot = flow.slot(name)
            verdict = self.value(slot, text)
            if verdict.ok:
                patch[name] = verdict.value
            else:
                why = say(self.catalog, verdict.reason or "check_pattern", **{"said": text, **verdict.values})
                again = "" if name in asked else f" {slot.ask}"
                problems[name] = say(self.catalog, "flow_refused", what=slot.name, said=text, why=why) + again
                patch[name] = None
        files = self._files(flow, said, asked, slots)
        if files:
            patch.update(files[0])
            problems.update(files[1])
        return patch, problems

    def parties(self, flow: Flow, text: str, asked: Sequence[str]) -> Parties:
        """The message as each slot may read it: a value said of someone else is never the customer's own."""
        return Parties(self.catalog.languages, flow, text, asked)

    def named(self, flow: Flow, parties: Parties, asked: Sequence[str], slots: dict[str, Any]) -> dict[str, str]:
        """What the parts of the message that name a slot ("name: Anil", "the date is Friday") say of it."""
        said: dict[str, str] = {}
        for start, end in pieces(parties.text, _splitter(parties.text)):
            hit = self._named(flow, parties, start, end, asked, slots)
            if hit:
                said[hit[0]] = _said(parties.view(flow.slot(hit[0])), [(hit[1], end)])
        return said

    def value(self, slot: Slot, text: str) -> Verdict:
        """What the slot keeps of an answer, or why it can't."""
        if slot.kind == "number":
            if slot.range:
                bounds = Check(min=slot.range[0], max=slot.range[1])
                return validators.check_number(text, slot.check or bounds)
            return validators.check_number(text, slot.check)
        if slot.kind == "choice":
            key = self.choice(slot, text)
            return Verdict(value=key) if key else Verdict(reason="check_choice", values={"options": self._options(slot)})
        if slot.kind == "email":
            found = EMAIL_IN_TEXT.search(text)
            return validators.email(found.group(0) if found else text)
        if slot.kind == "phone":
            phone = PHONE_LIKE.search(text)
            number = e164(phone.group(0), self.catalog.business) if phone else None
            return Verdict(value=number) if number else Verdict(reason="flow_bad_phone")
        if slot.kind == "person":
            name = self.catalog.languages.person(text, self.catalog.vocabulary.words.__contains__, ending_at=len(text))
            return Verdict(value=name or text.strip()[:LONGEST])
        if slot.check:
            return self._checked(slot, text)
        kept = text.strip() if slot.whole else (_CLAUSE.split(text.strip(), maxsplit=1)[0] or text.strip())
        return Verdict(value=kept[:LONGEST]) if kept else Verdict(reason="check_length", values={"low": 1})

    def choice(self, slot: Slot, text: str) -> str | None:
        folded = fold(text)
        for key, option in slot.options.items():
            names = option.words or [option.choice, key]
            if phrases([fold(word) for word in names]).search(folded):
                return key
        return None

    def _checked(self, slot: Slot, text: str) -> Verdict:
        """The answer, or the first few words in a row of it, that pass the slot's check ("my id
        is 12345678Z"); none: why the whole answer doesn't."""
        whole = validators.check_text(text, slot.check)
        if whole.ok:
            return whole
        tokens = _TOKEN.findall(text)
        for size in range(1, WINDOW + 1):
            for start in range(len(tokens) - size + 1):
                verdict = validators.check_text(" ".join(tokens[start : start + size]), slot.check)
                if verdict.ok:
                    return verdict
        best = max(tokens, key=lambda t: sum(c.isdigit() for c in t), default=text)  # a code's refusal is about the code
        return validators.check_text(best if slot.check and slot.check.named else text, slot.check)

    def _parts(
        self, flow: Flow, parties: Parties, asked: list[Slot], files: bool, slots: dict[str, Any]
    ) -> dict[str, list[tuple[int, int]]]:
        """Where each slot's part of the message is: those it names, then the rest in the order
        asked (a remark sent with files, "here is the sheet", answers no question)."""
        text = parties.text
        parts = pieces(text, _splitter(text))
        if not parts:
            return {}
        named = [self._named(flow, parties, start, end, [s.slot for s in asked], slots) for start, end in parts]
        if len(asked) == 1 and not any(named) and not files:
            return {asked[0].slot: [(parts[0][0], parts[-1][1])]}  # one answer, commas and all (an address)
        raw: dict[str, list[tuple[int, int]]] = {}
        loose: list[tuple[int, int]] = []
        last: str | None = None
        for (start, end), hit in zip(parts, named, strict=True):
            if hit:
                last = hit[0]
                raw[last] = [(hit[1], end)]
            elif last and not [s for s in asked if s.slot not in raw] and last in raw:
                raw[last].append((start, end))  # "the address is Calle Mayor 5, Madrid"
            else:
                loose.append((start, end))
        open_ = [s for s in asked if s.slot not in raw]
        for slot in [s for s in open_ if s.kind == "choice"]:
            hit_at = next((i for i, (start, end) in enumerate(loose) if self.choice(slot, text[start:end])), None)
            if hit_at is not None:
                raw[slot.slot] = [loose.pop(hit_at)]
        rest = [s for s in open_ if s.slot not in raw]
        if files:
            return raw
        if len(rest) == 1 and loose:
            raw[rest[0].slot] = loose
        else:
            raw.update({slot.slot: [span] for slot, span in zip(rest, loose, strict=False)})
        return raw

    def _named(
        self, flow: Flow, parties: Parties, start: int, end: int, asked: Sequence[str], slots: dict[str, Any]
    ) -> tuple[str, int] | None:
        """The slot the part of the message from `start` to `end` names at its start, and where
        the value after the name begins. Of the slots a name fits, the one whose name is said in
        full ("el teléfono del taller"), then the one asked for, then the one said last (a name
        two slots share, "marca", corrects the latest one given), and only one that can take a
        value said of whom the part says (not "su teléfono", at the review, for the customer's)."""
        folded = fold(parties.text[start:end])
        joiner = "|".join(re.escape(fold(word)) for word in flow.value_words)
        after = rf"\s*(?:[:=]\s*|\s+(?:(?:{joiner})\s+)?)(?=\S)" if joiner else r"\s*(?:[:=]\s*|\s+)(?=\S)"
        order = [s.slot for s in flow.slots()]
        best: tuple[tuple[int, bool, bool, int], str, int] | None = None
        for slot in flow.slots():
            if slot.kind == "attachment":
                continue
            names = sorted({fold(n) for n in [slot.name, *slot.words, slot.slot.replace("_", " ")]}, key=len, reverse=True)
            found = re.match(rf"^(?:\w{{1,3}}\s+)?(?P<name>{'|'.join(re.escape(n) for n in names)}){after}", folded)
            if not found or not parties.view(slot)[start + found.end() : end].strip():
                continue
            said = bool(slots.get(slot.slot))
            rank = (len(found.group("name")), slot.slot in asked, said, order.index(slot.slot) if said else -order.index(slot.slot))
            if best is None or rank > best[0]:
                best = (rank, slot.slot, start + found.end())
        return (best[1], best[2]) if best else None

    def _files(
        self, flow: Flow, said: Said, asked: Sequence[str], slots: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, str]] | None:
        """The files sent go to the attachment slot asked for, else the first not yet complete."""
        sent = list(said.attachments)
        if not sent:
            return None
        holders = [s for s in flow.slots() if s.kind == "attachment"]
        slot = next((s for s in holders if s.slot in asked), None) or next(
            (s for s in holders if len(slots.get(s.slot) or []) < len(s.needs)), None
        )
        if slot is None:
            return None
        taken = [f.id for f in sent if f.kind in slot.accepts]
        refused = [f for f in sent if f.kind not in slot.accepts]
        kept = list(dict.fromkeys([*(slots.get(slot.slot) or []), *taken]))
        problems = {slot.slot: say(self.catalog, "check_file_kind", what=slot.name)} if refused else {}
        return {slot.slot: kept or None}, problems

    @staticmethod
    def _options(slot: Slot) -> str:
        return ", ".join(option.choice for option in slot.options.values())


def _names(flow: Flow) -> set[str]:
    return {s.slot for s in flow.slots()}


def _splitter(text: str) -> re.Pattern[str]:
    """Several answers are one per line, or, with no line breaks, separated by ';' or ', '."""
    return _LINES if "\n" in text else _PARTS


def _said(view: str, spans: list[tuple[int, int]]) -> str:
    """The part of a slot's view of the message at those places, pieces joined by ', '."""
    return ", ".join(piece for start, end in spans if (piece := view[start:end].strip()))
