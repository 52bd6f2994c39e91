// Package build converts a loaded document's operations and schemas into the IR's operations
// and types (Builder): the operations listed once with their IDs (ListOperations), each
// converted when the scope needs it (Convert), every package-level name settled at once
// (Settle, by package naming's rules), and the Go shape of the types decided (pointers,
// omitempty, the map of additional properties, which types compare and which a request sends).
// It knows nothing of write safety: the safety check (package spec) binds the annotations to the
// operations it lists, and tells it which are in scope.
package build
