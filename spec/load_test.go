package spec

import (
	"testing"
)

func TestLoadThreads(t *testing.T) {
	api, err := Load("testdata/threads.yaml", "testdata/threads.writesafety.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(dumpAPI(api))
}
