"""Who may do what: the one table of role permissions.

The services check it on every call (the real boundary), the console's page registry decides from
it which pages a person is offered, and the CLI names its roles from it. To change who may do
something, change one row here; nothing else lists roles.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from services.core.errors import NotAuthorized
from services.core.principals import Principal

ROLES = ("sales", "engineer", "knowledge_owner", "admin")
# The role named on an approval item: who decides a draft, who an engineering item.
DRAFT_DECIDER = "sales"
ENGINEERING_DECIDER = "engineer"


class Permission(StrEnum):
    LIST_TASKS = "list_tasks"  # the inbox of a tenant's tasks
    WORK_TASKS = "work_tasks"  # change task state, run analysis, ask for approvals
    SETTLE_CONFLICTS = "settle_conflicts"  # decide a conflict on a confirmed field
    DECIDE_DRAFTS = "decide_drafts"  # approve or reject an internal draft
    DECIDE_ENGINEERING = "decide_engineering"  # confirm what engineering must confirm
    READ_EVIDENCE = "read_evidence"  # open a citation beside its original
    CURATE_KNOWLEDGE = "curate_knowledge"  # document statuses, the candidate queue, publications
    APPROVE_KNOWLEDGE = "approve_knowledge"  # approve candidates, publish, revoke
    REVIEW_MEMORIES = "review_memories"  # the Memory Bank page
    WRITE_MEMORIES = "write_memories"  # generate, create, revise memories in scopes one may see
    SEE_ALL_MEMORY_SCOPES = "see_all_memory_scopes"  # every scope of the tenant, not only one's own
    SEE_ALL_CUSTOMERS = "see_all_customers"  # tasks of every customer, not only granted ones
    CONFIGURE_MEMORY = "configure_memory"  # topics, examples and policy of the Memory Bank
    READ_AUDIT = "read_audit"  # the audit log and its export
    ADMINISTER = "administer"  # users, roles, grants, legal holds, retention, any run


_EVERYONE = frozenset(ROLES)

POLICY: Mapping[Permission, frozenset[str]] = {
    Permission.LIST_TASKS: frozenset({"sales", "admin"}),
    Permission.WORK_TASKS: frozenset({"sales", "engineer", "admin"}),
    Permission.SETTLE_CONFLICTS: frozenset({"sales", "admin"}),
    Permission.DECIDE_DRAFTS: frozenset({DRAFT_DECIDER}),
    Permission.DECIDE_ENGINEERING: frozenset({ENGINEERING_DECIDER}),
    Permission.READ_EVIDENCE: _EVERYONE,
    Permission.CURATE_KNOWLEDGE: frozenset({"knowledge_owner", "admin"}),
    Permission.APPROVE_KNOWLEDGE: frozenset({"knowledge_owner"}),
    Permission.REVIEW_MEMORIES: frozenset({"sales", "knowledge_owner", "admin"}),
    Permission.WRITE_MEMORIES: _EVERYONE,
    Permission.SEE_ALL_MEMORY_SCOPES: frozenset({"knowledge_owner", "admin"}),
    Permission.SEE_ALL_CUSTOMERS: frozenset({"knowledge_owner", "admin"}),
    Permission.CONFIGURE_MEMORY: frozenset({"admin"}),
    Permission.READ_AUDIT: frozenset({"admin", "knowledge_owner"}),
    Permission.ADMINISTER: frozenset({"admin"}),
}


def roles_with(permission: Permission) -> frozenset[str]:
    return POLICY[permission]


def allows(principal: Principal, permission: Permission) -> bool:
    return principal.has_role(*POLICY[permission])


def require(principal: Principal, permission: Permission, message: str) -> None:
    """Refuse with NotAuthorized(message) unless one of the principal's roles has `permission`."""
    if not allows(principal, permission):
        raise NotAuthorized(message)
