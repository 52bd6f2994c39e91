package writegenimpl

import (
	"io"
	"log/slog"
	"os"
	"testing"
)

// TestMain keeps the uncertain outcomes that tests without a notifier log
// at level ERROR (see recordUncertain) out of the test output.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}
