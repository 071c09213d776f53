"""Memory Bank: memories of one exact scope, their revisions, rollback, delete, generate, topics."""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from app_pages import _session, _ui
from app_pages._session import Keys
from services.core.errors import MemdeskError
from services.core.policy import Permission, allows
from services.memory.types import (
    ConversationEvent,
    CustomizationConfig,
    Memory,
    MemoryPolicy,
    parse_scope,
)
from services.publishing.candidates import Proposal

principal = _session.require_page("memories")
services = _session.services()
bank = services.memories
may_configure = allows(principal, Permission.CONFIGURE_MEMORY)
may_hold = allows(principal, Permission.ADMINISTER)

st.title("記憶庫 Memory Bank")
st.caption(
    "記憶是 AI 的推論（inference），不是可引用的證據；需經知識負責人審核才會成為知識。"
    "Memories are inferences, never citable evidence, until a knowledge owner promotes them."
)

models = bank.models()
st.caption(
    f"模型 Models — 嵌入 embedding: {_ui.code(models.embedding_model)} · 擷取 extraction: "
    f"{_ui.code(models.extraction)} · 合併 consolidation: {_ui.code(models.consolidation)}"
)

known = [s.scope for s in _ui.or_stop(lambda: bank.scopes(principal))]
known_text = ["&".join(f"{k}={v}" for k, v in sorted(s.items())) for s in known]
scope_text = st.text_input(
    "範圍 Scope — key=value，以 & 結合 (customer_id, task_id, user_id)",
    value=st.session_state.get(Keys.MEMORY_SCOPE) or (known_text[0] if known_text else ""),
    key="memories.scope",
).strip()
if known_text:
    st.caption("已有記憶的範圍 Scopes with memories: " + _ui.escape(" · ".join(known_text)))
if not scope_text:
    st.info("輸入範圍以查看或產生記憶。Enter a scope to see or generate memories.")
    st.stop()
scope = _ui.or_stop(lambda: parse_scope(scope_text.split("&")))
_session.remember(Keys.MEMORY_SCOPE, scope_text)

tabs = ["記憶 Memories", "產生 Generate"] + (["設定與保存 Configs & TTL"] if may_configure else [])
browse, generate, *admin_tab = st.tabs(tabs)


TTL_FIELDS = {
    "default_ttl_seconds": "預設 TTL Default",
    "create_ttl_seconds": "建立 Create",
    "generate_created_ttl_seconds": "產生並建立 Generate-created",
    "generate_updated_ttl_seconds": "產生並更新 Generate-updated",
    "revision_ttl_seconds": "修訂 Revision",
}


def ttl_days(label: str, seconds: int | None, *, key: str) -> int | None:
    """A TTL edited in days (fractions allowed, so a TTL set in seconds survives a save)."""
    days = st.number_input(
        f"{label} TTL (days)",
        min_value=0.0,
        value=(seconds or 0) / 86400,
        step=1.0,
        format="%.4f",
        key=key,
    )
    return round(days * 86400) or None


def line(memory: Memory) -> str:
    expiry = memory.expire_at.strftime("%Y-%m-%d %H:%M") if memory.expire_at else "∞"
    hold = " :red-badge[法律保全 legal hold]" if memory.legal_hold else ""
    state = "" if memory.state == "active" else " :gray-badge[已刪除 deleted]"
    return (
        f"**{_ui.escape(memory.fact)}** · {_ui.code(memory.topic)} · r{memory.revision} "
        f"· 到期 expires {expiry}{hold}{state}"
    )


