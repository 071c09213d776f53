"""The console's session: the one cached service root, the login identity, session-state keys.

`st.session_state` holds ids and view choices only, under the keys of `Keys`. The principal is
derived from the login identity and the database on every run, never kept in the session.
"""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from app_pages import _registry
from services import bootstrap
from services.bootstrap import Services
from services.core.errors import NotFound
from services.core.principals import Principal
from services.records.accounts import cookie_secret_problem
from services.settings import Settings


class Keys:
    """Every session_state key the console uses (ids and view choices only)."""

    USER_ID = "auth.user_id"  # local login: the authenticated user id
    TASK_ID = "view.task_id"  # the task the task page shows
    EVIDENCE_ID = "view.evidence_id"  # the citation the evidence page shows
    EVIDENCE_RUN = "view.evidence_run_id"  # the run whose evidence pool recorded that citation
    INBOX_PAGE = "view.inbox_page"  # 0-based page number of the inbox
    INBOX_FILTERS = "view.inbox_filters"  # the filters that page number belongs to
    TOAST = "view.toast"  # one message to toast on the next run (after a rerun)
    DECIDING = "view.deciding"  # [approval_id, approve?, seen revision] while confirming
    AUDIT_PAGE = "view.audit_page"  # 0-based page number of the audit log
    AUDIT_FILTERS = "view.audit_filters"  # the filters that page number belongs to
    ADMIN_USER = "view.admin_user_id"  # the user the admin page edits
    MEMORY_SCOPE = "view.memory_scope"  # the exact scope the memories page shows (key=value&..)
    MEMORY_ID = "view.memory_id"  # the memory opened on the memories page

    @staticmethod
    def seen(approval_id: int) -> str:
        """The task revision a person saw when an approval item was first shown to them."""
        return f"view.seen_revision.{approval_id}"


def settings() -> Settings:
    return Settings()


@st.cache_resource(show_spinner=False)
def _services(fingerprint: str) -> Services:
    # Built from the environment itself: a JSON round trip would mask secrets (SecretStr).
    return bootstrap.build(Settings())


def _fingerprint(current: Settings) -> str:
    """Different settings (another MEMDESK_HOME, another key) get another service root."""
    secret = current.gemini_api_key.get_secret_value() if current.gemini_api_key else ""
    text = current.model_dump_json() + "\0" + secret
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def services() -> Services:
    """The one way pages reach the service layer (built once per settings, shared by sessions)."""
    return _services(_fingerprint(settings()))


def principal() -> Principal | None:
    """Who is logged in, read from the database on every run (None when logged out)."""
    directory = services().directory
    if settings().auth_mode == "oidc":
        if not st.user.get("is_logged_in"):
            return None
        email = st.user.get("email")
        if not isinstance(email, str):
            return None
        try:
            return directory.principal_for_email(email)
        except NotFound:
            return None
    user_id = st.session_state.get(Keys.USER_ID)
    if not isinstance(user_id, str):
        return None
    try:
        return directory.principal(user_id)
    except NotFound:  # deleted or deactivated since the login
        del st.session_state[Keys.USER_ID]
        return None


def production_problem() -> str | None:
    """Why this console must not serve in production as configured (None: it may).

    With MEMDESK_ENV=production and single sign-on, the cookie that keeps people logged in is
    signed with [auth] cookie_secret: the example's placeholder (or a short one) is refused."""
    current = settings()
    if current.env != "production" or current.auth_mode != "oidc":
        return None
    try:
        secret = st.secrets.get("auth", {}).get("cookie_secret")
    except FileNotFoundError:
        secret = None
    return cookie_secret_problem(secret)


def require_page(name: str) -> Principal:
    """Stop the page unless the logged-in principal's roles may open it (hiding is not enough)."""
    current = principal()
    if current is None:
        st.error("請先登入。Please log in.")
        st.stop()
    if not _registry.may_open(current, name):
        st.error("您的角色無權使用此頁面。Your role may not open this page.")
        st.stop()
    return current


def log_out() -> None:
    for key in list(st.session_state.keys()):
        del st.session_state[key]
    if settings().auth_mode == "oidc":
        st.logout()
    else:
        st.rerun()


def remember(key: str, value: Any) -> None:
    st.session_state[key] = value
