"""Publish, supersede, revoke, expire and re-ACL documents while querying: after every step no
result is forbidden for the querying principal and every citation re-slices to its quote."""

from __future__ import annotations

import json
import tempfile
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from sqlalchemy import select

from services import bootstrap
from services.contracts.corpus import DocStatus
from services.core.clock import FakeClock
from services.db.engine import make_engine
from services.db.migrate import upgrade
from services.db.models import DocumentVersion
from services.settings import Settings
from tests.support.corpus import corpus_dict, doc, write_corpus
from tests.support.ids import SequentialIds
from tests.support.retrieval import assert_citations_hold, who

DOCUMENTS = ["SOP-A", "SOP-B", "SOP-C"]
USERS = ["a.sales", "a.sales2", "a.engineer", "a.owner", "b.sales"]
ACLS = [["tenant"], ["role:engineer"], ["customer:C-ACME"], ["user:a.sales2"], ["role:sales"]]
BODIES = [
    "標準交期 {n} 日；SUS304 切削件依本程序報價。",
    "特殊檢驗需工程部確認，另加 {n} 日。The lead time is {n} days.",
    "硬陽極膜厚為 {n} µm，A6061-T6 適用。",
]
QUERIES = [
    "標準交期是幾天",
    "SUS304 報價",
    "special inspection lead time",
    "硬陽極膜厚",
    "A6061-T6",
]


class GovernanceMachine(RuleBasedStateMachine):
    @initialize()
    def start(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="memdesk-sm-"))
        url = f"sqlite:///{self.tmp / 'memdesk.db'}"
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        self.services = bootstrap.build(
            Settings(home=self.tmp / "home", database_url=url, embedding_backend="hashing"),
            clock=FakeClock(),
            ids=SequentialIds(),
        )
        self.as_of = date(2026, 11, 29)
        self.serial = 0
        self.services.importer.import_file(
            write_corpus(self.tmp / "base.json", corpus_dict(tasks=[]))
        )

    def teardown(self) -> None:
        if hasattr(self, "services"):
            self.services.close()

    # ---- changes to knowledge -----------------------------------------------------------
    @rule(
        document=st.sampled_from(DOCUMENTS),
        body=st.sampled_from(BODIES),
        acl=st.sampled_from(ACLS),
        days=st.integers(min_value=1, max_value=40),
        sync=st.booleans(),
    )
    def publish(self, document: str, body: str, acl: list[str], days: int, sync: bool) -> None:
        """A new approved version; the previous approved one becomes superseded."""
        versions = self._versions(document)
        new_version = max(versions, default=0) + 1
        self._import(doc(document, new_version, acl=acl, body=body.format(n=days)))
        # The import supersedes the older approved version itself (as publishing does).
        assert DocStatus.approved.value not in [
            status for version, status in self._versions(document).items() if version in versions
        ]
        if sync:
            self.services.index.sync(["A"])

    @rule(document=st.sampled_from(DOCUMENTS))
    def revoke(self, document: str) -> None:
        for version, status in self._versions(document).items():
            if status in (DocStatus.approved.value, DocStatus.superseded.value):
                self._status(document, version, DocStatus.revoked, reason="withdrawn")

    @rule(document=st.sampled_from(DOCUMENTS), acl=st.sampled_from(ACLS))
    def change_acl(self, document: str, acl: list[str]) -> None:
        self._reimport(document, acl=acl)

    @rule(document=st.sampled_from(DOCUMENTS), days=st.integers(min_value=1, max_value=30))
    def expire(self, document: str, days: int) -> None:
        self._reimport(document, valid_to=(self.as_of + timedelta(days=days)).isoformat())

    @rule(days=st.integers(min_value=1, max_value=45))
    def time_passes(self, days: int) -> None:
        self.as_of += timedelta(days=days)

    @rule()
    def purge_revoked(self) -> None:
        for document in DOCUMENTS:
            for version, status in self._versions(document).items():
                if status == DocStatus.revoked.value:
                    report = self.services.index.purge_document(
                        tenant_id="A", document_id=document, version=version
                    )
                    assert report.verified

    # ---- the invariant ------------------------------------------------------------------
    @invariant()
    def nothing_forbidden_and_every_citation_holds(self) -> None:
        if not hasattr(self, "services"):
            return
        for user in USERS:
            principal = who(self.services, user)
            allowed = {
                f"{d.document_id}@{d.version}"
                for d in self.services.knowledge.eligible(principal, as_of=self.as_of)
            }
            for query in QUERIES:
                result = self.services.retrieval.retrieve(principal, query, k=5, as_of=self.as_of)
                for evidence in result.evidence:
                    assert evidence.ref in allowed, (user, query, evidence.ref, sorted(allowed))
                assert_citations_hold(self.services, principal, result.evidence)

    # ---- helpers --------------------------------------------------------------------------
    def _versions(self, document: str) -> dict[int, str]:
        with self.services.db.read() as session:
            rows = session.execute(
                select(DocumentVersion.version, DocumentVersion.status).where(
                    DocumentVersion.tenant_id == "A", DocumentVersion.document_id == document
                )
            ).all()
        return {version: status for version, status in rows}

    def _status(
        self, document: str, version: int, target: DocStatus, reason: str | None = None
    ) -> None:
        # A lifecycle step as the publishing flow takes it (whatever the version's ACL is).
        with self.services.db.write() as session:
            row = session.get(DocumentVersion, ("A", document, version))
            assert row is not None
            self.services.knowledge.transition(
                session, row, target=target, actor="system:publish", reason=reason
            )

    def _reimport(self, document: str, **changes: Any) -> None:
        versions = self._versions(document)
        if not versions:
            return
        version = max(versions)
        with self.services.db.read() as session:
            row = session.get(DocumentVersion, ("A", document, version))
            assert row is not None
            record = doc(
                document,
                version,
                acl=list(row.acl),
                body=row.body,
                status=row.status,
                valid_from=row.valid_from.isoformat(),
                valid_to=row.valid_to.isoformat() if row.valid_to else None,
            )
        record.update(changes)
        if record["valid_to"] is not None and record["valid_to"] <= record["valid_from"]:
            return
        self._import(record)

    def _import(self, record: dict[str, Any]) -> None:
        self.serial += 1
        path = self.tmp / f"change-{self.serial}.json"
        path.write_text(
            json.dumps({"schema_version": "corpus@1", "documents": [record]}, ensure_ascii=False),
            encoding="utf-8",
        )
        self.services.importer.import_file(path)


# Every step is checked by 25 governed queries (5 principals x 5 queries), so a few short runs
# already make thousands of checks; more examples mostly repeat the same shapes.
GovernanceMachine.TestCase.settings = settings(
    max_examples=8,
    stateful_step_count=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_nothing_forbidden_while_knowledge_changes = GovernanceMachine.TestCase
