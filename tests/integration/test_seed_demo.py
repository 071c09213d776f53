"""`memdesk seed-demo` runs on every `make run`: it must not undo what an admin changed since."""

from __future__ import annotations

from services import bootstrap
from services.bootstrap import Services
from tests.conftest import principal


def test_seeding_again_keeps_an_admins_role_and_grant_changes(services: Services) -> None:
    first = bootstrap.seed_demo(services)
    assert first.created["users"] > 0 and not first.already_loaded
    admin = principal(services, "a.admin")
    services.directory.set_roles(admin, "a.sales2", ["sales", "engineer"])
    services.directory.remove_grant(admin, "a.sales", "customer:C-ACME")

    again = bootstrap.seed_demo(services)

    assert again.already_loaded
    assert (again.created, again.updated) == ({}, {})
    assert services.directory.user(admin, "a.sales2").roles == ("sales", "engineer")
    assert "customer:C-ACME" not in services.directory.user(admin, "a.sales").grants


def test_an_explicit_import_of_the_same_file_is_still_an_idempotent_import(
    services: Services,
) -> None:
    services.importer.import_file(services.settings.demo_corpus)
    report = services.importer.import_file(services.settings.demo_corpus)
    assert not report.already_loaded
    assert (report.created, report.updated) == ({}, {})
    assert report.unchanged["users"] > 0