with browse:
    query = st.text_input("相似搜尋 Similarity search", key="memories.query").strip()
    show_deleted = st.toggle("包含已刪除 Include deleted", key="memories.deleted")
    with _ui.domain_errors():
        if query:
            hits = bank.search(principal, scope=scope, query=query, k=10)
            memories = [h.memory for h in hits]
            st.caption("分數只用於排序，不是信心值。Scores rank; they are not confidence.")
        else:
            memories = bank.list_memories(principal, scope=scope, include_deleted=show_deleted)
        if not memories:
            st.info("此範圍沒有記憶。No memories in this exact scope.")
        for memory in memories:
            st.markdown(line(memory))
        # Plain string options: AppTest pickles format functions, and labels need none.
        labels = {f"{m.fact[:60]} ({m.memory_id})": m.memory_id for m in memories}
        ids = list(labels.values())
        if ids:
            opened = st.session_state.get(Keys.MEMORY_ID)
            label = st.selectbox(
                "查看 Open",
                list(labels),
                index=ids.index(opened) if opened in ids else 0,
                key="memories.open",
            )
            chosen = labels[label]
            _session.remember(Keys.MEMORY_ID, chosen)
            current = bank.get(principal, chosen)
            with st.container(border=True, key="memories.detail"):
                st.markdown(line(current))
                st.markdown(f"{_ui.code(current.memory_id)} · {_ui.escape(current.kind)}")
                history = bank.revisions(principal, chosen)
                for revision in history:
                    source = revision.source
                    origin = " ".join(
                        _ui.escape(part)
                        for part in (source.kind, source.event_id, source.author)
                        if part
                    )
                    st.markdown(
                        f"r{revision.revision} · {_ui.escape(revision.action)} · "
                        f"{revision.at:%Y-%m-%d %H:%M} · {_ui.escape(revision.actor)}: "
                        f"{_ui.escape(revision.fact)} ← {origin}"
                    )
                    if source.excerpt or source.note:
                        st.caption(_ui.escape(source.excerpt or source.note or ""))
                older = [r.revision for r in history if r.revision != current.revision]
                if older:
                    target = st.selectbox("回復到 Roll back to", older, key="memories.rollback_to")
                    if st.button("回復 Roll back", key="memories.rollback"):
                        bank.rollback(principal, chosen, revision=int(target))
                        _ui.toast_next(f"已回復到 r{target} Rolled back")
                        st.rerun()
                if current.state == "active":
                    reason = st.text_input("刪除原因 Reason to delete", key="memories.reason")
                    if st.button("刪除 Delete", key="memories.delete"):
                        bank.delete(principal, chosen, reason=reason)
                        _ui.toast_next("已刪除 Deleted")
                        st.rerun()
                if current.state == "active":
                    with st.form("memories.propose"):
                        st.markdown("提議為候選知識 Propose as candidate knowledge")
                        document_id = st.text_input(
                            "目標文件 Target document id", key="memories.propose_document"
                        )
                        # Appended: a memory is one fact, and the owner's diff should show it
                        # added to the document, not the document replaced by it.
                        body = st.text_area(
                            "新增段落 Paragraph to add",
                            value=current.fact,
                            key="memories.propose_body",
                        )
                        if st.form_submit_button("提議 Propose"):
                            proposed = services.candidates.propose(
                                principal,
                                Proposal(
                                    document_id=document_id.strip(),
                                    body=body,
                                    append=True,
                                    origin="memory",
                                    memory_ids=[chosen],
                                ),
                            )
                            st.success(
                                f"候選 {_ui.escape(proposed.candidate_id)} 待知識負責人審核 "
                                "waits for a knowledge owner"
                            )
                if may_hold:
                    hold_reason = st.text_input("保全原因 Hold reason", key="memories.hold_reason")
                    label = "解除保全 Lift hold" if current.legal_hold else "法律保全 Legal hold"
                    if st.button(label, key="memories.hold"):
                        bank.set_legal_hold(
                            principal, chosen, hold=not current.legal_hold, reason=hold_reason
                        )
                        st.rerun()

RESULT = "memories.result"  # the last preview or save, as plain values (picklable)


