// Package ledgercli is "writegen ledger": the reconciliation commands for a
// person, and Open, which opens a ledger named by a string.
//
//	writegen ledger list    [-db DSN] [-state uncertain] [-json]
//	writegen ledger resolve [-db DSN] -id N -committed -provider-id ID -reason TEXT
//	writegen ledger resolve [-db DSN] -id N -not-applied -reason TEXT
//
// DSN is sqlite:PATH or a postgres:// (postgresql://) URL; without -db the
// environment variable WRITEGEN_LEDGER names the ledger.
package ledgercli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
  writegen ledger list    [-db DSN] [-state uncertain] [-json]
  writegen ledger resolve [-db DSN] -id N -committed -provider-id ID -reason TEXT
  writegen ledger resolve [-db DSN] -id N -not-applied -reason TEXT

DSN is sqlite:PATH or a postgres:// URL; the default is $` + EnvLedger + `.
`

// errUsage marks a usage error: exit status 2.
var errUsage = errors.New("usage")

// Run runs "writegen ledger" with the arguments that follow "ledger" and
// returns the exit status: 0 on success, 1 on a failure, 2 on a usage
// error.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var err error
	switch {
	case len(args) == 0:
		err = errUsage
	case args[0] == "list":
		err = list(ctx, args[1:], stdout, stderr)
	case args[0] == "resolve":
		err = resolve(ctx, args[1:], stdout, stderr)
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
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

// open opens an existing ledger.
func open(ctx context.Context, dsn string) (*ledger.Ledger, error) {
	if dsn == "" {
		return nil, fmt.Errorf("%w: -db or $%s is required", errUsage, EnvLedger)
	}
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("sqlite ledger: %w", err)
		}
	}
	return Open(ctx, dsn)
}

// row is how a ledger row is printed with -json.
type row struct {
	ID          int64     `json:"id"`
	Operation   string    `json:"operation"`
	BusinessKey string    `json:"business_key"`
	ProviderKey string    `json:"provider_key"`
	ProviderID  string    `json:"provider_id"`
	State       string    `json:"state"`
	Owner       string    `json:"owner"`
	Attempts    int       `json:"attempts"`
	LastError   string    `json:"last_error"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	AgeSeconds  int64     `json:"age_seconds"`
}

func list(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, db := flags("list", stderr)
	state := fs.String("state", string(runtime.StateUncertain), "the state of the rows to list: claimed, active, rejected, not_sent, uncertain or compensated")
	asJSON := fs.Bool("json", false, "print a JSON array for scripts")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch runtime.State(*state) {
	case runtime.StateClaimed, runtime.StateActive, runtime.StateRejected, runtime.StateNotSent, runtime.StateUncertain, runtime.StateCompensated:
	default:
		return fmt.Errorf("%w: -state %q: want claimed, active, rejected, not_sent, uncertain or compensated", errUsage, *state)
	}
	l, err := open(ctx, *db)
	if err != nil {
		return err
	}
	defer l.Close()
	recs, err := l.List(ctx, runtime.State(*state))
	if err != nil {
		return err
	}
	now := time.Now()
	if *asJSON {
		rows := make([]row, 0, len(recs))
		for _, r := range recs {
			rows = append(rows, row{
				ID: r.ID, Operation: r.Operation, BusinessKey: r.BusinessKey, ProviderKey: r.ProviderKey,
				ProviderID: r.ProviderID, State: string(r.State), Owner: r.Owner, Attempts: r.Attempts,
				LastError: r.LastError, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
				AgeSeconds: int64(now.Sub(r.CreatedAt) / time.Second),
			})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(recs) == 0 {
		_, err := fmt.Fprintf(stdout, "no %s rows\n", *state)
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tOPERATION\tBUSINESS KEY\tPROVIDER KEY\tATTEMPTS\tOWNER\tAGE\tLAST ERROR")
	for _, r := range recs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, r.Operation, r.BusinessKey, r.ProviderKey,
			r.Attempts, r.Owner, age(now.Sub(r.CreatedAt)), shorten(r.LastError, 80))
	}
	return tw.Flush()
}

func resolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, db := flags("resolve", stderr)
	id := fs.Int64("id", 0, "the row to resolve (see writegen ledger list)")
	committed := fs.Bool("committed", false, "the effect exists at the provider (needs -provider-id)")
	notApplied := fs.Bool("not-applied", false, "the effect was not applied")
	providerID := fs.String("provider-id", "", "the provider's id of the committed effect")
	reason := fs.String("reason", "", "how you know (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id <= 0:
		return fmt.Errorf("%w: -id is required", errUsage)
	case *committed == *notApplied:
		return fmt.Errorf("%w: give one of -committed and -not-applied", errUsage)
	case *committed && *providerID == "":
		return fmt.Errorf("%w: -committed needs -provider-id", errUsage)
	case *notApplied && *providerID != "":
		return fmt.Errorf("%w: -not-applied takes no -provider-id", errUsage)
	case strings.TrimSpace(*reason) == "":
		return fmt.Errorf("%w: -reason is required", errUsage)
	}
	l, err := open(ctx, *db)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := l.Resolve(ctx, *id, ledger.Resolution{Committed: *committed, ProviderID: *providerID, Reason: *reason}); err != nil {
		return err
	}
	rec, err := l.Get(ctx, *id)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "row %d (%s %q) is now %s\n", rec.ID, rec.Operation, rec.BusinessKey, rec.State)
	return err
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
