#!/bin/bash
# The polls' application role: it logs in, owns the database (so it may create the polls'
# tables in its public schema) and nothing more: no superuser, no CREATEDB, no CREATEROLE,
# no replication. Run once by the postgres image on an empty data folder, as the image's
# superuser: kustomization.yaml makes it the ConfigMap road-db-init (postgres.yaml), and
# deploy/compose.yaml mounts it. tests/deploy/test_postgres_role.py runs it against a real
# server. A database made before it existed: run it by hand (deploy/README.md, "Upgrades").
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v db="$POSTGRES_DB" -v pw="$APP_DB_PASSWORD" <<'SQL'
CREATE ROLE road_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD :'pw';
ALTER DATABASE :"db" OWNER TO road_app;
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"db" TO road_app;
SQL
