package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/writegen/writegen/bench/internal/child"
)

// sample and series are the child package's: what one run of a child process cost, and the
// samples of one measured thing.
type (
	sample = child.Sample
	series = child.Series
)

// toolexecMode is the first argument that makes this program run as the go command's
// -toolexec wrapper: toolexecMode LOG TOOL ARGS... runs the tool and appends its cost to LOG.
const toolexecMode = "-toolexec-log"

// toolRecord is one line of a toolexec log: one run of a compiler tool.
type toolRecord struct {
	Tool    string `json:"tool"`    // "compile", "asm", ...
	Package string `json:"package"` // the import path the go command builds
	Wall    int64  `json:"wall_ns"`
	CPU     int64  `json:"cpu_ns"`
	MaxRSS  int64  `json:"max_rss"`
}

// toolexec runs a tool as the go command asked and logs what it cost. It returns the exit
// status to end with.
func toolexec(log string, tool string, args []string) int {
	cmd := exec.Command(tool, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "scale: toolexec:", err)
		return 1
	}
	if slices.Contains(args, "-V=full") { // the go command asks the tool's version: nothing to log
		return cmd.ProcessState.ExitCode()
	}
	cpu, rss, uerr := child.Usage(cmd.ProcessState)
	if uerr != nil {
		fmt.Fprintln(os.Stderr, "scale: toolexec:", uerr)
		return 1
	}
	name := tool[strings.LastIndexAny(tool, `/\`)+1:]
	name = strings.TrimSuffix(name, ".exe")
	line, _ := json.Marshal(toolRecord{Tool: name, Package: os.Getenv("TOOLEXEC_IMPORTPATH"),
		Wall: int64(wall), CPU: int64(cpu), MaxRSS: rss})
	f, ferr := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if ferr == nil {
		_, ferr = f.Write(append(line, '\n')) // one short write: lines of parallel tools do not mix
		ferr = errors.Join(ferr, f.Close())
	}
	if ferr != nil {
		fmt.Fprintln(os.Stderr, "scale: toolexec:", ferr)
		return 1
	}
	return cmd.ProcessState.ExitCode()
}

// readToolLog returns the records of a toolexec log.
func readToolLog(path string) ([]toolRecord, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []toolRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r toolRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

// loadAverage returns the first line of /proc/loadavg, or "" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// durationOf converts nanoseconds from a toolexec log.
func durationOf(ns int64) time.Duration { return time.Duration(ns) }
