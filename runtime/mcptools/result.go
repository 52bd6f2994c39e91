package mcptools

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/writegen/writegen/runtime"
)

// Check names the read tool that can tell whether a write whose outcome is uncertain took
// effect: the write's lookup, as a tool. Args is the JSON object of arguments to call it with,
// where each "{ref}" stands for the reference the write stored at the provider; Ref is that
// reference when it is not the provider key (a template over the business key). The zero
// Check says that no read tool can tell.
type Check struct {
	Tool string
	Args string
	Ref  string
}

// receipt is the structured content of a receipt. Undecoded is set when the provider's 2xx did
// not match the spec: the write happened, its id was read from the body as it came.
type receipt struct {
	ID        string `json:"id"`
	Source    string `json:"source"`
	Body      any    `json:"body,omitempty"`
	Undecoded string `json:"undecoded,omitempty"`
}

// ack is the structured content of an acknowledgement, and of an idempotent write without a
// business key.
type ack struct {
	Accepted  bool   `json:"accepted"`
	Status    int    `json:"status,omitempty"`
	Source    string `json:"source,omitempty"`
	Note      string `json:"note"`
	Body      any    `json:"body,omitempty"`
	Undecoded string `json:"undecoded,omitempty"`
}

// undecoded is what a result says of a 2xx that took effect and did not decode (err matches
// runtime.ErrDecode).
func undecoded(err error) string {
	return "the provider's answer does not match its spec, so it was not read; the write took effect (do not call again): " + clip(err.Error())
}

// ackNote is the note of an acknowledgement.
const ackNote = "The provider accepted the request: its effect may come later."

// Receipt is the result of a write whose 2xx is a receipt: {"id", "source", "body"}, or the
// tool error of err.
func Receipt[T any](r *runtime.Receipt[T], err error, check Check) *mcp.CallToolResult {
	res := receipt{}
	switch {
	case r != nil && errors.Is(err, runtime.ErrDecode):
		res.Undecoded = undecoded(err)
	case err != nil:
		return Error(err, check)
	}
	res.ID, res.Source, res.Body = r.ID, r.Source.String(), body(r.Raw, r.Body)
	return structured(res)
}

// Ack is the result of a write whose 2xx is an acknowledgement: {"accepted": true, "status",
// "source", "note", "body"}, or the tool error of err.
func Ack[T any](a *runtime.Ack[T], err error, check Check) *mcp.CallToolResult {
	res := ack{Accepted: true, Note: ackNote}
	switch {
	case a != nil && errors.Is(err, runtime.ErrDecode):
		res.Undecoded = undecoded(err)
	case err != nil:
		return Error(err, check)
	}
	res.Status, res.Source, res.Body = a.Status, a.Source.String(), body(a.Raw, a.Body)
	return structured(res)
}

// Done is the result of an idempotent write without a business key: {"accepted": true, "note",
// "body"}, or the tool error of err. note says what its 2xx means; v is struct{}{} when the
// response has no body.
func Done[T any](v T, err error, note string) *mcp.CallToolResult {
	if err != nil {
		return Error(err, Check{})
	}
	res := ack{Accepted: true, Note: note}
	if _, none := any(v).(struct{}); !none {
		res.Body = v
	}
	return structured(res)
}

// Read is the result of a read whose response is a JSON object (v, or struct{}{} when it has
// no body), or the tool error of err.
func Read[T any](v T, err error) *mcp.CallToolResult {
	if err != nil {
		return Error(err, Check{})
	}
	return structured(v)
}

// Wrap is the result of a read whose response is not a JSON object (an array, a string): the
// object {"result": v}, or the tool error of err.
func Wrap[T any](v T, err error) *mcp.CallToolResult {
	if err != nil {
		return Error(err, Check{})
	}
	return structured(struct {
		Result T `json:"result"`
	}{v})
}

// body is the body of a receipt or an acknowledgement: the 2xx body as received when it is
// JSON (the provider's words, as the ledger keeps them), else the decoded value, else nil.
func body[T any](raw []byte, v *T) any {
	if len(raw) > 0 && json.Valid(raw) {
		return json.RawMessage(raw)
	}
	if v != nil {
		return v
	}
	return nil
}

// structured returns v as the structured content of a result, and as its JSON text for clients
// that read only text.
func structured(v any) *mcp.CallToolResult {
	data, err := json.Marshal(v)
	if err != nil {
		return failure("FAILED: the result could not be encoded: " + err.Error() + ".")
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(data)}},
		StructuredContent: json.RawMessage(data),
	}
}

