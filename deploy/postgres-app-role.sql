-- memdesk on PostgreSQL: the application's role may read and write its data but can never
-- rewrite history. Run as the role that owns the schema (the one `memdesk migrate` runs as),
-- after every migration, with psql: psql -v app=memdesk_app -f deploy/postgres-app-role.sql
--
-- Only a table's owner (or a superuser) may ALTER or DROP it, or create, drop, enable or disable
-- its triggers: the app role owns nothing, so the audit log's append-only triggers stay in place.
-- On top of the triggers, the app role simply has no UPDATE, DELETE or TRUNCATE on audit_log.

REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app";
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"app";
REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON audit_log FROM :"app";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO :"app";
