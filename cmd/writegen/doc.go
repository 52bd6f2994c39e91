// Writegen generates a Go client for an HTTP API from its OpenAPI document and a reviewed
// write-safety annotation file, in which every write operation declares what happens when its
// outcome is unknown: a timeout, a reset connection, an EOF.
//
// Usage:
//
//	writegen generate -spec FILE -annotations FILE -out DIR [-package NAME] [-mcp]
//	writegen check    -spec FILE -annotations FILE -out DIR [-package NAME] [-mcp]
//	writegen init     -spec FILE [-package NAME] > writesafety.yaml
//	writegen ledger   list|resolve ...
//	writegen version
//
// In a connector repository, pin the version with "go get -tool github.com/writegen/writegen/cmd/writegen"
// and generate with a line such as
//
//	//go:generate go tool writegen generate -spec api.yaml -annotations writesafety.yaml -out support
//
// # generate
//
// Generate reads the spec (OpenAPI 3.0 or 3.1, or Swagger 2.0; YAML or JSON) and the annotation
// file, checks them, and writes one Go package into DIR (with -mcp, a second inside it):
//
//   - client.go: Client, NewClient, when a write is deduplicated in the ledger, Resume, and, when
//     the package has writes, Writes, their answers as []runtime.WriteInfo (what the engine
//     integrations check their retry policies against);
//   - models.go: the schemas as Go types (an API with more than a thousand types spreads them over
//     models_0.go to models_7.go by a hash of their names);
//   - operations.go: one method per operation; each write takes its own business key type,
//     declares its retry set as a constant and calls the lookup its annotation names;
//   - WRITE_SAFETY.md: the answers of the annotation file, one table per write, for reviewers;
//   - with -mcp (or "mcp: true" in writegen.yaml), a second package beside the client: the
//     package of agent tools, named after the client's with "mcp" added, in DIR/<package>mcp
//     (support/supportmcp for package support). Its tools.go holds every operation in scope as
//     an MCP tool of the official Go SDK (github.com/modelcontextprotocol/go-sdk), and AddTools,
//     which adds them to a server. It is a package of its own so that the client package does
//     not import the SDK: a program that only calls the client does not link it. It imports the
//     client by its import path, found from the go.mod in DIR or above it (-mcp refuses a DIR
//     outside a module), and reaches only the client's exported API: its key, parameter and
//     model types and its methods. A tool's input schema is the request's parameters and body,
//     with the business key fields as required arguments; its output schema is the receipt,
//     the acknowledgement or the response. Its hints are derived from the answers, never set by
//     hand: readOnlyHint for reads, idempotentHint only when repeating a call with the same
//     arguments cannot make a second effect (an idempotent effect, a key claimed in the ledger,
//     a provider key kept forever), destructiveHint from the destructive answer, openWorldHint
//     for all. An uncertain outcome reaches the agent as a tool error that tells it not to call
//     again, who was told and which read tool can check. With -mcp a POST write must answer
//     destructive (true when it overwrites or deletes, false when it only adds). A server of the
//     tools is a few lines: see "Agent tools" below.
//
// The output is byte-identical from run to run and gofmt- and vet-clean. Writegen writes every
// file or none, of both packages: the files are written into a temporary directory beside DIR,
// then renamed into place (a new directory, DIR or the tools package's, whole); what would stop
// a rename (a file where the tools package's directory goes, a hand-written file with the name
// of a generated one) is refused before anything is written. Generated files of an earlier run
// that are no longer generated are removed, the tools package's without -mcp (its directory
// too, once empty); check reports them as extra. Files that writegen did not write (those
// without its "Code generated" header, such as the lookups a person writes by hand) are never
// touched.
//
// A spec may be split across several files: -spec names the root, whose references name the
// other files by their paths relative to the file they are written in
// ("../common/errors.yaml#/components/schemas/Error", "schemas/Ticket.yaml" for a whole file),
// as a path item, an operation, a schema or any component, and as a value of a
// discriminator's mapping. Every file must be in the root's directory or below it: a reference
// that leaves it (through .. or a symbolic link), an absolute path and a URL are refused at the
// reference (move the file under the directory, or bundle the spec into one file), and so is a
// file that is not there. Positions name the file a defect is written in, as the root was
// named ("api/schemas/Ticket.yaml:12:5"). A schema of another file is named as a component
// is: by the last segment of its pointer (Error), or for a whole file by the file's name
// without its extension (Ticket.yaml: Ticket); a component of the root that is only a
// reference to a file ("Ticket: {$ref: schemas/Ticket.yaml}") is that file's schema. Two
// schemas that want one name are told apart as any names that collide (Page1, Page2, numbered
// in the order of their component keys), or named in the annotation file's names block by
// their path: {"common/paging.yaml#/Page": TicketPage}.
//
// Generation refuses, naming the file, line, column and operation of each defect:
//
//   - a write operation in scope with neither an entry (nor defaults) nor an exclude reason;
//   - a retry on "ambiguous" for a write that has no idempotency key, no strongly consistent
//     lookup and is not idempotent: such a retry can duplicate the effect;
//   - a receipt whose id pointer does not resolve in the 2xx response schema;
//   - a lookup that names no operation, or a write; a compensation that names no operation, or
//     one without answers of its own;
//   - key format placeholders that do not match the key fields; an unknown field anywhere;
//   - a TODO left by writegen init;
//   - a defect of the spec (a reference to nothing, a null or a value of the wrong type, a
//     request body none of whose media types can be sent) that an operation in scope reaches,
//     or a lookup or compensation it uses. A defect no operation in scope reaches does not stop
//     generation: it is printed as a warning, so excluding the operations that reach a broken
//     part of a provider's spec lets the rest generate;
//   - an idempotency max_length longer than the maxLength the spec declares for the key's
//     header, query parameter or body field (without max_length, the spec's bound is used, and
//     longer keys are hashed to fit), or a spec bound too short for a hashed key.
//
// What the answers do not say is not assumed. A key window nobody declared (no window, or
// window: unknown; init leaves it TODO) is relied on only within the call that first sends the
// key: Resume and later calls never re-send it, and WRITE_SAFETY.md says so; window: forever says
// the provider keeps keys for good. tenancy: per_account, for a provider whose accounts are told
// apart only by their credentials, makes NewClient refuse a client without runtime.WithTenant. A
// query a spec writes into a path key ("/responses/compact?beta=true") is sent as fixed query
// parameters and a fragment ("/shared_items#folders") never, with a warning at the path.
//
// # Agent tools
//
// With -mcp, a connector's MCP server is its client and the generated tools package:
//
//	import (
//		"github.com/modelcontextprotocol/go-sdk/mcp"
//
//		"example.com/connector/support"            // the client, -out support
//		"example.com/connector/support/supportmcp" // its tools
//	)
//
//	c, err := support.NewClient("", ledger)
//	s := mcp.NewServer(&mcp.Implementation{Name: "support-desk", Version: "1.0.0"}, nil)
//	supportmcp.AddTools(s, c)
//	err = s.Run(ctx, &mcp.StdioTransport{})
//
// Every tool calls the client's method, so an agent's call is a write with the client's business
// key, retry set and ledger claim. The package's doc comment shows the same lines with its own
// names; generated_example/cmd/mcp is a complete server, over stdio or streamable HTTP.
//
// # Large APIs
//
// The generated package compiles in about 4 s and 260 MB per thousand operations, but the Go
// compiler's front end runs on one core and holds the whole package: one package of 10,000
// operations took 48 s and 2.3 GB on two cores (bench/scale). Generate such an API as several
// packages of at most about a thousand operations each, whole tags in each: one annotation file
// per part, with include: {tags: [...]} and the same provider scope in every file, each with its
// own -out. The parts share one ledger (their writes keep their key scopes, so their rows and
// provider keys are those of one API), each declares the models it reaches, and a program
// imports only the parts it calls. Built together, the eleven parts of the 10,000 operations
// took 31 s, with 267 MB for the largest compiler and 530 MB for those running at once.
//
// # check
//
// Check does everything generate checks, writes nothing, and also fails when DIR does not hold
// exactly what generate would write, listing each stale, missing or extra file. Run it in CI to
// catch generated code that was edited by hand or not regenerated.
//
// # init
//
// Init prints an annotation file for the spec: every write operation, with what the spec
// reveals already answered (a declared idempotency header, a 201 or 202, an id field) and TODO
// wherever a person must answer. Generate refuses the file while a TODO is left.
//
// For a create whose body has a field that can hold its reference (external_id, reference_id,
// a metadata key), or else a free-text field a marker can be appended to (GitHub's /body),
// init proposes a lookup complete: the reference, the lookup (a list filtered by that field, a
// search by it in the provider's query language, escaped where writegen knows the language, or
// a walk of the list matched on the client, newest first back to the write's time where the
// spec lists the values that ask for that order) and the receipt, each with a "# TODO: confirm"
// comment that says what to check against the provider's docs. A search whose items differ from
// what the write answers is proposed with the read that adopts each by its id (GitHub's issue
// search, read again with issues/get). It proposes only reads the write can call and whose
// answer holds what the write returns, and always consistency eventual, saying what a person
// checks to declare a lag or a settle time. Generate refuses the file while a "TODO: confirm"
// is left. A body field the provider deduplicates by without calling it an idempotency key (a
// nonce) is proposed as the idempotency key, with its window left TODO.
//
// # ledger
//
// Ledger lists the writes whose outcome is uncertain and records how a person resolved them;
// run "writegen ledger -h" for its flags.
//
// # Exit status
//
// 0 on success, 1 when the inputs are refused or defective (or check finds DIR stale), 2 on a
// usage error. Errors are printed on standard error as
//
//	writegen: FILE:LINE:COL: operation "ID": what is wrong
//
// and warnings, which do not change the exit status, as
//
//	writegen: warning: FILE:LINE:COL: what is wrong
package main
