package runtime

// Effect says what repeating an operation does to the provider's state.
type Effect uint8

// The effects an annotation can declare.
const (
	EffectReadOnly      Effect = iota + 1 // no effect
	EffectIdempotent                      // repeating it is harmless (PUT, DELETE)
	EffectCompensatable                   // a duplicate is a second effect that another operation can undo
	EffectAmbiguous                       // a duplicate is a second effect
)

func (e Effect) String() string {
	switch e {
	case EffectReadOnly:
		return "read_only"
	case EffectIdempotent:
		return "idempotent"
	case EffectCompensatable:
		return "compensatable"
	case EffectAmbiguous:
		return "ambiguous"
	}
	return "unknown"
}

// Consistency describes the lookup an operation declares.
type Consistency uint8

// The kinds of lookup.
const (
	NoLookup Consistency = iota // no lookup
	Strong                      // "not found" means the write did not commit
	Eventual                    // "found" can be adopted; "not found" proves nothing
)

func (c Consistency) String() string {
	switch c {
	case NoLookup:
		return "none"
	case Strong:
		return "strong"
	case Eventual:
		return "eventual"
	}
	return "unknown"
}
