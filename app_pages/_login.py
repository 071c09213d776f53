"""The login form, shown at /login and at any page's URL opened logged out (the same URL then
shows that page once the person has logged in)."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from app_pages._session import Keys
from services.core.errors import AccountLocked, NotAuthorized

ERROR = "login.error"  # the last attempt's message, shown above the form


def _submit() -> None:
    """Runs before the script: the user id stays in its box, the password is cleared."""
    user_id = str(st.session_state.get("login.user_id") or "")
    password = str(st.session_state.get("login.password") or "")
    st.session_state["login.password"] = ""
    try:
        principal = _session.services().accounts.authenticate(user_id, password)
    except AccountLocked as exc:
        until = exc.until.strftime("%Y-%m-%d %H:%M")
        st.session_state[ERROR] = (
            f"帳號已鎖定至 {until} UTC（多次密碼錯誤）。"
            f"This account is locked until {until} UTC after repeated wrong passwords."
        )
    except NotAuthorized:
        st.session_state[ERROR] = "登入失敗：使用者或密碼錯誤。Wrong user id or password."
    else:
        st.session_state.pop(ERROR, None)
        _session.log_in(principal)


def show() -> None:
    st.title("memdesk 審核台")
    st.caption("AI 虛擬員工記憶審核 · Review desk for the AI virtual employee's memory")
    if _session.settings().auth_mode == "oidc":
        if st.user.get("is_logged_in"):
            # Signed in at the identity provider, but no active memdesk user has this e-mail.
            st.error(
                "此帳號尚未開通，請聯絡管理員。This account is not set up in memdesk; "
                "ask an administrator."
            )
            if st.button("登出 Log out", key="login.oidc_logout"):
                st.logout()
        else:
            st.write("請以公司帳號登入。Log in with your company account.")
            if st.button("登入 Log in", key="login.oidc", type="primary"):
                st.login()
        return
    notice = st.session_state.get(Keys.LOGIN_NOTICE)
    if isinstance(notice, str):
        st.info(notice)
    message = st.session_state.get(ERROR)
    if isinstance(message, str):
        st.error(_ui.escape(message))
    with st.form("login.form", clear_on_submit=False, enter_to_submit=True):
        st.text_input("使用者 User id", key="login.user_id", autocomplete="username")
        st.text_input(
            "密碼 Password", type="password", key="login.password", autocomplete="current-password"
        )
        st.form_submit_button("登入 Log in", type="primary", on_click=_submit)
