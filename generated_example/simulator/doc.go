// Package simulator runs the two peers of the escalation relay on 127.0.0.1, each as an HTTP
// server that counts every effect it commits:
//
//   - Support, the support desk of ../support.yaml: threads, messages, a search by external
//     reference, OAuth-style token rotation, and agents who answer every new thread at nearly the
//     same moment through a signed webhook;
//   - Chat, the chat platform: the relay posts answers into conversations, and the platform sends
//     escalation requests through a signed webhook that it delivers again until it gets a 2xx.
//
// Both honour the Idempotency-Key header the way payment providers do: the same key with the same
// body returns the original response, the same key with another body is refused with 422, and the
// same key while the first request is still running is answered 409.
//
// Faults are injected per write request (see Fault) and per webhook delivery (see Delivery), from
// functions the caller supplies, so a seeded caller gets the same faults for the same requests
// whatever order they arrive in.
package simulator
