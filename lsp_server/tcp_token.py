"""The token `code-intel lsp --tcp` demands: any local user can connect to a TCP port,
so only the one who can read the token file (0600, in a 0700 directory) gets served."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


class TokenError(Exception):
    """The token file cannot be used; the message says what to do."""


def default_token_file(port: int) -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "code-intel" / f"lsp-tcp-{port}.token"


def tcp_token(port: int, token_file: Path | None, given: str | None) -> tuple[str, str]:
    """(token, where the client finds it). `given` (CODE_INTEL_TOKEN) wins; else the
    file's token is reused, or a new one written there with mode 0600."""
    if given is not None:
        if len(given.strip()) < 16:
            raise TokenError("CODE_INTEL_TOKEN must be at least 16 characters")
        return given.strip(), "the CODE_INTEL_TOKEN variable"
    path = token_file or default_token_file(port)
    try:
        if path.exists():
            if path.stat().st_mode & 0o077:
                raise TokenError(f"{path} is readable by other users; run `chmod 600 {path}` or delete it")
            token = path.read_text(encoding="utf-8").strip()
            if len(token) >= 16:
                return token, str(path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        token = secrets.token_urlsafe(24)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
        os.chmod(path, 0o600)
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenError(f"cannot use the token file {path}: {exc}; pass --token-file PATH") from None
    return token, str(path)
