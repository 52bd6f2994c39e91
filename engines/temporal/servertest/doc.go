// Package servertest tests wgtemporal against a real Temporal server
// (go.temporal.io/server/temporaltest, in the test process) with worker
// processes killed mid-write. It is a module of its own, needing Go
// 1.26.10, so that wgtemporal's users never get the server's dependencies;
// test.sh and .ci/run run it only with WRITEGEN_TEMPORAL_SERVER=1: compiling
// the server on a cold cache does not fit in CI's 20 minutes.
package servertest
