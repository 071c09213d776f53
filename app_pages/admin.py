"""Admin: the tenant's users, roles, customer grants and active flag (every change audited)."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from app_pages._session import Keys
from services.core.policy import ROLES

principal = _session.require_page("admin")
directory = _session.services().directory

_ui.flush_toast()
st.title("使用者與權限 Users & access")
st.caption(
    f"租戶 tenant {_ui.escape(principal.tenant_id)} · 每項變更都寫入稽核紀錄。"
    "Every change is written to the audit log."
)

users = _ui.or_stop(lambda: directory.users(principal))
st.dataframe(
    [
        {
            "使用者 user": user.user_id,
            "名稱 name": user.display_name,
            "電子郵件 e-mail": user.email or "",
            "角色 roles": ", ".join(user.roles),
            "授權 grants": ", ".join(user.grants),
            "啟用 active": user.active,
        }
        for user in users
    ],
    hide_index=True,
    width="stretch",
    key="admin.users",
)

ids = [user.user_id for user in users]
remembered = st.session_state.get(Keys.ADMIN_USER)
chosen = st.selectbox(
    "編輯使用者 Edit user",
    ids,
    index=ids.index(remembered) if remembered in ids else None,
    key="admin.user",
)
if chosen is None:
    st.info("選擇要編輯的使用者。Pick a user to edit.")
    st.stop()
_session.remember(Keys.ADMIN_USER, chosen)
user = next(user for user in users if user.user_id == chosen)


def changed(message: str) -> None:
    _ui.toast_next(message)
    st.rerun()


roles_col, grants_col = st.columns(2)
with roles_col.container(border=True, key="admin.roles"):
    st.subheader("角色 Roles")
    with st.form(f"admin.roles_form.{user.user_id}"):
        roles = st.multiselect(
            "角色 Roles", list(ROLES), default=list(user.roles), key=f"admin.roles.{user.user_id}"
        )
        active = st.checkbox("啟用 Active", value=user.active, key=f"admin.active.{user.user_id}")
        saved = st.form_submit_button("儲存 Save", type="primary")
    if saved:
        with _ui.domain_errors():
            if set(roles) != set(user.roles):
                directory.set_roles(principal, user.user_id, roles)
            if active != user.active:
                directory.set_active(principal, user.user_id, active)
            changed(f"已更新 Updated {user.user_id}")

with grants_col.container(border=True, key="admin.grants"):
    st.subheader("客戶授權 Customer grants")
    st.caption("授權決定可讀取哪些客戶的文件。Grants decide which customers' documents they read.")
    if not user.grants:
        st.write("—")
    for grant in user.grants:
        label, remove = st.columns([3, 1.4], vertical_alignment="center")
        label.markdown(f":material/key: {_ui.escape(grant)}")
        if remove.button("移除 Remove", key=f"admin.remove.{user.user_id}.{grant}"):
            with _ui.domain_errors():
                directory.remove_grant(principal, user.user_id, grant)
                changed(f"已移除 Removed {grant} from {user.user_id}")
    known = [
        f"customer:{customer}"
        for customer in _ui.or_stop(lambda: directory.customers(principal))
        if f"customer:{customer}" not in user.grants
    ]
    with st.form(f"admin.grant_form.{user.user_id}", clear_on_submit=True):
        picked = st.selectbox("已知客戶 Known customer", known, index=None, key="admin.grant_pick")
        typed = st.text_input(
            "或輸入 Or type", placeholder="customer:C-ACME", key="admin.grant_typed"
        ).strip()
        added = st.form_submit_button("新增授權 Add grant")
    if added:
        grant = typed or picked
        if not grant:
            st.warning("請選擇或輸入授權。Pick or type a grant.")
        else:
            with _ui.domain_errors():
                directory.add_grant(principal, user.user_id, grant)
                changed(f"已授權 Granted {grant} to {user.user_id}")
