// Package ledgercli is the writegen-ledger command ("writegen ledger" runs
// it): what a person does with a ledger, and Open, which opens a ledger
// named by a string.
//
//	writegen ledger list       [-db DSN] [-what claims|outbox|inbox] [-state S|all]
//	                           [-scope S | -unscoped] [-tenant T] [-operation OP] [-source SRC] [-json]
//	writegen ledger resolve    [-db DSN] -id N -committed -provider-id ID [-safety WRITE_SAFETY.json] -reason TEXT
//	writegen ledger resolve    [-db DSN] -id N -not-applied -reason TEXT
//	writegen ledger redrive    [-db DSN] [-what claims|outbox] -id N -reason TEXT
//	writegen ledger compensate [-db DSN] -id N -reason TEXT
//	writegen ledger adopt      [-db DSN] -scope S [-tenant T] [-operation OPERATIONID=KEYSCOPE ...] [-dry-run]
//	writegen ledger prune      [-db DSN] -scope S [-tenant T] -operation KEYSCOPE -keep DURATION [-limit N]
//
// DSN is sqlite:PATH or a postgres:// (postgresql://) URL; without -db the
// environment variable WRITEGEN_LEDGER names the ledger.
//
// list shows the claims (by default the uncertain ones, which a person
// reconciles), the outbox's items (uncertain ones) or the inbox's events
// (failed ones); -state all shows every state. A claim is shown with its
// scope and tenant, operation (key scope), business key, provider key,
// reference and, while it is claimed, who holds its lease and until when.
//
// resolve settles an uncertain row with what a person found out at the
// provider: -committed with the provider's id of the effect (the row
// becomes active, and later calls get its receipt), or -not-applied (the
// row becomes not_applied: the next call with its business key makes the
// write again). -safety names the generated package's WRITE_SAFETY.json,
// which records where each write's receipt has its durable id: resolve
// then says which id -provider-id is ("the durable id at /number of the
// Issue"), and refuses one that cannot be it. The receipt a later call
// gets holds the id alone; its Body is read by the id where the write
// declares a read (lookup.adopt), and is nil otherwise.
//
// redrive marks an uncertain claim that can still be settled: the next
// Resume of its client takes it over and drives it on by the operation's
// rules (the same provider key inside its window, or a lookup), or settles
// it uncertain again. With -what outbox it makes an uncertain outbox item
// pending again: a worker sends it again with the same dedupe key. Do that
// only when sending again cannot make a second effect: the item's write is
// deduplicated in the ledger (its own row answers, once it is settled,
// without calling the provider) or the provider still keeps the key.
//
// compensate records that a person undid the effect of an uncertain or
// active row, such as a duplicate a lookup found: the row becomes
// compensated.
//
// adopt assigns the rows written before ledgers had scopes to the client
// that writes them now: its scope (the annotation file's "scope"), its
// tenant (WithTenant), and for each operationId the key scope
// (key.scope; by default the operationId lower-cased, each run of other
// characters than a-z, 0-9, '.', '_' and '-' replaced by '-').
//
// prune forgets the business keys of one operation (its key scope) of a
// scope and tenant settled for good (active, rejected, not applied,
// compensated) longer than -keep ago by the database's clock: their rows
// are removed, and a repeat of such a write is a new write. -keep is the
// operation's retention (720h or 30d), never shorter than the time within
// which a repeat must be caught; uncertain and claimed rows are never
// removed. A client's Resume prunes as well when the operation states its
// retention in the annotation file.
package ledgercli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// EnvLedger is the environment variable that names the ledger when -db is
// not given.
const EnvLedger = "WRITEGEN_LEDGER"

