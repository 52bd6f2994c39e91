// Command mcp serves the example's support desk to agents as MCP tools: the tools writegen
// generates from support.yaml and writesafety.yaml with -mcp (package supportmcp), on the
// embedded SQLite ledger. An agent can call createThread and postMessage as often as it likes:
// one business key makes at most one thread or message, and an outcome nobody can settle comes
// back as a tool error that tells the agent not to call again and who was told.
//
//	go run ./generated_example/cmd/mcp [-http ADDR] [-desk URL] [-db FILE] [-faults RATE] [-seed N]
//
// With no flag it needs no setup: it speaks MCP over standard input and output, as MCP clients
// launch servers, and starts the example's simulated support desk in process (logs and notices
// of uncertain outcomes go to standard error). The flags:
//
//	-http ADDR    serve the streamable HTTP transport at http://ADDR/mcp instead (127.0.0.1:8765)
//	-desk URL     call the support desk at URL; its bearer token is read from $SUPPORT_DESK_TOKEN
//	-db FILE      the ledger's SQLite file (default: writegen/support-desk-mcp.db in the user's
//	              cache directory, os.UserCacheDir)
//	-faults RATE  with the simulated desk: the chance that a write request meets a fault (a lost
//	              request or response, a slow commit, a 503), to see what agents see then
//	-seed N       the seed of those faults
//
// The simulated desk starts empty each time, so its writes are recorded in the ledger under a
// tenant of their own ("simulated-" and the start time): a later run never replays a receipt
// of a thread that the simulator has forgotten. "writegen ledger list -db sqlite:FILE" lists
// the uncertain outcomes.
//
// To add it to an MCP client, give the client the command and its arguments; for clients that
// read a JSON file of servers (Claude Desktop, Claude Code's .mcp.json, Cursor, VS Code):
//
//	{
//	  "mcpServers": {
//	    "support-desk": {
//	      "command": "go",
//	      "args": ["run", "github.com/writegen/writegen/generated_example/cmd/mcp@latest"]
//	    }
//	  }
//	}
//
// or, from a checkout of writegen, "args": ["run", "./generated_example/cmd/mcp"] with "cwd"
// set to the checkout (or "command": the path of a binary built with go build). README.md
// beside this file says more.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/generated_example/support"
	"github.com/writegen/writegen/generated_example/support/supportmcp"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is what the flags ask for.
type config struct {
	http   string  // serve streamable HTTP at this address, "" for stdio
	desk   string  // the desk's URL, "" for the simulator
	token  string  // the desk's bearer token
	db     string  // the ledger's file
	faults float64 // the simulator's fault rate
	seed   uint64
	// tenant is the simulated desk's tenant in the ledger (default "simulated-" and the start
	// time; tests fix it, so that the provider keys, and the faults they meet, repeat).
	tenant string
	// options are added to the client's (tests make backoff cheap).
	options []runtime.Option
	// deskConfig configures the simulator, when one is started (tests count its effects).
	deskConfig simulator.SupportConfig
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.http, "http", "", "serve the streamable HTTP transport at http://`ADDR`/mcp instead of stdio")
	fs.StringVar(&c.desk, "desk", "", "the support desk's `URL` (token in $SUPPORT_DESK_TOKEN); default: a simulated desk in process")
	fs.StringVar(&c.db, "db", "", "the ledger's SQLite `FILE` (default: writegen/support-desk-mcp.db in the user's cache directory)")
	fs.Float64Var(&c.faults, "faults", 0, "with the simulated desk: the chance that a write request meets a fault")
	fs.Uint64Var(&c.seed, "seed", 1, "the seed of the simulated desk's faults")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || c.faults < 0 || c.faults > 1 || c.desk != "" && c.faults > 0 {
		fmt.Fprintln(stderr, "mcp: usage: mcp [-http ADDR] [-desk URL] [-db FILE] [-faults RATE] [-seed N] (-faults only with the simulated desk)")
		return 2
	}
	c.token = os.Getenv("SUPPORT_DESK_TOKEN")
	log := slog.New(slog.NewTextHandler(stderr, nil))
	d, err := open(ctx, c, log)
	if err != nil {
		fmt.Fprintln(stderr, "mcp:", err)
		return 1
	}
	defer d.Close()
	if c.http != "" {
		var ln net.Listener
		if ln, err = net.Listen("tcp", c.http); err != nil {
			fmt.Fprintln(stderr, "mcp:", err)
			return 1
		}
		log.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "desk", d.deskURL, "ledger", d.dbPath)
		err = serveHTTP(ctx, ln, d.server)
	} else {
		log.Info("serving MCP over stdio", "desk", d.deskURL, "ledger", d.dbPath)
		err = d.server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "mcp:", err)
		return 1
	}
	return 0
}

// nopWriteCloser is an io.WriteCloser whose Close does nothing: standard output stays open.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// serveHTTP serves the MCP server's streamable HTTP transport at /mcp on ln until ctx ends.
func serveHTTP(ctx context.Context, ln net.Listener, s *mcp.Server) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

