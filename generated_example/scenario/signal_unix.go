//go:build unix

package scenario

import (
	"os"
	"syscall"
)

// stop stops process p (SIGSTOP) until cont.
func stop(p *os.Process) error { return p.Signal(syscall.SIGSTOP) }

// cont lets process p go on (SIGCONT).
func cont(p *os.Process) error { return p.Signal(syscall.SIGCONT) }
