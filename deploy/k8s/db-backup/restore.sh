#!/bin/sh
# Restore one dump of backup.sh: sh restore.sh /backup/road-<time>.sql, into a database whose
# schema the app made (deploy/README.md, "Backups"), with the app stopped. One transaction:
# a dump that does not fit changes nothing.
set -eu
test -f "${1:?usage: restore.sh /backup/road-<time>.sql}"
psql -X -q -v ON_ERROR_STOP=1 --single-transaction -f "$1"
echo "restored $1"