// Open opens the ledger named by dsn: "sqlite:PATH" (the file is created
// if absent) or a "postgres://" or "postgresql://" URL.
func Open(ctx context.Context, dsn string, opts ...ledger.Option) (*ledger.Ledger, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		l, err := sqlite.Open(ctx, strings.TrimPrefix(dsn, "sqlite:"), opts...)
		if err != nil {
			return nil, err
		}
		return l.Ledger, nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		l, err := postgres.Open(ctx, dsn, opts...)
		if err != nil {
			return nil, err
		}
		return l.Ledger, nil
	}
	return nil, fmt.Errorf("ledger %q: want sqlite:PATH or a postgres:// URL", redact(dsn))
}

// redact hides a password in a URL.
func redact(dsn string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return dsn
	}
	userinfo, host, ok := strings.Cut(rest, "@")
	if user, _, hasPass := strings.Cut(userinfo, ":"); ok && hasPass {
		return scheme + "://" + user + ":xxxxx@" + host
	}
	return dsn
}

const usage = `usage:
  writegen ledger list       [-db DSN] [-what claims|outbox|inbox] [-state S|all]
                             [-scope S | -unscoped] [-tenant T] [-operation OP] [-source SRC] [-json]
  writegen ledger resolve    [-db DSN] -id N -committed -provider-id ID [-safety WRITE_SAFETY.json] -reason TEXT
  writegen ledger resolve    [-db DSN] -id N -not-applied -reason TEXT
  writegen ledger redrive    [-db DSN] [-what claims|outbox] -id N -reason TEXT
  writegen ledger compensate [-db DSN] -id N -reason TEXT
  writegen ledger adopt      [-db DSN] -scope S [-tenant T] [-operation OPERATIONID=KEYSCOPE ...] [-dry-run]
  writegen ledger prune      [-db DSN] -scope S [-tenant T] -operation KEYSCOPE -keep DURATION [-limit N]

DSN is sqlite:PATH or a postgres:// URL; the default is $` + EnvLedger + `.
"writegen ledger help" prints what each command does.
`

// errUsage marks a usage error: exit status 2.
var errUsage = errors.New("usage")

// Run runs the command with its arguments (those that follow
// "writegen-ledger" or "writegen ledger") and returns the exit status: 0
// on success, 1 on a failure, 2 on a usage error.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunWith(ctx, args, stdout, stderr)
}

// RunWith is Run, opening the ledger with opts: a test gives the command
// the clock of a machine that runs ahead (ledger.WithProcessClock).
func RunWith(ctx context.Context, args []string, stdout, stderr io.Writer, opts ...ledger.Option) int {
	ctx = context.WithValue(ctx, optionsKey{}, opts)
	var err error
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "":
		err = errUsage
	case "list":
		err = list(ctx, args[1:], stdout, stderr)
	case "resolve":
		err = resolve(ctx, args[1:], stdout, stderr)
	case "redrive":
		err = redrive(ctx, args[1:], stdout, stderr)
	case "compensate":
		err = compensate(ctx, args[1:], stdout, stderr)
	case "adopt":
		err = adopt(ctx, args[1:], stdout, stderr)
	case "prune":
		err = prune(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage, "\n", manual)
		return 0
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, cmd)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		if err != errUsage {
			fmt.Fprintf(stderr, "writegen ledger: %v\n", strings.TrimPrefix(err.Error(), "usage: "))
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
	fmt.Fprintf(stderr, "writegen ledger: %v\n", err)
	return 1
}

