package build

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/naming"
)

// MaxToolName is the longest tool name written: MCP allows 128 characters, some clients 64.
const MaxToolName = 64

// ToolsReserved are the names the code of the tools package uses other than the operations'
// tool variables and handler functions: its entry point, the packages it imports (beside the
// client), the local variables of its functions and the predeclared identifiers it writes.
var ToolsReserved = []string{
	"AddTools",
	"context", "json", "mcp", "mcptools", "strconv",
	"a", "body", "c", "ctx", "err", "key", "params", "r", "req", "s", "v",
	"error", "false", "new", "nil", "true",
}

// Ranks of the names of the tools package: the client's import keeps its name over a tool
// variable, which keeps its own over a handler function.
const (
	rankToolsClient = 0
	rankToolVar     = 1
	rankToolFunc    = 2
)

// NameTools names the agent tools of api's operations and what the tools package declares for
// them (Operation.ToolName, ToolArgs, ToolVar and ToolFunc), the package (API.ToolsPackage)
// and the name it imports the client by (API.ToolsClient). The operations are in the IR's
// order. The Go names share the package's namespace with toolsReserved and are settled
// together: one that collides is renamed deterministically (settleNames), whatever the order.
func NameTools(api *ir.API) {
	api.ToolsPackage = api.Package + "mcp"
	claims := []*naming.Claim{{Want: api.Package, Alt: "client", Key: "import " + api.Package, Rank: rankToolsClient, Got: &api.ToolsClient}}
	for _, name := range ToolsReserved {
		claims = append(claims, &naming.Claim{Want: name, Key: "reserved:" + name, Fixed: true, Got: new(string)})
	}
	taken := map[string]bool{}
	for _, op := range api.Operations {
		op.ToolName = toolName(op, taken)
		op.ToolArgs = ToolArgs(op)
		claims = append(claims,
			&naming.Claim{Want: op.Local + "Tool", Alt: "Var", Key: "tool " + op.ID, Rank: rankToolVar, Got: &op.ToolVar},
			&naming.Claim{Want: "serve" + op.GoName, Alt: "Handler", Key: "serve " + op.ID, Rank: rankToolFunc, Got: &op.ToolFunc})
	}
	naming.Settle(claims)
}

// toolName names the tool of op: its operationId when that is a valid tool name
// ([A-Za-z0-9_-], which every client accepts), else its Go name; a name longer than
// MaxToolName is cut, with a hash of the whole. A name an earlier operation (in taken) has gets
// the suffix _2, _3 ...
func toolName(op *ir.Operation, taken map[string]bool) string {
	name := op.ID
	if !ValidToolName(name) {
		name = op.GoName
	}
	if len(name) > MaxToolName {
		h := fnv.New32a()
		h.Write([]byte(name))
		name = name[:MaxToolName-9] + "_" + strconv.FormatUint(uint64(h.Sum32()), 16)
	}
	for i, base := 2, name; taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	taken[name] = true
	return name
}

// ValidToolName reports whether name is a tool name every client accepts: not empty, made of
// [A-Za-z0-9_-] only.
func ValidToolName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// ToolArgs names the top-level arguments of op's tool: the business key fields by their names
// in the annotation file, the parameters by their names in the spec (toolArgName) and "body".
// Names that two arguments would share are qualified by where they go: key_NAME, path_NAME,
// query_NAME, header_NAME, cookie_NAME ("body" keeps its name); what still collides gets the
// suffix _2, _3 ..., in order.
func ToolArgs(op *ir.Operation) []ir.ToolArg {
	var args []ir.ToolArg
	if op.Call == ir.CallWrite || op.Call == ir.CallSubmit {
		for i := range op.Safety.Key.Fields {
			kf := &op.Safety.Key.Fields[i]
			args = append(args, ir.ToolArg{Name: ToolArgName(kf.Name), Key: kf})
		}
	}
	for _, p := range op.Params {
		args = append(args, ir.ToolArg{Name: ToolArgName(p.Name), Param: p})
	}
	if op.Body != nil {
		args = append(args, ir.ToolArg{Name: "body", Body: true})
	}
	count := map[string]int{}
	for _, a := range args {
		count[a.Name]++
	}
	for i := range args {
		a := &args[i]
		if count[a.Name] < 2 || a.Body {
			continue
		}
		if a.Key != nil {
			a.Name = ToolArgName("key_" + a.Name)
		} else {
			a.Name = ToolArgName(string(a.Param.In) + "_" + a.Name)
		}
	}
	taken := map[string]bool{}
	for i := range args {
		a := &args[i]
		for n, base := 2, a.Name; taken[a.Name]; n++ {
			a.Name = base + "_" + strconv.Itoa(n)
		}
		taken[a.Name] = true
	}
	return args
}

// ToolArgName makes name a property name every client accepts: runs of other characters than
// [A-Za-z0-9_.-] become "_", trimmed at the ends, cut to 64 characters; "arg" when nothing is
// left.
func ToolArgName(name string) string {
	var b strings.Builder
	under := false
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	s := strings.Trim(b.String(), "_")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "arg"
	}
	return s
}
