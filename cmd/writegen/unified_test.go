package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestUnifiedAppliesWithPatch writes diffs of random edits of a file and applies each with the
// system's patch: the result must be the new file.
func TestUnifiedAppliesWithPatch(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch is not installed: the diffs are not applied")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		var lines []string
		for j := range 5 + r.IntN(80) {
			lines = append(lines, "line "+strconv.Itoa(j))
		}
		old := strings.Join(lines, "\n") + "\n"
		for range 1 + r.IntN(6) {
			at := r.IntN(len(lines) + 1)
			switch r.IntN(3) {
			case 0:
				lines = append(lines[:at], append([]string{"new " + strconv.Itoa(r.IntN(1000))}, lines[at:]...)...)
			case 1:
				if at < len(lines) {
					lines = append(lines[:at], lines[at+1:]...)
				}
			default:
				if at < len(lines) {
					lines[at] = "changed " + strconv.Itoa(r.IntN(1000))
				}
			}
		}
		new := strings.Join(lines, "\n") + "\n"
		dir := t.TempDir()
		file := filepath.Join(dir, "f.go")
		if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		var d bytes.Buffer
		writeUnified(&d, "f.go", []byte(old), []byte(new))
		cmd := exec.Command(patch, "-s", "-p1", "--no-backup-if-mismatch")
		cmd.Dir, cmd.Stdin = dir, &d
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch: %v: %s\n%s", i, err, out, d.String())
		}
		if got, _ := os.ReadFile(file); string(got) != new {
			t.Fatalf("case %d: patched file differs from the new one\ndiff:\n%s", i, d.String())
		}
	}
}

// TestUnifiedFormat checks one diff line by line.
func TestUnifiedFormat(t *testing.T) {
	var d bytes.Buffer
	writeUnified(&d, "client/models.go", []byte("a\nb\nc\nd\ne\nf\ng\nh\n"), []byte("a\nb\nc\nD\ne\nf\ng\nh\ni\n"))
	want := `--- a/client/models.go
+++ b/client/models.go
@@ -1,8 +1,9 @@
 a
 b
 c
-d
+D
 e
 f
 g
 h
+i
`
	if d.String() != want {
		t.Errorf("got\n%s\nwant\n%s", d.String(), want)
	}
}
