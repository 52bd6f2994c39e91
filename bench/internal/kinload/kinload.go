// Package kinload is the baseline the generation benchmarks (bench/generate, bench/scale)
// measure writegen against: kin-openapi loading a spec and nothing else.
package kinload

import "github.com/getkin/kin-openapi/openapi3"

// Load loads the spec at path with kin-openapi's loader, as writegen does before anything else,
// and returns its number of operations.
func Load(path string) (int, error) {
	doc, err := openapi3.NewLoader().LoadFromFile(path)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, item := range doc.Paths.Map() {
		n += len(item.Operations())
	}
	return n, nil
}
