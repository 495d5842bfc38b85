"""Understanding user turns for any service described by a Schema-Guided Dialogue schema.

`SchemaUnderstanding.from_schema(schema, values)` reads one turn (`read(user, system, today)`);
`DialogueTracker` follows a conversation so each turn reports only what it changes. Both are
rule-based and offline; `python3 -m assistant.understanding.nlu` runs them over JSON lines.
"""

from assistant.understanding.nlu.schema import DONTCARE, NO_INTENT, Kind, SchemaUnderstanding
from assistant.understanding.nlu.tracker import DialogueTracker

__all__ = ["DONTCARE", "NO_INTENT", "DialogueTracker", "Kind", "SchemaUnderstanding"]
