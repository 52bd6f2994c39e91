package main

import (
	"embed"
	"strings"
)

// sources are the bench's own files the hand-written lines are counted from.
//
//go:embed anchors.go careful.go writegen.go writesafety*.yaml
var sources embed.FS

// handLines counts what a client needed by hand: the lines of code between "// hand:NAME" and
// "// hand:end" in the bench's Go files, and the lines of its annotation file (yaml, "" for
// none), blank lines and comments left out.
func handLines(name, yaml string) int {
	n := 0
	for _, f := range []string{"anchors.go", "careful.go", "writegen.go"} {
		b, _ := sources.ReadFile(f)
		in := false
		for _, line := range strings.Split(string(b), "\n") {
			t := strings.TrimSpace(line)
			switch {
			case t == "// hand:"+name:
				in = true
			case t == "// hand:end":
				in = false
			case in && t != "" && !strings.HasPrefix(t, "//"):
				n++
			}
		}
	}
	if yaml != "" {
		b, _ := sources.ReadFile(yaml)
		for _, line := range strings.Split(string(b), "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				n++
			}
		}
	}
	return n
}
