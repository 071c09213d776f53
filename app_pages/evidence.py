"""Evidence view: one citation beside the original document text, with every check shown."""

from __future__ import annotations

import streamlit as st

from app_pages import _labels, _session, _ui
from services.core.errors import MemdeskError, NotFound

principal = _session.require_page("evidence")
services = _session.services()

st.title("證據 Evidence")


def _open_typed() -> None:
    typed = str(st.session_state.get("evidence.citation") or "").strip()
    if typed:
        st.query_params.clear()
        st.query_params["cite"] = typed


evidence_id = _ui.query("cite")
if "evidence.citation" not in st.session_state or (
    evidence_id and st.session_state.get("evidence.shown") != evidence_id
):
    st.session_state["evidence.citation"] = evidence_id or ""
st.session_state["evidence.shown"] = evidence_id
st.text_input(
    "引用 Citation (DOC@VERSION:START-END)",
    key="evidence.citation",
    placeholder=_labels.placeholder("citation"),
    on_change=_open_typed,
)
if not evidence_id:
    st.info("從任務草稿開啟引用，或輸入引用編號。Open a citation from a draft or type its id.")
    st.stop()

run_id = _ui.query("run")
try:
    view = services.desk.evidence_view(principal, evidence_id, run_id=run_id)
except NotFound:
    _ui.not_found("citation", evidence_id)  # unreadable reads exactly like missing
    st.stop()
except MemdeskError as exc:
    _ui.show_error(exc)
    st.stop()
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
        f"{_ui.escape(_labels.kind(document.knowledge_class))} · "
        f"{_ui.escape(_labels.kind(document.doc_type))}"
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
    # A static table: every column shows whole, however narrow this side column is.
    with st.container(key="evidence.versions"):
        st.table(
            [
                {
                    "版本 version": f"v{line.version}" + (" ◀" if line.cited else ""),
                    "狀態 status": _labels.status(line.status),
                    "生效 from": str(line.valid_from),
                    "失效 to": str(line.valid_to or "∞"),
                }
                for line in view.versions
            ],
        )

with body.container(border=True, key="evidence.body"):
    st.caption("原文（引用段落已標示）Original text, cited span highlighted")
    st.markdown(_ui.highlighted(view.segments))
