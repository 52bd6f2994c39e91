package main

import (
	"context"
	"time"

	"github.com/writegen/writegen/bench/duplicates/comments"
	"github.com/writegen/writegen/bench/duplicates/transfers"
	"github.com/writegen/writegen/bench/duplicates/transfersledger"
	"github.com/writegen/writegen/bench/duplicates/transferslong"
	"github.com/writegen/writegen/bench/duplicates/transferslookup"
	"github.com/writegen/writegen/bench/duplicates/transfersnolookup"
	"github.com/writegen/writegen/bench/duplicates/transferswindow"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

// The writegen clients, one per annotation file. What each needed by hand is its entry in the
// annotation file and the lines between "hand:NAME" and "hand:end" (lines.go counts them).

// openWritegen is the writegen client generated from api.yaml and writesafety.yaml, without a
// ledger: the provider key is derived from the order, so it is the same on every attempt, for
// every ask and after a restart.
func openWritegen(_ context.Context, baseURL string, _ state, _ *profile) (*client, error) {
	// hand:writegen
	c, err := transfers.NewClient(baseURL)
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		r, err := c.CreateTransfer(ctx, transfers.CreateTransferKey{OrderID: o.id},
			transfers.NewTransfer{OrderID: o.id, Amount: o.amount, Currency: currency})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	// hand:end
	return &client{pay: pay}, nil
}

// openWritegenWindow is the same from writesafety-window.yaml: the key's window is 1.5 s.
func openWritegenWindow(_ context.Context, baseURL string, _ state, _ *profile) (*client, error) {
	// hand:writegen-window
	c, err := transferswindow.NewClient(baseURL)
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		r, err := c.CreateTransfer(ctx, transferswindow.CreateTransferKey{OrderID: o.id},
			transferswindow.NewTransfer{OrderID: o.id, Amount: o.amount, Currency: currency})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	// hand:end
	return &client{pay: pay}, nil
}

// openWritegenLong is the same from writesafety-long.yaml: keys of at most 45 characters,
// hashed when the business key is longer.
func openWritegenLong(_ context.Context, baseURL string, _ state, _ *profile) (*client, error) {
	// hand:writegen-long
	c, err := transferslong.NewClient(baseURL)
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		r, err := c.CreateTransfer(ctx, transferslong.CreateTransferKey{OrderID: o.id},
			transferslong.NewTransfer{OrderID: o.id, Amount: o.amount, Currency: currency})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	// hand:end
	return &client{pay: pay}, nil
}

// lease is how long a claim outlives the process that stops renewing it; attempts end well
// within it.
const lease = time.Second

// resumer is what openLedgered needs of a generated client with a ledger.
type resumer interface {
	Resume(ctx context.Context) (runtime.ResumeReport, error)
}

// openLedgered opens the ledger st names (shared by the replicas of a client) and a client on
// it with newClient. At start-up, after a crash, it waits out the dead process's leases and
// resumes the writes they left claimed, as a connector's periodic Resume would.
func openLedgered[C resumer](ctx context.Context, st state, newClient func(runtime.Ledger, ...runtime.Option) (C, error), extra ...runtime.Option) (C, func() error, error) {
	var zero C
	l, err := ledgercli.Open(ctx, st.ledger)
	if err != nil {
		return zero, nil, err
	}
	c, err := newClient(l, append([]runtime.Option{runtime.WithLease(lease), runtime.WithAttemptTimeout(lease / 2)}, extra...)...)
	if err != nil {
		l.Close()
		return zero, nil, err
	}
	if st.restarted { // an earlier process may have died holding claims
		time.Sleep(lease)
		if _, err := c.Resume(ctx); err != nil {
			l.Close()
			return zero, nil, err
		}
	}
	return c, l.Close, nil
}

// openWritegenLedger is the writegen client generated with writesafety-ledger.yaml: each order
// is claimed in the client's SQLite ledger before the provider is called, under a lease.
func openWritegenLedger(ctx context.Context, baseURL string, st state, _ *profile) (*client, error) {
	// hand:writegen-ledger
	c, closeLedger, err := openLedgered(ctx, st, func(l runtime.Ledger, opts ...runtime.Option) (*transfersledger.Client, error) {
		return transfersledger.NewClient(baseURL, l, opts...)
	})
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		r, err := c.CreateTransfer(ctx, transfersledger.CreateTransferKey{OrderID: o.id},
			transfersledger.NewTransfer{OrderID: o.id, Amount: o.amount, Currency: currency})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	// hand:end
	return &client{pay: pay, close: closeLedger}, nil
}

// openWritegenLookup is the client of writesafety-lookup.yaml: no provider key; the order is
// claimed in the ledger, and a lost answer or a restart looks the reference up, at once and
// again after the settle time, before the transfer is sent again.
func openWritegenLookup(ctx context.Context, baseURL string, st state, _ *profile) (*client, error) {
	// hand:writegen-lookup
	// A commit may land after its connection was cut, up to slowCommitTime: the annotation's
	// settle time, twice that, has a search that finds nothing at once asked again after it.
	c, closeLedger, err := openLedgered(ctx, st, func(l runtime.Ledger, opts ...runtime.Option) (*transferslookup.Client, error) {
		return transferslookup.NewClient(baseURL, l, opts...)
	})
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		r, err := c.CreateTransfer(ctx, transferslookup.CreateTransferKey{OrderID: o.id}, transferslookup.CreateTransferParams{},
			transferslookup.NewTransfer{OrderID: o.id, Amount: o.amount, Currency: currency})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	// hand:end
	return &client{pay: pay, close: closeLedger}, nil
}

// openWritegenNoLookup is the client of writesafety-nolookup.yaml: no provider key, no lookup;
// the order is claimed in the ledger, and a lost answer is uncertain.
func openWritegenNoLookup(ctx context.Context, baseURL string, st state, _ *profile) (*client, error) {
	// hand:writegen-nolookup
	c, closeLedger, err := openLedgered(ctx, st, func(l runtime.Ledger, opts ...runtime.Option) (*transfersnolookup.Client, error) {
		return transfersnolookup.NewClient(baseURL, l, opts...)
	})
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		r, err := c.CreateTransfer(ctx, transfersnolookup.CreateTransferKey{OrderID: o.id}, transfersnolookup.CreateTransferParams{},
			transfersnolookup.NewTransfer{OrderID: o.id, Amount: o.amount, Currency: currency})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	// hand:end
	return &client{pay: pay, close: closeLedger}, nil
}

// openWritegenComments is the client of writesafety-comments.yaml: no provider key and no
// reference field; the comment carries its reference as a marker in its text, the order is
// claimed in the ledger, and a lost answer or a restart walks the ticket's comments newest
// first (at most 5 pages, back to the write's first send), at once and again after the settle
// time, before the comment is sent again.
func openWritegenComments(ctx context.Context, baseURL string, st state, _ *profile) (*client, error) {
	// hand:writegen-comments
	// A commit may land after its connection was cut, up to slowCommitTime: a walk that finds
	// nothing at once is asked again after that long before the comment is sent again.
	c, closeLedger, err := openLedgered(ctx, st, func(l runtime.Ledger, opts ...runtime.Option) (*comments.Client, error) {
		return comments.NewClient(baseURL, l, opts...)
	})
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		r, err := c.CreateComment(ctx, comments.CreateCommentKey{OrderID: o.id}, comments.CreateCommentParams{TicketID: o.ticket},
			comments.NewComment{Body: commentText(o)})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	// hand:end
	return &client{pay: pay, close: closeLedger}, nil
}