// desk is the MCP server of a support desk and what it runs on.
type desk struct {
	server  *mcp.Server
	client  *support.Client
	sim     *simulator.Support // the simulated desk, nil with -desk
	ledger  *sqlite.Ledger
	deskURL string
	dbPath  string
}

// open opens the ledger, starts the simulated desk unless c names one, and builds the MCP
// server with the support desk's tools.
func open(ctx context.Context, c config, log *slog.Logger) (d *desk, err error) {
	d = &desk{dbPath: c.db}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	if d.dbPath == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no ledger file: %v; give one with -db", err)
		}
		d.dbPath = filepath.Join(cache, "writegen", "support-desk-mcp.db")
	}
	if err := os.MkdirAll(filepath.Dir(d.dbPath), 0o755); err != nil {
		return nil, err
	}
	if d.ledger, err = sqlite.Open(ctx, d.dbPath); err != nil {
		return nil, err
	}
	opts := []runtime.Option{runtime.WithNotifier(notifier{log})}
	if c.desk == "" {
		cfg := c.deskConfig
		if cfg.Faults == nil && c.faults > 0 {
			cfg.Faults = faults(c.seed, c.faults)
		}
		d.sim = simulator.NewSupport(cfg)
		d.deskURL = d.sim.URL()
		access, refresh, life := d.sim.Credentials()
		tokens := runtime.NewRefresher(runtime.Token{Access: access, Refresh: refresh, Expiry: time.Now().Add(life)},
			refresher(d.deskURL), func(context.Context, runtime.Token) error { return nil })
		// The simulated desk forgets everything when it stops: its writes are another
		// account's, so that a later run's ledger never replays them.
		tenant := c.tenant
		if tenant == "" {
			tenant = "simulated-" + strconv.FormatInt(time.Now().UnixNano(), 10)
		}
		opts = append(opts, runtime.WithTokenSource(tokens), runtime.WithTenant(tenant))
	} else {
		d.deskURL = c.desk
		if c.token != "" {
			opts = append(opts, runtime.WithHeader("Authorization", "Bearer "+c.token))
		}
	}
	if d.client, err = support.NewClient(d.deskURL, d.ledger, append(opts, c.options...)...); err != nil {
		return nil, err
	}
	d.server = mcp.NewServer(&mcp.Implementation{Name: "support-desk", Title: "Support desk (writegen example)", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: instructions})
	supportmcp.AddTools(d.server, d.client)
	return d, nil
}

// instructions is what the server tells the agent once, at initialization.
const instructions = "The support desk's tools. Writes take a business key (escalation_id for createThread, dedupe_key for postMessage): " +
	"calling a write again with the same key and arguments returns the first call's outcome and never makes a second thread or message. " +
	"A result that starts with UNCERTAIN means a person reconciles it: do not call that write again."

// Close stops the simulated desk and closes the ledger.
func (d *desk) Close() error {
	if d.sim != nil {
		d.sim.Close()
	}
	if d.ledger != nil {
		return d.ledger.Close()
	}
	return nil
}

// notifier tells the owner of an uncertain outcome, on the log.
type notifier struct{ log *slog.Logger }

func (n notifier) Uncertain(ctx context.Context, e *runtime.UncertainError) {
	n.log.WarnContext(ctx, "uncertain outcome: a person must reconcile it", "owner", e.Owner, "operation", e.OperationID,
		"business_key", e.BusinessKey, "recorded", e.Recorded, "reason", e.Reason)
}

// refresher exchanges the simulated desk's refresh token for a new pair (issueToken, which the
// client leaves out: tokens are the runtime's business, never an agent's).
func refresher(deskURL string) func(ctx context.Context, refresh string) (runtime.Token, error) {
	return func(ctx context.Context, refresh string) (runtime.Token, error) {
		p, err := simulator.RefreshToken(ctx, deskURL, refresh, time.Now)
		return runtime.Token{Access: p.Access, Refresh: p.Refresh, Expiry: p.Expiry}, err
	}
}

// faults returns the simulated desk's faults: a write request meets one with the chance rate,
// decided by a hash of (seed, operation, key, n), so the same requests meet the same faults in
// any order.
func faults(seed uint64, rate float64) simulator.FaultFunc {
	kinds := []simulator.Fault{simulator.LoseRequest, simulator.LoseResponse, simulator.SlowCommit, simulator.Unavailable}
	return func(operation, key string, n int) simulator.Fault {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", seed, operation, key, n)
		v := mix(h.Sum64())
		if float64(v>>11)/(1<<53) >= rate {
			return simulator.NoFault
		}
		return kinds[v%uint64(len(kinds))]
	}
}

// mix is splitmix64's finalizer: every bit of v affects every bit of the result.
func mix(v uint64) uint64 {
	v = (v ^ v>>30) * 0xbf58476d1ce4e5b9
	v = (v ^ v>>27) * 0x94d049bb133111eb
	return v ^ v>>31
}