// manual is what "writegen ledger help" adds to the usage.
const manual = `list shows the claims (by default the uncertain ones, which a person
reconciles), the outbox's items (uncertain ones) or the inbox's events (failed
ones); -state all shows every state.

resolve settles an uncertain row with what you found out at the provider:
-committed with the provider's id of the effect (later calls get its receipt),
or -not-applied (the next call with the business key makes the write again).
-safety (or $` + EnvSafety + `), the generated package's WRITE_SAFETY.json, names
the id the provider wants ("the durable id at /number of the Issue") and
refuses one that cannot be it.

redrive marks an uncertain claim that can still be settled: the next Resume of
its client drives it on (the same provider key inside its window, or a lookup).
With -what outbox it makes an uncertain outbox item pending again, sent again
with the same dedupe key: only when that cannot make a second effect (its write
is deduplicated in the ledger, or the provider still keeps the key).

compensate records that you undid the effect of an uncertain or active row,
such as a duplicate.

adopt assigns the rows written before ledgers had scopes to the client that
writes them now: its scope, its tenant, and the key scope of each operationId
(default: the operationId lower-cased, other characters than a-z, 0-9, '.', '_'
and '-' replaced by '-'). -dry-run shows what it would do.

prune forgets the business keys of one operation settled for good (active,
rejected, not applied, compensated) longer than -keep ago by the database's
clock (720h, 30d): a repeat of such a write is then a new write. Give the
operation's retention, never shorter than the time within which a repeat must
be caught. Uncertain and claimed rows are never removed.
`

// flags returns a flag set with -db, whose parse errors are usage errors.
func flags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("writegen ledger "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", os.Getenv(EnvLedger), "the ledger: sqlite:PATH or a postgres:// URL (default $"+EnvLedger+")")
	return fs, db
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}

// optional is a string flag that knows whether it was given.
type optional struct {
	value string
	set   bool
}

func (o *optional) String() string { return o.value }

func (o *optional) Set(s string) error {
	o.value, o.set = s, true
	return nil
}

// optionsKey keys the ledger options RunWith was given in its context.
type optionsKey struct{}

// open opens an existing ledger, with the options RunWith was given.
func open(ctx context.Context, dsn string) (*ledger.Ledger, error) {
	if dsn == "" {
		return nil, fmt.Errorf("%w: -db or $%s is required", errUsage, EnvLedger)
	}
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("sqlite ledger: %w", err)
		}
	}
	opts, _ := ctx.Value(optionsKey{}).([]ledger.Option)
	return Open(ctx, dsn, opts...)
}

