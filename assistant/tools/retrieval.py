"""Retrieval over the catalog (chromadb in memory, on the local embedding model) and the help centre.

Filters are hard constraints (chromadb `where`), the query's meaning only ranks what
passes them, so every product returned matches every filter the customer gave.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import chromadb
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.api.types import Metadata
from chromadb.config import Settings
from flask import Flask
from threadpoolctl import threadpool_limits

from assistant.infra.config import SETTINGS
from assistant.infra.extensions import Slot
from assistant.pack.loading import load_catalog
from assistant.pack.model import Catalog, FaqEntry, Product
from assistant.tools.comparison import Rank, rank_key, ranked
from assistant.tools.embeddings import MiniLMEmbedder, default_embedder
from assistant.tools.filters import FilterRules, Filters
from assistant.tools.help_search import HelpCentre

SURE_MATCH = 0.75  # cosine similarity at which an article answers the question whatever its words


class CatalogIndex:
    """The Retriever's tools: semantic product search under filters, and FAQ search."""

    def __init__(self, catalog: Catalog, embedder: MiniLMEmbedder):
        self.catalog = catalog
        self.embedder = embedder
        self.rules = FilterRules(catalog)
        client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
        self._products = self._collection(
            client,
            "products",
            [p.id for p in catalog.products],
            [p.search_text() for p in catalog.products],
            [self.rules.metadata(p) for p in catalog.products],
        )
        self.help = HelpCentre.for_catalog(catalog, embedder)

    def _collection(self, client: ClientAPI, kind: str, ids: list[str], texts: list[str], metadatas: list[Metadata]) -> Collection:
        """A collection named by its content, so apps in one process share identical indexes."""
        digest = hashlib.sha256(repr((ids, texts, metadatas)).encode()).hexdigest()[:20]
        collection = client.get_or_create_collection(
            f"{kind}-{digest}", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        if collection.count() != len(ids):
            collection.upsert(ids=ids, documents=texts, metadatas=metadatas, embeddings=self.embedder.embed(texts))
        return collection

    def search_products(self, query: str, filters: Filters, limit: int) -> list[Product]:
        """The `limit` products under `filters` closest in meaning to `query`. When every match
        fits in the answer there is nothing to rank: they are listed by rank_by, unembedded."""
        matching = [p for p in self.catalog.products if self.rules.matches(p, filters)]
        if len(matching) <= limit:
            return sorted(matching, key=lambda p: rank_key(p, self.catalog))
        result = self._products.query(
            query_embeddings=self.embedder.embed([query]),
            n_results=min(limit, len(self.catalog.products)),
            where=self.rules.where(filters),
        )
        return self.catalog.products_by_id(result["ids"][0])

    def ranked_products(self, filters: Filters, rank: Rank, limit: int) -> list[Product]:
        """The best matching products by what the customer ranks by ("cheapest", "most RAM"): a
        fact of the data, not a similarity."""
        matching = [p for p in self.catalog.products if self.rules.matches(p, filters)]
        return ranked(matching, rank, self.catalog)[:limit]

    def ready(self) -> bool:
        """Both collections answer and hold the whole catalog."""
        return self._products.count() == len(self.catalog.products) and len(self.help) > 0

    def count_products(self, filters: Filters) -> int:
        return sum(self.rules.matches(p, filters) for p in self.catalog.products)

    def relevant(self, query: str, entry: FaqEntry, score: float, floor: float) -> bool:
        """Whether an article found for a symptom is its fix: similar enough, and either nearly
        the same words or the article the help centre answers the question with."""
        return score >= floor and (score >= SURE_MATCH or self.help.answers(query, entry))

    def search_faq(self, query: str, limit: int = 3, device: str | None = None) -> list[tuple[FaqEntry, float]]:
        """Help articles for the question, best first, each with its similarity in meaning."""
        return [(hit.entry, hit.similarity) for hit in self.help.search(query, limit, device)]


CATALOG: Slot[Catalog] = Slot("catalog")
INDEX: Slot[CatalogIndex] = Slot("index")


def init_app(app: Flask, tools: Mapping[str, Sequence[str]]) -> None:
    """The pack's catalog (DOMAIN or DATA_DIR) and its search index over the local embedding model;
    `tools`: each agent's own tools, its allow-list where the pack gives none."""
    # A turn's matrix work is small: BLAS threads would only wait for cores that other requests
    # (or the embedding model) already use. One thread per request, as for the model.
    threadpool_limits(1, user_api="blas")
    catalog = CATALOG.put(app, load_catalog(SETTINGS.get(app).pack_dir, tools=tools))
    INDEX.put(app, CatalogIndex(catalog, default_embedder()))
