package payments

// The test provider's client, generated from payments.yaml and payments.writesafety.yaml: the
// engine modules' tests and examples call it.
//go:generate go run github.com/writegen/writegen/cmd/writegen generate -spec payments.yaml -annotations payments.writesafety.yaml -out .

import _ "embed"

// WriteSafetyJSON is WRITE_SAFETY.json, the answers the engine
// integrations check activity and step options against.
//
//go:embed WRITE_SAFETY.json
var WriteSafetyJSON []byte
