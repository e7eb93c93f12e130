"""Encryption at rest of the design platform's tokens, and the hashes our own tokens are stored under.

Upstream tokens are sealed with AES-256-GCM under the newest key of DESIGN_TOKEN_KEYS, with the user they belong to
as associated data: a sealed record copied to another user's entry does not open. Each record names its key by a
short fingerprint, so older keys still open old records; :meth:`TokenCipher.needs_rotation` tells when to re-seal.
"""

from __future__ import annotations

import hashlib
import os
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from design_console.errors import DesignError, ErrorCode

NONCE_BYTES = 12
FINGERPRINT_BYTES = 4
#: 256 bits of entropy in every token, code and state this server hands out.
TOKEN_BYTES = 32


def new_secret() -> str:
    """A fresh random token (URL-safe text)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What a token of ours is stored under: its SHA-256, so a copy of the store gives no usable token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _fingerprint(key: bytes) -> bytes:
    return hashlib.sha256(b"design-console-token-key\0" + key).digest()[:FINGERPRINT_BYTES]


class TokenCipher:
    """AES-GCM with key rotation: seal with the first key, open with whichever key sealed the record."""

    def __init__(self, keys: tuple[bytes, ...]) -> None:
        if not keys:
            raise ValueError("at least one key is needed")
        self._current = _fingerprint(keys[0])
        self._keys = {_fingerprint(key): AESGCM(key) for key in keys}

    def seal(self, plaintext: bytes, owner: str) -> bytes:
        """Encrypt ``plaintext`` for ``owner``: fingerprint, nonce, ciphertext and tag."""
        nonce = os.urandom(NONCE_BYTES)
        return self._current + nonce + self._keys[self._current].encrypt(nonce, plaintext, owner.encode())

    def open(self, sealed: bytes, owner: str) -> bytes:
        """Decrypt a record of ``owner``; a record of another owner, a lost key or tampering raises DesignError."""
        fingerprint, nonce = sealed[:FINGERPRINT_BYTES], sealed[FINGERPRINT_BYTES : FINGERPRINT_BYTES + NONCE_BYTES]
        aead = self._keys.get(fingerprint)
        if aead is None:
            raise DesignError(
                ErrorCode.UNAUTHORIZED,
                "The stored design platform login was sealed with a key this server no longer has.",
                "Sign in again.",
            )
        try:
            return aead.decrypt(nonce, sealed[FINGERPRINT_BYTES + NONCE_BYTES :], owner.encode())
        except InvalidTag:
            raise DesignError(
                ErrorCode.UNAUTHORIZED, "The stored design platform login does not open.", "Sign in again."
            ) from None

    def needs_rotation(self, sealed: bytes) -> bool:
        """Whether a record was sealed with an older key (re-seal it with :meth:`seal`)."""
        return sealed[:FINGERPRINT_BYTES] != self._current
