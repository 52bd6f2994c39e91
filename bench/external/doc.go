// Package external holds tests of writegen's packages that need a module writegen's own go.mod
// does not require: the OpenTelemetry SDK, to read what runtime/otelhooks records
// (otelhooks_test.go), and goimports (golang.org/x/tools), the formatting the generated files
// must have (goimports_test.go). Here, in the bench module, those modules stay out of the
// go.mod that every module requiring writegen inherits. It has no code of its own.
package external
