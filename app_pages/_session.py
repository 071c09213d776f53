"""The console's session: the one cached service root, the login identity, session-state keys.

`st.session_state` holds ids and view choices only, under the keys of `Keys`. The principal is
derived from the login identity and the database on every run, never kept in the session.

Local accounts log in to a server-side session (services/records/sessions.py). Its signed token
is kept in a same-origin cookie so a reload, a new tab or a typed URL stays logged in; the
server reads it with `st.context.cookies` (the cookies of the page's own request). Streamlit's
script talks to the browser over a websocket, which cannot set a cookie, so the cookie is
written by a few lines of fixed JavaScript (`st.html(..., unsafe_allow_javascript=True)`)
whose only variable is the token, checked against the token grammar first. The cookie is
`SameSite=Strict`, `Secure` over HTTPS, and lives no longer than the session; logging out
revokes the session on the server and removes the cookie. In OIDC mode `st.login`'s own cookie
is the session.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import streamlit as st

from app_pages import _registry
from services import bootstrap
from services.bootstrap import Services
from services.core.errors import NotFound
from services.core.principals import Principal
from services.records.accounts import cookie_secret_problem
from services.records.sessions import COOKIE_NAME
from services.settings import Settings

# The token grammar (services/records/sessions.py): nothing else is ever written into the script.
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$")


class Keys:
    """Every session_state key the console uses (ids and view choices only)."""

    SESSION = "auth.session"  # local login: the console session's token (services/sessions)
    SESSION_EXPIRES = "auth.session_expires"  # its absolute end (epoch seconds), for the cookie
    CLEAR_COOKIE = "auth.clear_cookie"  # logged out: remove the session cookie on this run
    LOGIN_NOTICE = "auth.notice"  # why the login page is shown again (session ended)
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
    token = st.session_state.get(Keys.SESSION)
    if not isinstance(token, str):
        token = st.context.cookies.get(COOKIE_NAME)
    if not isinstance(token, str) or not token:
        return None
    active = services().sessions.resolve(token)
    if active is None:  # revoked (logout, password reset), expired, idle or forged
        if st.session_state.pop(Keys.SESSION, None) is not None:
            remember(
                Keys.LOGIN_NOTICE,
                "工作階段已結束，請重新登入。Your session has ended; please log in again.",
            )
        remember(Keys.CLEAR_COOKIE, True)
        return None
    try:
        current = directory.principal(active.user_id)
    except NotFound:  # deleted or deactivated since the login
        st.session_state.pop(Keys.SESSION, None)
        return None
    if current.tenant_id != active.tenant_id:
        return None
    remember(Keys.SESSION, token)
    remember(Keys.SESSION_EXPIRES, int(active.expires_at.timestamp()))
    return current


def log_in(user: Principal) -> None:
    """Open a server-side session for a principal who just proved who they are."""
    issued = services().sessions.open(user)
    remember(Keys.SESSION, issued.token)
    remember(Keys.SESSION_EXPIRES, int(issued.expires_at.timestamp()))
    st.session_state.pop(Keys.CLEAR_COOKIE, None)
    st.session_state.pop(Keys.LOGIN_NOTICE, None)


def _cookie_script(value: str, max_age: int) -> str:
    # json.dumps quotes the value for JavaScript; the value is a checked token or empty.
    cookie = json.dumps(f"{COOKIE_NAME}={value}; Path=/; Max-Age={max_age}; SameSite=Strict")
    return (
        "<script>document.cookie = "
        f"{cookie} + (location.protocol === 'https:' ? '; Secure' : '');</script>"
    )


def sync_cookie() -> None:
    """Keep the browser's session cookie in step with this session (local accounts only).

    Written while logged in when the page's request did not carry this token yet; removed after
    a logout or when the server no longer accepts it. Placed in the sidebar: it draws nothing."""
    if settings().auth_mode == "oidc":
        return
    token = st.session_state.get(Keys.SESSION)
    sent = st.context.cookies.get(COOKIE_NAME)
    if isinstance(token, str) and _TOKEN.match(token):
        if sent == token:
            return
        expires = int(st.session_state.get(Keys.SESSION_EXPIRES) or 0)
        max_age = max(0, expires - int(services().clock.now().timestamp()))
        st.html(_cookie_script(token, max_age), unsafe_allow_javascript=True, width="content")
    elif st.session_state.get(Keys.CLEAR_COOKIE) or sent:
        st.html(_cookie_script("", 0), unsafe_allow_javascript=True, width="content")


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
    token = st.session_state.get(Keys.SESSION)
    if isinstance(token, str):
        services().sessions.revoke(token, reason="logout")
    for key in list(st.session_state.keys()):
        del st.session_state[key]
    if settings().auth_mode == "oidc":
        st.logout()
    else:
        remember(Keys.CLEAR_COOKIE, True)
        st.rerun()


def remember(key: str, value: Any) -> None:
    st.session_state[key] = value