// claimRow is how a claim is printed with -json.
type claimRow struct {
	ID          int64      `json:"id"`
	Scope       string     `json:"scope"`
	Tenant      string     `json:"tenant"`
	Operation   string     `json:"operation"`
	BusinessKey string     `json:"business_key"`
	OperationID string     `json:"operation_id"`
	ProviderKey string     `json:"provider_key"`
	Reference   string     `json:"reference"`
	ProviderID  string     `json:"provider_id"`
	State       string     `json:"state"`
	Status      int        `json:"status"`
	Owner       string     `json:"owner"`
	Attempts    int        `json:"attempts"`
	LastError   string     `json:"last_error"`
	Claim       bool       `json:"claim"`
	Fence       int64      `json:"fence"`
	LeaseOwner  string     `json:"lease_owner"`
	LeaseUntil  *time.Time `json:"lease_until,omitempty"`
	// The instance and run of the holder, when it named its instance.
	LeaseInstance    string `json:"lease_instance,omitempty"`
	LeaseIncarnation int64  `json:"lease_incarnation,omitempty"`
	Redrive          bool   `json:"redrive"`
	// Redrives counts the times an uncertain row was handed over to be
	// driven on; RedriveAt is when a re-drivable row is due, by the
	// database's clock.
	Redrives   int        `json:"redrives"`
	RedriveAt  *time.Time `json:"redrive_at,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	AgeSeconds int64      `json:"age_seconds"`
}

// outboxRow is how an outbox item is printed with -json.
type outboxRow struct {
	ID         int64     `json:"id"`
	Scope      string    `json:"scope"`
	Tenant     string    `json:"tenant"`
	Operation  string    `json:"operation"`
	DedupeKey  string    `json:"dedupe_key"`
	State      string    `json:"state"`
	Attempts   int       `json:"attempts"`
	LastError  string    `json:"last_error"`
	ProviderID string    `json:"provider_id"`
	Status     int       `json:"status"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// eventRow is how an inbox event is printed with -json.
type eventRow struct {
	ID         int64     `json:"id"`
	Source     string    `json:"source"`
	EventID    string    `json:"event_id"`
	OrderKey   string    `json:"order_key"`
	Seq        int64     `json:"seq"`
	State      string    `json:"state"`
	Attempts   int       `json:"attempts"`
	LastError  string    `json:"last_error"`
	ReceivedAt time.Time `json:"received_at"`
}

var (
	claimStates = []string{"claimed", "active", "rejected", "not_applied", "uncertain", "compensated"}
	outboxState = []string{"pending", "sent", "rejected", "uncertain", "failed"}
	eventStates = []string{"pending", "done", "skipped", "failed"}
)

func list(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, db := flags("list", stderr)
	what := fs.String("what", "claims", "what to list: claims, outbox or inbox")
	var state, scope, tenant optional
	fs.Var(&state, "state", "the state of the rows to list, or all (default: uncertain claims and outbox items, failed events)")
	fs.Var(&scope, "scope", "only the claims of this provider scope")
	unscoped := fs.Bool("unscoped", false, "only the claims written before ledgers had scopes (see adopt)")
	fs.Var(&tenant, "tenant", `only the claims of this tenant ("" for clients of one tenant)`)
	operation := fs.String("operation", "", "only the claims or outbox items of this operation")
	source := fs.String("source", "", "only the inbox events of this source")
	asJSON := fs.Bool("json", false, "print a JSON array for scripts")
	if err := parse(fs, args); err != nil {
		return err
	}
	var states []string
	switch *what {
	case "claims":
		states = claimStates
		if !state.set {
			state.value = "uncertain"
		}
	case "outbox":
		states = outboxState
		if !state.set {
			state.value = "uncertain"
		}
	case "inbox":
		states = eventStates
		if !state.set {
			state.value = "failed"
		}
	default:
		return fmt.Errorf("%w: -what %q: want claims, outbox or inbox", errUsage, *what)
	}
	if state.value != "all" && !slices.Contains(states, state.value) {
		return fmt.Errorf("%w: -state %q: want all or one of %s", errUsage, state.value, strings.Join(states, ", "))
	}
	switch {
	case *what != "claims" && (scope.set || *unscoped || tenant.set):
		return fmt.Errorf("%w: -scope, -unscoped and -tenant select claims, not %s", errUsage, *what)
	case *what == "inbox" && *operation != "":
		return fmt.Errorf("%w: -operation selects claims or outbox items, not inbox events", errUsage)
	case *what != "inbox" && *source != "":
		return fmt.Errorf("%w: -source selects inbox events", errUsage)
	case scope.set && *unscoped:
		return fmt.Errorf("%w: give -scope or -unscoped, not both", errUsage)
	case scope.set && scope.value == "":
		return fmt.Errorf("%w: -scope needs a scope (-unscoped lists the rows without one)", errUsage)
	}
	if state.value == "all" {
		state.value = ""
	}
	l, err := open(ctx, *db)
	if err != nil {
		return err
	}
	defer l.Close()
	switch *what {
	case "outbox":
		return listOutbox(ctx, l, state.value, *operation, *asJSON, stdout)
	case "inbox":
		return listInbox(ctx, l, state.value, *source, *asJSON, stdout)
	}
	f := ledger.Filter{
		State: runtime.State(state.value), Operation: *operation,
		Scope: scope.value, AnyScope: !scope.set && !*unscoped,
		Tenant: tenant.value, AnyTenant: !tenant.set,
	}
	rows, err := l.List(ctx, f)
	if err != nil {
		return err
	}
	now := l.Clock().Now()
	dbNow, err := l.Now(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]claimRow, 0, len(rows))
		for _, r := range rows {
			c := claimRow{
				ID: r.ID, Scope: r.Scope, Tenant: r.Tenant, Operation: r.Operation, BusinessKey: r.BusinessKey,
				OperationID: r.OperationID, ProviderKey: r.ProviderKey, Reference: r.Reference, ProviderID: r.ProviderID,
				State: string(r.State), Status: r.Status, Owner: r.Owner, Attempts: r.Attempts, LastError: r.LastError,
				Claim: r.Claim, Fence: r.Fence, LeaseOwner: r.LeaseOwner, LeaseInstance: r.LeaseInstance,
				LeaseIncarnation: r.LeaseIncarnation, Redrive: r.Redrive, Redrives: r.Redrives,
				CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, AgeSeconds: int64(now.Sub(r.CreatedAt) / time.Second),
			}
			if r.State == runtime.StateClaimed && !r.LeaseUntil.IsZero() {
				c.LeaseUntil = &r.LeaseUntil
			}
			if r.Redrive && !r.RedriveAt.IsZero() {
				c.RedriveAt = &r.RedriveAt
			}
			out = append(out, c)
		}
		return printJSON(stdout, out)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(stdout, none(state.value, "claims"))
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPE\tTENANT\tOPERATION\tBUSINESS KEY\tPROVIDER KEY\tREFERENCE\tSTATE\tLEASE\tATTEMPTS\tOWNER\tAGE\tLAST ERROR")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, orDash(r.Scope, "(unscoped)"),
			orDash(r.Tenant, "-"), r.Operation, r.BusinessKey, r.ProviderKey, orDash(r.Reference, "-"), stateOf(r),
			lease(r, dbNow), r.Attempts, r.Owner, age(now.Sub(r.CreatedAt)), shorten(r.LastError, 80))
	}
	return tw.Flush()
}

