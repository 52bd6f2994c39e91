package main

import (
	"context"
	"os"
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

// lease is how long a claim outlives the process that stops renewing it; attempts end well
// within it.
const lease = time.Second

// openWritegenLedger is the writegen client generated with writesafety-ledger.yaml: each order
// is claimed in an SQLite ledger in dir before the provider is called, under a lease. At
// start-up, after a crash, it waits out the dead process's leases and resumes the writes they
// left claimed, as a connector's periodic Resume would.
func openWritegenLedger(ctx context.Context, baseURL, dir string) (*client, error) {
	path := filepath.Join(dir, "ledger.db")
	_, statErr := os.Stat(path)
	l, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	c, err := transfersledger.NewClient(baseURL, l, runtime.WithLease(lease), runtime.WithAttemptTimeout(lease/2))
	if err != nil {
		l.Close()
		return nil, err
	}
	if statErr == nil { // a restart: an earlier process may have died holding claims
		time.Sleep(lease)
		if _, err := c.Resume(ctx); err != nil {
			l.Close()
			return nil, err
		}
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
