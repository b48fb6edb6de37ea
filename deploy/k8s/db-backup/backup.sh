#!/bin/sh
# One hourly backup of the polls database (postgres-backup.yaml runs it; the connection is
# libpq's environment: PGHOST, PGUSER, PGDATABASE, PGPASSWORD). Every copy of a poll must be
# gone within 24 h of its opening, like the poll itself, so a dump holds only the rows of
# the polls opened in the last BACKUP_WINDOW_H hours (their votes and teacher browsers) and
# the races started in that time, and each dump is deleted once older than BACKUP_KEEP_MIN
# minutes. Not copied: the address digests' key (poll_keys: never beside the digests), the
# two-minute hand-over codes, the schema (the app makes it: restore.sh). The dump is psql's
# own script (COPY ... FROM stdin), read back by restore.sh; tests/deploy/test_backup.py
# runs both against a real PostgreSQL.
set -eu
dir="${BACKUP_DIR:-/backup}"
window_h="${BACKUP_WINDOW_H:-11}"
keep_min="${BACKUP_KEEP_MIN:-600}"
# The old ones first: a run whose dump fails still deletes them.
find "$dir" -maxdepth 1 -name 'road-*.sql*' -mmin +"$keep_min" -print -delete
name="$dir/road-$(date -u +%Y%m%dT%H%M%SZ).sql"
# Written under a temporary name and renamed when complete: a restore never reads half a dump.
psql -X -q -v ON_ERROR_STOP=1 -v window_h="$window_h" >"$name.part" <<'SQL'
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SELECT extract(epoch FROM now()) - :window_h * 3600 AS cutoff \gset
\echo '-- Road to Attention: polls opened after' :cutoff '(unix time), read by restore.sh'
\set recent 'code IN (SELECT code FROM polls WHERE created >= ' :cutoff ')'
SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols
  FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'polls' \gset
\echo 'COPY polls (' :cols ') FROM stdin;'
COPY (SELECT :cols FROM polls WHERE created >= :cutoff) TO STDOUT;
\echo '\\.'
SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols
  FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'votes' \gset
\echo 'COPY votes (' :cols ') FROM stdin;'
COPY (SELECT :cols FROM votes WHERE :recent) TO STDOUT;
\echo '\\.'
SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols
  FROM information_schema.columns
  WHERE table_schema = 'public' AND table_name = 'poll_teachers' \gset
\echo 'COPY poll_teachers (' :cols ') FROM stdin;'
COPY (SELECT :cols FROM poll_teachers WHERE :recent) TO STDOUT;
\echo '\\.'
SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols
  FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'live_runs' \gset
\echo 'COPY live_runs (' :cols ') FROM stdin;'
COPY (SELECT :cols FROM live_runs WHERE created >= :cutoff) TO STDOUT;
\echo '\\.'
COMMIT;
SQL
mv "$name.part" "$name"
echo "backed up to $name"
