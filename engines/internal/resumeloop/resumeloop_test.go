package resumeloop

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

type counter struct{ n atomic.Int32 }

func (c *counter) Resume(context.Context) (runtime.ResumeReport, error) {
	c.n.Add(1)
	return runtime.ResumeReport{}, nil
}

// While resumes until stopped, and no Resume runs after stop returns.
func TestWhile(t *testing.T) {
	var c counter
	stop := While(context.Background(), &c, time.Millisecond)
	for c.n.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	stop()
	n := c.n.Load()
	time.Sleep(5 * time.Millisecond)
	if c.n.Load() != n {
		t.Fatalf("Resume ran after stop returned: %d then %d", n, c.n.Load())
	}
	While(context.Background(), nil, time.Millisecond)()
	While(context.Background(), &c, 0)()
}