def _generate(scope: dict[str, str], save: bool) -> None:
    message = str(st.session_state.get("memories.message") or "")
    if not message.strip():
        st.session_state[RESULT] = {"warning": "請貼上訊息。Paste a message first."}
        return
    try:
        event = ConversationEvent(
            kind=st.session_state.get("memories.kind") or "mail",
            author=st.session_state.get("memories.author") or "customer",
            text=message,
        )
    except ValidationError as exc:
        st.session_state[RESULT] = {"error": f"訊息無效 Invalid message: {exc.errors()[0]['msg']}"}
        return
    try:
        result = bank.generate(
            principal,
            scope=scope,
            events=[event],
            dry_run=not save,
            third_person=bool(st.session_state.get("memories.third")),
        )
    except MemdeskError as exc:
        st.session_state[RESULT] = {"error_html": _ui.error_text(exc)}
        return
    st.session_state[RESULT] = {
        "saved": not result.dry_run,
        "extractor": result.extractor,
        "changes": [[c.action, c.topic, c.fact, c.previous_fact] for c in result.changes],
    }


with generate:
    message = st.text_area("對話內容 Message (mail, chat, supplement)", key="memories.message")
    kind_col, author_col, person_col = st.columns(3)
    kind = kind_col.selectbox("類型 Kind", ["mail", "chat", "supplement"], key="memories.kind")
    author = author_col.selectbox(
        "說話者 Author", ["customer", "sales", "engineer", "user"], key="memories.author"
    )
    third = person_col.toggle("第三人稱 Third person", key="memories.third")
    preview_col, save_col = st.columns(2)
    # Callbacks run before the page is drawn, so a saved memory is already in the list above.
    preview_col.button(
        "預覽 Preview", key="memories.preview", on_click=_generate, args=(scope, False)
    )
    save_col.button(
        "儲存 Save", key="memories.save", type="primary", on_click=_generate, args=(scope, True)
    )
    shown = st.session_state.get(RESULT)
    if isinstance(shown, dict):
        if shown.get("error_html"):
            st.error(shown["error_html"])  # already escaped by error_text
        elif shown.get("error"):
            st.error(_ui.escape(shown["error"]))
        elif shown.get("warning"):
            st.warning(shown["warning"])
        else:
            st.markdown(
                f"{'已儲存 Saved' if shown.get('saved') else '預覽 Preview'} · "
                f"{_ui.escape(shown.get('extractor', ''))}"
            )
            if not shown.get("changes"):
                st.info("沒有值得記住的內容。Nothing worth remembering.")
            for action, topic, fact, previous in shown.get("changes", []):
                was = f" (原 was: {_ui.escape(previous)})" if previous else ""
                st.markdown(f"{_ui.badge_md(action)} {_ui.code(topic)} {_ui.escape(fact)}{was}")

SCOPE_KEYS = ["customer_id", "task_id", "user_id"]


def _tag(config: CustomizationConfig) -> str:
    return config.key or "default"


def config_settings(config: CustomizationConfig) -> None:
    """Perspective and consolidation settings of one customization config."""
    with st.form(f"memories.config_form.{_tag(config)}"):
        third = st.toggle(
            "第三人稱記憶 Third-person memories (enable_third_person_memories)",
            value=config.enable_third_person_memories,
            key=f"memories.config_third.{_tag(config)}",
        )
        per_candidate = st.number_input(
            "合併時比較的修訂數 Revisions per candidate (revisions_per_candidate_count)",
            min_value=1,
            max_value=50,
            value=config.revisions_per_candidate_count,
            key=f"memories.config_per_candidate.{_tag(config)}",
        )
        no_revisions = st.toggle(
            "不保留修訂 Disable memory revisions (disable_memory_revisions)",
            value=config.disable_memory_revisions,
            key=f"memories.config_no_revisions.{_tag(config)}",
            help="只保留目前內容與來源，無法回復；稽核紀錄照常。Only the current fact and its "
            "source are kept (no rollback); the audit log still records every change.",
        )
        if st.form_submit_button("儲存設定 Save config"):
            bank.config.save_customization(
                principal,
                scope_keys=config.scope_keys,
                enable_third_person_memories=third,
                revisions_per_candidate_count=int(per_candidate),
                disable_memory_revisions=no_revisions,
            )
            _ui.toast_next("設定已儲存 Config saved")
            st.rerun()