// failure is a tool error with text.
func failure(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// Invalid is the tool error of arguments that could not be used: nothing was sent.
func Invalid(err error) *mcp.CallToolResult {
	return failure("INVALID ARGUMENTS: " + clip(err.Error()) + ". Nothing was sent: correct the arguments and call again.")
}

// Error is the tool error of a call that ended in err. check names the read tool that can
// tell whether an uncertain write took effect.
func Error(err error, check Check) *mcp.CallToolResult {
	return failure(Text(err, check))
}

// Text says what err means to an agent, and whether calling again helps. Each outcome of the
// runtime matches one case.
func Text(err error, check Check) string {
	var (
		uncertain  *runtime.UncertainError
		conflict   *runtime.KeyConflictError
		empty      *runtime.EmptyKeyError
		status     *runtime.StatusError
		notApplied *runtime.NotAppliedError
	)
	switch {
	case errors.As(err, &uncertain):
		return uncertainText(uncertain, check)
	case errors.As(err, &conflict):
		return "KEY CONFLICT: the business key " + strconv.Quote(conflict.BusinessKey) +
			" was used before with other arguments (ledger row " + strconv.FormatInt(conflict.RowID, 10) + "). " +
			"Nothing was sent. Call with the first call's arguments to get its outcome, or use another business key for another write."
	case errors.As(err, &empty):
		what := "The business key is empty"
		if empty.Field != "" {
			what = "The business key field " + strconv.Quote(empty.Field) + " is missing, empty or zero"
		}
		return "MISSING KEY: " + what + ". Nothing was sent: give the key that names this write and call again."
	case errors.Is(err, runtime.ErrNotApplied):
		reason := ""
		if errors.As(err, &notApplied) {
			reason = " (" + notApplied.Reason + ")"
		} else if errors.As(err, &status) {
			reason = " (" + statusText(status.Status) + ")"
		}
		return "NOT APPLIED: nothing happened" + reason + ". It is safe to call again with the same arguments."
	case errors.Is(err, runtime.ErrInProgress):
		return "IN PROGRESS: another call with this business key is still running. Call again with the same arguments later to get its outcome; that makes no second effect."
	case errors.Is(err, runtime.ErrCompensated):
		return "COMPENSATED: an effect of this business key was a duplicate and was undone; the key is settled. Use another business key for a new write."
	case errors.As(err, &status):
		s := "the provider answered " + statusText(status.Status)
		if len(status.Body) > 0 {
			s += ": " + clip(string(status.Body))
		}
		if errors.Is(err, runtime.ErrRejected) {
			return "REJECTED: " + s + ". Nothing took effect; the same arguments get the same answer."
		}
		return "FAILED: " + s + "."
	}
	return "FAILED: " + clip(err.Error()) + "."
}

// uncertainText tells the agent not to call again, who was told, where the outcome is
// recorded and which read tool can check.
func uncertainText(e *runtime.UncertainError, check Check) string {
	var b strings.Builder
	b.WriteString("UNCERTAIN: this call may or may not have taken effect")
	if e.Reason != "" {
		b.WriteString(" (" + e.Reason + ")")
	}
	b.WriteString(". Do not call it again: the connector settles it where its rules allow (the same provider key, or a lookup), else a person does. ")
	switch {
	case e.Owner != "" && e.Recorded != "":
		fmt.Fprintf(&b, "%s was told; it is recorded in %s.", e.Owner, e.Recorded)
	case e.Owner != "":
		fmt.Fprintf(&b, "%s was told.", e.Owner)
	case e.Recorded != "":
		fmt.Fprintf(&b, "It is recorded in %s.", e.Recorded)
	}
	if check.Tool == "" {
		b.WriteString(" No read tool can check whether it took effect.")
		return b.String()
	}
	ref := check.Ref
	if ref == "" {
		ref = e.ProviderKey
	}
	args := check.Args
	if ref != "" {
		q, _ := json.Marshal(ref)
		args = strings.ReplaceAll(args, "{ref}", string(q[1:len(q)-1]))
	}
	fmt.Fprintf(&b, " To see whether it took effect, call the read tool %s with %s.", check.Tool, args)
	return b.String()
}

// statusText is "422 Unprocessable Entity".
func statusText(code int) string {
	s := strconv.Itoa(code)
	if t := http.StatusText(code); t != "" {
		s += " " + t
	}
	return s
}

// maxText is the most of a provider's answer or an error a result quotes.
const maxText = 2000

// clip returns s as valid UTF-8, cut to maxText bytes.
func clip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxText {
		return s
	}
	cut := maxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
