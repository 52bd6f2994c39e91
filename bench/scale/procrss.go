package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// rssSampler follows the compilers a go build runs at once and records the largest sum of their
// resident sets: the memory a build of several packages needs, which rusage cannot tell (it
// gives the largest process only). It reads /proc, so it samples nothing where there is none.
type rssSampler struct {
	root int // the go build process
	stop chan struct{}
	wg   sync.WaitGroup
	peak int64 // bytes
}

// sampleInterval is how often the sampler looks; a compile of a large package lasts seconds.
const sampleInterval = 50 * time.Millisecond

// startRSSSampler starts sampling the compile processes under root.
func startRSSSampler(root int) *rssSampler {
	s := &rssSampler{root: root, stop: make(chan struct{})}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return s
	}
	page := int64(os.Getpagesize())
	s.wg.Go(func() {
		t := time.NewTicker(sampleInterval)
		defer t.Stop()
		for {
			s.peak = max(s.peak, compileRSS(s.root, page))
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	})
	return s
}

// finish stops sampling and returns the peak, 0 when nothing was sampled.
func (s *rssSampler) finish() int64 {
	close(s.stop)
	s.wg.Wait()
	return s.peak
}

// compileRSS returns the summed resident set of the compile processes descending from root.
func compileRSS(root int, page int64) int64 {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	parent := make(map[int]int, len(stats))
	var compiles []int
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis.
		open, end := strings.IndexByte(string(data), '('), strings.LastIndexByte(string(data), ')')
		if open < 0 || end < open {
			continue
		}
		pid, err1 := strconv.Atoi(strings.TrimSpace(string(data[:open])))
		rest := strings.Fields(string(data[end+1:]))
		if err1 != nil || len(rest) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(rest[1])
		parent[pid] = ppid
		if string(data[open+1:end]) == "compile" {
			compiles = append(compiles, pid)
		}
	}
	var sum int64
	for _, pid := range compiles {
		if !descends(pid, root, parent) {
			continue // another build on a shared machine
		}
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(data)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			sum += pages * page
		}
	}
	return sum
}

// descends reports whether pid is root or descends from it.
func descends(pid, root int, parent map[int]int) bool {
	for range 16 { // go build -> toolexec wrapper -> compile: a few levels at most
		if pid == root {
			return true
		}
		next, ok := parent[pid]
		if !ok || next == pid || next == 0 {
			return false
		}
		pid = next
	}
	return false
}
