"""Login: local accounts (argon2) by default, the company identity provider in OIDC mode."""

from __future__ import annotations

from app_pages import _login

_login.show()
