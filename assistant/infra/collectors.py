"""Metrics a component reads from its shared store at each scrape (the same in every worker),
registered by the component and served by /metrics beside the counters each process keeps."""

from __future__ import annotations

from flask import Flask
from prometheus_client.registry import Collector

from assistant.infra.extensions import Slot

COLLECTORS: Slot[list[Collector]] = Slot("metrics_collectors")


def collect(app: Flask, collector: Collector) -> None:
    """`collector` read at each scrape of this app's /metrics."""
    found = COLLECTORS.find(app)
    (found if found is not None else COLLECTORS.put(app, [])).append(collector)


def collectors(app: Flask) -> list[Collector]:
    return COLLECTORS.find(app) or []