func listOutbox(ctx context.Context, l *ledger.Ledger, state, operation string, asJSON bool, stdout io.Writer) error {
	var items []ledger.OutboxItem
	for _, s := range orEvery(state, outboxState) {
		its, err := l.OutboxItems(ctx, ledger.OutboxState(s))
		if err != nil {
			return err
		}
		for _, it := range its {
			if operation == "" || it.Operation == operation {
				items = append(items, it)
			}
		}
	}
	slices.SortFunc(items, func(a, b ledger.OutboxItem) int { return cmp.Compare(a.ID, b.ID) })
	if asJSON {
		out := make([]outboxRow, 0, len(items))
		for _, it := range items {
			out = append(out, outboxRow{ID: it.ID, Scope: it.Scope, Tenant: it.Tenant, Operation: it.Operation, DedupeKey: it.DedupeKey, State: string(it.State),
				Attempts: it.Attempts, LastError: it.LastError, ProviderID: it.ProviderID, Status: it.Status,
				CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt})
		}
		return printJSON(stdout, out)
	}
	if len(items) == 0 {
		_, err := fmt.Fprintln(stdout, none(state, "outbox items"))
		return err
	}
	now := l.Clock().Now()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPE\tTENANT\tOPERATION\tDEDUPE KEY\tSTATE\tATTEMPTS\tPROVIDER ID\tAGE\tLAST ERROR")
	for _, it := range items {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", it.ID, orDash(it.Scope, "(unscoped)"), orDash(it.Tenant, "-"),
			it.Operation, it.DedupeKey, it.State, it.Attempts,
			orDash(it.ProviderID, "-"), age(now.Sub(it.CreatedAt)), shorten(it.LastError, 80))
	}
	return tw.Flush()
}

