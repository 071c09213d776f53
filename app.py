"""memdesk console: settings, login, and the pages the logged-in principal's roles may open.

Every page has a URL that names its object (`/task?id=Q42`, `/evidence?cite=...`). Opened
logged out, that URL shows the login form and, once logged in, the page it names.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app_pages import _login, _registry, _session

# A local file, served by this server: the console loads nothing from another origin.
ICON = Path(__file__).parent / "app_pages" / "assets" / "memdesk-icon.png"
st.set_page_config(page_title="memdesk", page_icon=str(ICON), layout="wide")

refused = _session.production_problem()
if refused is not None:
    st.error(f"memdesk will not serve in production: {refused}.")
    st.stop()

principal = _session.principal()
if principal is None:
    login = _registry.LOGIN
    pages = [st.Page(login.path, title=login.title, icon=login.icon, url_path=login.name)]
    # Every page's URL answers with the login form, so a shared link survives the login.
    pages += [
        st.Page(_login.show, title=login.title, url_path=entry.name) for entry in _registry.PAGES
    ]
    navigation = st.navigation(pages, position="hidden")
    with st.sidebar:
        _session.sync_cookie()
else:
    home = _registry.home_for(principal)
    entries = _registry.entries_for(principal)

    def landing() -> None:
        # "/" goes to the role's home page by its own URL: a default page would be served only
        # at "/", so a link to it (/engineering?task=Q42) would not resolve.
        if home is not None:
            st.switch_page(home.path)
        st.info("您的角色沒有可用的頁面。Your roles open no pages.")

    pages = [st.Page(landing, title="memdesk", url_path="home", default=True)]
    pages += [
        st.Page(entry.path, title=entry.title, icon=entry.icon, url_path=entry.name)
        for entry in entries
    ]
    navigation = st.navigation(pages, position="hidden")
    with st.sidebar:
        section = None
        for entry in entries:
            if entry.section != section:
                section = entry.section
                st.caption(section)
            st.page_link(entry.path, label=entry.title, icon=entry.icon)
        st.divider()
        st.caption(f"{principal.display_name or principal.user_id} · 租戶 {principal.tenant_id}")
        st.caption("角色 Roles: " + ", ".join(principal.roles))
        if st.button("登出 Log out", key="auth.logout", icon=":material/logout:"):
            _session.log_out()
        _session.sync_cookie()
navigation.run()
