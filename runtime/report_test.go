package runtime

import "testing"

func TestResumeReportAdd(t *testing.T) {
	a := ResumeReport{Taken: 3, Active: 1, Rejected: 1, Uncertain: 1, Compensated: 2}
	b := ResumeReport{Taken: 2, NotApplied: 1, Uncertain: 1}
	if got, want := a.Add(b), (ResumeReport{Taken: 5, Active: 1, Rejected: 1, NotApplied: 1, Uncertain: 2, Compensated: 2}); got != want {
		t.Errorf("Add = %+v, want %+v", got, want)
	}
}

// TestStatusErrorSentinels: a StatusError matches the sentinel of the
// state it settled, and one built by hand the one its status says.
func TestStatusErrorSentinels(t *testing.T) {
	for _, tc := range []struct {
		e    *StatusError
		want error
	}{
		{&StatusError{Status: 400}, ErrRejected},
		{&StatusError{Status: 429}, ErrNotApplied},
		{&StatusError{Status: 503}, nil},
		{&StatusError{Status: 401, State: StateNotApplied}, ErrNotApplied},
		{&StatusError{Status: 400, State: StateUncertain}, nil},
		{&StatusError{Status: 307, State: StateRejected}, ErrRejected},
	} {
		for _, s := range []error{ErrRejected, ErrNotApplied, ErrUncertain} {
			if got := tc.e.Is(s); got != (s == tc.want) {
				t.Errorf("%+v Is %v = %v", tc.e, s, got)
			}
		}
	}
}
