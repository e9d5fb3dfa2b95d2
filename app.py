"""Chalice wiring only: REST routes, WebSocket handlers and the room timer handler.

Handlers parse input, call one service function and map domain errors to HTTP answers
(ARCHITECTURE.md decision 7). Configuration is read lazily: ``chalice package`` imports this
module with no environment.
"""

from __future__ import annotations

from chalice import Chalice

app = Chalice(app_name="liars-lies")
app.experimental_feature_flags.update(["WEBSOCKETS"])


@app.route("/health", methods=["GET"])
def health() -> dict[str, str]:
    """Liveness probe for load balancers and the local server."""
    return {"status": "ok"}
