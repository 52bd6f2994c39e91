package ledgertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// cutProxy is a TCP proxy in front of a database. Armed, it forwards the
// first client message that commits a transaction ("commit", as pgx sends
// it), then closes both sides of that connection: the database commits,
// and its answer is lost with the connection.
type cutProxy struct {
	ln     net.Listener
	target string
	armed  atomic.Bool
	cuts   atomic.Int32
	wg     sync.WaitGroup
}

func newCutProxy(t testing.TB, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		ln.Close()
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		var cut atomic.Bool // the database's answers are dropped from then on
		p.wg.Go(func() { p.pipe(c, s, &cut, true) })
		p.wg.Go(func() { p.pipe(s, c, &cut, false) })
	}
}

// pipe copies from src to dst until either side closes. From the client,
// while armed, a commit cuts the connection: the database's answers are
// dropped, the commit is forwarded, and once the database has had time to
// read it, both sides are closed.
func (p *cutProxy) pipe(src, dst net.Conn, cut *atomic.Bool, fromClient bool) {
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			last := fromClient && bytes.Contains(bytes.ToLower(buf[:n]), []byte("commit\x00")) && p.armed.CompareAndSwap(true, false)
			if last {
				cut.Store(true)
				p.cuts.Add(1)
			}
			if !fromClient && cut.Load() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if last {
				time.Sleep(100 * time.Millisecond)
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// testClaimCommitLost: the commit of a group of claims reaches the
// database, which commits it, and its answer is lost with the connection.
// Each caller claims again and recognises its own claim by its token: it
// holds its claim, or, if its context ended, the claim is released (not
// applied) before Claim returns; no claim is lost or left to nobody
// (promise 52).
func testClaimCommitLost(t *testing.T, b Backend) {
	if b.Reroute == nil {
		t.Skip("the database is not reached over a connection")
	}
	ctx := context.Background()
	dsn := b.NewDSN(t)
	target, via := b.Reroute(dsn)
	proxy := newCutProxy(t, target)
	l := open(t, via(proxy.addr()))
	release := holdClaims(t, open(t, dsn)) // not through the proxy
	const n = 16
	type result struct {
		rec   runtime.Record
		won   bool
		err   error
		ended bool
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cctx, cancel := context.Background(), context.CancelFunc(func() {})
			if i%4 == 3 {
				cctx, cancel = context.WithTimeout(ctx, time.Second)
			}
			defer cancel()
			rec, won, err := l.Claim(cctx, claimOf(ident("thing", fmt.Sprint("k", i)), "req"), runtime.Holder{Owner: fmt.Sprint("caller-", i)}, time.Hour)
			results[i] = result{rec, won, err, cctx.Err() != nil}
		})
	}
	time.Sleep(1500 * time.Millisecond) // the claims queue behind the lock, in groups
	proxy.armed.Store(true)
	release()
	wg.Wait()
	if proxy.cuts.Load() == 0 {
		t.Fatal("no commit was cut: the test proves nothing")
	}
	for i, r := range results {
		t.Logf("k%d: won=%v fence=%d err=%v ended=%v", i, r.won, r.rec.Fence, r.err, r.ended)
		k := fmt.Sprint("k", i)
		row, ferr := l.Find(ctx, ident("thing", k))
		switch {
		case r.err == nil && r.won:
			if ferr != nil || row.State != runtime.StateClaimed || row.Fence != r.rec.Fence || row.LeaseOwner != fmt.Sprint("caller-", i) {
				t.Errorf("%s: won %+v; the row is %+v, %v", k, r.rec, row.Record, ferr)
			}
		case r.err == nil:
			t.Errorf("%s: the only caller of its key lost its claim to %+v", k, r.rec)
		case errors.Is(r.err, runtime.ErrInProgress):
			t.Errorf("%s: %v; the database was back: the claim's fate can be known", k, r.err)
		case !r.ended:
			t.Errorf("%s: a caller with time left failed: %v", k, r.err)
		case ferr == nil && row.State != runtime.StateNotApplied:
			t.Errorf("%s: told %v; its row is %s", k, r.err, row.State)
		case ferr != nil && !errors.Is(ferr, ledger.ErrNotFound):
			t.Fatal(ferr)
		}
	}
}
