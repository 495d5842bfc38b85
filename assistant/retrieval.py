"""Retrieval over the catalog and FAQ: chromadb (in memory) on the local embedding model.

Filters are hard constraints (chromadb `where`), the query's meaning only ranks what
passes them, so every product returned matches every filter the customer gave.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import chromadb
from chromadb.config import Settings

from assistant.domain import Catalog, FaqEntry, FilterValue, Product
from assistant.embeddings import MiniLMEmbedder

Filters = dict[str, FilterValue]

# filter name -> (what the product holds for it, the chromadb metadata field, how it compares)
_FILTER_FIELDS: dict[str, tuple[Callable[[Product], object], str, str]] = {
    "product_type": (lambda p: p.product_type, "product_type", "eq"),
    "banking_type": (lambda p: p.banking_type, "banking_type", "eq"),
    "tier": (lambda p: p.tier, "tier", "eq"),
    "network": (lambda p: p.network, "network", "eq"),
    "use_case": (lambda p: p.use_cases, "use_cases", "contains"),
    "max_annual_fee": (lambda p: p.fees.annual_fee, "annual_fee", "lte"),
}


def _as_list(value: FilterValue) -> list:
    return value if isinstance(value, list) else [value]


def product_matches(product: Product, filters: Filters) -> bool:
    """The same test chromadb applies, in Python: for selections, counts and tests."""
    for name, wanted in filters.items():
        read, _, op = _FILTER_FIELDS[name]
        have = read(product)
        if op == "lte":
            ok = have <= wanted
        elif op == "contains":
            ok = any(v in have for v in _as_list(wanted))
        else:
            ok = have in _as_list(wanted)
        if not ok:
            return False
    return True


def _where(filters: Filters) -> dict | None:
    clauses = []
    for name, wanted in filters.items():
        _, field, op = _FILTER_FIELDS[name]
        values = _as_list(wanted)
        if op == "lte":
            clauses.append({field: {"$lte": wanted}})
        elif op == "contains":
            options = [{field: {"$contains": v}} for v in values]
            clauses.append(options[0] if len(options) == 1 else {"$or": options})
        else:
            clauses.append({field: values[0]} if len(values) == 1 else {field: {"$in": values}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _metadata(product: Product) -> dict:
    return {field: read(product) for read, field, _ in _FILTER_FIELDS.values()}


class CatalogIndex:
    """The Retriever's tools: semantic product search under filters, and FAQ search."""

    def __init__(self, catalog: Catalog, embedder: MiniLMEmbedder):
        self.catalog = catalog
        self.embedder = embedder
        client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
        self._products = self._collection(
            client, "products", [p.id for p in catalog.products], [p.search_text() for p in catalog.products],
            [_metadata(p) for p in catalog.products],
        )
        # One vector per phrasing (the question and each keyword phrase): a short paraphrase
        # matches one phrasing far better than it matches all of them glued together.
        phrasings = [(e.id, text) for e in catalog.faq for text in (e.question, *e.keywords)]
        self._faq = self._collection(
            client, "faq", [f"{fid}#{n}" for n, (fid, _) in enumerate(phrasings)],
            [text for _, text in phrasings], [{"faq_id": fid} for fid, _ in phrasings],
        )
        self._faq_by_id = {e.id: e for e in catalog.faq}

    def _collection(self, client, kind: str, ids: list[str], texts: list[str], metadatas):
        """A collection named by its content, so apps in one process share identical indexes."""
        digest = hashlib.sha256(repr((ids, texts, metadatas)).encode()).hexdigest()[:20]
        collection = client.get_or_create_collection(
            f"{kind}-{digest}", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        if collection.count() != len(ids):
            collection.upsert(
                ids=ids, documents=texts, metadatas=metadatas, embeddings=self.embedder.embed(texts)
            )
        return collection

    def search_products(self, query: str, filters: Filters, limit: int) -> list[Product]:
        """The `limit` products under `filters` closest in meaning to `query`. When every match
        fits in the answer there is nothing to rank: they are listed by annual fee, unembedded."""
        matching = [p for p in self.catalog.products if product_matches(p, filters)]
        if len(matching) <= limit:
            return sorted(matching, key=lambda p: (p.fees.annual_fee, p.name))
        result = self._products.query(
            query_embeddings=self.embedder.embed([query]),
            n_results=min(limit, len(self.catalog.products)),
            where=_where(filters),
        )
        return [self.catalog.product(pid) for pid in result["ids"][0]]

    def cheapest_products(self, filters: Filters, limit: int) -> list[Product]:
        """Every matching product ranked by annual fee: "cheapest" is a fact, not a similarity."""
        matching = [p for p in self.catalog.products if product_matches(p, filters)]
        return sorted(matching, key=lambda p: (p.fees.annual_fee, p.name))[:limit]

    def ready(self) -> bool:
        """Both collections answer and hold the whole catalog."""
        return self._products.count() == len(self.catalog.products) and self._faq.count() > 0

    def count_products(self, filters: Filters) -> int:
        return sum(product_matches(p, filters) for p in self.catalog.products)

    def search_faq(self, query: str, limit: int = 3) -> list[tuple[FaqEntry, float]]:
        """FAQ entries by cosine similarity to the question, best first."""
        result = self._faq.query(
            query_embeddings=self.embedder.embed([query]), n_results=min(limit * 10, self._faq.count())
        )
        best: dict[str, float] = {}
        for meta, distance in zip(result["metadatas"][0], result["distances"][0]):
            best.setdefault(meta["faq_id"], 1.0 - distance)  # results come nearest first
        return [(self._faq_by_id[fid], score) for fid, score in list(best.items())[:limit]]
