"""People's words for the console: one bilingual label for every status, field key, run step,
event type and placeholder a page shows (internal values stay in the data, never on screen).

A value missing from a table is shown humanised (`calibration_interval` → "calibration
interval"), never as the raw key; field keys take their Chinese and English words from the
domain glossary, so a field no table lists still reads as words.
"""

from __future__ import annotations

from typing import Any

from services.language.glossary import label as glossary_label

# Task, run, approval, candidate and document statuses, and a decision's status.
STATUS: dict[str, str] = {
    # task lifecycle
    "created": "已建立 Created",
    "restoring": "還原中 Restoring",
    "retrieving": "檢索中 Retrieving",
    "analyzing": "分析中 Analyzing",
    "reviewing": "審查中 Reviewing",
    "awaiting_approval": "待核准 Awaiting approval",
    "completed": "已完成 Completed",
    "waiting_input": "待補資訊 Waiting for input",
    "retrying": "重試中 Retrying",
    "blocked": "受阻 Blocked",
    "failed": "失敗 Failed",
    "cancelled": "已取消 Cancelled",
    # runs
    "queued": "排隊中 Queued",
    "running": "執行中 Running",
    "succeeded": "成功 Succeeded",
    "dead_letter": "需人工接手 Dead letter",
    # approval items and candidates
    "pending": "待決定 Pending",
    "approved": "已核准 Approved",
    "rejected": "已退回 Rejected",
    "withdrawn": "已撤回 Withdrawn",
    "published": "已發布 Published",
    "revised": "已修訂 Revised",
    "waiting": "等待前置項目 Waiting",
    # document versions
    "draft": "草稿 Draft",
    "pending_approval": "送審中 Pending approval",
    "superseded": "已被取代 Superseded",
    "revoked": "已撤銷 Revoked",
    # a draft's decision
    "ready_for_review": "待人工審閱 Ready for review",
    "insufficient_evidence": "證據不足 Insufficient evidence",
    "source_conflict": "來源衝突 Source conflict",
    # what the AI proposes next
    "human_review": "人工審閱 Human review",
    "request_information": "向客戶詢問 Request information",
    # a citation's state
    "current": "現行 Current",
}

# Task events (task_events.kind) and the rows a run adds to a task's timeline.
EVENT: dict[str, str] = {
    "created": "建立任務 Task created",
    "transition": "狀態變更 Status changed",
    "updated": "任務更新 Task updated",
    "conflict": "確認欄位衝突 Confirmed-field conflict",
    "conflict_resolved": "衝突已處理 Conflict settled",
    "source_conflict_settled": "來源衝突已處理 Source conflict settled",
    "source_conflict_escalated": "來源衝突已上報 Source conflict escalated",
    "supplement": "補充資訊 Supplement",
    "run_queued": "排入分析 Run queued",
    "run_finished": "分析結束 Run finished",
    "decision": "決定 Decision",
}

# A run's steps (run_events.kind), as the task page's progress and timeline show them.
RUN_STEP: dict[str, str] = {
    "queued": "排入佇列 Queued",
    "claimed": "開始執行 Started",
    "revalidated": "重新驗證證據 Evidence re-checked",
    "supplement_merged": "合併補充資訊 Supplement merged",
    "retrieval": "檢索 Retrieval",
    "conflicts_settled": "套用已處理的衝突 Settled conflicts applied",
    "evidence": "證據池 Evidence pool",
    "model_call": "模型呼叫 Model call",
    "handoff": "交接 Hand-off",
    "resumed_from_checkpoint": "從檢查點接續 Resumed from a checkpoint",
    "retry_scheduled": "排定重試 Retry scheduled",
    "cancel_requested": "要求取消 Cancel requested",
    "cancelled": "已取消 Cancelled",
    "dead_lettered": "交由人工 Dead-lettered",
    "finished": "結束 Finished",
    "memories_recalled": "取用記憶 Memories recalled",
    "memory_generated": "產生記憶 Memories generated",
    "memory_generation_failed": "記憶產生失敗，稍後重試 Memory generation failed (retried later)",
    "memory_generation": "記憶產生成本 Memory generation cost",
}