func listInbox(ctx context.Context, l *ledger.Ledger, state, source string, asJSON bool, stdout io.Writer) error {
	sources := []string{source}
	if source == "" {
		var err error
		if sources, err = l.EventSources(ctx); err != nil {
			return err
		}
	}
	var events []ledger.Event
	for _, src := range sources {
		for _, s := range orEvery(state, eventStates) {
			es, err := l.Events(ctx, src, ledger.EventState(s))
			if err != nil {
				return err
			}
			events = append(events, es...)
		}
	}
	slices.SortFunc(events, func(a, b ledger.Event) int { return cmp.Compare(a.ID, b.ID) })
	if asJSON {
		out := make([]eventRow, 0, len(events))
		for _, e := range events {
			out = append(out, eventRow{ID: e.ID, Source: e.Source, EventID: e.EventID, OrderKey: e.OrderKey, Seq: e.Seq,
				State: string(e.State), Attempts: e.Attempts, LastError: e.LastError, ReceivedAt: e.ReceivedAt})
		}
		return printJSON(stdout, out)
	}
	if len(events) == 0 {
		_, err := fmt.Fprintln(stdout, none(state, "inbox events"))
		return err
	}
	now := l.Clock().Now()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSOURCE\tEVENT ID\tORDER KEY\tSEQ\tSTATE\tATTEMPTS\tAGE\tLAST ERROR")
	for _, e := range events {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\n", e.ID, e.Source, e.EventID, orDash(e.OrderKey, "-"), e.Seq,
			e.State, e.Attempts, age(now.Sub(e.ReceivedAt)), shorten(e.LastError, 80))
	}
	return tw.Flush()
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// stateOf is a claim's state as listed: "uncertain, redrive" for a row
// the next Resume drives on, "uncertain, recorded" for one that is not a
// claim.
func stateOf(r ledger.Row) string {
	s := string(r.State)
	if r.Redrive {
		s += ", redrive"
	}
	if !r.Claim {
		s += ", recorded"
	}
	return s
}

// lease describes the lease of a claimed row: "owner until 15:04:05Z"
// ("owner of instance pod-7, run 2 until ..." when the holder named its
// instance) with "(expired)" when it has passed at now, the database's
// time, which judges it; "-" for a settled row.
func lease(r ledger.Row, now time.Time) string {
	if r.State != runtime.StateClaimed {
		return "-"
	}
	s := orDash(r.LeaseOwner, "?")
	if r.LeaseInstance != "" {
		s += fmt.Sprintf(" of instance %s, run %d", r.LeaseInstance, r.LeaseIncarnation)
	}
	s += " until " + r.LeaseUntil.UTC().Format(time.RFC3339)
	if r.LeaseUntil.Before(now) {
		s += " (expired)"
	}
	return s
}

func orDash(s, dash string) string {
	if s == "" {
		return dash
	}
	return s
}

// none says there is nothing to list: "no uncertain claims".
func none(state, what string) string {
	if state == "" {
		return "no " + what
	}
	return "no " + state + " " + what
}

// orEvery returns []string{state}, or every state when state is "".
func orEvery(state string, every []string) []string {
	if state == "" {
		return every
	}
	return []string{state}
}

// idFlags returns a flag set with -db, -id and -reason.
func idFlags(name string, stderr io.Writer) (fs *flag.FlagSet, db *string, id *int64, reason *string) {
	fs, db = flags(name, stderr)
	id = fs.Int64("id", 0, "the row (see writegen ledger list)")
	reason = fs.String("reason", "", "how you know (required)")
	return fs, db, id, reason
}

func resolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, db, id, reason := idFlags("resolve", stderr)
	committed := fs.Bool("committed", false, "the effect exists at the provider (needs -provider-id)")
	notApplied := fs.Bool("not-applied", false, "the effect was not applied: the business key may be used again")
	providerID := fs.String("provider-id", "", "the provider's id of the committed effect")
	safety := fs.String("safety", os.Getenv(EnvSafety), "the generated package's WRITE_SAFETY.json, which says which id -provider-id is (default $"+EnvSafety+")")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id <= 0:
		return fmt.Errorf("%w: -id is required", errUsage)
	case *committed == *notApplied:
		return fmt.Errorf("%w: give one of -committed and -not-applied", errUsage)
	case *committed && *safety != "":
		if err := namedID(ctx, *db, *id, *safety, *providerID, stdout); err != nil {
			return err
		}
	case *committed && *providerID == "":
		return fmt.Errorf("%w: -committed needs -provider-id: the durable id of the effect, where the write's receipt has it (give -safety with the generated package's WRITE_SAFETY.json to have it named)", errUsage)
	case *notApplied && *providerID != "":
		return fmt.Errorf("%w: -not-applied takes no -provider-id", errUsage)
	case strings.TrimSpace(*reason) == "":
		return fmt.Errorf("%w: -reason is required", errUsage)
	}
	return change(ctx, *db, *id, stdout, func(l *ledger.Ledger) error {
		return l.Resolve(ctx, *id, ledger.Resolution{Committed: *committed, ProviderID: *providerID, Reason: *reason})
	})
}

// namedID checks, before a row is resolved committed, the provider id given
// against where the write's receipt has its durable id (the WRITE_SAFETY.json
// at safety), and says which id it is.
func namedID(ctx context.Context, db string, id int64, safety, providerID string, stdout io.Writer) error {
	l, err := open(ctx, db)
	if err != nil {
		return err
	}
	row, err := l.Get(ctx, id)
	l.Close()
	if err != nil {
		return err
	}
	r, err := receiptOf(safety, row.Record)
	if err != nil {
		return err
	}
	if err := r.checkProviderID(providerID); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "row %d is %s %q: %s is %s\n", row.ID, r.Operation, row.BusinessKey, providerID, r.what())
	return err
}

func redrive(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, db, id, reason := idFlags("redrive", stderr)
	what := fs.String("what", "claims", "claims, or outbox: an uncertain outbox item")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := needIDReason(*id, *reason); err != nil {
		return err
	}
	switch *what {
	case "claims":
		return change(ctx, *db, *id, stdout, func(l *ledger.Ledger) error { return l.Redrive(ctx, *id, *reason) })
	case "outbox":
	default:
		return fmt.Errorf("%w: -what is claims or outbox, not %q", errUsage, *what)
	}
	l, err := open(ctx, *db)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := l.RedriveOutbox(ctx, *id, *reason); err != nil {
		return err
	}
	it, err := l.OutboxItem(ctx, *id)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "outbox item %d (%s %q) is now %s\n", it.ID, it.Operation, it.DedupeKey, it.State)
	return err
}

func compensate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, db, id, reason := idFlags("compensate", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := needIDReason(*id, *reason); err != nil {
		return err
	}
	return change(ctx, *db, *id, stdout, func(l *ledger.Ledger) error { return l.Compensate(ctx, *id, *reason) })
}

func needIDReason(id int64, reason string) error {
	switch {
	case id <= 0:
		return fmt.Errorf("%w: -id is required", errUsage)
	case strings.TrimSpace(reason) == "":
		return fmt.Errorf("%w: -reason is required", errUsage)
	}
	return nil
}

// change runs a person's change of row id and prints the row's state.
func change(ctx context.Context, db string, id int64, stdout io.Writer, do func(*ledger.Ledger) error) error {
	l, err := open(ctx, db)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := do(l); err != nil {
		return err
	}
	r, err := l.Get(ctx, id)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "row %d (%s %s %q) is now %s\n", r.ID, orDash(r.Scope, "(unscoped)"), r.Operation, r.BusinessKey, stateOf(r))
	return err
}

// mapping is the -operation flag of adopt: OPERATIONID=KEYSCOPE, repeated.
type mapping map[string]string

func (m mapping) String() string { return fmt.Sprint(map[string]string(m)) }

func (m mapping) Set(s string) error {
	from, to, ok := strings.Cut(s, "=")
	if !ok || from == "" || to == "" {
		return fmt.Errorf("want OPERATIONID=KEYSCOPE, got %q", s)
	}
	if _, dup := m[from]; dup {
		return fmt.Errorf("operation %q given twice", from)
	}
	m[from] = to
	return nil
}

