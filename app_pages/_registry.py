"""Which pages exist and which roles see them. To add a page: one `Entry(...)` line below.

A page a role may not see is not registered in `st.navigation` at all, every page checks its
entry again when it runs (`_session.require_page`), and the service call behind it refuses anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.principals import Principal

ALL_ROLES = frozenset({"sales", "engineer", "knowledge_owner", "admin"})


@dataclass(frozen=True)
class Entry:
    name: str  # the file is app_pages/<name>.py and the URL path is /<name>
    title: str
    icon: str
    roles: frozenset[str]
    section: str = "工作 Work"
    home_for: frozenset[str] = frozenset()  # roles that land here after login

    @property
    def path(self) -> str:
        return f"app_pages/{self.name}.py"


def _roles(*names: str) -> frozenset[str]:
    return frozenset(names)


LOGIN = Entry("login", "登入 Log in", ":material/login:", frozenset())

PAGES: tuple[Entry, ...] = (
    Entry(
        "inbox",
        "任務收件匣 Inbox",
        ":material/inbox:",
        _roles("sales", "admin"),
        home_for=_roles("sales", "admin"),
    ),
    Entry("task", "任務 Task", ":material/assignment:", _roles("sales", "engineer", "admin")),
    Entry("approvals", "待核准 Approvals", ":material/approval:", _roles("sales")),
    Entry(
        "engineering",
        "工程確認 Engineering",
        ":material/engineering:",
        _roles("engineer"),
        home_for=_roles("engineer"),
    ),
    Entry("conflicts", "來源衝突 Conflicts", ":material/call_split:", _roles("sales", "admin")),
    Entry("evidence", "證據 Evidence", ":material/format_quote:", ALL_ROLES),
    Entry(
        "knowledge",
        "知識審核 Knowledge",
        ":material/menu_book:",
        _roles("knowledge_owner"),
        section="知識 Knowledge",
        home_for=_roles("knowledge_owner"),
    ),
    Entry(
        "memories",
        "記憶庫 Memory Bank",
        ":material/psychology:",
        _roles("sales", "knowledge_owner", "admin"),
        section="知識 Knowledge",
    ),
    Entry(
        "audit",
        "稽核紀錄 Audit log",
        ":material/policy:",
        _roles("admin", "knowledge_owner"),
        section="管理 Admin",
    ),
    Entry(
        "admin",
        "使用者與權限 Users & access",
        ":material/manage_accounts:",
        _roles("admin"),
        section="管理 Admin",
    ),
    Entry(
        "retention",
        "保存與法律保全 Retention & holds",
        ":material/gavel:",
        _roles("admin"),
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
