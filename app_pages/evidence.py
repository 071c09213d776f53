"""Evidence view: one citation beside the original document text, with every check shown."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from app_pages._session import Keys

principal = _session.require_page("evidence")
services = _session.services()

st.title("證據 Evidence")
evidence_id = st.session_state.get(Keys.EVIDENCE_ID)
typed = st.text_input(
    "引用 Citation (DOC@VERSION:START-END)", value=evidence_id or "", key="evidence.citation"
).strip()
if typed and typed != evidence_id:
    evidence_id = typed
    _session.remember(Keys.EVIDENCE_ID, typed)
    _session.remember(Keys.EVIDENCE_RUN, None)
if not evidence_id:
    st.info("從任務草稿開啟引用，或輸入引用編號。Open a citation from a draft or type its id.")
    st.stop()

run_id = st.session_state.get(Keys.EVIDENCE_RUN)
view = _ui.or_stop(
    lambda: services.desk.evidence_view(principal, evidence_id, run_id=run_id or None)
)
document = view.document

meta, body = st.columns([1, 2])
with meta.container(border=True, key="evidence.meta"):
    st.markdown(f"**{_ui.escape(document.title)}**")
    st.markdown(
        f"文件 document: **{_ui.escape(document.document_id)}** · "
        f"版本 version **{document.version}**"
    )
    st.markdown(
        f"狀態 status: {_ui.badge_md(document.status)} · 類別 class: "
        f"{_ui.escape(document.knowledge_class)} · {_ui.escape(document.doc_type)}"
    )
    if view.is_history:
        st.markdown(
            ":violet-badge[歷史 history] 過去的報價或決定：可比較，不是目前的承諾。"
            "Past quote or decision: comparable, never a current commitment."
        )
    validity = f"{document.valid_from} → {document.valid_to or '∞'}"
    st.markdown(
        f"有效期 validity: {_ui.escape(validity)} · {view.valid_on}: "
        + (":green-badge[有效 valid]" if view.valid else ":red-badge[無效 not valid]")
    )
    st.markdown(
        "可作為依據 may back a claim today: "
        + (":green-badge[是 yes]" if view.eligible else ":red-badge[否 no]")
    )
    st.markdown(
        "內容雜湊 content hash: "
        + (":green-badge[相符 matches]" if view.hash_ok else ":red-badge[不符 MISMATCH]"),
        help=document.content_hash,
    )
    if view.cited_hash_matches is not None:
        st.markdown(
            "引用時的雜湊 hash at citation: "
            + (
                ":green-badge[相同 same]"
                if view.cited_hash_matches
                else ":red-badge[已變更 changed]"
            )
        )
    st.markdown(f"位置 offsets: {view.start}–{view.end}")
    if view.quote_matches is not None:
        st.markdown(
            "引文 quote at offsets: "
            + (":green-badge[相符 matches]" if view.quote_matches else ":red-badge[不符 differs]")
        )
    if not view.span_ok:
        st.error("引用位置超出文件範圍。The cited offsets are outside the document.")
    st.markdown("**版本歷史 History**")
    st.dataframe(
        [
            {
                "版本 version": line.version,
                "狀態 status": line.status,
                "生效 from": str(line.valid_from),
                "失效 to": str(line.valid_to or ""),
                "本引用 cited": "◀" if line.cited else "",
            }
            for line in view.versions
        ],
        hide_index=True,
        key="evidence.versions",
    )

with body.container(border=True, key="evidence.body"):
    st.caption("原文（引用段落已標示）Original text, cited span highlighted")
    st.markdown(_ui.highlighted(view.segments))
