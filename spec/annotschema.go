package spec

import _ "embed"

// AnnotationSchema is the JSON Schema (draft 2020-12) of the annotation file, for editors: writegen
// init points the file's "# yaml-language-server: $schema=" line at SchemaURL, and "writegen
// schema" prints it. The parser is the authority; the schema describes the same format, and a
// test holds the two together.
//
//go:embed writesafety.schema.json
var AnnotationSchema []byte

// SchemaURL is where editors find AnnotationSchema: writegen init names it on the first line of
// the file it writes.
const SchemaURL = "https://raw.githubusercontent.com/writegen/writegen/main/spec/writesafety.schema.json"
