"""The LLM's circuit breaker, shared by every worker through the shared counters: after
LLM_BREAKER_FAULTS faults or timeouts within LLM_BREAKER_WINDOW_S, the model is skipped for
LLM_BREAKER_COOLDOWN_S and every turn answers offline at once, instead of each waiting out the
deadline of a model that is down or busy with a runaway generation."""

from __future__ import annotations

import logging

from prometheus_client.core import GaugeMetricFamily, Metric

from assistant.infra.config import Settings
from assistant.infra.counters import RateCounters

FAULTS, OPEN = "llm-faults", "llm-breaker-open"
log = logging.getLogger(__name__)


class Breaker:
    def __init__(self, counters: RateCounters, settings: Settings):
        self.counters = counters
        self.faults, self.window_s, self.cooldown_s = (
            settings.llm_breaker_faults,
            settings.llm_breaker_window_s,
            settings.llm_breaker_cooldown_s,
        )

    def open_for(self) -> float:
        """Seconds the model is still skipped for; 0: closed, the model is called."""
        return self.counters.marked(OPEN)

    def fault(self) -> None:
        """A call failed or ran out of time; enough of them open the breaker."""
        count, _ = self.counters.hit(FAULTS, self.window_s)
        if count >= self.faults and not self.open_for():
            self.counters.mark(OPEN, self.cooldown_s)
            log.warning("LLM circuit breaker open", extra={"faults": count, "cooldown_s": self.cooldown_s})

    def collect(self) -> list[Metric]:
        """For /metrics: whether the model is skipped now, the same in every worker."""
        gauge = GaugeMetricFamily("assistant_llm_breaker_open_seconds", "Seconds the LLM is still skipped for (0: it is called)")
        gauge.add_metric([], self.open_for())
        return [gauge]
