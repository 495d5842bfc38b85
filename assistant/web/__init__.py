"""The HTTP side: routes, request and response schemas, errors, OpenAPI, telemetry, rate limits and logs."""
