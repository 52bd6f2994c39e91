package payments

// The test provider's client, generated from payments.yaml and payments.writesafety.yaml: the
// engine modules' tests and examples call it.
//go:generate go run github.com/writegen/writegen/cmd/writegen generate -spec payments.yaml -annotations payments.writesafety.yaml -out .
