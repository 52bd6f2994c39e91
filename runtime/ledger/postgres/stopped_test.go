package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
)

// cluster is a throwaway PostgreSQL cluster of one test, which the test
// stops and starts.
type cluster struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	DSN  string
}

// newCluster initialises and starts a cluster on 127.0.0.1, or skips t
// when PostgreSQL's programs are not installed (outside CI). As root, the
// cluster runs as the postgres user, as initdb refuses root.
func newCluster(t testing.TB) *cluster {
	t.Helper()
	bin := os.Getenv("PG_BIN")
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL's initdb: %v", err)
		}
		t.Skipf("PostgreSQL's initdb: %v (set PG_BIN)", err)
	}
	dir, err := os.MkdirTemp("", "writegen-pg-stop")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, bin: bin, dir: dir}
	t.Cleanup(func() {
		c.pgctl("-m", "immediate", "stop") //nolint:errcheck // stopped already, maybe
		os.RemoveAll(dir)
	})
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		if err := os.Chown(dir, uid, -1); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if out, err := c.run(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "writegen", "-A", "trust", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.start()
	c.DSN = fmt.Sprintf("postgres://writegen@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	return c
}

func (c *cluster) run(name string, args ...string) ([]byte, error) {
	if os.Getuid() == 0 {
		args = append([]string{"-u", "postgres", "--", name}, args...)
		name = "runuser"
	}
	return exec.Command(name, args...).CombinedOutput()
}

func (c *cluster) pgctl(args ...string) ([]byte, error) {
	return c.run(filepath.Join(c.bin, "pg_ctl"), append([]string{"-D", filepath.Join(c.dir, "data"), "-w"}, args...)...)
}

func (c *cluster) start() {
	c.t.Helper()
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s", c.port, c.dir)
	if out, err := c.pgctl("-l", filepath.Join(c.dir, "server.log"), "-o", opts, "start"); err != nil {
		c.t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
}

// stop stops the server at once, as a crash would: no shutdown checkpoint.
func (c *cluster) stop() {
	c.t.Helper()
	if out, err := c.pgctl("-m", "immediate", "stop"); err != nil {
		c.t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// TestServerStoppedBetweenClaimAndSettle: when the server stops between a
// claim and its settlement, Settle and Renew fail with the database's
// error (not a lost lease, not a refused transition) and change nothing;
// once the server is back, the holder settles, and a row whose lease
// passed meanwhile is taken over, its old holder fenced out.
func TestServerStoppedBetweenClaimAndSettle(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	l, err := postgres.Open(ctx, c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	claim := func(k string, lease time.Duration) runtime.Record {
		t.Helper()
		r, won, err := l.Claim(ctx, runtime.Record{Identity: runtime.Identity{Scope: "things", Operation: "thing", BusinessKey: k},
			ProviderKey: "things/thing:" + k, Request: []byte("request " + k)}, runtime.Holder{Owner: "holder"}, lease)
		if err != nil || !won {
			t.Fatal(won, err)
		}
		return r
	}
	// a is settled after the restart, inside its lease; b's holder stops
	// renewing, and its short lease passes by the server's clock; live's
	// holder keeps its lease.
	a, b, live := claim("a", time.Hour), claim("b", 2*time.Second), claim("live", time.Hour)

	c.stop()
	down := func(what string, err error) {
		t.Helper()
		if err == nil || errors.Is(err, runtime.ErrLeaseLost) || errors.Is(err, ledger.ErrTransition) || errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("%s while the server is down: %v; want the database's error", what, err)
		}
		t.Logf("%s while the server is down: %v", what, err)
	}
	bounded, cancel := context.WithTimeout(ctx, time.Minute) // a hang fails the test instead of blocking it
	defer cancel()
	down("settle", l.Settle(bounded, a.ID, a.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p_a", Status: 201}))
	down("renew", l.Renew(bounded, live.ID, live.Fence, time.Hour))
	_, err = l.TakeOver(bounded, "things", "", "", time.Now(), runtime.Holder{Owner: "taker"}, time.Hour, 0)
	down("takeover", err)

	c.start()
	for _, r := range []runtime.Record{a, b, live} {
		got, err := l.Get(ctx, r.ID)
		if err != nil || got.State != runtime.StateClaimed || got.Fence != r.Fence || string(got.Request) != string(r.Request) ||
			got.ProviderKey != r.ProviderKey || !got.LeaseUntil.Equal(r.LeaseUntil) {
			t.Fatalf("row %d after the restart: %+v, %v; want it as claimed", r.ID, got, err)
		}
	}
	if err := l.Settle(ctx, a.ID, a.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p_a", Status: 201}); err != nil {
		t.Fatalf("settle after the restart, inside the lease: %v", err)
	}
	// Taken over once b's lease has passed by the server's clock; never
	// the live claim.
	var taken []runtime.Record
	for deadline := time.Now().Add(time.Minute); len(taken) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if taken, err = l.TakeOver(ctx, "things", "", "", time.Now(), runtime.Holder{Owner: "taker"}, time.Hour, 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(taken) != 1 || taken[0].ID != b.ID || taken[0].Fence != b.Fence+1 || string(taken[0].Request) != "request b" {
		t.Fatalf("takeover after the lease: %+v; want row %d alone", taken, b.ID)
	}
	if err := l.Settle(ctx, b.ID, b.Fence, runtime.StateActive, runtime.Settlement{}); !errors.Is(err, runtime.ErrLeaseLost) {
		t.Fatalf("the old holder's settlement: %v, want ErrLeaseLost", err)
	}
	if err := l.Settle(ctx, b.ID, taken[0].Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p_b"}); err != nil {
		t.Fatal(err)
	}
}
