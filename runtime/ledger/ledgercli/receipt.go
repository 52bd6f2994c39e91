package ledgercli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/writegen/writegen/runtime"
)

// EnvSafety is the environment variable that names the generated package's
// WRITE_SAFETY.json when resolve's -safety is not given.
const EnvSafety = "WRITEGEN_SAFETY"

// receiptID is where the receipt of one write has its durable id, as the
// generated package's WRITE_SAFETY.json records it.
type receiptID struct {
	Operation string `json:"operation"`
	Scope     string `json:"scope"`
	KeyScope  string `json:"key_scope"`
	Pointer   string `json:"receipt_id"`      // in the write's 2xx answer: /number, /ticket/id
	Type      string `json:"receipt_id_type"` // string or integer
	Of        string `json:"receipt_of"`      // the schema of the object: Issue
}

// what says which id the provider wants: "the durable id at /number of
// the Issue (an integer)".
func (r receiptID) what() string {
	s := "the durable id at " + r.Pointer + " of the " + r.Of
	if r.Type == "integer" {
		s += " (an integer)"
	}
	return s
}

// receiptOf returns where the receipt of row's write has its durable id,
// from the WRITE_SAFETY.json at path: the write of the row's scope and key
// scope.
func receiptOf(path string, row runtime.Record) (receiptID, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return receiptID{}, err
	}
	var rec struct {
		Version int         `json:"version"`
		Writes  []receiptID `json:"writes"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return receiptID{}, fmt.Errorf("%s: %w", path, err)
	}
	for _, w := range rec.Writes {
		if w.Scope != row.Scope || w.KeyScope != row.Operation {
			continue
		}
		if w.Pointer == "" {
			return w, fmt.Errorf("%s (version %d) records no receipt id of %s: regenerate the package with this writegen, or resolve without -safety", path, rec.Version, w.Operation)
		}
		return w, nil
	}
	return receiptID{}, fmt.Errorf("row %d (%s %s) is no write of %s: give the WRITE_SAFETY.json of the package that writes it", row.ID, orDash(row.Scope, "(unscoped)"), row.Operation, path)
}

// checkProviderID checks id against where the receipt has its durable id.
func (r receiptID) checkProviderID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: -committed needs -provider-id: %s that %s made", errUsage, r.what(), r.Operation)
	}
	if r.Type == "integer" {
		if _, err := strconv.ParseInt(id, 10, 64); err != nil {
			return fmt.Errorf("%w: -provider-id %q: %s wants %s", errUsage, id, r.Operation, r.what())
		}
	}
	return nil
}