func adopt(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, db := flags("adopt", stderr)
	scope := fs.String("scope", "", "the provider scope of the client that writes these rows now (required)")
	tenant := fs.String("tenant", "", "the tenant its calls carry (WithTenant), if any")
	ops := mapping{}
	fs.Var(ops, "operation", "OPERATIONID=KEYSCOPE: the key scope of an operation whose annotation sets key.scope (repeat it)")
	dryRun := fs.Bool("dry-run", false, "show what would be done, change nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *scope == "" {
		return fmt.Errorf("%w: -scope is required", errUsage)
	}
	l, err := open(ctx, *db)
	if err != nil {
		return err
	}
	defer l.Close()
	done, err := l.Adopt(ctx, ledger.Adoption{Scope: *scope, Tenant: *tenant, Operations: ops}, *dryRun)
	if err != nil {
		return err
	}
	if len(done) == 0 {
		_, err := fmt.Fprintln(stdout, "no unscoped rows")
		return err
	}
	verb := "moved"
	if *dryRun {
		verb = "would move"
	}
	target := *scope
	if *tenant != "" {
		target += " tenant " + strconv.Quote(*tenant)
	}
	for _, o := range done {
		note := ""
		if o.Default {
			note = " (the default key scope; give -operation " + o.OperationID + "=KEYSCOPE if the annotation sets key.scope)"
		}
		if _, err := fmt.Fprintf(stdout, "%s %d rows of %s to %s operation %s%s\n", verb, o.Rows, o.OperationID, target, o.Operation, note); err != nil {
			return err
		}
	}
	for from := range ops {
		if !slices.ContainsFunc(done, func(o ledger.Adopted) bool { return o.OperationID == from }) {
			fmt.Fprintf(stderr, "writegen ledger: warning: no unscoped rows of operation %q\n", from)
		}
	}
	return nil
}

func prune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, db := flags("prune", stderr)
	scope := fs.String("scope", "", "the provider scope (required)")
	tenant := fs.String("tenant", "", "the tenant, \"\" for clients of one tenant")
	operation := fs.String("operation", "", "the operation's key scope, as list shows it (required)")
	keepFlag := fs.String("keep", "", "the retention: how long after its settle a key is remembered, e.g. 720h or 30d (required)")
	limit := fs.Int("limit", 0, "remove at most this many rows (0: all)")
	if err := parse(fs, args); err != nil {
		return err
	}
	keep, err := parseKeep(*keepFlag)
	switch {
	case *scope == "":
		return fmt.Errorf("%w: -scope is required", errUsage)
	case *operation == "":
		return fmt.Errorf("%w: -operation is required", errUsage)
	case *keepFlag == "":
		return fmt.Errorf("%w: -keep is required", errUsage)
	case err != nil:
		return fmt.Errorf("%w: -keep: %v", errUsage, err)
	case *limit < 0:
		return fmt.Errorf("%w: -limit must not be negative", errUsage)
	}
	l, err := open(ctx, *db)
	if err != nil {
		return err
	}
	defer l.Close()
	n, err := l.Prune(ctx, *scope, *tenant, *operation, keep, *limit)
	if err != nil {
		return err
	}
	target := *scope
	if *tenant != "" {
		target += " tenant " + strconv.Quote(*tenant)
	}
	_, err = fmt.Fprintf(stdout, "pruned %d rows of %s operation %s settled more than %s ago\n", n, target, *operation, *keepFlag)
	return err
}

// parseKeep reads a retention: a duration (720h) or a number of days (30d).
func parseKeep(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q is not a positive number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d <= 0 {
		err = fmt.Errorf("%q is not positive", s)
	}
	return d, err
}

// age formats a duration for people: 45s, 12m, 5h3m, 3d4h.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// shorten cuts s to n runes for a table cell, on one line.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
