package load

import (
	"strings"

	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// BaseURL returns the URL of the spec's first server with its variables at their defaults, and
// warnings with what it adds to them: "" when the spec declares no server, or when the URL
// uses a variable the server does not declare (a warning: the caller must then give NewClient a
// base URL). The URL is kept as it is written otherwise, a relative one ("/v1") included: it is
// relative to where the spec is served, which only the caller knows. Swagger 2.0's first
// scheme (https when none is listed), host and basePath make its server, as kin-openapi
// converts them; without a host, the basePath alone is a relative URL.
func (d *Document) BaseURL(warnings ir.ErrorList) (string, ir.ErrorList) {
	if len(d.API.Servers) == 0 || d.API.Servers[0] == nil {
		return "", warnings
	}
	s := d.API.Servers[0]
	var at *yaml.Node // the server's url, or Swagger's host
	if d.V2 {
		_, at = d.Child(d.Root, "host")
		if at == nil {
			_, at = d.Child(d.Root, "basePath")
		}
	} else if _, list := d.Child(d.Root, "servers"); list != nil && list.Kind == yaml.SequenceNode && len(list.Content) > 0 {
		_, at = d.Child(list.Content[0], "url")
	}
	var b strings.Builder
	for rest := s.URL; rest != ""; {
		open := strings.IndexByte(rest, '{')
		end := strings.IndexByte(rest[open+1:], '}')
		if open < 0 || end < 0 {
			b.WriteString(rest)
			break
		}
		name := rest[open+1 : open+1+end]
		v := s.Variables[name]
		if v == nil {
			warnings = append(warnings, d.Errorf(at, "", "server URL %q uses the variable {%s}, which the server does not declare: the client has no default base URL (declare it under variables with a default)", s.URL, name))
			return "", warnings
		}
		b.WriteString(rest[:open])
		b.WriteString(v.Default)
		rest = rest[open+1+end+1:]
	}
	return b.String(), warnings
}
