"""Who is calling, from credentials only: a customer's signed token, an operator's key, or no one.

The business's own login issues the token, a JWT signed with a shared secret (HS256,
AUTH_JWT_SECRET) or its private key (RS256, the public key in AUTH_JWT_PUBLIC_KEY); its `sub` is
the customer's id. An id typed into a request body proves nothing, so a caller without a valid
token is a guest: no preferences are read or written and no member's data is used. Operators
(the business's staff and tools) send one of OPERATOR_API_KEYS in `X-API-Key`, or a token whose
`role` claim is "operator". An operator has a name, which the console shows to other operators:
the token's `sub`, or the name a key is written with ("asha:<key>"; a bare key's is "operator").
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

import jwt
from flask import Flask, g, request

from assistant.dialogue.turns import CUSTOMER_ID
from assistant.infra.config import SETTINGS, Settings
from assistant.infra.extensions import Slot
from assistant.language.invisible import visible
from assistant.web.errors import ApiError
from assistant.web.ratelimit import LIMITER

LEEWAY_S = 30  # clocks of the login service and ours may differ a little
OPERATOR_ROLE = "operator"
MAX_NAME_CHARS = 64  # an operator's name, as the console shows it
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="assistant"'}


@dataclass(frozen=True)
class Caller:
    customer_id: str | None = None  # the token's subject; None for a guest
    operator: str | None = None  # an operator's name; None for a customer or a guest

    @property
    def guest(self) -> bool:
        return self.customer_id is None and not self.operator


class Verifier:
    """Checks tokens and operator keys against what the configuration trusts."""

    def __init__(self, settings: Settings):
        public = settings.auth_jwt_public_key
        if public and Path(public).is_file():
            public = Path(public).read_text(encoding="utf-8")
        secret = settings.auth_jwt_secret.get_secret_value() if settings.auth_jwt_secret else None
        self._key, self._algorithm = (public, "RS256") if public else (secret, "HS256")
        self._issuer, self._audience = settings.auth_jwt_issuer, settings.auth_jwt_audience
        self._operator_keys = settings.operator_keys

    def caller(self, authorization: str | None, api_key: str | None) -> Caller:
        if api_key is not None:
            names = [name for name, key in self._operator_keys if hmac.compare_digest(api_key.encode(), key)]
            if not names:
                raise ApiError(401, "invalid_api_key", "That API key is not valid.")
            return Caller(operator=names[0])
        if not authorization:
            return Caller()
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "invalid_token", "Send the token as 'Authorization: Bearer <token>'.", CHALLENGE)
        return self._claims(token.strip())

    def _claims(self, token: str) -> Caller:
        if not self._key:
            raise ApiError(401, "invalid_token", "This assistant accepts no tokens: it has no key to check them with.")
        try:
            claims = jwt.decode(
                token,
                self._key,
                algorithms=[self._algorithm],  # only the configured one: no "none", no HS256 signed with a public key
                issuer=self._issuer,
                audience=self._audience,
                leeway=LEEWAY_S,
                options={"require": ["exp", "sub"]},
            )
        except jwt.PyJWTError as exc:
            raise ApiError(401, "invalid_token", f"The token is not valid: {exc}.", CHALLENGE) from None
        subject = claims["sub"]
        if claims.get("role") == OPERATOR_ROLE:
            name = visible(str(subject), lines=False).strip()[:MAX_NAME_CHARS]  # shown to other operators: no hidden text
            if not name:
                raise ApiError(401, "invalid_token", "The token's subject is no operator's name.", CHALLENGE)
            return Caller(operator=name)
        if not isinstance(subject, str) or not CUSTOMER_ID.fullmatch(subject):
            raise ApiError(401, "invalid_token", "The token's subject is not a customer id.", CHALLENGE)
        return Caller(customer_id=subject)


VERIFIER: Slot[Verifier] = Slot("verifier")


def caller() -> Caller:
    """This request's caller, read once from its headers; a bad credential is a 401, never a guest,
    and a client whose credentials were refused too often is refused (429) before they are checked."""
    if "caller" not in g:
        authorization, api_key = request.headers.get("Authorization"), request.headers.get("X-API-Key")
        if authorization or api_key is not None:
            client, limiter = request.remote_addr or "unknown", LIMITER.get()
            limiter.check_credentials(client)
            try:
                g.caller = VERIFIER.get().caller(authorization, api_key)
            except ApiError:
                limiter.credential_refused(client)
                raise
        else:
            g.caller = Caller()
    found: Caller = g.caller
    return found


def require_customer(customer_id: str) -> None:
    """That customer's own token, or an operator's credential."""
    who = caller()
    if who.operator or who.customer_id == customer_id:
        return
    if who.guest:
        raise ApiError(401, "unauthorized", "Sign in: send that customer's token, or an operator's API key.", CHALLENGE)
    raise ApiError(403, "forbidden", "A token opens only its own customer's data.")


def require_operator() -> str:
    """The operator's name, from their credential: their API key, or a token with the operator's role."""
    who = caller()
    if who.operator:
        return who.operator
    if who.guest:
        raise ApiError(401, "unauthorized", "Send an operator's API key in X-API-Key, or an operator's token.", CHALLENGE)
    raise ApiError(403, "forbidden", "This is for operators: a customer's token does not open it.")


def init_app(app: Flask) -> None:
    VERIFIER.put(app, Verifier(SETTINGS.get(app)))
