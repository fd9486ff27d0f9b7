"""Access tokens of an external OAuth issuer: JWTs checked against its published keys (PyJWT).

A token must be signed by a key of the issuer's JWKS (fetched from its URL,
cached, refetched for an unknown key id) with an asymmetric algorithm, and
carry this server's audience, the issuer, and an expiry still ahead. The
configured claim names the user; ``remember_trust_level``, when present,
bounds the token as an API token's trust level does.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
import jwt
from mcp.server.auth.provider import AccessToken

from remember.config import USER_ID
from remember.errors import excerpt
from remember.http.auth import TRUST_CLAIM, refused

# Asymmetric only: a symmetric algorithm would let anyone holding the public key sign.
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
LEEWAY = 30  # seconds of clock difference tolerated on exp and nbf


class JwtVerifier:
    def __init__(self, *, issuer: str, jwks_url: str, audience: str, user_claim: str, resource: str) -> None:
        self.issuer = issuer
        self.audience = audience
        self.user_claim = user_claim
        self.resource = resource
        self.keys = jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=300, timeout=10)

    async def verify_token(self, token: str) -> AccessToken | None:
        if token.count(".") != 2:  # not a JWT (an API token, say)
            return None
        try:
            claims = await anyio.to_thread.run_sync(self._claims, token)
        except (jwt.PyJWTError, ValueError) as exc:
            refused(f"the OAuth access token did not verify: {excerpt(str(exc))}")
            return None
        user = claims.get(self.user_claim)
        if not isinstance(user, str) or not USER_ID.match(user):
            refused(f"the OAuth access token's {self.user_claim!r} claim names no user remember accepts")
            return None
        trust = claims.get(TRUST_CLAIM, 1.0)
        if not isinstance(trust, int | float) or not 0 <= trust <= 1:
            refused(f"the OAuth access token's {TRUST_CLAIM!r} claim is not a number from 0 to 1")
            return None
        scopes = claims.get("scope", "")
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or "oauth"),
            scopes=scopes.split() if isinstance(scopes, str) else [],
            expires_at=int(claims["exp"]),
            resource=self.resource,  # the audience was checked above (RFC 8707)
            subject=user,
            claims={"iss": self.issuer, TRUST_CLAIM: float(trust)},
        )

    def _claims(self, token: str) -> dict[str, Any]:
        key = self.keys.get_signing_key_from_jwt(token)
        claims: dict[str, Any] = jwt.decode(
            token,
            key.key,
            algorithms=ALGORITHMS,
            audience=self.audience,
            issuer=self.issuer,
            leeway=LEEWAY,
            options={"require": ["exp", "iss", "aud"]},
        )
        return claims