# Approval item kinds, roles and other small vocabularies shown on cards.
KIND: dict[str, str] = {
    "draft": "報價準備草稿 Draft",
    "engineering": "工程確認 Engineering",
    "sales": "業務 Sales",
    "engineer": "工程 Engineer",
    "knowledge_owner": "知識負責人 Knowledge owner",
    "admin": "管理員 Admin",
    "fact": "事實 Fact",
    "history": "歷史 History",
    "inference": "推論 Inference",
    "sop": "標準作業 SOP",
    "contract": "合約 Contract",
    "order": "訂單 Order",
    "quote": "報價 Quote",
    "mail": "郵件 Mail",
    "note": "記事 Note",
    "correction": "審閱者更正 Correction",
    "run_claim": "分析結論 Run claim",
    "memory": "記憶 Memory",
    "submitted": "送審版本 Submitted version",
    "version": "送審版本 Submitted version",
    "evidence": "引用證據 Cited evidence",
    "run": "分析執行 Run",
    "candidate": "前一修訂 Previous revision",
    "insert": "新增 Added",
    "delete": "刪除 Removed",
    "replace": "修改 Changed",
    "equal": "相同 Same",
}

# Task fields the domain glossary does not name (the glossary words every other field).
FIELD: dict[str, str] = {
    "due_date": "到期日 due date",  # services/desk/due.py
}

# Yes/no values of task fields (a confirmed requirement, a conflict's proposal).
YES_NO: dict[bool, str] = {True: "是 Yes", False: "否 No"}

# The fields of an engineer's structured result (services/approvals/handover.py).
RESULT_FIELD: dict[str, str] = {
    "extra_working_days": "額外工作天 Extra working days",
    "method": "方法 Method",
    "acceptance_criteria": "允收標準 Acceptance criteria",
    "equipment": "設備 Equipment",
}

# Empty values and hints.
PLACEHOLDER: dict[str, str] = {
    "none": "—",
    "no_next_step": "無 None",
    "supplement": "貼上客戶的回覆或補充說明 Paste the customer's reply or a note",
    "task_id": "例如 e.g. Q42",
    "citation": "文件@版本:起-訖 DOC@VERSION:START-END",
    "comment": "說明理由 Why (shown to the next person)",
    "search": "任務、客戶、料號 Task, customer, part",
}


def _humanise(value: str) -> str:
    return value.replace("_", " ").replace("-", " ").strip() or "—"


def status(value: str | None) -> str:
    if not value:
        return PLACEHOLDER["none"]
    return STATUS.get(value, _humanise(value))


def event(value: str) -> str:
    return EVENT.get(value, _humanise(value))


def run_step(value: str) -> str:
    return RUN_STEP.get(value, _humanise(value))


def kind(value: str | None) -> str:
    if not value:
        return PLACEHOLDER["none"]
    return KIND.get(value, _humanise(value))


def field(key: str) -> str:
    """A task field: its Chinese and English words from the glossary ("材質 material")."""
    if key in FIELD:
        return FIELD[key]
    chinese = glossary_label(key, chinese=True)
    english = glossary_label(key, chinese=False)
    return english if chinese == english else f"{chinese} {english}"


def fields(keys: list[str]) -> str:
    return "、".join(field(key) for key in keys) if keys else PLACEHOLDER["none"]


def value(raw: Any) -> str:
    """A task field's value in words: yes/no for a boolean, a dash for nothing, a list joined."""
    if isinstance(raw, bool):
        return YES_NO[raw]
    if raw is None or raw == "":
        return PLACEHOLDER["none"]
    if isinstance(raw, list | tuple):
        return "、".join(value(item) for item in raw) if raw else PLACEHOLDER["none"]
    return str(raw)


def result(raw: dict[str, Any] | None) -> str:
    """An engineer's structured result, the fields that were filled in, in words."""
    filled = [(key, item) for key, item in (raw or {}).items() if item not in (None, "")]
    return "; ".join(
        f"{RESULT_FIELD.get(key, _humanise(key))}: {value(item)}" for key, item in filled
    )


def placeholder(name: str) -> str:
    return PLACEHOLDER[name]
