package example

import (
	"os/exec"
	"strings"
	"testing"
)

// mcpSDK is the module of the MCP SDK, which only the tools package of a client may link.
const mcpSDK = "github.com/modelcontextprotocol/go-sdk"

// TestClientDoesNotLinkTheMCPSDK lists, with the go command, what the generated clients and the
// demo depend on: neither the client support (generated with -mcp) nor chat, nor the demo that
// uses them, may link the MCP SDK or writegen's support of the tools; support's tools package,
// supportmcp, and the MCP server of cmd/mcp do, which shows the list is read right.
func TestClientDoesNotLinkTheMCPSDK(t *testing.T) {
	for _, c := range []struct {
		pkg  string
		want bool // links the SDK
	}{
		{"./support", false},
		{"./chat", false},
		{"./cmd/demo", false},
		{"./support/supportmcp", true},
		{"./cmd/mcp", true},
	} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", c.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", c.pkg, err, out)
		}
		var mcp []string
		for _, p := range strings.Fields(string(out)) {
			if p == mcpSDK || strings.HasPrefix(p, mcpSDK+"/") || p == "github.com/writegen/writegen/runtime/mcptools" {
				mcp = append(mcp, p)
			}
		}
		switch {
		case c.want && len(mcp) == 0:
			t.Errorf("%s does not link the MCP SDK: the test no longer reads what the go command lists", c.pkg)
		case !c.want && len(mcp) > 0:
			t.Errorf("%s links %d packages of the MCP tools: %s", c.pkg, len(mcp), strings.Join(mcp, ", "))
		}
	}
}
