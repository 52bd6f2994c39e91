package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/writegen/writegen/runtime"
)

// Adoption assigns the rows written before ledgers had scopes (version 1
// of the schema: scope and tenant "", operation the operationId) to the
// client that writes them now.
type Adoption struct {
	Scope  string // the provider scope of the client's annotation file; required
	Tenant string // the tenant its calls carry (WithTenant), "" for none
	// Operations maps an operationId of the old rows to its key scope
	// (key.scope in the annotation file). An operationId it does not name
	// gets the default key scope, DefaultKeyScope(operationId).
	Operations map[string]string
}

// Adopted is what Adopt did with the rows of one old operation.
type Adopted struct {
	OperationID string // the operation of the old rows
	Operation   string // their key scope now
	Rows        int
	Default     bool // the key scope is DefaultKeyScope's, not from Adoption.Operations
}

// Adopt moves every unscoped row to a.Scope and a.Tenant, with the key
// scope of its operation, in one transaction: all of them or none. When a
// moved row's identity is claimed already in the new scope (a new client
// wrote the same business key before the adoption), nothing is moved and
// the error lists the pairs of rows. With dryRun, it reports what it would
// do and changes nothing.
func (l *Ledger) Adopt(ctx context.Context, a Adoption, dryRun bool) ([]Adopted, error) {
	if err := checkName("scope", a.Scope); err != nil {
		return nil, fmt.Errorf("ledger: adopt: %w", err)
	}
	for from, to := range a.Operations {
		if err := checkName("key scope of "+from, to); err != nil {
			return nil, fmt.Errorf("ledger: adopt: %w", err)
		}
	}
	var done []Adopted
	errDryRun := errors.New("dry run")
	err := l.InTx(ctx, func(tx Querier) error {
		rows, err := tx.Query(ctx, claimsUnscopedOperations)
		if err != nil {
			return err
		}
		done, err = scanAll(rows, func(s scanner) (Adopted, error) {
			var o Adopted
			return o, s.Scan(&o.OperationID, &o.Rows)
		})
		if err != nil {
			return err
		}
		var conflicts []string
		for i := range done {
			o := &done[i]
			if to, ok := a.Operations[o.OperationID]; ok {
				o.Operation = to
			} else if o.Operation, o.Default = DefaultKeyScope(o.OperationID), true; o.Operation == "" {
				return fmt.Errorf("operation %q has no default key scope: name it with its key scope", o.OperationID)
			}
			rows, err := tx.Query(ctx, claimsAdoptConflicts, a.Scope, a.Tenant, o.OperationID, o.Operation)
			if err != nil {
				return err
			}
			pairs, err := scanAll(rows, func(s scanner) (p [2]int64, err error) { return p, s.Scan(&p[0], &p[1]) })
			if err != nil {
				return err
			}
			for _, p := range pairs {
				conflicts = append(conflicts, fmt.Sprintf("row %d (%s) and row %d", p[0], o.OperationID, p[1]))
			}
			if !dryRun && len(conflicts) == 0 {
				if _, err := tx.Exec(ctx, claimsAdopt, a.Scope, a.Tenant, o.OperationID, o.Operation, micros(l.clock.Now())); err != nil {
					return fmt.Errorf("operation %q: %w", o.OperationID, err)
				}
			}
		}
		if len(conflicts) > 0 {
			more := ""
			if len(conflicts) > 10 {
				conflicts, more = conflicts[:10], fmt.Sprintf(" and %d more", len(conflicts)-10)
			}
			return fmt.Errorf("%d unscoped rows have the identity of a row of %s already: %s%s; nothing was moved",
				len(conflicts), describe(runtime.Identity{Scope: a.Scope, Tenant: a.Tenant}), strings.Join(conflicts, ", "), more)
		}
		if dryRun {
			return errDryRun
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDryRun) {
		return nil, fmt.Errorf("ledger: adopt into %s: %w", describe(runtime.Identity{Scope: a.Scope, Tenant: a.Tenant}), err)
	}
	return done, nil
}

// DefaultKeyScope is the key scope an annotation entry without key.scope
// gets: its name lower-cased, each run of characters other than a-z, 0-9,
// '.', '_' and '-' replaced by '-', without a leading '-', '.' or '_' or
// a trailing '-'; "" when nothing is left.
func DefaultKeyScope(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(strings.TrimLeft(b.String(), "-._"), "-")
}

// checkName checks a scope or key scope: [a-z0-9][a-z0-9._-]*.
func checkName(what, s string) error {
	if s == "" {
		return fmt.Errorf("a %s is required", what)
	}
	for i, r := range s {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || i > 0 && (r == '.' || r == '_' || r == '-')) {
			return fmt.Errorf("%s %q: want lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", what, s)
		}
	}
	return nil
}
