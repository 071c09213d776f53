"""Which pages exist and which roles see them. To add a page: one `Entry(...)` line below.

A page a role may not see is not registered in `st.navigation` at all, every page checks its
entry again when it runs (`_session.require_page`), and the service call behind it refuses anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.core.policy import Permission, roles_with
from services.core.principals import Principal


@dataclass(frozen=True)
class Entry:
    name: str  # the file is app_pages/<name>.py and the URL path is /<name>
    title: str
    icon: str
    permission: Permission | None  # who may open it: the roles with this permission
    section: str = "工作 Work"
    home_for: frozenset[str] = frozenset()  # roles that land here after login

    @property
    def roles(self) -> frozenset[str]:
        return roles_with(self.permission) if self.permission else frozenset()

    @property
    def path(self) -> str:
        return f"app_pages/{self.name}.py"


def _roles(*names: str) -> frozenset[str]:
    return frozenset(names)


LOGIN = Entry("login", "登入 Log in", ":material/login:", None)

PAGES: tuple[Entry, ...] = (
    Entry(
        "inbox",
        "任務收件匣 Inbox",
        ":material/inbox:",
        Permission.LIST_TASKS,
        home_for=_roles("sales", "admin"),
    ),
    Entry("task", "任務 Task", ":material/assignment:", Permission.WORK_TASKS),
    Entry("approvals", "待核准 Approvals", ":material/approval:", Permission.DECIDE_DRAFTS),
    Entry(
        "engineering",
        "工程確認 Engineering",
        ":material/engineering:",
        Permission.DECIDE_ENGINEERING,
        home_for=_roles("engineer"),
    ),
    Entry("conflicts", "來源衝突 Conflicts", ":material/call_split:", Permission.SETTLE_CONFLICTS),
    Entry("evidence", "證據 Evidence", ":material/format_quote:", Permission.READ_EVIDENCE),
    Entry(
        "knowledge",
        "知識審核 Knowledge",
        ":material/menu_book:",
        Permission.APPROVE_KNOWLEDGE,
        section="知識 Knowledge",
        home_for=_roles("knowledge_owner"),
    ),
    Entry(
        "memories",
        "記憶庫 Memory Bank",
        ":material/psychology:",
        Permission.REVIEW_MEMORIES,
        section="知識 Knowledge",
    ),
    Entry(
        "audit",
        "稽核紀錄 Audit log",
        ":material/policy:",
        Permission.READ_AUDIT,
        section="管理 Admin",
    ),
    Entry(
        "admin",
        "使用者與權限 Users & access",
        ":material/manage_accounts:",
        Permission.ADMINISTER,
        section="管理 Admin",
    ),
    Entry(
        "retention",
        "保存與法律保全 Retention & holds",
        ":material/gavel:",
        Permission.ADMINISTER,
        section="管理 Admin",
    ),
)


def entries_for(principal: Principal) -> list[Entry]:
    """The pages this principal may open, in menu order."""
    return [entry for entry in PAGES if set(principal.roles) & entry.roles]


def home_for(principal: Principal) -> Entry | None:
    """The page a principal lands on: the first home of one of their roles, in role order."""
    entries = entries_for(principal)
    for role in principal.roles:
        for candidate in entries:
            if role in candidate.home_for:
                return candidate
    return entries[0] if entries else None


def entry(name: str) -> Entry:
    for candidate in PAGES:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


def may_open(principal: Principal, name: str) -> bool:
    return bool(set(principal.roles) & entry(name).roles)
