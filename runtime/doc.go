// Package runtime is linked by every client writegen generates: it sends
// writes so that each logical write has at most one effect, or ends as an
// uncertain outcome that a person reconciles.
package runtime
