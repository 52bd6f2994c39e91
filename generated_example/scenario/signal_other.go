//go:build !unix

package scenario

import (
	"errors"
	"os"
)

var errNoStop = errors.New("stopping a process needs a unix system")

// stop stops process p until cont; only on unix systems.
func stop(*os.Process) error { return errNoStop }

// cont lets process p go on; only on unix systems.
func cont(*os.Process) error { return errNoStop }
