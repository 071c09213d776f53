"""Login: local accounts (argon2) by default, the company identity provider in OIDC mode."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from services.core.errors import NotAuthorized

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
else:
    with st.form("login.form", clear_on_submit=True):
        user_id = st.text_input("使用者 User id", key="login.user_id")
        password = st.text_input("密碼 Password", type="password", key="login.password")
        submitted = st.form_submit_button("登入 Log in", type="primary")
    if submitted:
        try:
            principal = _session.services().accounts.authenticate(user_id, password)
        except NotAuthorized as exc:
            st.error(f"登入失敗 — {_ui.escape(exc)}")
        else:
            _session.remember(_session.Keys.USER_ID, principal.user_id)
            st.rerun()
