"""memdesk console: settings, login, and the pages the logged-in principal's roles may open."""

from __future__ import annotations

import streamlit as st

from app_pages import _registry, _session

st.set_page_config(page_title="memdesk", page_icon=":material/fact_check:", layout="wide")

refused = _session.production_problem()
if refused is not None:
    st.error(f"memdesk will not serve in production: {refused}.")
    st.stop()

principal = _session.principal()
if principal is None:
    login = _registry.LOGIN
    navigation = st.navigation(
        [st.Page(login.path, title=login.title, icon=login.icon, url_path=login.name)],
        position="hidden",
    )
else:
    home = _registry.home_for(principal)
    sections: dict[str, list[st.Page]] = {}
    for entry in _registry.entries_for(principal):
        sections.setdefault(entry.section, []).append(
            st.Page(
                entry.path,
                title=entry.title,
                icon=entry.icon,
                url_path=entry.name,
                default=entry == home,
            )
        )
    navigation = st.navigation(sections)
    with st.sidebar:
        st.caption(f"{principal.display_name or principal.user_id} · 租戶 {principal.tenant_id}")
        st.caption("角色 Roles: " + ", ".join(principal.roles))
        if st.button("登出 Log out", key="auth.logout", icon=":material/logout:"):
            _session.log_out()
navigation.run()
