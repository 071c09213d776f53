"""Knowledge owners' entry point (candidate queue, diff, publish, revoke come with the knowledge
work; this page is its navigation slot and empty state)."""

from __future__ import annotations

import streamlit as st

from app_pages import _session

principal = _session.require_page("knowledge")
st.title("知識審核 Knowledge")
st.info(
    "知識審核尚未開放：候選知識、與現行 SOP 的差異、發布新版本與撤銷文件將在此處理。"
    "Knowledge review is not available yet: candidates, their diff against the current SOP, "
    "publishing a new version and revoking documents will live here.",
    icon=":material/construction:",
)
