package main

import (
	"context"
	"path/filepath"
	"time"

	"github.com/writegen/writegen/bench/duplicates/transfers"
	"github.com/writegen/writegen/bench/duplicates/transfersledger"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// openWritegen is the writegen client generated from api.yaml and writesafety.yaml, without a
// ledger: the provider key is derived from the order, so it is the same on every attempt, for
// every ask and after a restart.
func openWritegen(_ context.Context, baseURL, _ string) (*client, error) {
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
	return &client{pay: pay}, nil
}

// openWritegenLedger is the writegen client generated with writesafety-ledger.yaml: each order
// is claimed in an SQLite ledger in dir before the provider is called. At start-up it resumes
// the writes a crash left claimed; only one process runs at a time, so every row claimed
// before start-up is orphaned and may be resumed at once.
func openWritegenLedger(ctx context.Context, baseURL, dir string) (*client, error) {
	l, err := sqlite.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return nil, err
	}
	c, err := transfersledger.NewClient(baseURL, l, runtime.WithResumeAfter(time.Nanosecond))
	if err != nil {
		l.Close()
		return nil, err
	}
	if err := c.Resume(ctx); err != nil {
		l.Close()
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
	return &client{pay: pay, close: l.Close}, nil
}
