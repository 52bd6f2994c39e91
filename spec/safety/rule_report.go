package safety

// report records who is told of an uncertain outcome and what a credential rotation does.
func (w *writeCheck) report() bool {
	s := w.s
	if src := w.from("uncertain"); src != nil && src.Uncertain != "" {
		s.Uncertain = src.Uncertain
	}
	if src := w.from("owner"); src != nil {
		s.Owner = src.Owner
	}
	if src := w.from("credentials"); src != nil && src.Credentials != nil {
		c := *src.Credentials
		s.Credentials = &c
	}
	return true
}
