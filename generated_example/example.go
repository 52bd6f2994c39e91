// Package example is writegen's worked example: an escalation relay between a chat platform and
// a support desk, built on clients generated from the specs in this directory.
//
//   - support.yaml and writesafety.yaml: the support desk's API and the answers to the nine
//     write-safety questions for each of its writes; generated into ./support.
//   - chat.yaml and chat.writesafety.yaml: the chat platform's bot API; generated into ./chat.
//   - ./relay: the relay, on the ledger's inbox, claims and outbox.
//   - ./simulator: both peers on 127.0.0.1, with fault injection.
//   - ./scenario: the relay end to end against the simulators, checked after every run.
//   - ./cmd/demo: 200 escalations through faults, with a summary.
//   - ./cmd/mcp: the support desk as MCP tools for agents: ./support/supportmcp, which -mcp
//     generates beside the client (./support itself does not import the MCP SDK).
//
// Run "go generate ./generated_example" after changing a spec or an annotation file; a test
// fails while the committed code is stale.
package example

//go:generate go run github.com/writegen/writegen/cmd/writegen generate -spec support.yaml -annotations writesafety.yaml -out support -mcp
//go:generate go run github.com/writegen/writegen/cmd/writegen generate -spec chat.yaml -annotations chat.writesafety.yaml -out chat
