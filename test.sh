#!/usr/bin/env bash
# Runs every test of writegen, PostgreSQL and stripe-mock included, on a fresh machine:
#   ./test.sh            # every package of every module: the core, engines/* and bench/
#   WRITEGEN_TEMPORAL_SERVER=1 ./test.sh  # and the tests on a real Temporal server (servertest)
#   ./test.sh ./spec/... # some packages of the core module (extra arguments go to go test)
# It starts a throwaway PostgreSQL cluster on 127.0.0.1 (removed on exit) unless WRITEGEN_PG_DSN
# is already set, and installs stripe-mock into GOPATH/bin when it is missing.
set -euo pipefail
cd "$(dirname "$0")"

. .ci/modules

gobin=$(go env GOPATH)/bin
export PATH="$PATH:$gobin"
if ! command -v stripe-mock >/dev/null; then
  echo "test.sh: installing stripe-mock" >&2
  go install github.com/stripe/stripe-mock@v0.203.0
fi

# Prism, for the conformance suite (bench/conformance), where .ci/run installs it; the suite
# skips, saying so, when prism is not on PATH (outside CI).
prism_dir=${XDG_CACHE_HOME:-$HOME/.cache}/writegen/prism-5.14.2
if [ -x "$prism_dir/node_modules/.bin/prism" ]; then
  export PATH="$PATH:$prism_dir/node_modules/.bin"
fi

if [ -z "${WRITEGEN_PG_DSN:-}" ]; then
  eval "$(.ci/pg start)"
  trap '.ci/pg stop' EXIT
fi

if [ $# -eq 0 ]; then
  go test -count=1 -timeout 15m ./...
  # The engine integrations are modules of their own (.ci/modules), so that the core's build never
  # sees their dependencies: each is tested in its directory, with the toolchain it asks for, and
  # says how long it took. engines/temporal/servertest, the tests on a real Temporal server, runs
  # only with WRITEGEN_TEMPORAL_SERVER=1: on an empty build cache its test binary took 1,081
  # CPU-seconds to compile (30 min 30 s of wall time on two shared cores), its vet and staticcheck
  # 491 more, and its tests ran in under 2 minutes once compiled; that does not fit beside the rest
  # of CI in 20 minutes (engines/temporal/README.md has the figures).
  for dir in $(engine_modules); do
    start=$SECONDS
    (cd "$dir" && GOTOOLCHAIN=$(gotoolchain) go test -count=1 -timeout 10m ./...)
    echo "test.sh: $dir: $(( SECONDS - start ))s" >&2
  done
  # The benchmarks and the conformance suite are a module of their own too (bench/go.mod), so that
  # what only they use stays out of the core's go.mod.
  (cd bench && go test -count=1 -timeout 15m ./...)
else
  go test -count=1 -timeout 15m "$@"
fi
