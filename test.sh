#!/usr/bin/env bash
# Runs every test of writegen, PostgreSQL and stripe-mock included, on a fresh machine:
#   ./test.sh            # all packages
#   ./test.sh ./spec/... # some packages (extra arguments go to go test)
# It starts a throwaway PostgreSQL cluster on 127.0.0.1 (removed on exit) unless WRITEGEN_PG_DSN
# is already set, and installs stripe-mock into GOPATH/bin when it is missing.
set -euo pipefail
cd "$(dirname "$0")"

gobin=$(go env GOPATH)/bin
export PATH="$PATH:$gobin"
if ! command -v stripe-mock >/dev/null; then
  echo "test.sh: installing stripe-mock" >&2
  go install github.com/stripe/stripe-mock@v0.203.0
fi

if [ -z "${WRITEGEN_PG_DSN:-}" ]; then
  eval "$(.ci/pg start)"
  trap '.ci/pg stop' EXIT
fi

if [ $# -eq 0 ]; then set -- ./...; fi
go test -count=1 -timeout 15m "$@"
