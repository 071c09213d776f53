"""Local accounts: argon2 hashes, one failure message, lockout, resets, the `memdesk users` CLI."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select
from typer.testing import CliRunner

from services import bootstrap
from services.cli.main import app as cli
from services.core.errors import InvalidInput, NotAuthorized, NotFound
from services.db.models import AuditEntry, LocalCredential
from services.records.accounts import (
    DEMO_PASSWORD,
    LOGIN_FAILED,
    MAX_FAILED_ATTEMPTS,
    Accounts,
    cookie_secret_problem,
)
from services.settings import Settings

# Cheap parameters: these tests check behaviour, not argon2's cost.
FAST = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@pytest.fixture
def accounts(loaded, clock) -> Accounts:
    return Accounts(db=loaded.db, clock=clock, hasher=FAST)


def test_a_correct_password_gives_the_principal_from_the_database(accounts):
    accounts.set_password("a.sales", "correct horse", actor="test")
    principal = accounts.authenticate("a.sales", "correct horse")
    assert (principal.user_id, principal.tenant_id, principal.roles) == ("a.sales", "A", ("sales",))


def test_the_password_is_stored_only_as_an_argon2_hash(accounts, loaded):
    accounts.set_password("a.sales", "correct horse", actor="test")
    with loaded.db.read() as session:
        stored = session.scalar(select(LocalCredential.password_hash))
    assert stored is not None and stored.startswith("$argon2id$")
    assert "correct horse" not in stored


@pytest.mark.parametrize(
    ("user", "password"), [("a.sales", "wrong password"), ("nobody", "x"), ("a.owner", "anything")]
)
def test_every_failure_says_the_same_thing(accounts, user, password):
    accounts.set_password("a.sales", "correct horse", actor="test")  # a.owner has no password
    with pytest.raises(NotAuthorized) as failure:
        accounts.authenticate(user, password)
    assert str(failure.value) == LOGIN_FAILED


def test_repeated_failures_lock_the_account_until_the_lockout_passes(accounts, clock):
    accounts.set_password("a.sales", "correct horse", actor="test")
    for _ in range(MAX_FAILED_ATTEMPTS):
        with pytest.raises(NotAuthorized):
            accounts.authenticate("a.sales", "guess")
    with pytest.raises(NotAuthorized):
        accounts.authenticate("a.sales", "correct horse")  # locked: even the right password
    clock.advance(minutes=6)
    assert accounts.authenticate("a.sales", "correct horse").user_id == "a.sales"


def test_a_reset_replaces_the_password_and_clears_a_lockout(accounts):
    accounts.set_password("a.sales", "correct horse", actor="test")
    for _ in range(MAX_FAILED_ATTEMPTS):
        with pytest.raises(NotAuthorized):
            accounts.authenticate("a.sales", "guess")
    accounts.set_password("a.sales", "battery staple", actor="a.admin")
    assert accounts.authenticate("a.sales", "battery staple").user_id == "a.sales"
    with pytest.raises(NotAuthorized):
        accounts.authenticate("a.sales", "correct horse")


def test_logins_lockouts_and_resets_are_audited(accounts, loaded):
    accounts.set_password("a.sales", "correct horse", actor="a.admin")
    accounts.authenticate("a.sales", "correct horse")
    for _ in range(MAX_FAILED_ATTEMPTS):
        with pytest.raises(NotAuthorized):
            accounts.authenticate("a.sales", "guess")
    with loaded.db.read() as session:
        actions = list(
            session.scalars(select(AuditEntry.action).where(AuditEntry.subject_id == "a.sales"))
        )
    assert actions == ["account.password_set", "account.login", "account.locked"]


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"password": "short"}, "at least 8"),
        ({"roles": ["wizard"]}, "roles must be"),
        ({"tenant_id": "Z"}, "tenant not found"),
        ({"user_id": "a.sales"}, "already exists"),
    ],
)
def test_adding_a_user_checks_its_input(accounts, kwargs, problem):
    arguments = {
        "tenant_id": "A",
        "user_id": "a.new",
        "password": "long enough",
        "roles": ["sales"],
        "actor": "test",
        **kwargs,
    }
    with pytest.raises((InvalidInput, NotFound), match=problem):
        accounts.add_user(**arguments)


def test_ensure_password_keeps_passwords_already_set(accounts):
    accounts.set_password("a.sales", "my own secret", actor="a.sales")
    given = accounts.ensure_password(["a.sales", "a.owner", "ghost"], "initial secret", actor="s")
    assert given == ["a.owner"]
    assert accounts.authenticate("a.sales", "my own secret").user_id == "a.sales"
    assert accounts.authenticate("a.owner", "initial secret").user_id == "a.owner"


# ---- no default secret reaches production -----------------------------------------------------


def test_a_store_with_other_than_demo_data_refuses_the_demo_password(accounts):
    """`loaded` imported a corpus that is not the demo's: the published password is refused
    for every way of setting it, and never opens an account that still has it."""
    for give in (
        lambda: accounts.set_password("a.sales", DEMO_PASSWORD, actor="test"),
        lambda: accounts.ensure_password(["a.owner"], DEMO_PASSWORD, actor="test"),
        lambda: accounts.add_user(
            tenant_id="A", user_id="a.new", password=DEMO_PASSWORD, roles=["sales"], actor="t"
        ),
    ):
        with pytest.raises(InvalidInput, match="demo password"):
            give()


def test_production_refuses_the_demo_password_even_on_the_demo_store(tmp_path, monkeypatch):
    """seeded in development, then started with MEMDESK_ENV=production: no demo login works."""
    home = tmp_path / "home"
    settings = Settings(home=home, embedding_backend="hashing")
    services = bootstrap.build(settings)
    try:
        bootstrap.seed_demo(services)
        assert services.accounts.demo_store()
        assert services.accounts.authenticate("a.admin", DEMO_PASSWORD).user_id == "a.admin"
    finally:
        services.close()
    production = bootstrap.build(settings.model_copy(update={"env": "production"}))
    try:
        with pytest.raises(NotAuthorized, match=LOGIN_FAILED):
            production.accounts.authenticate("a.admin", DEMO_PASSWORD)
        with pytest.raises(InvalidInput, match="demo password"):
            production.accounts.set_password("a.admin", DEMO_PASSWORD, actor="ops")
        production.accounts.set_password("a.admin", "a long private secret", actor="ops")
        assert production.accounts.authenticate("a.admin", "a long private secret")
    finally:
        production.close()
    monkeypatch.setenv("MEMDESK_HOME", str(home))
    monkeypatch.setenv("MEMDESK_EMBEDDING_BACKEND", "hashing")
    monkeypatch.setenv("MEMDESK_ENV", "production")
    result = CliRunner().invoke(cli, ["seed-demo"])
    assert result.exit_code == 2 and "not in production" in result.stderr


@pytest.mark.parametrize(
    ("secret", "refused"),
    [
        (None, True),
        ("", True),
        ("replace-with-a-long-random-string", True),
        ("short-but-random", True),
        ("8f0b6b0e5f3a4c1d9e2a7b6c5d4e3f2a1b0c9d8e", False),
    ],
)
def test_the_placeholder_cookie_secret_is_refused(secret, refused):
    assert (cookie_secret_problem(secret) is not None) is refused


def test_the_users_cli_adds_lists_and_resets(loaded, settings, monkeypatch):
    monkeypatch.setenv("MEMDESK_HOME", str(settings.home))
    monkeypatch.setenv("MEMDESK_DATABASE_URL", settings.database_url)
    runner = CliRunner()
    added = runner.invoke(
        cli,
        [
            "users",
            "add",
            "a.buyer",
            "--tenant",
            "A",
            "--role",
            "sales",
            "--grant",
            "customer:C-ACME",
        ],
        input="s3cret-pass\ns3cret-pass\n",
    )
    assert added.exit_code == 0, added.output
    listed = runner.invoke(cli, ["users", "list", "--tenant", "A"])
    assert "a.buyer (tenant A) roles sales grants customer:C-ACME; password set" in listed.output
    assert "$argon2" not in listed.output
    reset = runner.invoke(cli, ["users", "reset-password", "a.buyer", "--password", "another-pass"])
    assert reset.exit_code == 0, reset.output
    assert loaded.accounts.authenticate("a.buyer", "another-pass").roles == ("sales",)
    unknown = runner.invoke(cli, ["users", "reset-password", "ghost", "--password", "another-pass"])
    assert unknown.exit_code == 2 and "user not found: ghost" in unknown.output
