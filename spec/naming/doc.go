// Package naming turns the names a spec writes into Go identifiers, and settles the names that
// collide: GoName and Literal spell one name, Settle gives every Claim of a namespace a name of
// its own, by rank and by what was written, never by the order claims are made in (see the
// package spec's documentation, # Names).
package naming