def config_topics(config: CustomizationConfig) -> None:
    for topic in config.topics:
        kind_label = "managed" if topic.managed else "custom"
        on = st.toggle(
            f"{topic.label} ({kind_label})",
            value=topic.enabled,
            key=f"memories.topic.{_tag(config)}.{topic.label}",
            help=topic.description,
        )
        if on != topic.enabled:
            bank.config.set_topic(
                principal,
                label=topic.label,
                description=None if topic.managed else topic.description,
                keywords=None if topic.managed else list(topic.keywords),
                enabled=on,
                scope_keys=config.scope_keys,
            )
            st.rerun()
    with st.form(f"memories.new_topic.{_tag(config)}"):
        label = st.text_input(
            "自訂主題 Custom topic label", key=f"memories.topic_label.{_tag(config)}"
        )
        description = st.text_area("說明 Description", key=f"memories.topic_desc.{_tag(config)}")
        keywords = st.text_input("關鍵字 Keywords (comma)", key=f"memories.topic_kw.{_tag(config)}")
        if st.form_submit_button("新增主題 Add topic"):
            bank.config.set_topic(
                principal,
                label=label.strip(),
                description=description,
                keywords=[k for k in keywords.split(",") if k.strip()],
                scope_keys=config.scope_keys,
            )
            st.rerun()


def ttl_policy() -> None:
    policy = bank.config.policy(principal)
    with st.form("memories.policy"):
        st.markdown("保存政策 Retention and similarity policy (days; 0 = none)")
        ttl = {
            name: ttl_days(label, getattr(policy, name), key=f"memories.{name}")
            for name, label in TTL_FIELDS.items()
        }
        granular = st.toggle(
            "依操作設定 TTL Granular TTL (create / generate-created / generate-updated)",
            value=policy.granular,
            key="memories.granular",
        )
        threshold = st.slider(
            "相似門檻 Similarity threshold",
            min_value=0.05,
            max_value=1.0,
            value=float(policy.similarity_threshold),
            key="memories.threshold",
        )
        if st.form_submit_button("儲存政策 Save policy"):
            bank.config.set_policy(
                principal,
                MemoryPolicy(**ttl, granular=granular, similarity_threshold=float(threshold)),
            )
            _ui.toast_next("政策已儲存 Policy saved")
            st.rerun()


if admin_tab:
    with admin_tab[0], _ui.domain_errors():
        configs = bank.config.configs(principal)
        names = [c.key or "default" for c in configs]
        chosen_name = st.selectbox(
            "自訂設定 Customization config (scope keys)", names, key="memories.config"
        )
        config = configs[names.index(chosen_name)]
        st.caption(
            "依範圍鍵的精確組合套用（例如 user_id 只適用於範圍恰為 {user_id} 的請求）；其他組合用"
            " default。Applies to requests whose scope has exactly these keys ({user_id} only "
            "for scopes of exactly user_id); every other combination uses default."
        )
        config_settings(config)
        config_topics(config)
        if config.scope_keys and st.button(
            "移除此設定 Remove this config", key="memories.config_remove"
        ):
            bank.config.remove_customization(principal, config.scope_keys)
            _ui.toast_next("設定已移除 Config removed")
            st.rerun()
        with st.form("memories.config_new"):
            keys = st.multiselect(
                "新設定的範圍鍵 Scope keys of a new config",
                SCOPE_KEYS,
                key="memories.config_new_keys",
            )
            if st.form_submit_button("建立設定 Create config"):
                bank.config.save_customization(
                    principal,
                    scope_keys=tuple(keys),
                    enable_third_person_memories=False,
                    revisions_per_candidate_count=1,
                    disable_memory_revisions=False,
                )
                st.rerun()
        ttl_policy()

_ui.flush_toast()
