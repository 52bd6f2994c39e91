//go:build race

package writegenimpl

// raceEnabled reports whether the race detector is on: it allocates
// besides the code under test.
const raceEnabled = true
