package templates

import (
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"testing"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// TestRetryConstants holds retryConst to the runtime: for every kind of writegenimpl.RetryKinds, the
// name the generated code writes is an exported constant of package runtime, of type Retry and
// of that kind's value. A kind added to the runtime under a name the rule does not give fails
// here, before a generated package fails to compile.
func TestRetryConstants(t *testing.T) {
	pkg, err := importer.ForCompiler(token.NewFileSet(), "source", nil).Import("github.com/writegen/writegen/runtime")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range writegenimpl.RetryKinds() {
		name := retryConst(k)
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if !ok {
			t.Errorf("%s: runtime has no constant %s", k, name)
			continue
		}
		v, exact := constant.Uint64Val(c.Val())
		if named, ok := c.Type().(*types.Named); !ok || named.Obj().Name() != "Retry" || !exact || runtime.Retry(v) != k {
			t.Errorf("%s: runtime.%s is %s = %s, want Retry = %d", k, name, c.Type(), c.Val(), k)
		}
	}
}

// TestEnumConstants holds effectConst and consistencyConst to the runtime as TestRetryConstants
// does retryConst: for every effect and every consistency a lookup has, the name the generated
// code writes is an exported constant of package runtime, of the enum's type and of that value.
func TestEnumConstants(t *testing.T) {
	pkg, err := importer.ForCompiler(token.NewFileSet(), "source", nil).Import("github.com/writegen/writegen/runtime")
	if err != nil {
		t.Fatal(err)
	}
	check := func(value uint64, typ, name string) {
		t.Helper()
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if !ok {
			t.Errorf("runtime has no constant %s", name)
			return
		}
		v, exact := constant.Uint64Val(c.Val())
		if named, ok := c.Type().(*types.Named); !ok || named.Obj().Name() != typ || !exact || v != value {
			t.Errorf("runtime.%s is %s = %s, want %s = %d", name, c.Type(), c.Val(), typ, value)
		}
	}
	for _, e := range []runtime.Effect{runtime.EffectReadOnly, runtime.EffectIdempotent, runtime.EffectCompensatable, runtime.EffectAmbiguous} {
		check(uint64(e), "Effect", effectConst(e))
	}
	for _, c := range []runtime.Consistency{runtime.Strong, runtime.Eventual} {
		check(uint64(c), "Consistency", consistencyConst(c))
	}
}
