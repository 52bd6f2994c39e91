package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/writegen/writegen/spec/annot"
)

// configFile is the file generate and check read their inputs from when it is in the current
// directory, so that a //go:generate line needs no flags:
//
//	# writegen.yaml
//	spec: api.yaml
//	annotations: writesafety.yaml
//	out: support
//	package: support   # optional: default the annotation file's package
//	mcp: true          # optional: also write the MCP tools (-mcp)
//
// Paths are relative to the file. A flag given on the command line wins over the file.
const configFile = "writegen.yaml"

// configKeys are the keys a config file may hold, in the order they are documented.
var configKeys = []string{"spec", "annotations", "out", "package", "mcp"}

// readConfig fills the fields of f that no flag set (set names the flags given) from the config
// file at path. A missing file is no error when the path was not asked for explicitly.
func readConfig(f *genFlags, path string, explicit bool, set map[string]bool) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return nil
	}
	if err != nil {
		return fmt.Errorf("-config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if len(doc.Content) == 0 {
		return fmt.Errorf("%s:1:1: empty config file: want %s", path, joinKeys())
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d:%d: want a mapping of %s", path, root.Line, root.Column, joinKeys())
	}
	dir := filepath.Dir(path)
	fields := map[string]*string{"spec": &f.spec, "annotations": &f.annotations, "out": &f.out, "package": &f.pkg}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if !slices.Contains(configKeys, k.Value) {
			return fmt.Errorf("%s:%d:%d: unknown key %q%s (known: %s)", path, k.Line, k.Column, k.Value, annot.Suggest(k.Value, configKeys), joinKeys())
		}
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Value == "" {
			return fmt.Errorf("%s:%d:%d: %s: want a non-empty string", path, v.Line, v.Column, k.Value)
		}
		if set[k.Value] {
			continue
		}
		if k.Value == "mcp" {
			if v.ShortTag() != "!!bool" || v.Decode(&f.mcp) != nil {
				return fmt.Errorf("%s:%d:%d: mcp: want true or false", path, v.Line, v.Column)
			}
			continue
		}
		value := v.Value
		if k.Value != "package" && !filepath.IsAbs(value) {
			value = filepath.Join(dir, value)
		}
		*fields[k.Value] = value
	}
	return nil
}

func joinKeys() string {
	s := ""
	for i, k := range configKeys {
		if i > 0 {
			s += ", "
		}
		s += k
	}
	return s
}
