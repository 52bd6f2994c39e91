package spec

import "testing"

// TestDefaultBaseURL checks that the spec's first server, with its variables at their defaults,
// is the default base URL, a relative one as it is written, and that Swagger 2.0's scheme, host
// and basePath make one.
func TestDefaultBaseURL(t *testing.T) {
	const paths = "paths: {}\n"
	cases := []struct{ name, spec, want, warnings string }{
		{"none.yaml", "openapi: 3.0.3\ninfo: {title: x, version: \"1\"}\n" + paths, "", ""},
		{"plain.yaml", "openapi: 3.0.3\ninfo: {title: x, version: \"1\"}\nservers: [{url: \"https://api.example.com/v1\"}, {url: \"https://sandbox.example.com/v1\"}]\n" + paths,
			"https://api.example.com/v1", ""},
		{"vars.yaml", `openapi: 3.1.0
info: {title: x, version: "1"}
servers:
  - url: "https://{region}.example.com:{port}/{version}"
    variables:
      region: {default: eu, enum: [eu, us]}
      port: {default: "8443"}
      version: {default: v2}
` + paths, "https://eu.example.com:8443/v2", ""},
		{"relative.yaml", "openapi: 3.0.3\ninfo: {title: x, version: \"1\"}\nservers: [{url: /v1}]\n" + paths, "/v1", ""},
		{"undeclared.yaml", "openapi: 3.0.3\ninfo: {title: x, version: \"1\"}\nservers: [{url: \"https://{tenant}.example.com\"}]\n" + paths, "",
			`undeclared.yaml:3:17: server URL "https://{tenant}.example.com" uses the variable {tenant}, which the server does not declare: the client has no default base URL (declare it under variables with a default)`},
		{"swagger.yaml", "swagger: \"2.0\"\ninfo: {title: x, version: \"1\"}\nhost: api.example.com\nbasePath: /v1\nschemes: [http, https]\n" + paths, "http://api.example.com/v1", ""},
		{"swagger-https.yaml", "swagger: \"2.0\"\ninfo: {title: x, version: \"1\"}\nhost: api.example.com\n" + paths, "https://api.example.com/", ""},
		{"swagger-relative.yaml", "swagger: \"2.0\"\ninfo: {title: x, version: \"1\"}\nbasePath: /api\n" + paths, "/api", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api, errs, warnings := loadCase(t, c.name, c.spec, "version: 1\npackage: x\nscope: x\n")
			if errs != "" {
				t.Fatal(errs)
			}
			if api.DefaultBaseURL != c.want || warnings != c.warnings {
				t.Errorf("got %q, warnings:\n%s\nwant %q, warnings:\n%s", api.DefaultBaseURL, warnings, c.want, c.warnings)
			}
		})
	}
}
